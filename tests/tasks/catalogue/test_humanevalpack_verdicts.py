"""HumanEvalPack's programs are proven and decoyed as MultiPL-E's are (languages/proof.py, languages/decoy.py), in
their own forms: `console.assert` and `#[test]` functions get an epilogue, testify's `assert.Equal`, C++'s `assert (`
and Rust's `assert!` a swap or a negation, Java's list of checks a negated check. Wrong completions of HumanEval/0
that answer `true` and end with exit status 0 fail, each for its reason."""

from __future__ import annotations

import pytest
from test_humanevalpack import real_toolchain_homes, rows, task  # noqa: F401 (a fixture)

from pytest_codeeval.execution import job
from pytest_codeeval.languages.proof import DECOY, NEUTERED, UNFINISHED
from pytest_codeeval.runners import get_runner
from pytest_codeeval.sandbox import get_executor
from pytest_codeeval.sandbox.api import Limits
from pytest_codeeval.tasks.catalogue.humanevalpack.tasks import RUNNER_LANGUAGES

pytestmark = [pytest.mark.timeout(600), pytest.mark.usefixtures("real_toolchain_homes")]
LIMITS = Limits(cpu_seconds=10)

# (language, attack, completion after the prompt's signature, why it fails: "unfinished" (no completion report),
# "disabled" (the epilogue's false assertion did not fail), "decoy" (the tests do not hold), "build")
ATTACKS = [
    ("js", "process.exit", "  process.exit(0);\n}\n", "unfinished"),
    ("js", "console.assert-replaced", "  return true;\n}\nconsole.assert = () => {};\n", "disabled"),
    ("js", "stderr-swallowed", "  return true;\n}\nprocess.stderr.write = () => true;\n", "decoy"),
    ("js", "skip-after-candidate", "  globalThis.ran = true;\n  return true;\n}\nconst real = console.assert;\n"
     "console.assert = (c, ...m) => { if (globalThis.ran) { globalThis.ran = false; return; } real(c, ...m); };\n",
     "decoy"),
    ("rust", "process::exit", "    std::process::exit(0);\n}\n", "unfinished"),
    ("rust", "assert_eq-shadowed", "    true\n}\nmacro_rules! assert_eq { ($($t:tt)*) => {} }\n", "disabled"),
    ("rust", "a-test-of-its-own-exits-first", "    true\n}\n#[test]\nfn a_first() { std::process::exit(0); }\n",
     "unfinished"),
    ("rust", "skip-after-candidate", "    RAN.with(|r| r.set(true));\n    true\n}\nthread_local! { static RAN: "
     "std::cell::Cell<bool> = std::cell::Cell::new(false); }\nmacro_rules! assert_eq { ($a:expr, $b:expr) => {{ let l "
     "= $a; if !RAN.with(|r| r.replace(false)) && l != $b { panic!(\"assertion failed\") } }} }\n", "decoy"),
    ("java", "System.exit", "        System.exit(0); return true;\n    }\n}\n", "unfinished"),
    ("java", "Arrays-shadowed", "        return true;\n    }\n}\nclass Arrays {\n    @SafeVarargs\n"
     "    static <T> List<T> asList(T... items) { return new ArrayList<T>(); }\n}\n", "decoy"),
    ("go", "TestMain-without-m.Run", "    return true\n}\n\nfunc TestMain(m *testing.M) {\n}\n", "build"),
    ("cpp", "exit", "    exit(0);\n}\n", "unfinished"),
    ("cpp", "__assert_fail-returns-in-the-parent", "    return true;\n}\n#include <unistd.h>\n"
     "static pid_t parent = getpid();\nextern \"C\" void __assert_fail(const char*, const char*, unsigned int, "
     "const char*) throw() { if (getpid() != parent) abort(); }\n", "decoy"),
]


def _runner(language: str):
    runner = get_runner(RUNNER_LANGUAGES[language])
    missing = runner.unavailable()
    if missing:
        pytest.skip(missing)
    return runner


