"""Prompt conformance with bigcode-evaluation-harness: for two real rows per family, the exact prompt (as the model
sees it) and the solution that post-processing makes of a raw generation. The expected strings are written down
from reading bigcode's task modules (mbpp.py, mbppplus.py, humanevalplus.py, instruct_humaneval.py,
instruct_wizard_humaneval.py and utils.py), not computed by this project's code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import problems

from pytest_codeeval.generation.base import GenerationRequest, GenerationSettings
from pytest_codeeval.generation.cache import cache_key
from pytest_codeeval.generation.prompts import format_prompt
from pytest_codeeval.samples import SampleKey
from pytest_codeeval.tasks.base import Task
from pytest_codeeval.tasks.catalogue.humaneval import (
    HumanEval,
    HumanEvalPlus,
    HumanEvalPlusUnstripped,
    HumanEvalUnstripped,
)
from pytest_codeeval.tasks.catalogue.instruct_humaneval import (
    InstructHumanEval,
    InstructHumanEvalNoContext,
    InstructWizardHumanEval,
    cut_after_function,
)
from pytest_codeeval.tasks.catalogue.mbpp import MBPP, MBPPPlus

DATA = Path(__file__).parents[2] / "data"


def on_rows(task: Task, path: Path) -> Task:
    task.dataset_override = path
    return task


def model_sees(task: Task, idx: int, settings: GenerationSettings | None = None) -> str:
    doc = task.docs[idx]
    return format_prompt(task.get_prompt(doc), settings or GenerationSettings(), None, answer_start=task.answer_start(doc),
                         instruction=task.instruction_task)


def generated(task: Task, idx: int, completion: str) -> str:
    """What the session hands to post-processing: the prompt, the answer start and the model's text."""
    doc = task.docs[idx]
    return task.get_prompt(doc) + task.answer_start(doc) + completion


# -- MBPP ------------------------------------------------------------------------------------------------------
MBPP_11 = ('"""\nWrite a python function to remove first and last occurrence of a given character from the string.\n'
           'assert remove_Occ("hello","l") == "heo"\n"""\n')
MBPP_12 = ('"""\nWrite a function to sort a given matrix in ascending order according to the sum of its rows.\n'
           "assert sort_matrix([[1, 2, 3], [2, 4, 5], [1, 1, 1]])==[[1, 1, 1], [1, 2, 3], [2, 4, 5]]\n" '"""\n')


def test_mbpp_prompt_stop_words_and_program() -> None:
    task = on_rows(MBPP(), DATA / "mbpp" / "test.jsonl")
    assert [model_sees(task, 0), model_sees(task, 1)] == [MBPP_11, MBPP_12]
    raw = generated(task, 0, "def remove_Occ(s,ch):\n    return s.replace(ch, '')\nassert remove_Occ('a','a') == ''\n")
    assert task.postprocess_generation(raw, 0) == MBPP_11 + "def remove_Occ(s,ch):\n    return s.replace(ch, '')"
    raw = generated(task, 1, 'def sort_matrix(M):\n    return sorted(M, key=sum)\n"""\nAnother problem\n"""\n')
    solution = task.postprocess_generation(raw, 1)
    assert solution == MBPP_12 + "def sort_matrix(M):\n    return sorted(M, key=sum)"
    assert task.build_program(task.docs[1], solution) == solution + "\n" + (
        "assert sort_matrix([[1, 2, 3], [2, 4, 5], [1, 1, 1]])==[[1, 1, 1], [1, 2, 3], [2, 4, 5]]\n"
        "assert sort_matrix([[1, 2, 3], [-2, 4, -5], [1, -1, 1]])==[[-2, 4, -5], [1, -1, 1], [1, 2, 3]]\n"
        "assert sort_matrix([[5,8,9],[6,4,3],[2,1,4]])==[[2, 1, 4], [6, 4, 3], [5, 8, 9]]")


def test_mbppplus_prompt_and_both_test_sets() -> None:
    task = on_rows(MBPPPlus(), DATA / "mbppplus" / "test.jsonl")
    assert model_sees(task, 0) == '"""\nWrite a python function to identify non-prime numbers.\nassert is_not_prime(2) == False\n"""\n'
    assert model_sees(task, 1) == ('"""\nWrite a python function to check whether the two numbers differ at one bit '
                                   'position only or not.\nassert differ_At_One_Bit_Pos(13,9) == True\n"""\n')
    raw = generated(task, 0, "def is_not_prime(n):\n    return n < 2\nprint(is_not_prime(4))")
    solution = task.postprocess_generation(raw, 0)
    assert solution == model_sees(task, 0) + "def is_not_prime(n):\n    return n < 2"
    doc = task.docs[0]
    assert task.build_program(doc, solution) == solution + "\n\n" + doc["test"]
    assert doc["test"].startswith("import numpy as np\nfrom math import inf\n")
    task = on_rows(MBPPPlus(mbppplus_mbpp_tests=True), DATA / "mbppplus" / "test.jsonl")
    assert task.build_program(doc, solution) == solution + "\n" + "\n".join(doc["test_list"])


