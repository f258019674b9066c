"""HumanEvalPack's tasks: what every scenario shares, the three scenarios, and one task class per (scenario,
language), made with `type()` and registered by `register`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.tasks.base import Doc, Task
from pytest_codeeval.tasks.catalogue.humanevalpack.programs import BUILDERS, RUNNER_LANGUAGES, RUST_MAIN, TIMEOUTS
from pytest_codeeval.tasks.catalogue.humanevalpack.prompts import (
    DEFAULT_PROMPT,
    DIFF_FORMATS,
    EXTENSIONS,
    LANGUAGE_NAMES,
    LANGUAGE_STOP_WORDS,
    LANGUAGES,
    PROMPT_FORMATS,
    PROMPTS,
    cut_at_each,
    read_descriptions,
)

if TYPE_CHECKING:
    from pytest_codeeval.tasks.registry import TaskRegistry


class HumanEvalPack(Task):
    """What every scenario shares: the dataset (one config per language), prompt formats, stop words, limits."""

    DATASET_PATH = "bigcode/humanevalpack"
    size = 164
    required_fields: ClassVar[tuple[str, ...]] = (
        "task_id", "prompt", "declaration", "canonical_solution", "entry_point", "test", "docstring",
    )
    pack_language: ClassVar[str] = "python"
    with_docs: ClassVar[bool] = True  # whether the code the model sees carries its docstring

    def __init__(self, prompt: str | None = None) -> None:
        self.prompt = prompt or DEFAULT_PROMPT
        if self.prompt in DIFF_FORMATS:
            raise CodeevalError(
                f"--codeeval-prompt={self.prompt}: BCEH's patch formats (diff, diff-carper) are not supported; "
                f"choose one of {', '.join(PROMPTS)}"
            )
        if self.prompt not in PROMPTS:
            raise CodeevalError(
                f"--codeeval-prompt={self.prompt}: unknown HumanEvalPack prompt; choose one of {', '.join(PROMPTS)}"
            )
        stops = list(LANGUAGE_STOP_WORDS[self.pack_language])
        if self.prompt == "starchat":
            stops.append("<|end|>")
        elif self.prompt == "issue":
            stops.append("```")
        super().__init__(stop_words=[*stops, "<|endoftext|>"], requires_execution=True)

    def code_base(self, doc: Doc) -> str:
        """The code the model is shown: with its docstring, or only the declaration (Rust needs a main)."""
        if self.with_docs:
            return doc["prompt"]
        return (RUST_MAIN if self.pack_language == "rust" else "") + doc["declaration"]

    def format_prompt(self, base: str, instruction: str, context: str | None = None) -> str:
        if self.prompt == "continue":
            if context is not None:
                raise CodeevalError(
                    f"task {self.name!r}: --codeeval-prompt=continue is for humanevalsynthesize only; "
                    "use instruct (or another instruction format) for Fix and Explain"
                )
            return base.strip()
        if self.prompt not in PROMPT_FORMATS:
            raise CodeevalError(f"task {self.name!r}: --codeeval-prompt={self.prompt} is for humanevalfix* only")
        if context is None:
            inp = instruction
        elif self.prompt == "instruct":  # the code first, then what to do with it
            inp = context + "\n" + instruction
        else:
            inp = instruction + "\n" + context
        # The last newline is left to the model: it tokenizes with the indentation that follows it.
        return PROMPT_FORMATS[self.prompt].format(inp=inp, stripped=inp.strip(), base=base).strip()

    def get_reference(self, doc: Doc) -> str:
        return "\n" + doc["test"]  # the tests call the function themselves

    def get_solution(self, doc: Doc) -> str:
        return doc["prompt"] + doc["canonical_solution"]


class PackProgram(HumanEvalPack):
    """The scenarios whose answer is code, judged by running the problem's tests."""

    def unavailable(self, doc: Doc | None = None) -> str | None:
        """What to install where this machine cannot run the language's programs: a named task is a usage error,
        one matched by a glob is skipped (its prompts and rows are still made)."""
        from pytest_codeeval.runners import get_runner

        return get_runner(self.language).unavailable()

    def solution_prefix(self, doc: Doc) -> str:
        """The code a solution starts with: a completion continues it."""
        return doc["prompt"]

    def close_function(self, code: str) -> str:
        """Cut a completion after the function it continues (BCEH's `remove_last_block`): at a stop word, then in
        Python at the first unindented line, elsewhere where the braces the prompt opened are closed."""
        code = cut_at_each(code, self.stop_words)
        if self.pack_language == "python":
            lines = code.split("\n")
            for i, line in enumerate(lines):
                if line.strip() and line[0] not in " \t":
                    return "\n".join(lines[:i])
            return code
        depth = 2 if self.pack_language == "java" else 1  # Java's method sits in an open class
        for i, char in enumerate(code):
            depth += (char == "{") - (char == "}")
            if depth == 0:
                return code[: i + 1]
        if self.pack_language == "java":
            main = code.find("public static void main")
            if main != -1:
                code = code[:main] + "}"
            if "}" in code:
                code = code[: code.rfind("}")] + "}"
            if code.count("{") - 1 == code.count("}"):
                code += "\n}"
        elif "}" in code:
            code = code[: code.rfind("}")] + "}"
        return code

    def postprocess_generation(self, generation: str, idx: int) -> str:
        doc = self.docs[idx]
        completion = self.close_function(generation[len(self.get_prompt(doc)) :].rstrip())
        return self.solution_prefix(doc).rstrip() + completion

    def join_completion(self, doc: Doc, completion: str) -> str:
        return self.solution_prefix(doc) + completion

    def split_solution(self, doc: Doc, solution: str) -> str:
        prefix = self.solution_prefix(doc)
        for start in (prefix, prefix.rstrip()):
            if solution.startswith(start):
                return solution[len(start) :]
        return solution

    def build_program(self, doc: Doc, solution: str, resources: Mapping[str, Any] | None = None) -> str:
        return BUILDERS[self.pack_language](doc, solution) + "\n" + self.get_reference(doc)


