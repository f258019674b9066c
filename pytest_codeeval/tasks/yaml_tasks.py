"""lm-evaluation-harness style YAML tasks, on the same Task model as Python tasks.

The file is parsed and validated when it is registered (`tasks/yaml_config.py`); its data and its `!function`
code load only when the task runs. Templates are Jinja2 in a sandboxed environment, as lm-eval renders them."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.tasks.base import Doc, Task
from pytest_codeeval.tasks.local_data import LOCAL_FORMATS, count_rows, load_local_split, resolve_data_files
from pytest_codeeval.tasks.yaml_config import (
    GENERATION_KEYS,
    FunctionRef,
    Located,
    environment,
    functions_in,
    read_config,
    validate,
)


def evaluated_split(config: Mapping[str, Any]) -> str:
    """lm-eval's rule: the test split, else the validation split."""
    return config.get("test_split") or config.get("validation_split") or "test"


class YamlTask(Task):
    """A task made from a YAML file; `yaml_task_class` makes one subclass per file."""

    config: ClassVar[Located] = Located()
    path: ClassVar[Path] = Path()

    def __init__(self) -> None:
        until = (self.config.get("generation_kwargs") or {}).get("until", [])
        super(
            ).__init__(stop_words=[until] if isinstance(until, str) else until, requires_execution="test" in self.config
        )
        for ref in functions_in(self.config):
            ref.load()  # the task is about to run: a missing function is one clear error now, not one per sample
        self._templates: dict[str, Any] = {}

    # -- data -----------------------------------------------------------------------------------------------
    @property
    def eval_split(self) -> str:
        return evaluated_split(self.config)

    def _load_split(self, split: str) -> list[Doc]:
        cfg = self.config
        kwargs = dict(cfg.get("dataset_kwargs") or {})
        if split == self.eval_split and self.dataset_override is not None:
            docs: Sequence[Doc] = self.hub_rows()
        elif cfg["dataset_path"] in LOCAL_FORMATS:
            where = cfg.where("dataset_kwargs")
            docs = load_local_split(cfg["dataset_path"], kwargs, split, self.path.parent, where)
        else:
            from pytest_codeeval.tasks.loading import load_hf_dataset

            if "data_files" in kwargs:
                kwargs["data_files"] = resolve_data_files(kwargs["data_files"], self.path.parent)
            docs = load_hf_dataset(cfg["dataset_path"], cfg.get("dataset_name"), split, task=self.name, **kwargs)
        process = cfg.get("process_docs")
        if process is not None:
            docs = process(_as_dataset(docs))
        return list(docs)

    def get_dataset(self) -> Sequence[Doc]:
        return self._load_split(self.eval_split)

    @cached_property
    def fewshot_pool(self) -> list[Doc] | None:
        """lm-eval's order: fewshot_split, training_split, validation_split (when it is not evaluated), else None:
        the examples are other documents of the evaluated split."""
        cfg = self.config
        for split in (cfg.get("fewshot_split"), cfg.get("training_split"), cfg.get("validation_split")):
            if split and split != self.eval_split:
                return self._load_split(split)
        return None

    def problem_id(self, doc: Doc, index: int) -> str:
        key = self.config.get("problem_id")
        if key and key not in doc:
            raise CodeevalError(f"{self.config.where('problem_id')}: problem_id {key!r} is not a field of the "
                                f"documents (fields: {', '.join(map(str, doc))})")
        return str(doc[key]) if key else super().problem_id(doc, index)

    # -- prompting ------------------------------------------------------------------------------------------
    def _render(self, key: str, doc: Doc) -> str:
        value = self.config[key]
        if isinstance(value, FunctionRef):
            result = value(doc)
            return str(result[0] if isinstance(result, list) and result else result)
        if value in doc:  # lm-eval: a field name stands for that field
            return str(doc[value])
        if key not in self._templates:
            self._templates[key] = environment().from_string(value)
        from jinja2 import TemplateError

        try:
            return self._templates[key].render(**doc)
        except TemplateError as exc:
            raise CodeevalError(
                f"{self.config.where(key)}: {key}: {exc} (document fields: {', '.join(map(str, doc))})"
            ) from None

    def _targets(self, doc: Doc) -> str | list[str]:
        """doc_to_target's value: a list (from a function or a field of lists) is several references; a list of
        one is that one reference."""
        value = self.config["doc_to_target"]
        result = value(doc) if isinstance(value, FunctionRef) else doc.get(value)
        if isinstance(result, (list, tuple)) and result:
            return [str(r) for r in result] if len(result) > 1 else str(result[0])
        return self._render("doc_to_target", doc)

    def _fewshot(self, doc: Doc) -> str:
        shots = int(self.config.get("num_fewshot") or 0)
        if not shots:
            return ""
        pool = self.fewshot_pool if self.fewshot_pool is not None else [d for d in self.docs if d != doc]
        target_delimiter = self.config.get("target_delimiter", " ")
        delimiter = self.config.get("fewshot_delimiter", "\n\n")
        return "".join(self._render("doc_to_text", d) + target_delimiter + self._render("doc_to_target", d) + delimiter
                       for d in pool[:shots])

    def get_prompt(self, doc: Doc) -> str:
        description = self._render("description", doc) if self.config.get("description") else ""
        return description + self._fewshot(doc) + self._render("doc_to_text", doc)

    def get_reference(self, doc: Doc) -> str | list[str]:
        return self._render("test", doc) if self.requires_execution else self._targets(doc)

    def build_program(self, doc: Doc, solution: str, resources: Mapping[str, Any] | None = None) -> str:
        """With a judge, `test` renders the judge's data (JSON) and the program is the solution alone."""
        return solution if self.runner else super().build_program(doc, solution)

    def judge_data(self, doc: Doc) -> str | None:
        return self._render("test", doc) if self.runner else None

    def data_origin(self) -> str:
        local = self.config["dataset_path"] in LOCAL_FORMATS and self.dataset_override is None
        return "local" if local else super().data_origin()

    def reference_solutions(self) -> str:
        return "yes" if not self.requires_execution or self.config.get("doc_to_target") else "no"

    def get_solution(self, doc: Doc) -> str | None:
        if not self.requires_execution:
            return super().get_solution(doc)
        return self.get_prompt(doc) + self._render("doc_to_target", doc) if self.config.get("doc_to_target") else None

    def generation_settings(self, settings: Any) -> Any:
        kwargs = self.config.get("generation_kwargs") or {}
        changes = {field: kwargs[key] for key, field in GENERATION_KEYS.items() if key in kwargs and key != "until"}
        if changes.get("temperature") == 0 and "do_sample" not in changes:
            changes["do_sample"] = False  # lm-eval: temperature 0 means greedy
        return dataclasses.replace(settings, **changes) if changes else settings

    # -- judging --------------------------------------------------------------------------------------------
    def score(
        self, solution: str, reference: str | list[str], doc: Doc, resources: Mapping[str, Any]
    ) -> dict[str, float]:
        process = self.config.get("process_results")
        if process is None:
            return super().score(solution, reference, doc, resources)
        scores = process(doc, [solution])  # lm-eval: process_results(doc, results) -> {metric: value}
        if not isinstance(scores, Mapping):
            raise CodeevalError(f"{self.config.where('process_results')}: process_results returned "
                                f"{type(scores).__name__}, expected a dict of metric values")
        return {str(k): float(v) for k, v in scores.items() if k in self.metrics}


