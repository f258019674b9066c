"""Prompts and post-processing as bigcode-evaluation-harness makes them where its options change them (issue 26):
parity's four `--prompt` formats, `--codeeval-prompt` refused by a task without formats, and instruction tokens as
stop words. The expected texts are the harness's own output (tests/data/parity, tests/data/instructhumaneval)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from helpers import language_or_skip, report, write_jsonl

from pytest_codeeval.tasks import builtin_registry
from pytest_codeeval.tasks.catalogue.parity import Parity

pytestmark = pytest.mark.timeout(300)

DATA = Path(__file__).parents[2] / "data"
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


# What a server gives for instruct-humaneval's two rows, four samples each, ignoring the stop strings it is sent.
# Row 0: four right functions, the second followed by the `<|end|>` an instruction model writes; row 1: three
# right, one wrong. As in the harness the solutions are cut at `<|end|>`: 7 of 8 pass (0.875); kept, it is a
# syntax error (0.75).
CANNED = {
    "has_close_elements": [
        "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n",
        "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])<|end|>\nDone.",
        "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[:i])\n",
        "    return any(abs(numbers[i] - numbers[j]) < threshold for i in range(len(numbers)) for j in range(i))\n",
    ],
    "truncate_number": ["    return number % 1.0\n", "    return number - int(number)\n", "    return 0.0\n",
                        "    return number % 1\n"],
}


@contextmanager
def canned_server() -> Iterator[tuple[str, list[dict]]]:
    """An OpenAI-compatible completions endpoint that answers CANNED by the function the prompt names."""
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            seen.append(body)
            texts = next(t for name, t in CANNED.items() if f"def {name}" in body["prompt"])
            choices = [{"text": text, "index": i, "finish_reason": "stop", "logprobs": None}
                       for i, text in enumerate(texts[: body.get("n", 1)])]
            payload = json.dumps({"id": "c", "object": "text_completion", "created": 0, "model": body["model"],
                                  "choices": choices,
                                  "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()


def test_instruction_tokens_end_generation_end_to_end(pytester: pytest.Pytester) -> None:
    with canned_server() as (url, seen):
        result = pytester.runpytest_subprocess(
            "--codeeval-model=openai:m", f"--codeeval-base-url={url}", "--codeeval-tasks=instruct-humaneval",
            f"--codeeval-dataset=instruct-humaneval={DATA / 'instructhumaneval' / 'test.jsonl'}",
            f"--codeeval-instruction-tokens={TOKENS}", "--codeeval-n-samples=4", "--codeeval-k=1",
            "--codeeval-cache-dir=cache", "--codeeval-report=r.json")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    # the server is sent the first four stop strings (OpenAI's limit): the task's three, then the user token
    assert all(body["stop"] == ["if __name__", "\nprint", "\nclass", "<|user|>"] for body in seen)
    task = report(pytester.path / "r.json")["tasks"]["instruct-humaneval"]
    assert task["metrics"]["pass@1"] == pytest.approx(0.875)
    assert all(body["prompt"].startswith("<|user|>Write a function") for body in seen)
    assert not any("<|end|>" in s["solution"] for p in task["problems"].values() for s in p["samples"])


def test_instruction_tokens_are_stop_words_of_multiple_tasks(pytester: pytest.Pytester) -> None:
    """MultiPL-E's rows carry their own stop tokens; the instruction tokens stop there too, as in the harness. Its own
    `multiple-lua` post-processing and its evaluator (tests/data/multiple/bceh_instruction_tokens_lua.json) pass 3 of
    these 4; before, `end<|end|>` was kept (a Lua syntax error) and 1 passed."""
    language_or_skip("lua")
    bceh = json.loads((DATA / "multiple" / "bceh_instruction_tokens_lua.json").read_text(encoding="utf-8"))
    registry = builtin_registry()
    registry.use_options({"instruction_tokens": tuple(TOKENS.split(","))})
    task = registry.get("multiple-lua")
    doc = task.docs[0]
    assert task.stop_words_for(doc) == bceh["stop_words"]
    got = [task.postprocess_generation(task.get_prompt(doc) + c, 0) for c in bceh["continuations"]]
    assert got == bceh["postprocessed"]
    write_jsonl(pytester.path / "g.jsonl", [{"task": "multiple-lua", "task_id": doc["name"],
                                             "completion": text[len(doc["prompt"]):]} for text in got])
    result = pytester.runpytest("--codeeval-load-generations=g.jsonl", "--codeeval-report=r.json")
    samples = report(pytester.path / "r.json")["tasks"]["multiple-lua"]["problems"][doc["name"]]["samples"]
    assert [s["status"] == "passed" for s in samples] == [status == "OK" for status in bceh["statuses"]]
    result.assert_outcomes(passed=bceh["statuses"].count("OK"), failed=bceh["statuses"].count("Exception"))


def test_instruction_tokens_leave_a_completion_tasks_prompt_alone(pytester: pytest.Pytester) -> None:
    """The server gets the prompt BCEH's TokenizedDataset makes for humaneval with a prefix and instruction tokens
    (tests/data/instructhumaneval/bceh_prompts.json): the prefix, not the tokens; and one sample at a given
    temperature is sampled at it, as BCEH samples."""
    bceh = json.loads((DATA / "instructhumaneval" / "bceh_prompts.json").read_text(encoding="utf-8"))
    common = ["--codeeval-model=openai:m", "--codeeval-tasks=humaneval", "--codeeval-limit=1",
              f"--codeeval-instruction-tokens={','.join(bceh['instruction_tokens'])}",
              f"--codeeval-prefix={bceh['prefix']}", "--codeeval-cache-dir=cache"]
    for given, temperature in ([], 0.0), (["--codeeval-temperature=0.8"], 0.8):
        with canned_server() as (url, seen):
            result = pytester.runpytest_subprocess(*common, f"--codeeval-base-url={url}", *given)
        assert result.ret == 0, result.stdout.str() + result.stderr.str()
        assert [(body["prompt"], body["temperature"]) for body in seen] == [(bceh["humaneval"][0], temperature)]