class Synthesize(PackProgram):
    """HumanEvalSynthesize: write the function from its description (or continue its docstring: `continue`)."""

    def get_prompt(self, doc: Doc) -> str:
        return self.format_prompt(self.code_base(doc), doc["instruction"].strip())

    required_fields = (*HumanEvalPack.required_fields, "instruction")


class Fix(PackProgram):
    """HumanEvalFix: repair the buggy function, shown its tests (fixtests) or its docstring (fixdocs)."""

    required_fields = (*HumanEvalPack.required_fields, "buggy_solution")

    def solution_prefix(self, doc: Doc) -> str:
        return self.code_base(doc)

    def get_prompt(self, doc: Doc) -> str:
        base = self.code_base(doc)
        instruction = f"Fix bugs in {doc['entry_point']}."
        context = base + doc["buggy_solution"] + ("" if self.with_docs else "\n" + doc["test"])
        if self.prompt == "file":
            name = f"{doc['entry_point']}.{EXTENSIONS[self.pack_language]}"
            prompt = (f"<file_name>\n{name}\n<commit_before>\n{context}\n<commit_msg>\n{instruction}"
                      f"<commit_after>\n{base}")
        elif self.prompt == "starcodercommit":
            prompt = f"<commit_before>{context}<commit_msg>{instruction}<commit_after>{base}"
        elif self.prompt == "issue":
            prompt = (f"<issue_start>username_0: {instruction}\n\n```{context}```\nUpvotes: 100<issue_comment>"
                      f"username_1: Sure, here is the fixed code.\n\n```{base}")
        else:
            prompt = self.format_prompt(base, instruction, context)
        return prompt.strip()


class ExplainDescribe(HumanEvalPack):
    """HumanEvalExplain, first stage: describe the canonical solution in at most the docstring's length.

    BCEH does not score this stage (it generates only); its descriptions are what humanevalexplainsynthesize is
    scored on. Here each description is kept as the sample's answer, and a sample fails only when nothing is left
    of it after post-processing (the `described` metric: the share of non-empty descriptions)."""

    with_docs = False
    metrics = ("described",)
    scorers: ClassVar[dict[str, Callable[..., Any]]] = {
        "described": lambda references, predictions, **_: float(bool(predictions[0].strip())),
    }

    def __init__(self, prompt: str | None = None) -> None:
        super().__init__(prompt)
        self.requires_execution = False

    def get_prompt(self, doc: Doc) -> str:
        instruction = (f"Provide a concise natural language description of the code using at most "
                       f"{len(doc['docstring'])} characters.")
        return self.format_prompt("", instruction, self.code_base(doc) + doc["canonical_solution"])

    def postprocess_generation(self, generation: str, idx: int) -> str:
        doc = self.docs[idx]
        text = generation[len(self.get_prompt(doc)) :].strip()[: len(doc["docstring"])]
        text = cut_at_each(text, self.stop_words).rstrip()
        for line in doc["canonical_solution"].split("\n"):  # code copied into the description is dropped
            line = line.strip()
            if len(line) > 20 and line in text:
                text = text.replace(line, "")
        return text

    def get_reference(self, doc: Doc) -> str:
        return doc["docstring"]  # what a human wrote; `--codeeval-model=reference` answers with it

    def get_solution(self, doc: Doc) -> str:
        return doc["docstring"]


