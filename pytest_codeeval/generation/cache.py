"""The generation cache: completions on disk, keyed by everything that determines them.

An append-only JSONL file, flushed after every completion: a second identical run generates nothing, and an
interrupted run resumes with what it had (a line cut by a kill -9 mid-write is skipped, and the next entry goes on
a line of its own). The batch size is not part of the key: it does not change outputs."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

from pytest_codeeval.generation.base import Completion, GenerationRequest, GenerationSettings

CACHE_FILE = "completions.jsonl"
NOT_IN_KEY = ("batch_size",)


def cache_key(identity: dict[str, Any], request: GenerationRequest, settings: GenerationSettings) -> str:
    fields = {k: v for k, v in dataclasses.asdict(settings).items() if k not in NOT_IN_KEY}
    if fields["fim_format"] is None:  # unset: keys stay those of runs made before the option existed
        fields.pop("fim_format")
    if not settings.sampling:  # greedy: the sampling knobs cannot change the text
        for name in ("temperature", "top_p", "top_k", "seed"):
            fields.pop(name)
    payload = {
        "model": identity, "prompt": request.prompt, "stop": list(request.stop_words), "settings": fields,
        "task": request.key.task, "problem": request.key.problem, "sample": request.key.index,
    }
    if request.answer_start:
        payload["answer_start"] = request.answer_start
    if request.suffix is not None:
        payload["suffix"] = request.suffix
    if settings.instruction_tokens and not request.instruction:  # not wrapped: not the text a wrapped prompt gave
        payload["unwrapped"] = True
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


class GenerationCache:
    def __init__(self, directory: Path) -> None:
        self.path = directory / CACHE_FILE
        self.entries: dict[str, dict[str, Any]] = {}
        self.cut = False  # the file ends mid-line (a run killed while it wrote): the next entry starts a new line
        if self.path.exists():
            text = self.path.read_text(encoding="utf-8", errors="replace")
            self.cut = bool(text) and not text.endswith("\n")
            for line in text.splitlines():
                try:
                    entry = json.loads(line)
                    self.entries[entry["key"]] = entry
                except (ValueError, KeyError, TypeError):  # a line cut by an interrupted run
                    continue

    def get(self, key: str, request: GenerationRequest) -> Completion | None:
        entry = self.entries.get(key)
        return Completion(request, entry["text"], entry.get("tokens", 0)) if entry else None

    def put(self, key: str, completion: Completion) -> None:
        entry = {"key": key, "text": completion.text, "tokens": completion.tokens}
        self.entries[key] = entry
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:  # closed, so flushed, after each completion
            handle.write(("\n" if self.cut else "") + json.dumps(entry) + "\n")
        self.cut = False