# -- HumanEval+ and the unstripped variants ---------------------------------------------------------------------
ISCUBE = (
    "\ndef iscube(a):\n    '''\n"
    "    Write a function that takes an integer a and returns True \n"
    "    if this ingeger is a cube of some integer number.\n"
    "    Note: you may assume the input is always valid.\n"
    "    Examples:\n"
    "    iscube(1) ==> True\n    iscube(2) ==> False\n    iscube(-1) ==> True\n    iscube(64) ==> True\n"
    "    iscube(0) ==> True\n    iscube(180) ==> False\n"
    "    '''\n"
)


@pytest.mark.parametrize(("task_cls", "prompt"), [(HumanEvalPlus, ISCUBE.strip()), (HumanEvalPlusUnstripped, ISCUBE)])
def test_humanevalplus_prompt_and_program(task_cls: type[Task], prompt: str) -> None:
    task = on_rows(task_cls(), DATA / "humanevalplus" / "test.jsonl")
    assert model_sees(task, 0) == prompt
    assert model_sees(task, 1).lstrip().startswith("def is_multiply_prime(a):\n")
    body = "    a = abs(a)\n    return round(a ** (1 / 3)) ** 3 == a\n"
    solution = task.postprocess_generation(generated(task, 0, body + "\ndef helper():\n    pass\n"), 0)
    assert solution == prompt + body
    assert task.build_program(task.docs[0], solution).endswith("        assertion(candidate(*inp), exp, 0)\n\ncheck(iscube)")
    assert task.default_timeout == 20.0  # bigcode's limit for the plus tests


def test_humaneval_unstripped_keeps_the_trailing_newline() -> None:
    doc = problems()["HumanEval/0"]
    assert HumanEvalUnstripped().get_prompt(doc) == doc["prompt"] and doc["prompt"].endswith('"""\n')


# -- instruction HumanEval ---------------------------------------------------------------------------------------
INSTRUCTION_0 = (
    "Write a function has_close_elements(numbers: List[float], threshold: float) -> bool to solve the following problem:\n"
    "Check if in given list of numbers, are any two numbers closer to each other than\ngiven threshold.\n"
    ">>> has_close_elements([1.0, 2.0, 3.0], 0.5)\nFalse\n>>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\nTrue"
)
CONTEXT_0 = "from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
STARCHAT = GenerationSettings(instruction_tokens=("<|user|>\n", "<|end|>\n", "<|assistant|>\n"))


def test_instruct_humaneval_prompt_puts_the_context_after_the_assistant_token() -> None:
    task = on_rows(InstructHumanEval(), DATA / "instructhumaneval" / "test.jsonl")
    assert model_sees(task, 0, STARCHAT) == "<|user|>\n" + INSTRUCTION_0 + "<|end|>\n<|assistant|>\n" + CONTEXT_0
    assert model_sees(task, 0) == INSTRUCTION_0 + "\n" + CONTEXT_0  # bigcode's empty tokens: "", "", "\n"
    nocontext = on_rows(InstructHumanEvalNoContext(), DATA / "instructhumaneval" / "test.jsonl")
    assert model_sees(nocontext, 0, STARCHAT) == "<|user|>\n" + INSTRUCTION_0 + "<|end|>\n<|assistant|>\n"
    assert model_sees(nocontext, 1).startswith("Write a function truncate_number(number: float) -> float to solve")


def test_instruction_tokens_wrap_instruction_tasks_only_after_the_prefix() -> None:
    """As BCEH's TokenizedDataset builds them (tests/data/instructhumaneval/bceh_prompts.json, its own code's output):
    a completion task's prompt gets the prefix only; an instruction task's, the prefix then the tokens around it."""
    bceh = json.loads((DATA / "instructhumaneval" / "bceh_prompts.json").read_text(encoding="utf-8"))
    settings = GenerationSettings(instruction_tokens=tuple(bceh["instruction_tokens"]), prefix=bceh["prefix"])
    assert model_sees(HumanEval(), 0, settings) == bceh["humaneval"][0]
    instruct = on_rows(InstructHumanEval(), DATA / "instructhumaneval" / "test.jsonl")
    assert model_sees(instruct, 0, settings) == bceh["instruct-humaneval"][0]


