"""MultiPL-E: the offline rows against MultiPL-E's published ones, and each language's multiple-* task end to end
on the offline path (MultiPL-E's originals translated here): a reference self-check and a generations file with
passing, failing, non-compiling and looping samples. A language whose toolchain is missing skips with the package
to install. (tests/languages/test_builder_rows.py holds every row to MultiPL-E's builder.)"""

from __future__ import annotations

import importlib
import json
import re
import sys
from pathlib import Path

import pytest
from helpers import fake_generation, report, translated, write_jsonl

from pytest_codeeval.languages import get_language
from pytest_codeeval.languages.translate import rows

pytestmark = pytest.mark.timeout(600)
DATA = Path(__file__).parents[2] / "data" / "multiple"
PUBLISHED = [json.loads(line) for line in (DATA / "published.jsonl").read_text().splitlines()]
COMPLETIONS = json.loads((DATA / "completions.json").read_text())


def _markers_off(prompt: str) -> str:
    """The prompt's text without comment markers (OCaml's doc comment continues its lines with " * "; the earlier
    build started every Haskell line with "-- |", the builder now its first only) and without whitespace: the
    earlier build kept the docstring's indentation and blank lines, which MultiPL-E's clean-up now removes."""
    return "".join(re.sub(r"(?m)^[ \t]*(#|///|//|\*|-- \||--) ?", "", prompt).split())


@pytest.mark.parametrize("row", PUBLISHED, ids=lambda r: f"{r['language']}-{r['name']}")
def test_translation_matches_multipl_e(row: dict) -> None:
    source = "mbpp" if row["name"].startswith("mbpp") else "humaneval"
    ours = next(r for r in rows(get_language(row["language"]), source) if r["name"] == row["name"])
    if "tests" in row:
        assert ours["tests"] == row["tests"]
    if row["source"] in ("hub", "built"):  # the published prompt
        assert ours["prompt"] == row["prompt"]
    elif row["source"] == "repo":  # an earlier build's prompt, without its comment markers
        assert _markers_off(ours["prompt"]) == _markers_off(row["prompt"])
    elif "prompt" in row:  # a program evaluated by MultiPL-E that holds the whole published prompt
        assert ours["prompt"] == row["prompt"]
    else:  # a program evaluated by MultiPL-E: its signature line (and its first lines, where known)
        assert row.get("signature", "") in ours["prompt"].splitlines()[-1]
        assert ours["prompt"].startswith(row.get("prefix", ""))