def _as_dataset(docs: Sequence[Doc]) -> Any:
    """lm-eval hands `process_docs` a datasets.Dataset (users call .map on it); local files give lists."""
    if not isinstance(docs, list):
        return docs
    try:
        import datasets
    except ImportError:
        return docs
    return datasets.Dataset.from_list(docs)


def yaml_task_class(path: Path) -> type[YamlTask]:
    """A Task subclass for the YAML file, validated now; its data and functions load only when it runs."""
    cfg = read_config(path)
    spec = validate(cfg)
    local = cfg["dataset_path"] in LOCAL_FORMATS and not cfg.get("process_docs")
    attrs = {
        "name": cfg["task"], "description": next(iter(str(cfg.get("description") or "").strip().splitlines()), ""),
        "config": cfg, "path": path,
        "language": cfg.get("language", "python"), "runner": cfg.get("judge"), "metrics": spec.names,
        "aggregations": spec.aggregations,
        "scorers": spec.scorers, "metric_options": spec.options, "repeats": cfg.get("repeats"),
        "default_timeout": float(cfg.get("timeout", Task.default_timeout)), "DATASET_PATH": cfg["dataset_path"],
        "pass_threshold": cfg.get("pass_threshold"),
        "size": count_rows(cfg.get("dataset_kwargs") or {}, evaluated_split(cfg), path.parent) if local else None,
    }
    return type(f"YamlTask_{cfg['task']}", (YamlTask,), attrs)
