"""Parity: bigcode's prompts and tests (written down from its parity.py), a reference self-check, and the score per
number of bugs from a generations file under xdist."""

from __future__ import annotations

import pytest
from helpers import report, write_jsonl

from pytest_codeeval.tasks.catalogue.parity import Parity

pytestmark = pytest.mark.timeout(300)

DOC = '    """Return binary parity of a sequence of input bits. Return 0 for even parity, 1 for odd parity."""\n'


def test_prompts_tests_and_postprocessing_as_bigcode(monkeypatch: pytest.MonkeyPatch) -> None:
    task = Parity()
    one, five = task.get_prompt({"bugs": 1}), task.get_prompt({"bugs": 5})
    assert one == ("#!/usr/bin/python3\n# A buggy implementation\ndef parity(b1,b2,b3,b4):\n" + DOC +
                   "    bit_sum = sum([c1,b2,b3,b4])\n    return bit_sum % 2\n# Fixed bugs\ndef")
    assert five == ("#!/usr/bin/python3\n# A buggy implementation\ndef parity(b1,b2,b3,b4):\n" + DOC +
                    "    bit_sum = sum([c1,c2,c3,c4])\n    return bit_sum % 3\n# Fixed bugs\ndef")
    tests = task.get_reference({"bugs": 1})
    assert tests.startswith("assert (0 == parity(0, 0, 0, 0)) and (1 == parity(0, 0, 0, 1)) and (1 == parity(0, 0, 1, 0))")
    assert tests.endswith("(1 == parity(1, 1, 1, 0)) and (0 == parity(1, 1, 1, 1))") and tests.count(" and ") == 15
    fixed = " parity(b1,b2,b3,b4):\n    return sum([b1,b2,b3,b4]) % 2   \n# done\nprint(parity(1, 0, 0, 0))"
    assert task.postprocess_generation(one + fixed, 0) == "def parity(b1,b2,b3,b4):\n    return sum([b1,b2,b3,b4]) % 2"
    assert task.postprocess_generation(five + " parity(*b):\n    return 1<|endoftext|>", 4) == "def parity(*b):\n    return 1"


def test_reference_and_no_dataset_file(pytester: pytest.Pytester) -> None:
    pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=parity", "--codeeval-strict").assert_outcomes(passed=5)
    (pytester.path / "rows.jsonl").write_text('{"bugs": 1}\n', encoding="utf-8")
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=parity", "--codeeval-dataset=parity=rows.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: *task 'parity' loads its data itself and takes no local dataset file*"])


def test_score_per_number_of_bugs_under_xdist(pytester: pytest.Pytester) -> None:
    good = " parity(b1,b2,b3,b4):\n    return (b1 + b2 + b3 + b4) % 2\n"
    bad = " parity(b1,b2,b3,b4):\n    return 0\n"
    plan = {1: [good, good], 2: [good, bad], 3: [bad, bad], 4: [good, bad], 5: [bad, good]}
    write_jsonl(pytester.path / "gens.jsonl", [{"task": "parity", "task_id": f"{n}-bugs", "completion": c}
                                               for n, completions in plan.items() for c in completions])
    result = pytester.runpytest_subprocess("--codeeval-load-generations=gens.jsonl", "-n", "2", "--codeeval-report=r.json")
    result.assert_outcomes(passed=5, failed=5)
    metrics = report(pytester.path / "r.json")["tasks"]["parity"]["metrics"]
    assert {k: v for k, v in metrics.items() if k.startswith("pass@1[")} == {
        "pass@1[1-bugs]": 1.0, "pass@1[2-bugs]": 0.5, "pass@1[3-bugs]": 0.0, "pass@1[4-bugs]": 0.5, "pass@1[5-bugs]": 0.5}
    assert metrics["pass@1"] == 0.5
