"""QuixBugs and Python Bugs (bigcode-evaluation-harness's program-repair tasks) on rows in the hub schemas
(tests/data/README.md): the exact prompts of each --prompt format and the post-processed answers, written down from
reading bigcode's quixbugs.py and python_bugs.py (not computed by this project's code); listing and -k; reference
self-checks; generations files under xdist; bad rows and bad prompt formats."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import report, write_jsonl

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.tasks.base import Task
from pytest_codeeval.tasks.catalogue.python_bugs import PythonBugs
from pytest_codeeval.tasks.catalogue.quixbugs import QuixBugs, cut_at_last_stop_word

pytestmark = pytest.mark.timeout(300)

DATA = Path(__file__).parents[2] / "data"
ROWS = {"quixbugs": DATA / "quixbugs" / "train.jsonl", "python_bugs": DATA / "python_bugs" / "train.jsonl"}
DATASETS = [f"--codeeval-dataset={task}={path}" for task, path in ROWS.items()]


def on_rows(task: Task) -> Task:
    task.dataset_override = ROWS[task.name]
    return task


# -- QuixBugs ----------------------------------------------------------------------------------------------------
BUGGY_BITCOUNT = "def bitcount(n):\n    count = 0\n    while n:\n        n ^= n - 1\n        count += 1\n    return count"
FIXED_BITCOUNT = "def bitcount(n):\n    count = 0\n    while n:\n        n &= n - 1\n        count += 1\n    return count"
BUGGY_GCD = "def gcd(a, b):\n    if b == 0:\n        return a\n    else:\n        return gcd(a % b, b)"
GCD_TESTS = ("assert gcd(*[17, 0]) == 17\nassert gcd(*[13, 13]) == 13\nassert gcd(*[37, 600]) == 1\n"
             "assert gcd(*[20, 100]) == 20\nassert gcd(*[624129, 2061517]) == 18913\nassert gcd(*[3, 12]) == 3")


def test_quixbugs_prompt_and_answer_as_bigcode() -> None:
    task = on_rows(QuixBugs())
    prompt = "# Buggy function\n" + BUGGY_BITCOUNT + "\n# Fixed function\ndef"
    assert task.get_prompt(task.docs[0]) == prompt
    assert task.docs[1]["name"] == "breadth_first_search"
    # bigcode cuts at the LAST stop word: the comment before the second `def` stays
    raw = prompt + FIXED_BITCOUNT[3:] + "\n# done\ndef unused():"
    solution = task.postprocess_generation(raw, 0)
    assert solution == FIXED_BITCOUNT + "\n# done"
    assert task.build_program(task.docs[2], "S") == "S\n" + GCD_TESTS
    assert task.stop_words == ["\ndef", "\nclass", "\n#", "\n@", "\nprint", "\nif", "###", "///", "<|endoftext|>"]
    assert task.default_timeout == 10.0


def test_quixbugs_codex_and_edit_prompts() -> None:
    codex = on_rows(QuixBugs(prompt="prompt_codex"))
    prompt = "### fix the bug in the following function\n" + BUGGY_GCD + "\n### fixed function"
    assert codex.get_prompt(codex.docs[2]) == prompt
    assert codex.stop_words == QuixBugs().stop_words  # bigcode's `startswith("prompt")` test gives it these
    fixed = "def gcd(a, b):\n    return a if b == 0 else gcd(b, a % b)"
    assert codex.postprocess_generation(prompt + "\n" + fixed + "\n###", 2) == "\n" + fixed
    edit = on_rows(QuixBugs(prompt="edit"))
    prompt = "<commit_before>" + BUGGY_GCD + "<commit_msg>Fix bug in gcd<commit_after>"
    assert edit.get_prompt(edit.docs[2]) == prompt
    assert edit.stop_words == ["<commit_before>", "<commit_msg>", "<commit_after>", "<|endoftext|>"]
    assert edit.postprocess_generation(prompt + fixed + "<|endoftext|>", 2) == fixed


def test_the_last_stop_word_cut() -> None:
    words = ["\ndef", "\n#", "<|endoftext|>"]
    assert cut_at_last_stop_word("a\n#b\ndefc<|endoftext|>", words) == "a\n#b\ndefc"
    assert cut_at_last_stop_word("a|b", ["|"]) == "a"  # stop words are text, not patterns
    assert cut_at_last_stop_word("def f():\n    return 1\n", words) == "def f():\n    return 1\n"  # none: kept


# -- Python Bugs ---------------------------------------------------------------------------------------------------
GCD = "def gcd(a, b):\n    if b == 0:\n        return a\n    else:\n        return gcd(b, a % b)"
BITCOUNT_MISUSED = "def bitcount(n):\n    count = 0\n    while n:\n        n &= count - 1\n        count += 1\n    return count"


def test_python_bugs_prompts_as_bigcode() -> None:
    task = on_rows(PythonBugs())
    bin_op = GCD.replace("a % b", "a // b")
    assert task.get_prompt(task.docs[0]) == (
        "#!/usr/bin/python3\n# A buggy implementation\n" + bin_op + "\n# Fixed binary operator\ndef")
    assert task.get_prompt(task.docs[1]) == (
        "#!/usr/bin/python3\n# A buggy implementation\n" + BITCOUNT_MISUSED + "\n# Fixed incorrect variable name\ndef")
    carper = on_rows(PythonBugs(prompt="prompt_carper"))
    assert carper.get_prompt(carper.docs[1]) == (
        "# A buggy implementation\n#!/usr/bin/python3\n" + BITCOUNT_MISUSED + "\n# Fixed incorrect variable name\ndef")
    edit = on_rows(PythonBugs(prompt="edit"))
    assert edit.get_prompt(edit.docs[0]) == "<commit_before>" + bin_op + "<commit_msg>Fix binary operator<commit_after>"
    assert edit.get_prompt(edit.docs[1]).endswith("<commit_msg>Fix incorrect variable name<commit_after>")


def test_python_bugs_answer_is_cut_to_the_correct_length_and_compared_exactly() -> None:
    task = on_rows(PythonBugs())
    prompt = task.get_prompt(task.docs[0])
    answer = task.postprocess_generation(prompt + GCD[3:] + "\n\n\n# Fixed binary", 0)
    assert answer == GCD
    assert task.score(answer, task.get_reference(task.docs[0]), task.docs[0], {}) == {"exact_match": 1.0}
    answer = task.postprocess_generation(prompt + " gcd(a,b):\n    return a", 0)
    assert answer == "def gcd(a,b):\n    return a"
    assert task.score(" " + GCD, GCD, task.docs[0], {}) == {"exact_match": 0.0}  # no strip, as bigcode
    edit = on_rows(PythonBugs(prompt="edit"))
    prompt = edit.get_prompt(edit.docs[0])
    assert edit.postprocess_generation(prompt + GCD + "<commit_msg>", 0) == GCD


# -- the plugin ------------------------------------------------------------------------------------------------------
def test_listed_with_hub_dataset_metrics_and_size(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-list-tasks", "-v")
    lines = {line.split()[0]: line.split() for line in result.stdout.lines if line and line.split()[0] in ROWS}
    assert lines["quixbugs"][1:4] == ["pass@k,problem-pass@k", "40", "Muennighoff/quixbugs"]
    assert lines["python_bugs"][1:4] == ["exact_match", "1000", "Muennighoff/python-bugs"]


def test_reference_self_check_and_keyword(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-model=reference", "-k", "quixbugs or python_bugs", "--codeeval-strict",
                                "--codeeval-report=r.json", *DATASETS)
    result.assert_outcomes(passed=5)
    data = report(pytester.path / "r.json")["tasks"]
    assert data["quixbugs"]["metrics"]["pass@1"] == 1.0 and data["python_bugs"]["metrics"]["exact_match"] == 1.0
    assert set(data["quixbugs"]["problems"]) == {"bitcount", "breadth_first_search", "gcd"}
    result = pytester.runpytest("--codeeval-model=reference", "-k", "quixbugs", "--codeeval-report=k.json", *DATASETS)
    assert result.ret == 0 and set(report(pytester.path / "k.json")["tasks"]) == {"quixbugs"}


GOOD = {
    "bitcount": FIXED_BITCOUNT[3:],
    "gcd": " gcd(a, b):\n    return a if b == 0 else gcd(b, a % b)\n",
    "breadth_first_search": (
        " breadth_first_search(startnode, goalnode):\n    queue, seen = [startnode], {startnode}\n    while queue:\n"
        "        node = queue.pop(0)\n        if node is goalnode:\n            return True\n"
        "        for nxt in node.successors:\n            if nxt not in seen:\n"
        "                seen.add(nxt)\n                queue.append(nxt)\n    return False\n"),
}


def test_generations_file_under_xdist(pytester: pytest.Pytester) -> None:
    """QuixBugs: per program a fixed and a wrong completion (the program is `def` + the completion); Python Bugs:
    the correct function and a near miss."""
    lines = [{"task": "quixbugs", "task_id": name, "completion": c}
             for name, good in GOOD.items() for c in (good, f" {name}(*args):\n    return 0\n")]
    lines += [{"task": "python_bugs", "task_id": "0", "completion": c} for c in (GCD[3:], GCD[3:] + " ")]
    lines += [{"task": "python_bugs", "task_id": "1", "completion": c} for c in (BITCOUNT_MISUSED[3:],) * 2]
    write_jsonl(pytester.path / "gens.jsonl", lines)
    result = pytester.runpytest_subprocess("--codeeval-load-generations=gens.jsonl", "-n", "2",
                                           "--codeeval-report=r.json", *DATASETS)
    result.assert_outcomes(passed=4, failed=6)
    data = report(pytester.path / "r.json")["tasks"]
    quix = data["quixbugs"]["metrics"]
    assert quix["pass@1"] == 0.5 and quix["pass@1[breadth_first_search]"] == 0.5
    assert data["python_bugs"]["metrics"]["exact_match"] == 0.25
    assert [s["status"] for s in data["quixbugs"]["problems"]["gcd"]["samples"]] == ["passed", "failed"]


def test_rows_without_the_needed_fields_name_them(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester.path / "rows.jsonl", [{"name": "gcd", "buggy_program": BUGGY_GCD, "solution": GCD}])
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=quixbugs",
                                "--codeeval-dataset=quixbugs=rows.jsonl")
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "Traceback" not in out
    assert "rows.jsonl: row 1 has no field 'tests'; task 'quixbugs' needs rows in the schema of the hub dataset " \
           "Muennighoff/quixbugs with the fields name, buggy_program, solution, tests" in out


@pytest.mark.parametrize(("task", "fmt"), [("quixbugs", "edit-openai"), ("python_bugs", "prompt_present")])
def test_a_prompt_format_bigcode_rejects_is_one_line(pytester: pytest.Pytester, task: str, fmt: str) -> None:
    result = pytester.runpytest("--codeeval-model=reference", f"--codeeval-tasks={task}", f"--codeeval-prompt={fmt}",
                                *DATASETS)
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "Traceback" not in out
    assert f"task '{task}': --codeeval-prompt={fmt} is not one of its prompts" in out
    with pytest.raises(CodeevalError, match="a row's task is 'typo'"):
        PythonBugs().get_prompt({"task": "typo", "prompt_code": "", "correct_code": ""})


def test_a_model_writes_the_fixed_program_after_the_prompts_def(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """Generation end to end with the default format: the model continues the prompt's `def`, and the program run is
    `def` + its text (cut at the last stop word) followed by the tests; no part of the prompt is in it."""
    from tiny_models import build

    model = build("gpt2", tmp_path / "gpt2")
    result = pytester.runpytest("--codeeval-model=" + str(model), "--codeeval-tasks=quixbugs",
                                "--codeeval-max-new-tokens=6", "--codeeval-report=r.json", *DATASETS)
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    problems = report(pytester.path / "r.json")["tasks"]["quixbugs"]["problems"]
    task = on_rows(QuixBugs())
    for doc in task.docs:
        (sample,) = problems[doc["name"]]["samples"]
        assert sample["solution"].startswith("def") and "# Buggy function" not in sample["solution"]
        assert sample["program"] == sample["solution"] + "\n" + task.get_reference(doc)