class ExplainSynthesize(PackProgram):
    """HumanEvalExplain, second stage: write the function from a description made by humanevalexplaindescribe.

    Descriptions come from `--codeeval-load-data-path` (BCEH's JSON of describe's generations, one list per
    problem, or a JSONL of this tool's saved generations), or else from the describe task's samples in the same
    run. One problem per (problem, description) pair, as in BCEH."""

    with_docs = False
    describe_task: ClassVar[str] = ""

    def __init__(self, prompt: str | None = None, load_data_path: str | None = None) -> None:
        super().__init__(prompt)
        self.load_data_path = Path(load_data_path) if load_data_path else None

    def get_dataset(self) -> Sequence[Doc]:
        rows = self.hub_rows()
        if self.load_data_path is not None:
            described = read_descriptions(self.load_data_path, self.describe_task, rows)
        else:
            described = [self._same_run(row) for row in rows]
        docs: list[Doc] = []
        for row, candidates in zip(rows, described, strict=False):  # BCEH's zip: extra descriptions unused
            many = len(candidates) > 1
            for index, candidate in enumerate(candidates):
                problem_id = f"{row['task_id']}/d{index}" if many else row["task_id"]
                docs.append({**row, "problem_id": problem_id, **candidate})
        if not docs:
            raise CodeevalError(
                f"task {self.name!r} has no descriptions to work from: select {self.describe_task} in the same run "
                "(its samples feed this task) or pass --codeeval-load-data-path=FILE of its saved generations"
            )
        return docs

    def _same_run(self, row: Doc) -> list[dict[str, Any]]:
        if self.upstream is None:
            return []
        count = self.upstream.sample_count(self.describe_task, row["task_id"])
        return [{"description_sample": index} for index in range(count)]

    def problem_id(self, doc: Doc, index: int) -> str:
        return str(doc["problem_id"])

    def description_of(self, doc: Doc) -> str:
        if "description" in doc:
            return doc["description"]
        if self.upstream is None:
            raise RuntimeError("a same-run description without a session")  # a bug: get_dataset made this doc
        return self.upstream.solution(self.describe_task, doc["task_id"], doc["description_sample"])

    def upstream_samples(self, doc: Doc) -> Sequence[tuple[str, str, int]]:
        if "description" in doc:
            return ()
        return ((self.describe_task, doc["task_id"], doc["description_sample"]),)

    def get_prompt(self, doc: Doc) -> str:
        instruction = f"Write functional code in {LANGUAGE_NAMES[self.pack_language]} according to the description."
        return self.format_prompt(self.code_base(doc), instruction, self.description_of(doc))


SCENARIOS: dict[str, tuple[type[HumanEvalPack], bool, str]] = {  # name prefix -> (base class, with_docs, what)
    "humanevalsynthesize": (Synthesize, True, "write each function from its docstring"),
    "humanevalfixtests": (Fix, False, "fix a buggy function, shown its tests"),
    "humanevalfixdocs": (Fix, True, "fix a buggy function, shown its docstring"),
    "humanevalexplaindescribe": (ExplainDescribe, False, "describe each function (feeds humanevalexplainsynthesize)"),
    "humanevalexplainsynthesize": (ExplainSynthesize, False, "write each function from a model's description"),
}


def task_class(scenario: str, language: str) -> type[HumanEvalPack]:
    base, with_docs, what = SCENARIOS[scenario]
    attrs: dict[str, Any] = {
        "name": f"{scenario}-{language}", "DATASET_NAME": language, "pack_language": language, "with_docs": with_docs,
        "description": f"HumanEvalPack {LANGUAGE_NAMES[language]}: {what}", "__module__": __name__,
    }
    if base is ExplainSynthesize:
        attrs["describe_task"] = f"humanevalexplaindescribe-{language}"
        attrs["size"] = None  # one problem per description
    if base is not ExplainDescribe:
        attrs["default_timeout"], attrs["language"] = TIMEOUTS[language], RUNNER_LANGUAGES[language]
    return type(f"{base.__name__}_{language}", (base,), attrs)


def register(registry: TaskRegistry) -> None:
    for scenario in SCENARIOS:
        for language in LANGUAGES:
            registry.add(task_class(scenario, language))
