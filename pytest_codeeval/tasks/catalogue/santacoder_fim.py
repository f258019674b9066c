"""SantaCoder's fill-in-the-middle benchmark (Allal et al. 2023): one missing line of HumanEval-derived code in
Python, JavaScript and Java, judged by exact match, zero-shot. `santacoder_fim` and `starcoder_fim` differ only in
the FIM tokens: bigcode-evaluation-harness writes SantaCoder's `<fim-prefix>` or StarCoder's `<fim_prefix>` whatever
the model, and so do these tasks unless --codeeval-fim-format names another family."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pytest_codeeval.tasks.base import Doc, Task
from pytest_codeeval.tasks.registry import TaskRegistry

if TYPE_CHECKING:
    from pytest_codeeval.generation.base import GenerationSettings

LANGUAGES = ("py", "js", "java")


class SantaCoderFim(Task):
    name = "santacoder_fim"
    description = "SantaCoder FIM: one line filled in between prefix and suffix, py/js/java (exact match)"
    DATASET_PATH = "bigcode/santacoder-fim-task"
    SPLIT = "train"  # the dataset's only split
    metrics = ("exact_match", *(f"exact_match[{lang}]" for lang in LANGUAGES))
    required_fields = ("prompt", "suffix", "canonical_solution", "language")
    id_field = "name"
    fim_format = "santacoder"
    stops: tuple[str, ...] = ("<|endoftext|>", "<|filename|>")

    def __init__(self) -> None:
        super().__init__(stop_words=self.stops, requires_execution=False)

    def generation_settings(self, settings: GenerationSettings) -> GenerationSettings:
        return settings if settings.fim_format else dataclasses.replace(settings, fim_format=self.fim_format)

    def get_prompt(self, doc: Doc) -> str:
        return doc["prompt"]

    def get_suffix(self, doc: Doc) -> str:
        return doc["suffix"]

    def get_reference(self, doc: Doc) -> str:
        return doc["canonical_solution"]

    def score(self, solution: str, reference: Any, doc: Doc, resources: Mapping[str, Any]) -> dict[str, float]:
        """Exact match of the stripped texts, overall and under the row's language (the harness reports both)."""
        value = float(solution.strip() == str(reference).strip())
        return {"exact_match": value, f"exact_match[{doc['language']}]": value}


class StarCoderFim(SantaCoderFim):
    name = "starcoder_fim"
    description = "SantaCoder FIM with StarCoder's FIM tokens (exact match)"
    fim_format = "starcoder"
    stops = ("<|endoftext|>", "<|filename|>", "<file_sep>")


def register(registry: TaskRegistry) -> None:
    registry.add(SantaCoderFim)
    registry.add(StarCoderFim)
