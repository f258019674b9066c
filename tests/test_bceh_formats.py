"""Prompts and post-processing as bigcode-evaluation-harness makes them where its options change them (issue 26):
parity's four `--prompt` formats, `--codeeval-prompt` refused by a task without formats, and instruction tokens as
stop words. The expected texts are the harness's own output (tests/data/parity, tests/data/instructhumaneval)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import report, write_jsonl

from pytest_codeeval.tasks import builtin_registry
from pytest_codeeval.tasks.parity import Parity

pytestmark = pytest.mark.timeout(300)

DATA = Path(__file__).parent / "data"
PARITY = json.loads((DATA / "parity" / "bceh.json").read_text(encoding="utf-8"))
INSTRUCT = json.loads((DATA / "instructhumaneval" / "bceh_instruction_tokens.json").read_text(encoding="utf-8"))
TOKENS = "<|user|>,<|end|>,<|assistant|>"


@pytest.mark.parametrize("fmt", ["prompt", "prompt_carper", "edit", "diff"])
def test_parity_formats_are_bigcodes(fmt: str) -> None:
    task = Parity(prompt=fmt)
    expected = PARITY[fmt]
    assert [task.get_prompt(doc) for doc in task.docs] == expected["prompts"]
    for i, (completion, post) in enumerate(zip(expected["completions"], expected["postprocessed"], strict=True)):
        assert task.postprocess_generation(expected["prompts"][i % 5] + completion, i % 5) == post


@pytest.mark.parametrize("fmt", ["edit", "diff", "prompt_carper"])
def test_parity_runs_in_each_format(pytester: pytest.Pytester, fmt: str) -> None:
    """The reference passes; a file's completions are joined as the format's prompt expects (`def` given back
    only after the `prompt*` formats' prompts)."""
    pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=parity", f"--codeeval-prompt={fmt}",
                       "--codeeval-strict").assert_outcomes(passed=5)
    body = "parity(b1,b2,b3,b4):\n    return (b1 + b2 + b3 + b4) % 2\n"
    completion = " " + body if fmt.startswith("prompt") else "def " + body
    write_jsonl(pytester.path / "g.jsonl", [{"task": "parity", "task_id": f"{n}-bugs", "completion": completion}
                                            for n in range(1, 6)])
    result = pytester.runpytest("--codeeval-load-generations=g.jsonl", f"--codeeval-prompt={fmt}", "--codeeval-report=r.json")
    result.assert_outcomes(passed=5)
    first = report(pytester.path / "r.json")["tasks"]["parity"]["problems"]["1-bugs"]["samples"][0]
    assert first["solution"] == "def " + body


def test_an_unknown_parity_format_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=parity", "--codeeval-prompt=patch")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: task 'parity': --codeeval-prompt=patch is not one of its prompts: "
                                 "prompt, prompt_carper, edit, diff"])


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_task_without_formats_refuses_a_prompt_format(pytester: pytest.Pytester, workers: list[str]) -> None:
    """Before, `--codeeval-prompt=edit` was ignored by every task that has no formats."""
    rows = DATA / "conala" / "conala.jsonl"
    result = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-tasks=conala,parity",
                                           f"--codeeval-dataset=conala={rows}", "--codeeval-prompt=edit", *workers)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "ERROR: --codeeval-prompt=edit: task 'conala' has no prompt formats; run it without --codeeval-prompt" in err
    assert "Traceback" not in err + result.stdout.str()


def test_instruction_tokens_are_stop_words_of_every_task() -> None:
    """As BCEH's generation.py: the non-empty tokens join each task's stop words (its own list, not the class's)."""
    registry = builtin_registry()
    registry.use_options({"instruction_tokens": ("<|user|>", " ", "<|assistant|>")})
    for name in ("instruct-humaneval", "humaneval", "parity"):
        stops = registry.get(name).stop_words
        assert stops[-2:] == ["<|user|>", "<|assistant|>"] and " " not in stops, name
    assert "<|user|>" not in Parity().stop_words and "<|user|>" not in builtin_registry().get("parity").stop_words


def test_instruction_tokens_are_cut_as_bigcode_cuts_them() -> None:
    """An `<|end|>` the model writes after the function ends the solution, as in the harness; before, it stayed in
    the program (a syntax error)."""
    registry = builtin_registry()
    registry.use_datasets([("instruct-humaneval", DATA / "instructhumaneval" / "test.jsonl")])
    registry.use_options({"instruction_tokens": tuple(TOKENS.split(","))})
    task = registry.get("instruct-humaneval")
    for index, continuations in INSTRUCT["continuations"].items():
        doc = task.docs[int(index)]
        got = [task.postprocess_generation(doc["instruction"] + doc["context"] + c, int(index)) for c in continuations]
        assert got == INSTRUCT["postprocessed"][index]
        assert not any("<|" in text for text in got)
