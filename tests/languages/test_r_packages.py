"""R attaches only the default packages a program names something of (languages/r.py, `attached`): what it names
still resolves, what it does not name costs nothing, and a verdict is the one Rscript's defaults would give."""

from __future__ import annotations

import re

import pytest
from helpers import keep_published_verdicts, language_or_skip, published_programs

from pytest_codeeval.languages import r
from pytest_codeeval.sandbox import get_executor
from pytest_codeeval.sandbox.api import Limits

# (program, the packages it gets, in Rscript's own order)
CHOSEN = {
    "base only": ("x <- sort(c(3, 1, 2))\nstopifnot(identical(rev(x), c(3, 2, 1)))\n", "NULL"),
    "a stats function": ("stopifnot(median(c(1, 5, 2)) == 2)\n", "stats"),
    "named in a string": ('stopifnot(do.call("tail", list(1:3, 1)) == 3)\n', "utils"),
    "named in a comment only": ("# the median, as stats would say; head and tail too\nx <- 1\n", "NULL"),
    "a hash inside a string": ('x <- "#"; stopifnot(head(x, 1) == "#")\n', "utils"),
    "several": ("stopifnot(is(1, 'numeric'), sd(c(1, 1)) == 0, nrow(head(mtcars, 2)) == 2)\n",
                "methods,datasets,utils,stats"),
}


def test_the_listing_holds_rscripts_defaults_in_its_order() -> None:
    language_or_skip("r")
    packages = dict(r.attached())
    assert list(packages) == ["methods", "datasets", "utils", "grDevices", "graphics", "stats"]
    assert {"median", "setNames"} <= packages["stats"] and {"head", "tail", "combn"} <= packages["utils"]
    assert "sort" not in set().union(*packages.values())  # base is always there: never listed


@pytest.mark.parametrize("case", sorted(CHOSEN))
def test_a_program_gets_the_packages_it_names(case: str) -> None:
    language = language_or_skip("r")
    program, packages = CHOSEN[case]
    script = language.script("program.r", Limits(cpu_seconds=5), program)
    assert re.search(r"^export R_DEFAULT_PACKAGES=(.*)$", script, re.MULTILINE).group(1) == packages


@pytest.mark.parametrize("case", sorted(CHOSEN))
def test_what_a_program_names_resolves_in_the_sandbox(case: str) -> None:
    """Each program above passes; the search path it sees holds the packages chosen for it and no other."""
    language = language_or_skip("r")
    program, packages = CHOSEN[case]
    attached = "" if packages == "NULL" else packages
    check = (f'seen <- sub("package:", "", rev(grep("^package:", search(), value = TRUE))[-1])\n'
             f'stopifnot(identical(paste(seen, collapse = ","), "{attached}"))\n')
    outcome = language.run(program + check, Limits(cpu_seconds=5), get_executor("strict"))
    assert outcome.status == "passed", outcome.output


def test_a_decoy_gets_the_packages_of_its_real_run() -> None:
    """A decoy moves expected values (languages/decoy.py): the only word naming stats here is one of them, and
    neither run attaches stats, so no program can tell its decoy from its real run by the search path."""
    language = language_or_skip("r")
    program = ("f <- function(x) x\ntest_humaneval <- function() {\n    candidate <- f\n"
               '    stopifnot(isTRUE(all.equal(candidate(1), "median")))\n'
               "    stopifnot(isTRUE(all.equal(candidate(2), 2)))\n    stopifnot(isTRUE(all.equal(candidate(3), 3)))\n"
               "}\ntest_humaneval()\n")
    chosen = {language.script("program.r", Limits(cpu_seconds=5), program)}
    for _ in range(20):
        decoy = language.decoy(program, program.index("test_humaneval <- function"))
        chosen.add(language.script("program.r", Limits(cpu_seconds=5), decoy.text))
    assert {script.splitlines()[0] for script in chosen} == {"export R_DEFAULT_PACKAGES=NULL"}


def test_without_a_listing_rscript_attaches_its_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where Rscript could not list its packages, the program runs as Rscript would run it, every default attached."""
    language = language_or_skip("r")
    monkeypatch.setattr(r, "attached", lambda: ())
    assert "R_DEFAULT_PACKAGES" not in language.script("program.r", Limits(cpu_seconds=5), "median(1)\n")


@pytest.mark.parametrize("problem", sorted(published_programs("r")))
def test_published_programs_keep_multipl_es_verdicts(problem: str) -> None:
    """305 programs of a real model, nearly all given no package or one: each verdict is still the one MultiPL-E's
    evaluator recorded under Rscript's defaults (OK a pass, anything else a failure)."""
    keep_published_verdicts("r", problem, "test_humaneval <- function")
