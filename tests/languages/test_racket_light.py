"""Racket: a `#lang racket` program that names nothing outside racket/base and a few libraries runs in a light
module language of just them (languages/racket.py, `lightened`), with the verdicts and reports of `racket`."""

from __future__ import annotations

import pytest
from helpers import keep_published_verdicts, language_or_skip, published_programs

from pytest_codeeval.languages import racket
from pytest_codeeval.sandbox import get_executor
from pytest_codeeval.sandbox.api import Limits

TESTS = ("\n(require rackunit)\n\n(define (test-humaneval) \n  (let (( candidate f))\n"
         "    (check-within (candidate 1) 2 0.001)\n    (check-within (candidate 2) 3 0.001)\n))\n\n(test-humaneval)")
# (a completion of f, whether it runs in the light language)
PROGRAMS = {
    "base and racket/list": ("(define (f x) (+ (first (list x)) 1))", True),
    "a light name redefined": ("(define (first x) x)\n(define (f x) (add1 (first x)))", True),
    "a name only in a comment": (";; as with a set, or a match\n(define (f x) (add1 x))", True),
    "racket/match": ("(define (f x) (match x [n (add1 n)]))", False),
    "racket/format, in a string": ('(define (f x) (add1 (string->number (format "~a" x))))\n(define s "~a")', False),
    "after a character literal": ("(define c #\\;)\n(define (f x) (match x [n (add1 n)]))", False),
    "racket/set": ("(define (f x) (+ x (set-count (set x))))", False),
}


def program(completion: str) -> str:
    return "#lang racket\n\n;; f adds one\n" + completion + "\n" + TESTS


@pytest.mark.parametrize("case", sorted(PROGRAMS))
def test_a_program_runs_light_only_where_it_names_nothing_more(case: str) -> None:
    language = language_or_skip("rkt")
    completion, light = PROGRAMS[case]
    text = language.lightened(program(completion))
    assert text.startswith("#lang s-exp (file ") == light
    assert text.count("\n") == program(completion).count("\n")  # the same lines: reports name the same ones
    outcome = language.run(program(completion), Limits(cpu_seconds=10), get_executor("strict"),
                           tests_at=program(completion).index("(require rackunit)"))
    assert (outcome.status, outcome.detail) == ("passed", "ok"), outcome.output


def test_a_failing_program_reads_the_same_as_under_racket(monkeypatch: pytest.MonkeyPatch) -> None:
    language = language_or_skip("rkt")
    failing = program("(define (f x) (vector-ref (vector x) (- x 1)))")
    assert language.lightened(failing).startswith("#lang s-exp")
    details = []
    for light in (True, False):
        if not light:
            monkeypatch.setattr(racket, "light_language", lambda: None)
            assert language.lightened(failing) == failing
        outcome = language.run(failing, Limits(cpu_seconds=10), get_executor("strict"))
        details.append((outcome.status, outcome.detail))
    assert details[0] == details[1] and details[0][0] == "failed", details


def test_a_light_run_collects_garbage_after_64_mib_allocated(monkeypatch: pytest.MonkeyPatch) -> None:
    """Set while the light language expands the program; a program in `racket` keeps Racket CS's 8 MiB."""
    language = language_or_skip("rkt")
    probe = program("(require ffi/unsafe/vm)\n(eprintf \"trip: ~a\\n\" (vm-eval '(collect-trip-bytes)))\n(exit 3)\n"
                    "(define (f x) (add1 x))")
    trips = []
    for light in (True, False):
        if not light:
            monkeypatch.setattr(racket, "light_language", lambda: None)
        assert language.lightened(probe).startswith("#lang s-exp") == light
        output = language.run(probe, Limits(cpu_seconds=10), get_executor("strict")).output
        trips.append(next(line for line in output.splitlines() if line.startswith("trip: ")))
    assert trips == [f"trip: {64 * 1024**2}", f"trip: {8 * 1024**2}"], trips


def test_a_decoy_runs_in_its_real_run_s_language() -> None:
    """The one word naming racket/set is an expected value, which a decoy may move: both runs are light."""
    language = language_or_skip("rkt")
    text = program("(define (f x) x)").replace("(candidate 2) 3", '(candidate 2) "set"')
    tests_at = text.index("(require rackunit)")
    firsts = {language.lightened(text).split("\n")[0]}
    for _ in range(20):
        firsts.add(language.lightened(language.decoy(text, tests_at).text).split("\n")[0])
    assert len(firsts) == 1 and firsts.pop().startswith("#lang s-exp")


@pytest.mark.parametrize("problem", sorted(published_programs("rkt")))
def test_published_programs_keep_multipl_es_verdicts(problem: str) -> None:
    """69 programs of a real model, nearly all of them light: each verdict is the one MultiPL-E's evaluator recorded
    under `racket` (OK a pass, anything else a failure)."""
    keep_published_verdicts("rkt", problem, "(require rackunit)")