def _offline(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")


def _skip_without(name: str) -> None:
    missing = get_language(name).unavailable()
    if missing:
        pytest.skip(missing)


@pytest.mark.parametrize("name", sorted(COMPLETIONS))
def test_generations_file_end_to_end(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """HumanEval/0 translated offline; four samples: passing, failing, non-compiling, looping."""
    _skip_without(name)
    _offline(pytester, monkeypatch)
    task = f"multiple-{name}"
    kinds = ["ok", "fail", "nocomp", "loop"]
    write_jsonl(
        pytester.path / "gen.jsonl",
        [
            {"task": task, "task_id": "HumanEval_0_has_close_elements", "completion": COMPLETIONS[name][kind]}
            for kind in kinds
        ],
    )
    result = pytester.runpytest(
        "--codeeval-load-generations=gen.jsonl",
        f"--codeeval-tasks={task}",
        "--codeeval-limit=1",
        "--codeeval-timeout=2",
        "--codeeval-report=r.json",
        "-q",
    )
    result.assert_outcomes(passed=1, failed=3)
    samples = report(pytester.path / "r.json")["tasks"][task]["problems"]["HumanEval_0_has_close_elements"]["samples"]
    statuses = [(s["status"], s["detail"].split(":")[0].split(" (")[0]) for s in samples]
    compile_detail = "compile error" if get_language(name).build_commands("x", "") else "syntax error"
    assert statuses == [
        ("passed", "ok"),
        ("failed", "assertion failed"),
        ("failed", compile_detail),
        ("timeout", "timed out"),
    ]


def test_reference_self_check_under_xdist(pytester: pytest.Pytester) -> None:
    """Rows in MultiPL-E's schema with a canonical completion: --codeeval-model=reference passes them, -n 2."""
    names = ("js", "rb", "hs", "ml", "lua", "r", "rkt")
    for name in names:
        _skip_without(name)
        row = rows(get_language(name), "humaneval")[0]
        write_jsonl(pytester.path / f"{name}.jsonl", [{**row, "canonical_solution": COMPLETIONS[name]["ok"]}])
    result = pytester.runpytest_subprocess(
        "--codeeval-model=reference",
        "--codeeval-tasks=" + ",".join(f"multiple-{name}" for name in names),
        "-n",
        "2",
        *(f"--codeeval-dataset=multiple-{name}={name}.jsonl" for name in names),
        "-q",
    )
    result.assert_outcomes(passed=len(names))


def test_mbpp_offline_from_the_shipped_originals(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Offline, multiple-mbpp-js runs MultiPL-E's MBPP originals translated here: right and wrong completions."""
    _skip_without("js")
    _offline(pytester, monkeypatch)
    solutions = {
        "mbpp_3_is_not_prime": "  for (let i = 2; i * i <= n; i++) if (n % i == 0) return true;\n  return false;\n}\n",
        "mbpp_4_heap_queue_largest": "  return [...nums].sort((a, b) => b - a).slice(0, n);\n}\n",
        "mbpp_6_differ_At_One_Bit_Pos": "  return a == b;\n}\n",
    }
    write_jsonl(
        pytester.path / "gen.jsonl",
        [{"task": "multiple-mbpp-js", "task_id": k, "completion": v} for k, v in solutions.items()],
    )
    result = pytester.runpytest(
        "--codeeval-load-generations=gen.jsonl", "--codeeval-tasks=multiple-mbpp-js", "--codeeval-limit=3", "-q"
    )
    result.assert_outcomes(passed=2, failed=1)


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("java", "Java toolchain not installed (javac, java not found): apt-get install*"),
        ("jl", "Julia is not packaged by Debian: install it from https://julialang.org/downloads*"),
    ],
)
def test_a_missing_toolchain_stops_a_named_task_and_skips_a_matched_one(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, name: str, line: str
) -> None:
    _offline(pytester, monkeypatch)
    monkeypatch.setenv("PATH", "/nonexistent")
    for naming in ((f"--codeeval-tasks=multiple-{name}",), (f"--codeeval-tasks=multiple-{name}", "-n", "2"),
                   ("-k", f"multiple-{name}")):
        named = pytester.runpytest_subprocess("--codeeval-model=reference", *naming)
        assert named.ret == pytest.ExitCode.USAGE_ERROR, named.stdout.str()[-2000:]
        named.stderr.fnmatch_lines([f"ERROR: multiple-{name}: {line}"])
    # the root named too (`pytest codeeval`): every task skipped is no "not found"
    matched = pytester.runpytest_subprocess("codeeval", "--codeeval-model=reference",
                                            f"--codeeval-tasks=multiple-{name}*")
    matched.stdout.fnmatch_lines([f"codeeval: skipped task multiple-{name}: {line}"])
    assert matched.ret == pytest.ExitCode.NO_TESTS_COLLECTED and "ERROR" not in matched.stderr.str()


def test_every_bigcode_multiple_name_of_a_working_language_is_registered(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-list-tasks", "-v")
    for name in (
        *("js", "ts", "java", "cpp", "go", "rs", "rb", "php", "sh", "pl", "py"),
        *("hs", "ml", "swift", "cs", "scala", "d", "lua", "r", "rkt", "jl"),
    ):
        result.stdout.fnmatch_lines([f"multiple-{name} *nuprl/MultiPL-E:humaneval-{name}*"])
        result.stdout.fnmatch_lines([f"multiple-mbpp-{name} *nuprl/MultiPL-E:mbpp-{name}*"])


def test_multiple_tasks_run_only_when_named(pytester: pytest.Pytester) -> None:
    """A plain run does not start MultiPL-E's 22 tasks (and their toolchains); naming one, or a glob, does."""
    plain = pytester.runpytest("--codeeval-model=reference", "--codeeval-limit=1", "--collect-only", "-q")
    assert "multiple" not in plain.stdout.str()
    named = pytester.runpytest(  # a model (nothing is generated while collecting): reference skips tasks without solutions
        "--codeeval-tasks=multiple-j*", "--codeeval-limit=1", "--collect-only", "-q", "--codeeval-model=some-model"
    )
    runnable = [name for name in ("java", "js") if get_language(name).unavailable() is None]
    if not runnable:
        pytest.skip("neither Java's nor JavaScript's toolchain is installed")
    named.stdout.fnmatch_lines([f"codeeval::multiple-{name}::*" for name in runnable])


def test_r_lists_of_scalars_are_vectors_where_the_signature_says_so() -> None:
    """R: a list whose items R reads as different types is a `list(...)`, but as an argument the signature types as
    a list of scalars it is a vector `c(...)` (MultiPL-E's coercion); nested lists stay lists."""
    prompt = 'def f(xs: List[float], ys: List[List[int]]) -> float:\n    """ Sum. """\n'
    tests = "def check(candidate):\n    assert candidate([1, 1e-05], [[1], [2, 3]]) == [1, 'a']\n"
    _, tests_r = translated("r", prompt, tests)
    assert "stopifnot(isTRUE(all.equal(candidate(c(1, 1e-05), list(c(1), c(2, 3))), list(1, 'a'))))" in tests_r


def test_hub_rows_are_read_at_bigcode_evaluation_harness_pinned_revision(monkeypatch: pytest.MonkeyPatch) -> None:
    import datasets

    from pytest_codeeval.tasks import builtin_registry

    asked: list[tuple[tuple, dict]] = []
    row = rows(get_language("js"), "humaneval")[0]
    # the module that `import` finds now, from sys.modules: an in-process pytester run before may have imported it
    # afresh and left the package's attribute pointing at that copy, which a dotted-name patch would reach
    importlib.import_module("pytest_codeeval.tasks.loading")
    monkeypatch.setattr(sys.modules["pytest_codeeval.tasks.loading"], "hub_reachable", lambda: True)
    monkeypatch.setattr(datasets, "load_dataset", lambda *args, **kwargs: asked.append((args, kwargs)) or [row])
    task = type(builtin_registry().get("multiple-js"))()  # a fresh instance: no rows loaded yet
    _skip_without("js")
    assert list(task.docs) == [row]
    assert asked == [
        (("nuprl/MultiPL-E", "humaneval-js"), {"split": "test", "revision": "8a4cb75204eb3d5855a81778db6b95bfc80c9136"})
    ]


def test_generation_stops_at_the_rows_own_stop_tokens(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row's stop_tokens (here a local file's, as the hub's would be) are what the model is asked to stop at and
    what the generation is cut at, not the language's list."""
    from pytest_codeeval.generation.base import Completion, GenerationStats

    _skip_without("js")
    row = dict(rows(get_language("js"), "humaneval")[0], stop_tokens=["\n// END"])
    write_jsonl(pytester.path / "rows.jsonl", [row])
    asked: list[tuple[str, ...]] = []

    def generate(model: str, requests: list, *args: object, **kwargs: object) -> tuple[dict, GenerationStats]:
        asked.extend(request.stop_words for request in requests)
        text = "  return numbers.some((a, i) => numbers.some((b, j) => i != j && Math.abs(a - b) < threshold));\n}"
        return {r.key: Completion(r, text + "\n// END\nthrow 1;\n") for r in requests}, GenerationStats("fake", model)

    fake_generation(monkeypatch, generate)
    result = pytester.runpytest(
        "--codeeval-model=fake", "--codeeval-tasks=multiple-js", "--codeeval-dataset=multiple-js=rows.jsonl", "-q"
    )
    assert asked == [("\n// END", "<file_sep>")]
    result.assert_outcomes(passed=1)  # the `throw` after the row's stop token was cut
