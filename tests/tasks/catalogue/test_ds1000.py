"""DS-1000: library programs (numpy, torch, matplotlib) judged by each problem's own test code, in the strict sandbox."""

from __future__ import annotations

import json
import shutil
from importlib.util import find_spec
from pathlib import Path

import pytest
from helpers import report, write_jsonl

pytestmark = pytest.mark.timeout(600)

DATA = Path(__file__).parents[2] / "data" / "ds1000"
ROWS = [json.loads(line) for line in (DATA / "ds1000_test.jsonl").read_text(encoding="utf-8").splitlines()]
TASK = "ds1000-all-completion"


def _run(pytester: pytest.Pytester, *args: str, rows: list[dict] | None = None) -> tuple[pytest.RunResult, dict]:
    if rows is None:
        shutil.copy(DATA / "ds1000_test.jsonl", pytester.path / "ds.jsonl")
    else:
        write_jsonl(pytester.path / "ds.jsonl", rows)
    result = pytester.runpytest_subprocess(*args, "-q", "-rs", "--codeeval-report=r.json", "-p", "no:cacheprovider")
    assert result.ret in (0, 1), result.stdout.str() + result.stderr.str()
    return result, report(pytester.path / "r.json")


def _verdicts(data: dict, task: str = TASK) -> dict:
    return {pid: [(s["status"], s["detail"]) for s in p["samples"]] for pid, p in data["tasks"][task]["problems"].items()}


def test_reference_solutions_pass_in_the_strict_sandbox(pytester: pytest.Pytester) -> None:
    _, data = _run(pytester, "--codeeval-model=reference", f"--codeeval-tasks={TASK}", f"--codeeval-dataset={TASK}=ds.jsonl",
                   "--codeeval-strict")
    assert data["sandbox"]["level"] == "strict"
    assert all(data["sandbox"]["layers"][layer].startswith("on") for layer in ("read-only filesystem", "network namespace", "rlimits"))
    assert _verdicts(data) == {"0": [("passed", "ok")], "1": [("passed", "ok")], "2": [("passed", "ok")]}


def test_wrong_answers_fail_the_same_with_two_workers(pytester: pytest.Pytester) -> None:
    """A numpy answer that is not sorted, a torch answer that is right (a completion cut at </code>), a plot
    without the log scale."""
    write_jsonl(pytester.path / "gens.jsonl", [
        {"task_id": "0", "completion": "result = a\n</code>\nEND SOLUTION"},
        {"task_id": "1", "completion": "for i in range(10):\n    a[i, :lengths[i], :] = 2333\n</code>"},
        {"task_id": "2", "completion": "plt.plot(*zip(*points))\n# SOLUTION END\nplt.yscale('log')"},
    ])
    args = (f"--codeeval-tasks={TASK}", f"--codeeval-dataset={TASK}=ds.jsonl", "--codeeval-load-generations=gens.jsonl")
    _, serial = _run(pytester, *args)
    verdicts = _verdicts(serial)
    assert [v[0][0] for v in verdicts.values()] == ["failed", "passed", "failed"]
    assert verdicts["2"] == [("failed", "assertion failed")]
    assert serial["tasks"][TASK]["metrics"] == pytest.approx({"pass@1": 1 / 3})
    _, parallel = _run(pytester, *args, "-n", "2")
    assert _verdicts(parallel) == verdicts and parallel["tasks"][TASK]["metrics"] == serial["tasks"][TASK]["metrics"]