def test_instruct_humaneval_solutions() -> None:
    task = on_rows(InstructHumanEval(), DATA / "instructhumaneval" / "test.jsonl")
    body = ("    for i, a in enumerate(numbers):\n        for b in numbers[i + 1:]:\n            if abs(a - b) < threshold:\n"
            "                return True\n    return False\n")
    assert task.postprocess_generation(generated(task, 0, body + "\nprint(has_close_elements([1.0], 0.5))"), 0) == CONTEXT_0 + body
    raw = generated(task, 1, "    return number % 1.0\n\nassert truncate_number(3.5) == 0.5\n")
    assert task.postprocess_generation(raw, 1) == "\n\ndef truncate_number(number: float) -> float:\n    return number % 1.0\n\n"
    assert task.build_program(task.docs[1], "x").startswith("x\n\n\n\nMETADATA")


def test_instruct_humaneval_nocontext_solutions() -> None:
    task = on_rows(InstructHumanEvalNoContext(), DATA / "instructhumaneval" / "test.jsonl")
    answer = ("Here is the function:\n```python\nfrom typing import List\n\ndef has_close_elements(numbers, threshold):\n"
              "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n"
              "```\nIt checks every pair.")
    assert task.postprocess_generation(generated(task, 0, answer), 0) == (
        "from typing import List\ndef has_close_elements(numbers, threshold):\n"
        "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])")
    answer = "def truncate_number(number: float) -> float:\n    return number - int(number)\nprint(truncate_number(3.5))"
    assert task.postprocess_generation(generated(task, 1, answer), 1) == (
        "\ndef truncate_number(number: float) -> float:\n    return number - int(number)")


WIZARD_0 = (
    "Below is an instruction that describes a task. Write a response that appropriately completes the request.\n\n\n"
    "### Instruction:\nCreate a Python script for this problem:\n"
    "from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
    '\t""" Check if in given list of numbers, are any two numbers closer to each other than\n\tgiven threshold.\n'
    "\t>>> has_close_elements([1.0, 2.0, 3.0], 0.5)\n\tFalse\n"
    "\t>>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\n\tTrue\n"
    '\t"""\n\n\n### Response:'
)


def test_instruct_wizard_humaneval_prompt_and_cleanup(monkeypatch: pytest.MonkeyPatch) -> None:
    task = InstructWizardHumanEval()
    monkeypatch.setitem(task.__dict__, "docs", [problems()["HumanEval/0"], problems()["HumanEval/2"]])
    assert model_sees(task, 0) == WIZARD_0 and task.stop_words == []
    raw = generated(task, 0, " Here's the code:\n```python\ndef has_close_elements(numbers, threshold):\n\treturn False\n"
                             "```\n\n# Example usage\n</s>")
    assert task.postprocess_generation(raw, 0) == "def has_close_elements(numbers, threshold):\n    return False"
    raw = generated(task, 1, "Here's a solution.\ndef truncate_number(number):\n\treturn number % 1\n\n"
                             'if __name__ == "__main__":\n\tprint(truncate_number(3.5))')
    assert task.postprocess_generation(raw, 1) == "def truncate_number(number):\n    return number % 1"
    # bigcode raises on a ```python block without its closing fence; the text is kept here.
    assert task.postprocess_generation("### Response:```python\ndef f():\n\treturn 1", 0) == "\ndef f():\n    return 1"


def test_cut_after_function_keeps_the_first_function() -> None:
    code = "def f(x):\n    if x:\n\n        return 1\n    return 2\n\nprint(f(1))\ndef g():\n    pass\n"
    assert cut_after_function(code) == "def f(x):\n    if x:\n\n        return 1\n    return 2\n\n"
    assert cut_after_function("\n\n    indented only\n") == "\n\n    indented only\n"


def test_the_answer_start_is_part_of_the_cache_key() -> None:
    key = SampleKey("instruct-humaneval", "HumanEval/0", 0)
    plain = GenerationRequest(key, INSTRUCTION_0)
    with_context = GenerationRequest(key, INSTRUCTION_0, answer_start=CONTEXT_0)
    assert cache_key({"model": "m"}, plain, STARCHAT) != cache_key({"model": "m"}, with_context, STARCHAT)


def test_an_old_cached_mbpp_from_the_hub_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """bigcode asserts the test split has 500 rows (older copies had more); a local file may hold any subset."""
    from pytest_codeeval.errors import CodeevalError

    assert len(on_rows(MBPP(), DATA / "mbpp" / "test.jsonl").docs) == 2
    rows = [{"task_id": i, "text": "t", "code": "", "test_list": ["assert True"]} for i in range(974)]
    monkeypatch.setattr(MBPP, "hub_rows", lambda self: rows)
    with pytest.raises(CodeevalError, match="test split has 974 rows, not 500: an old cached copy"):
        _ = MBPP().docs