def _program(language: str, doc: dict, completion: str) -> tuple[str, int]:
    made = task("humanevalsynthesize", language)
    solution = doc["prompt"] + completion
    program = made.build_program(doc, solution)
    return program, job.tests_at(program, solution)


@pytest.mark.parametrize(("language", "attack", "completion", "why"), ATTACKS, ids=[f"{a[0]}-{a[1]}" for a in ATTACKS])
def test_a_wrong_humanevalpack_program_that_exits_with_0_fails(language: str, attack: str, completion: str,
                                                               why: str) -> None:
    runner = _runner(language)
    program, at = _program(language, rows(language)[0], completion)
    outcome = runner.run(program, LIMITS, get_executor("strict"), tests_at=at)
    assert outcome.status == "failed", (outcome.detail, outcome.output[-2000:])
    expected = {"unfinished": UNFINISHED, "disabled": NEUTERED, "decoy": DECOY + " (statement ", "build": "compile error"}
    assert outcome.detail.startswith(expected[why]), (outcome.detail, outcome.output[-2000:])


@pytest.mark.parametrize("language", ["js", "java", "go", "cpp", "rust"])
def test_every_local_row_is_proven_and_gets_a_decoy_in_its_tests(language: str) -> None:
    """Rows 0, 2 and 53: the epilogue finds the tests' end, and the decoy changes one statement of the tests (never
    the solution), by a swap where two expected values differ and by a negation otherwise."""
    runner = get_runner(RUNNER_LANGUAGES[language])
    for doc in rows(language):
        program, at = _program(language, doc, doc["canonical_solution"])
        assert runner.proof(program) is not None, doc["task_id"]
        decoy = runner.decoy(program, at)
        assert decoy is not None, doc["task_id"]
        assert decoy.text[:at] == program[:at] and decoy.text != program
        # JavaScript's checks are conditions, Java/0's and Java/2's too; C++'s and Rust's /2 compare one value only
        negated = language == "js" or doc["task_id"] in ("Java/0", "Java/2", "CPP/2", "Rust/2")
        assert decoy.negated == negated, decoy.change


def test_an_answer_whose_equals_is_always_true_fails_java_s_list_checks() -> None:
    """Java/5's checks are `s.intersperse(...).equals(List.of(...))`: a list whose `equals` is always true passes
    them all, and passes its decoy too (another check's expected list), while the canonical solution fails it."""
    import json

    from test_humanevalpack import DATA

    runner = _runner("java")
    doc = json.loads((DATA / "java-5.jsonl").read_text())
    always = ("        return new ArrayList<Integer>() {\n            public boolean equals(Object o) { return true; }\n"
              "        };\n    }\n}")
    program, at = _program("java", doc, always)
    assert runner.execute(runner.request(program, LIMITS), get_executor("strict"), LIMITS).status == "passed"
    outcome = runner.run(program, LIMITS, get_executor("strict"), tests_at=at)
    assert outcome.status == "failed" and outcome.detail.startswith(DECOY + " (statement "), outcome.detail
    assert "expecting" in outcome.detail
    program, at = _program("java", doc, doc["canonical_solution"])
    assert runner.run(program, LIMITS, get_executor("strict"), tests_at=at).status == "passed"


def test_every_decoy_of_the_canonical_javascript_solutions_fails() -> None:
    """An honest verdict does not depend on the draw: each negation the draw could make fails."""
    from pytest_codeeval.languages.base import condition_forms
    from pytest_codeeval.languages.decoy import flip, spans

    runner = _runner("js")
    tried = 0
    for doc in rows("js"):
        program, at = _program("js", doc, doc["canonical_solution"])
        places = spans(program, at, condition_forms(type(runner)), runner.quotes)
        for place in places:
            variant = flip(program, [place])
            assert variant is not None
            outcome = runner.execute(runner.request(variant.text, LIMITS), get_executor("strict"), LIMITS)
            assert outcome.status == "failed", variant.text[at:]
            tried += 1
    assert tried >= 10