def test_a_library_subset_and_a_missing_library(pytester: pytest.Pytester) -> None:
    """ds1000-numpy-completion keeps the numpy row; a problem whose library is not installed is skipped with one
    reason naming the extra (a copy of the numpy row marked Tensorflow stands for one here)."""
    if find_spec("tensorflow") is not None:
        pytest.skip("tensorflow is installed here")
    rows = [*ROWS, {**ROWS[0], "metadata": {**ROWS[0]["metadata"], "problem_id": 9, "library": "Tensorflow"}}]
    result, data = _run(pytester, "--codeeval-model=reference", "--codeeval-tasks=ds1000-numpy-completion,ds1000-all-completion",
                        "--codeeval-dataset=ds1000-numpy-completion=ds.jsonl", f"--codeeval-dataset={TASK}=ds.jsonl", rows=rows)
    assert list(data["tasks"]["ds1000-numpy-completion"]["problems"]) == ["0"]
    assert list(data["tasks"][TASK]["problems"]) == ["0", "1", "2"]
    result.assert_outcomes(passed=4, skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED * ds1000-all-completion: tensorflow is not installed: pip install 'pytest-codeeval[[]ds1000]'*"])
    # the whole subset, named: a usage error before its data is looked for
    tf = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-tasks=ds1000-tensorflow-completion", "-p", "no:cacheprovider")
    assert tf.ret == pytest.ExitCode.USAGE_ERROR
    tf.stderr.fnmatch_lines(["ERROR: ds1000-tensorflow-completion: tensorflow is not installed: pip install 'pytest-codeeval[[]ds1000]'*"])


RELEASE = DATA / "ds1000_data"  # four problems of the original release (Insertion mode): Numpy q0, q1, Pandas q1, Scipy q0
INSERTION = "ds1000-all-insertion"


def _insertion(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict]:
    result = pytester.runpytest_subprocess(f"--codeeval-tasks={INSERTION}", f"--codeeval-dataset={INSERTION}={RELEASE}", *args,
                                           "-q", "--codeeval-report=r.json", "-p", "no:cacheprovider")
    assert result.ret in (0, 1), result.stdout.str() + result.stderr.str()
    return result, report(pytester.path / "r.json")


def test_insertion_reference_solutions_pass_serial_and_with_two_workers(pytester: pytest.Pytester) -> None:
    """The release's reference code at [insert] passes the release's own tests, in bigcode's library order."""
    _, serial = _insertion(pytester, "--codeeval-model=reference", "--codeeval-strict")
    expected = {pid: [("passed", "ok")] for pid in ("Pandas/q1", "Numpy/q0", "Numpy/q1", "Scipy/q0")}
    assert _verdicts(serial, INSERTION) == expected and list(serial["tasks"][INSERTION]["problems"]) == list(expected)
    _, parallel = _insertion(pytester, "--codeeval-model=reference", "-n", "2")
    assert _verdicts(parallel, INSERTION) == expected
    one = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-tasks=ds1000-numpy-insertion",
                                        f"--codeeval-dataset=ds1000-numpy-insertion={RELEASE}", "-q", "-p", "no:cacheprovider")
    one.assert_outcomes(passed=2)


def test_insertion_generations_of_middles(pytester: pytest.Pytester) -> None:
    """Middles from a generations file: another right answer, a wrong one, one that raises, and one that a stop word
    cuts (the file's text is cut and stripped as bigcode cuts a model's); the same verdicts with two workers."""
    middles = {"Numpy/q0": ["result = np.shape(a)", "result = a.size", "result = a.dims"],
               "Numpy/q1": ["x = x[~np.isnan(x)]\n</code>\nEND SOLUTION", "x = x[np.isnan(x)]", "x = x.dropna()"]}
    write_jsonl(pytester.path / "g.jsonl", [{"task": INSERTION, "task_id": pid, "completion": c}
                                            for pid, cs in middles.items() for c in cs])
    args = ("--codeeval-load-generations=g.jsonl",)
    _, serial = _insertion(pytester, *args)
    verdicts = _verdicts(serial, INSERTION)
    assert [v[0] for v in verdicts["Numpy/q0"]] == ["passed", "failed", "failed"]
    assert "AttributeError" in verdicts["Numpy/q0"][2][1] and "AttributeError" in verdicts["Numpy/q1"][2][1]
    assert [v[0] for v in verdicts["Numpy/q1"]] == ["passed", "failed", "failed"]
    problems = serial["tasks"][INSERTION]["problems"]
    assert problems["Numpy/q1"]["samples"][0]["completion"] == "x = x[~np.isnan(x)]"
    assert serial["tasks"][INSERTION]["metrics"]["pass@1"] == pytest.approx(1 / 3)
    _, parallel = _insertion(pytester, *args, "-n", "2")
    assert _verdicts(parallel, INSERTION) == verdicts
    assert parallel["tasks"][INSERTION]["metrics"] == serial["tasks"][INSERTION]["metrics"]


