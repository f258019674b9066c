"""Chat replies scored right: a corpus of reply shapes (tests/data/chat_replies: fenced or not, with and without
the repeated signature and docstring, several blocks, prose and reasoning around them, helpers, other
languages), each with the continuation it must give, and the same replies end to end through a chat endpoint,
so that the verdicts are the real ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from servers import CannedChat

from pytest_codeeval.generation.chat_reply import code_from_reply

DATA = Path(__file__).parents[1] / "data" / "chat_replies"
LANGUAGES = {"python": "python", "javascript": "js", "cpp": "cpp", "java": "java"}
CASES = [(path.stem, case) for path in sorted(DATA.glob("*.json")) for case in json.loads(path.read_text("utf-8"))]


@pytest.mark.parametrize(("language", "case"), CASES, ids=[f"{lang}: {case['problem']}: {case['shape']}" for lang, case in CASES])
def test_reply_gives_the_continuation(language: str, case: dict) -> None:
    assert code_from_reply(case["reply"], case["prompt"]) == case["completion"]


def test_the_corpus_covers_every_language_and_shape() -> None:
    assert {language for language, _ in CASES} == set(LANGUAGES)
    shapes = " ".join(case["shape"] for _, case in CASES)
    for shape in ("without its docstring", "unfenced", "body only", "two blocks", "<think>", "helper", "main"):
        assert shape in shapes


@pytest.mark.parametrize(("language", "workers"), [*((language, []) for language in sorted(LANGUAGES)),
                                                    ("python", ["-n", "2"])],
                         ids=[*sorted(LANGUAGES), "python-xdist"])
def test_every_reply_passes_end_to_end_through_a_chat_endpoint(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                              language: str, workers: list[str]) -> None:
    """Each problem's replies are the samples of one request (n), so each reply gets its own verdict; under xdist
    the controller turns the replies into programs and sends them to the workers."""
    from pytest_codeeval.languages import get_language

    missing = get_language(LANGUAGES[language]).unavailable()
    if missing:
        pytest.skip(missing)
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")  # the translated MultiPL-E rows the corpus's prompts come from
    cases = [case for lang, case in CASES if lang == language]
    by_prompt: dict[str, list[str]] = {}
    for case in cases:
        by_prompt.setdefault(case["prompt"], []).append(case["reply"])
    width = max(len(replies) for replies in by_prompt.values())
    ids = sorted({f"codeeval::{case['task']}::{case['problem']}" for case in cases})
    tasks = ",".join(sorted({case["task"] for case in cases}))
    with CannedChat(by_prompt) as server:
        result = pytester.runpytest(
            "--codeeval-model=openai:chat-model", "--codeeval-chat", f"--codeeval-base-url={server.url}",
            f"--codeeval-n-samples={width}", f"--codeeval-tasks={tasks}", "--codeeval-report=r.json", "-p", "no:cacheprovider", *ids, *workers,
        )
    data = json.loads((pytester.path / "r.json").read_text())
    verdicts = {
        (task, pid, reply): sample["status"]
        for task, info in data["tasks"].items() for pid, problem in info["problems"].items()
        for reply, sample in zip(by_prompt_of(cases, task, pid), problem["samples"], strict=False)
    }
    assert len(verdicts) == len(cases)
    assert set(verdicts.values()) == {"passed"}, verdicts
    assert result.ret == 0


def by_prompt_of(cases: list[dict], task: str, problem: str) -> list[str]:
    return [case["shape"] for case in cases if case["task"] == task and case["problem"] == problem]


def test_which_texts_are_chat_replies() -> None:
    """A server's chat endpoint, or an in-process chat template with nothing put in the model's mouth; a chat
    template after which the answer start (a signature) is written continues that code instead."""
    from types import SimpleNamespace

    from pytest_codeeval.generation.base import GenerationRequest, GenerationSettings, ServerOptions
    from pytest_codeeval.samples import SampleKey
    from pytest_codeeval.solutions.model import ModelSource

    def source(model: str, chat: bool, template: bool) -> ModelSource:
        settings = SimpleNamespace(model=model, server=ServerOptions(chat=chat),
                                   generation=GenerationSettings(chat_template=template))
        return ModelSource(settings, None)  # type: ignore[arg-type]

    plain = GenerationRequest(SampleKey("humaneval", "HumanEval/0", 0), "def f():\n")
    started = GenerationRequest(SampleKey("instruct-humaneval", "HumanEval/0", 0), "Write f.", answer_start="def f():\n")
    assert source("openai:m", True, False)._chat_reply(plain) and source("openai:m", True, False)._chat_reply(started)
    assert not source("openai:m", False, False)._chat_reply(plain)
    assert source("local-model", False, True)._chat_reply(plain)
    assert not source("local-model", False, True)._chat_reply(started)
    assert not source("local-model", False, False)._chat_reply(plain)