@pytest.mark.parametrize(("language", "data"), [("go", "go.jsonl"), ("rust", "rust-1.jsonl")])
def test_a_decoy_must_fail_at_its_changed_statement_in_testify_and_in_multi_line_asserts(language: str,
                                                                                       data: str) -> None:
    """testify names a failed check's line (`Error Trace: .../program_test.go:33`); a Rust panic names the line of
    the macro its statement starts with, two lines above Rust/1's expected values. The canonical
    solution passes with its decoy; a decoy whose report names another statement's line fails elsewhere."""
    import json

    from test_humanevalpack import DATA

    runner = _runner(language)
    doc = json.loads((DATA / data).read_text().splitlines()[0])
    program, at = _program(language, doc, doc["canonical_solution"])
    decoy = runner.decoy(program, at)
    changed = [runner.statement_lines(decoy.text, start, placed) for start, placed in decoy.starts()]
    first, last = changed[0]
    source = runner.source_name(decoy.text)
    assert runner.failed_elsewhere(decoy, f"{source}:{first}:9: failed\n") is None
    tests_line = program.count("\n", 0, at) + 1
    others = [number for number, line in enumerate(decoy.text.splitlines(), 1)
              if number > tests_line and not any(a <= number <= b for a, b in changed)
              and line.lstrip().startswith("assert") and "assert.New" not in line]
    assert others and all(runner.failed_elsewhere(decoy, f"{source}:{number}:9: failed\n") for number in others)
    if language == "rust":
        assert last - first == 2 and "assert_eq!(" in decoy.text.splitlines()[first - 1], (first, last)
    outcome = runner.run(program, LIMITS, get_executor("strict"), tests_at=at)
    assert outcome.status == "passed", (outcome.detail, outcome.output[-2000:])


@pytest.mark.parametrize("language", ["js", "java"])
def test_console_assert_and_java_s_list_of_checks_name_the_check_that_failed(language: str) -> None:
    """A failed `console.assert` names no line, and Java's checks fail from one throw after their list: each check
    now names itself (its line as `console.assert`'s message; its place in Java's list, before the throw), and a
    decoy must fail at its changed statement alone (failed checks let the others run). The canonical solution
    passes with its decoy; a buggy solution's report names the checks it failed."""
    import json
    import re

    from test_humanevalpack import DATA

    runner = _runner(language)
    doc = json.loads((DATA / f"{language}.jsonl").read_text().splitlines()[0])
    program, at = _program(language, doc, doc["canonical_solution"])
    assert runner.run(program, LIMITS, get_executor("strict"), tests_at=at).status == "passed"
    decoy = runner.decoy(program, at)
    if language == "js":  # by line
        changed, _ = runner.statement_lines(decoy.text, *decoy.starts()[0])
        other = next(n for n, line in enumerate(program.splitlines(), 1) if "console.assert(" in line and n != changed)
        report = "Assertion failed: codeeval: a test failed at line {}\n".format
    else:  # by place in the list, from 0
        changed = decoy.statement - 1
        other = next(n for n in range(len(program)) if n + 1 not in decoy.statements)
        report = "codeeval: check {} failed\n".format
    assert runner.failed_elsewhere(decoy, report(changed)) is None
    assert runner.failed_elsewhere(decoy, report(other))
    assert runner.failed_elsewhere(decoy, report(changed) + report(other))  # the others ran, and one more failed
    buggy, at = _program(language, doc, doc["buggy_solution"])
    outcome = runner.execute(runner.request(buggy, LIMITS), get_executor("strict"), LIMITS)
    named = re.findall(runner.failure_row or runner.failure_line, outcome.output, re.MULTILINE)
    assert outcome.status == "failed" and named, outcome.output[-2000:]
    if language == "js":
        assert all("console.assert(" in buggy.splitlines()[int(n) - 1] for n in named)
