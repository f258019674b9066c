"""MultiPL-E (Cassano et al. 2023): HumanEval and MBPP translated to other languages, judged by translated tests.
https://github.com/nuprl/MultiPL-E

`multiple-<lang>` are bigcode-evaluation-harness's names (HumanEval, hub config `humaneval-<lang>`);
`multiple-mbpp-<lang>` their MBPP counterparts (hub config `mbpp-<lang>`). The rows come from the hub when it
answers (nuprl/MultiPL-E, at the revision bigcode-evaluation-harness pins), from a local file in the hub's schema
with `--codeeval-dataset`, else from MultiPL-E's Python originals shipped in `data/multiple/`, translated here as
MultiPL-E's own builder translates them (pytest_codeeval/languages/translate.py): the same rows, byte for byte."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pytest_codeeval.tasks.base import Doc, Task, stop_at_stop_words

# bigcode-evaluation-harness's multiple-* languages, all of its list. dart, jl and swift are registered and skip
# where their toolchain is missing: Debian does not package them. Python's programs run through Python's own runner:
# the task's language is `python`.
LANGUAGES = (
    *("clj", "cpp", "cs", "d", "dart", "elixir", "go", "hs", "java", "jl", "js", "lua", "ml"),
    *("php", "pl", "py", "r", "rb", "rkt", "rs", "scala", "sh", "swift", "ts"),
)


class MultiPLE(Task):
    DATASET_PATH = "nuprl/MultiPL-E"
    DATASET_REVISION = "8a4cb75204eb3d5855a81778db6b95bfc80c9136"  # bigcode-evaluation-harness's pin
    metrics = ("pass@k",)
    required_fields = ("name", "prompt", "tests")
    source: ClassVar[str] = "humaneval"  # or "mbpp"

    def __init__(self) -> None:
        from pytest_codeeval.languages import get_language

        self.lang = get_language(self.language)
        super().__init__(stop_words=[*self.lang.stop, "<file_sep>"], requires_execution=True)

    # -- data -----------------------------------------------------------------------------------------------
    def unavailable(self, doc: Doc | None = None) -> str | None:
        """A missing toolchain skips the task's items; its rows are still made (--codeeval-export-dataset)."""
        return self.lang.unavailable()

    def get_dataset(self) -> Sequence[Doc]:
        from pytest_codeeval.tasks.loading import hub_reachable

        if self.dataset_override is None and not hub_reachable():
            from pytest_codeeval.languages.translate import rows

            return rows(self.lang, self.source)
        return self.hub_rows()

    def data_origin(self) -> str:
        """The rows are translated here offline from MultiPL-E's shipped originals (the hub's when it answers)."""
        return "packaged" if self.dataset_override is None else super().data_origin()

    def reference_solutions(self) -> str:
        return "no"  # neither the hub's rows nor the translation carry solutions (a local file's rows may)

    def problem_id(self, doc: Doc, index: int) -> str:
        return str(doc.get("name", index))

    # -- prompting ------------------------------------------------------------------------------------------
    def get_prompt(self, doc: Doc) -> str:
        return doc["prompt"].strip()  # as bigcode-evaluation-harness: trailing whitespace tokenizes badly

    def get_reference(self, doc: Doc) -> str:
        return doc["tests"]

    def get_solution(self, doc: Doc) -> str | None:
        """Rows may carry a canonical completion (MultiPL-E's do not: the translation has no solutions)."""
        solution = doc.get("canonical_solution")
        return doc["prompt"] + solution if solution else None

    def stop_words_for(self, doc: Doc) -> Sequence[str]:
        """The row's own stop tokens, as bigcode-evaluation-harness stops at its rows' (the language's list where a
        local file's rows have none), then the task's others: `<file_sep>` and the run's instruction tokens."""
        return [*(doc.get("stop_tokens") or self.lang.stop), *(w for w in self.stop_words if w not in self.lang.stop)]

    def postprocess_generation(self, generation: str, idx: int) -> str:
        doc = self.docs[idx]
        prompt = self.get_prompt(doc)
        completion = generation[len(prompt) :] if generation.startswith(prompt) else generation
        return prompt + stop_at_stop_words(completion, self.stop_words_for(doc))

    def join_completion(self, doc: Doc, completion: str) -> str:
        # MultiPL-E's completions continue the unstripped prompt (which ends with a newline)
        return doc["prompt"] + completion


def _task(language: str, source: str) -> type[MultiPLE]:
    from pytest_codeeval.languages import get_language

    lang = get_language(language)
    prefix = "multiple" if source == "humaneval" else "multiple-mbpp"
    attributes = {
        "name": f"{prefix}-{language}",
        "language": "python" if language == "py" else language,
        "source": source,
        "DATASET_NAME": f"{source}-{language}",
        "default_timeout": lang.timeout,
        "description": f"MultiPL-E: {'HumanEval' if source == 'humaneval' else 'MBPP'} in {lang.title} (pass@k)",
        "__module__": __name__,
    }
    return type(f"MultiPLE_{source}_{language}", (MultiPLE,), attributes)


def register(registry: Any) -> None:
    for source in ("humaneval", "mbpp"):
        for language in LANGUAGES:
            registry.add(_task(language, source))
