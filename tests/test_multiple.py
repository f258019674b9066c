"""MultiPL-E: the translation pinned to MultiPL-E's published rows, and each language's multiple-* task end to
end on the offline path (HumanEval translated here): a reference self-check and a generations file with passing,
failing, non-compiling and looping samples. A language whose toolchain is missing skips with the package to
install."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import problems, report, write_jsonl

from pytest_codeeval.languages import get_language
from pytest_codeeval.languages.translate import humaneval_row, mbpp_row

pytestmark = pytest.mark.timeout(600)
DATA = Path(__file__).parent / "data" / "multiple"
PUBLISHED = [json.loads(line) for line in (DATA / "published.jsonl").read_text().splitlines()]
COMPLETIONS = json.loads((DATA / "completions.json").read_text())
MBPP = [json.loads(line) for line in (DATA / "mbpp.jsonl").read_text().splitlines()]


def _markers_off(prompt: str) -> str:
    return re.sub(r"(?m)^[ \t]*(#|///|//|\*) ?", "", prompt)  # OCaml's doc comment continues its lines with " * "


@pytest.mark.parametrize("row", PUBLISHED, ids=lambda r: f"{r['language']}-{r['name']}")
def test_translation_matches_multipl_e(row: dict) -> None:
    language = get_language(row["language"])
    number = row["name"].split("_")[1]
    if row["name"].startswith("mbpp"):
        ours = mbpp_row(language, next(d for d in MBPP if str(d["task_id"]) == number))
    else:
        ours = humaneval_row(language, problems()[f"HumanEval/{number}"])
    assert ours["name"] == row["name"]
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
    statuses = [(s["status"], s["detail"].split(":")[0]) for s in samples]
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
        row = humaneval_row(get_language(name), problems()["HumanEval/0"])
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


def test_mbpp_rows_translated_from_a_local_file(pytester: pytest.Pytester) -> None:
    _skip_without("js")
    write_jsonl(pytester.path / "mbpp.jsonl", MBPP)
    solutions = {
        "mbpp_3_is_not_prime": "  for (let i = 2; i * i <= n; i++) if (n % i == 0) return true;\n  return false;\n}\n",
        "mbpp_14_find_Volume": "  return l * b * h / 2;\n}\n",
    }
    write_jsonl(
        pytester.path / "gen.jsonl",
        [{"task": "multiple-mbpp-js", "task_id": k, "completion": v} for k, v in solutions.items()],
    )
    result = pytester.runpytest(
        "--codeeval-load-generations=gen.jsonl",
        "--codeeval-tasks=multiple-mbpp-js",
        "--codeeval-dataset=multiple-mbpp-js=mbpp.jsonl",
        "-q",
    )
    result.assert_outcomes(passed=2)


def test_mbpp_without_data_says_what_to_give(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    _skip_without("js")
    _offline(pytester, monkeypatch)
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=multiple-mbpp-js", "-q")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: multiple-mbpp-js: no data here: *need the hub (nuprl/MultiPL-E, config mbpp-js) or a local file*"]
    )


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("java", "Java toolchain not installed (javac, java not found): apt-get install*"),
        ("jl", "Julia is not packaged by Debian: install it from https://julialang.org/downloads*"),
    ],
)
def test_missing_toolchain_skips_the_task(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, name: str, line: str
) -> None:
    _offline(pytester, monkeypatch)
    monkeypatch.setenv("PATH", "/nonexistent")
    result = pytester.runpytest_subprocess("--codeeval-model=reference", f"--codeeval-tasks=multiple-{name}", "-rs")
    result.stdout.fnmatch_lines([f"*multiple-{name}: {line}"])
    assert result.ret == 0 or result.ret == 5


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
    named.stdout.fnmatch_lines(["codeeval::multiple-java::*", "codeeval::multiple-js::*"])


def test_r_lists_of_scalars_are_vectors_where_the_signature_says_so() -> None:
    """R: a list whose items R reads as different types is a `list(...)`, but as an argument the signature types as
    a list of scalars it is a vector `c(...)` (MultiPL-E's coercion); nested lists stay lists."""
    from pytest_codeeval.languages.translate import translate

    prompt = 'def f(xs: List[float], ys: List[List[int]]) -> float:\n    """ Sum. """\n'
    tests = "def check(candidate):\n    assert candidate([1, 1e-05], [[1], [2, 3]]) == [1, 'a']\n"
    _, translated = translate(get_language("r"), prompt, tests, "f")
    assert "stopifnot(isTRUE(all.equal(candidate(c(1, 1e-05), list(c(1), c(2, 3))), list(1, 'a'))))" in translated
