"""StudentEval as bigcode-evaluation-harness runs it, on rows in the hub schema (tests/data/README.md): only the
prompts of the four subsets are problems, the prompt and program are bigcode's (written down from reading its
studenteval.py, not computed by this project's code), and pass@1 is reported per subset as the mean over the
subset's prompts; end to end from a generations file under xdist, with -k, and with rows that lack a field."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import report, write_jsonl

from pytest_codeeval.tasks.catalogue.studenteval import StudentEval

pytestmark = pytest.mark.timeout(300)

ROWS = Path(__file__).parents[2] / "data" / "studenteval" / "test.jsonl"
DATASET = f"--codeeval-dataset=studenteval={ROWS}"
IDS = ["first-failure/add_up/0", "first-failure/subtract_add/1", "last-success/subtract_add/2",
       "first-success/altText/3"]
CHANGE = ("Change the first two items into integers Subtract the second item in the array list from the first item. "
          "change the third and forth items into integers then subtract the forth item from the third item then add "
          "the two sums. if there are just two items in list change those two items into integers subtract the "
          "second one from the first one and return the product. if there are no items then return zero")
SUBTRACT_ADD_TESTS = ("assert subtract_add(['1', '2', '3', '4']) == -2\nassert subtract_add(['0', '2']) == -2\n"
                      "assert subtract_add(['0', '0']) == 0\nassert subtract_add([ ]) == 0")


def on_rows() -> StudentEval:
    task = StudentEval()
    task.dataset_override = ROWS
    return task


def test_only_the_four_subsets_are_problems() -> None:
    task = on_rows()
    assert [task.problem_id(doc, i) for i, doc in enumerate(task.docs)] == IDS  # the attempt in between is left out


def test_prompt_stop_words_and_program_as_bigcode() -> None:
    task = on_rows()
    prompt = 'def subtract_add(lst):\n    """\n    ' + CHANGE + '\n    """'
    assert task.get_prompt(task.docs[2]) == prompt  # the row's prompt, right-stripped
    raw = prompt + "\n    return int(lst[0]) - int(lst[1])\nprint(subtract_add(['1', '2']))\n"
    solution = task.postprocess_generation(raw, 2)
    assert solution == prompt + "\n    return int(lst[0]) - int(lst[1])"
    assert task.build_program(task.docs[2], solution) == solution + "\n\n" + SUBTRACT_ADD_TESTS
    alt = task.get_prompt(task.docs[3])
    assert alt.startswith('def altText(s):\n    """\n    The function takes a string of text as an input.')
    assert alt.endswith("starting with the second letter. \n    \"\"\"")
    raw = alt + "\n    return s\n\nif __name__ == '__main__':\n    pass"
    assert task.postprocess_generation(raw, 3) == alt + "\n    return s\n"
    assert task.stop_words == ["\ndef", "\nclass", "\nif", "\nprint"] and task.default_timeout == 15.0
    assert task.get_solution(task.docs[0]) is None  # the dataset has no canonical solutions


GOOD = {
    "add_up": "\n    total = 0\n    for row in arr:\n        for x in row:\n            if type(x) in (int, float):\n"
              "                total += x\n    return total\n",
    "subtract_add": "\n    return sum(int(x) if i % 2 == 0 else -int(x) for i, x in enumerate(lst))\n",
    "altText": "\n    return ''.join(c.upper() if i % 2 == 0 else c.lower() for i, c in enumerate(s))\n",
}
BAD = "\n    return None\n"


def test_pass_at_1_per_subset_from_a_generations_file_under_xdist(pytester: pytest.Pytester) -> None:
    plan = {IDS[0]: [GOOD["add_up"], BAD], IDS[1]: [BAD, BAD], IDS[2]: [GOOD["subtract_add"]] * 2,
            IDS[3]: [BAD, GOOD["altText"]]}
    write_jsonl(pytester.path / "gens.jsonl", [{"task": "studenteval", "task_id": pid, "completion": c}
                                               for pid, completions in plan.items() for c in completions])
    result = pytester.runpytest_subprocess("--codeeval-load-generations=gens.jsonl", "-n", "2",
                                           "--codeeval-report=r.json", DATASET)
    result.assert_outcomes(passed=4, failed=4)
    metrics = report(pytester.path / "r.json")["tasks"]["studenteval"]["metrics"]
    assert {k: v for k, v in metrics.items() if k.startswith("pass@1[")} == {
        "pass@1[first-failure]": 0.25, "pass@1[first-success]": 0.5, "pass@1[last-success]": 1.0}
    assert metrics["pass@1"] == 0.5


def test_keyword_selects_prompts_and_reference_is_refused(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester.path / "gens.jsonl", [{"task": "studenteval", "task_id": IDS[3], "completion": GOOD["altText"]}])
    result = pytester.runpytest("--codeeval-load-generations=gens.jsonl", "-k", "studenteval and altText", DATASET)
    result.assert_outcomes(passed=1)
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=studenteval", DATASET)
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "studenteval: no reference solutions" in out


def test_listed_and_rows_without_the_subset_flags_name_them(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-list-tasks", "-v")
    (line,) = [line.split() for line in result.stdout.lines if line.startswith("studenteval ")]
    assert line[1:4] == ["pass@k,group-pass@k", "1027", "wellesley-easel/StudentEval"]
    write_jsonl(pytester.path / "rows.jsonl", [{"problem": "add_up", "prompt": "def add_up(arr):", "assertions": ""}])
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=studenteval",
                                "--codeeval-dataset=studenteval=rows.jsonl")
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR and "Traceback" not in out
    assert ("rows.jsonl: row 1 has no field 'is_first_success', 'is_last_success', 'is_first_failure', "
            "'is_last_failure'; task 'studenteval' needs rows in the schema of the hub dataset "
            "wellesley-easel/StudentEval") in out