def test_insertion_prompt_is_bigcodes_fill_in_the_middle() -> None:
    """bigcode splits the prompt at [insert], strips both sides, ends the prefix and starts the suffix with a
    newline; the model gets its family's FIM layout of the two (generation/fim.py)."""
    pytest.importorskip("transformers")
    from tiny_models import tiny_tokenizer

    from pytest_codeeval.generation.base import GenerationSettings
    from pytest_codeeval.generation.prompts import format_prompt
    from pytest_codeeval.tasks import builtin_registry

    registry = builtin_registry()
    registry.use_datasets([("ds1000-numpy-insertion", RELEASE)])
    task = registry.get("ds1000-numpy-insertion")
    doc = task.docs[0]
    before, after = doc["prompt"].split("[insert]")
    assert task.get_prompt(doc) == before.strip() + "\n" and task.get_suffix(doc) == "\n" + after.strip() + "\n"
    assert task.get_prompt(doc).endswith("</code>\nBEGIN SOLUTION\n<code>\n")
    assert task.get_suffix(doc) == "\n</code>\nEND SOLUTION\n<code>\nprint(result)\n</code>\n"
    tokenizer = tiny_tokenizer(("<|endoftext|>", "<fim_prefix>", "<fim_middle>", "<fim_suffix>", "<pad>"),
                               eos="<|endoftext|>", pad="<pad>")
    fim = format_prompt(task.get_prompt(doc), GenerationSettings(), tokenizer, suffix=task.get_suffix(doc))
    assert fim == f"<fim_prefix>{task.get_prompt(doc)}<fim_suffix>{task.get_suffix(doc)}<fim_middle>"
    assert task.postprocess_generation(task.get_prompt(doc) + "  result = a.shape\n# SOLUTION END", 0) == "result = a.shape"
    assert task.get_solution(doc) == doc["reference_code"] == "result = a.shape\n"


def test_insertion_refusals_and_a_missing_release(pytester: pytest.Pytester) -> None:
    """Matplotlib has no insertion prompts (bigcode runs completion instead): named, one line; a directory that is
    not the release is one line naming it."""
    for args in ([], ["-n", "2"]):
        result = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-tasks=ds1000-matplotlib-insertion", *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert result.stderr.lines[0] == (
            "ERROR: ds1000-matplotlib-insertion: DS-1000 has no insertion prompts for Matplotlib (bigcode runs completion "
            "instead): run ds1000-matplotlib-completion")
    (pytester.path / "empty").mkdir()
    result = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-tasks=ds1000-numpy-insertion",
                                           "--codeeval-dataset=ds1000-numpy-insertion=empty")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "empty has no Numpy/Insertion directory" in result.stderr.str()


def test_prompt_and_program_are_bigcodes_and_the_releases() -> None:
    """bigcode's postprocessing (ds1000.py: after the solution marker, cut at </code> or # SOLUTION END, stripped) and
    the release's test program (code_context, then `code = repr(solution)` and `test_execution(code)`)."""
    from pytest_codeeval.tasks.catalogue.ds1000 import PRELUDE, _subset

    task = _subset("all", "completion")()
    task.__dict__["docs"] = ROWS
    assert task.get_prompt(ROWS[0]) == ROWS[0]["prompt"] and ROWS[0]["prompt"].endswith("BEGIN SOLUTION\n<code>\n")
    assert task.postprocess_generation(ROWS[0]["prompt"] + "result = np.argsort(a)\n</code>\nEND SOLUTION\n", 0) == "result = np.argsort(a)"
    assert task.postprocess_generation(ROWS[2]["prompt"] + "plt.plot(x)\n# SOLUTION END\nplt.show()", 2) == "plt.plot(x)"
    program = task.build_program(ROWS[0], "result = np.argsort(a)")
    assert program == PRELUDE + ROWS[0]["code_context"] + "\ncode = 'result = np.argsort(a)'\ntest_execution(code)\n"
