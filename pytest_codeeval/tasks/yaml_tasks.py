"""lm-evaluation-harness style YAML tasks, on the same Task model as Python tasks.

Parsed with a safe loader that knows one extra tag, `!function module.fn`, resolved to `module.py` next to the
YAML file and imported only when the task runs (only from paths the user pointed at). Templates are Jinja2 in a
sandboxed environment. Mistakes are reported as `file:line: what is wrong (and the fix)`."""

from __future__ import annotations

import dataclasses
import difflib
import importlib.util
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.tasks.base import Doc, Task
from pytest_codeeval.tasks.local_data import load_local_split

KEYS = {
    "task", "group", "tag", "description", "include", "dataset_path", "dataset_name", "dataset_kwargs", "test_split",
    "validation_split", "training_split", "fewshot_split", "doc_to_text", "doc_to_target", "generation_kwargs",
    "repeats", "num_fewshot", "fewshot_delimiter", "target_delimiter", "metric_list", "output_type", "language",
    "test", "timeout", "metadata", "problem_id",
}
GENERATION_KEYS = {"until": "stop words", "max_gen_toks": "max_new_tokens", "do_sample": "do_sample", "temperature": "temperature",
                   "top_p": "top_p", "top_k": "top_k"}
OUTPUT_TYPES = ("generate_until",)
LOCAL_FORMATS = ("json", "csv")


@dataclass(frozen=True)
class FunctionRef:
    """`!function module.fn`: a function in `module.py` beside the YAML file that declared it."""

    directory: Path
    dotted: str
    where: str

    def load(self) -> Callable[..., Any]:
        module_name, _, fn_name = self.dotted.rpartition(".")
        path = self.directory / f"{module_name.replace('.', '/')}.py"
        if not module_name or not path.exists():
            raise CodeevalError(f"{self.where}: !function {self.dotted}: no file {path} next to the YAML file")
        spec = importlib.util.spec_from_file_location(f"codeeval_yaml_{abs(hash(path))}_{module_name}", path)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        fn = getattr(module, fn_name, None)
        if not callable(fn):
            raise CodeevalError(f"{self.where}: !function {self.dotted}: {path.name} has no function {fn_name!r}")
        return fn


class _Loader(yaml.SafeLoader):
    """SafeLoader plus `!function`; remembers each top-level key's line for error messages."""

    path: Path


def _function(loader: _Loader, node: yaml.Node) -> FunctionRef:
    return FunctionRef(loader.path.parent, loader.construct_scalar(node), f"{loader.path}:{node.start_mark.line + 1}")  # type: ignore[arg-type]


_Loader.add_constructor("!function", _function)


def read_yaml(path: Path) -> tuple[dict[str, Any], dict[str, int]]:
    """The mapping in `path` and the line of each key; `include` is resolved (this file's keys win)."""
    try:
        loader = _Loader(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CodeevalError(f"{path}: cannot read: {exc.strerror}") from None
    loader.path = path
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise CodeevalError(f"{path}{line}: invalid YAML: {getattr(exc, 'problem', exc)}") from None
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        raise CodeevalError(f"{path}:1: a task file must be a mapping of keys (task:, dataset_path:, doc_to_text:, ...)")
    lines = {k.value: k.start_mark.line + 1 for k, _ in node.value}
    for key, line in lines.items():
        if key not in KEYS:
            close = difflib.get_close_matches(key, sorted(KEYS), n=1)
            raise CodeevalError(f"{path}:{line}: unknown key {key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    if "include" in data:
        base_path = (path.parent / str(data.pop("include"))).resolve()
        if not base_path.exists():
            raise CodeevalError(f"{path}:{lines['include']}: include: no such file {base_path}")
        base, base_lines = read_yaml(base_path)
        data = {**base, **data}
        lines = {**{k: 0 for k in base_lines}, **lines}
    return data, lines


class YamlTask(Task):
    """A task made from a YAML file. Instances are built by `yaml_task_class`; nothing loads until it runs."""

    config: dict[str, Any] = {}
    path: Path = Path()
    lines: dict[str, int] = {}

    def __init__(self) -> None:
        cfg = self.config
        execution = bool(cfg.get("test"))
        until = (cfg.get("generation_kwargs") or {}).get("until", [])
        super().__init__(stop_words=[until] if isinstance(until, str) else list(until), requires_execution=execution)
        self.scorers = {name: ref.load() for name, ref in _function_metrics(cfg)}

    def _where(self, key: str) -> str:
        return f"{self.path}:{self.lines.get(key) or 1}"

    def get_dataset(self) -> Sequence[Doc]:
        cfg = self.config
        split = cfg.get("test_split") or cfg.get("validation_split") or "test"
        if cfg["dataset_path"] in LOCAL_FORMATS:
            return load_local_split(cfg["dataset_path"], cfg.get("dataset_kwargs") or {}, split, self.path.parent, self._where("dataset_kwargs"))
        from pytest_codeeval.tasks.loading import load_hf_dataset

        return load_hf_dataset(cfg["dataset_path"], cfg.get("dataset_name"), split, **(cfg.get("dataset_kwargs") or {}))

    def problem_id(self, doc: Doc, index: int) -> str:
        key = self.config.get("problem_id")
        return str(doc[key]) if key else super().problem_id(doc, index)

    def _render(self, key: str, doc: Doc) -> str:
        template = self.config[key]
        if isinstance(template, str) and template in doc:
            return str(doc[template])
        return render_template(str(template), doc, self._where(key))

    def _fewshot(self, doc: Doc) -> str:
        shots = int(self.config.get("num_fewshot") or 0)
        if not shots:
            return ""
        pool_split = self.config.get("fewshot_split") or self.config.get("training_split")
        pool = load_local_split(self.config["dataset_path"], self.config.get("dataset_kwargs") or {}, pool_split, self.path.parent,
                                self._where("fewshot_split")) if pool_split else [d for d in self.docs if d is not doc]
        target_delimiter = self.config.get("target_delimiter", " ")
        examples = [self._render("doc_to_text", d) + target_delimiter + self._render("doc_to_target", d) for d in pool[:shots]]
        return "".join(e + self.config.get("fewshot_delimiter", "\n\n") for e in examples)

    def get_prompt(self, doc: Doc) -> str:
        return self._fewshot(doc) + self._render("doc_to_text", doc)

    def get_reference(self, doc: Doc) -> str:
        if self.requires_execution:
            return render_template(str(self.config["test"]), doc, self._where("test"))
        return self._render("doc_to_target", doc)

    def get_solution(self, doc: Doc) -> str | None:
        if not self.requires_execution:
            return self.get_reference(doc)
        return self.get_prompt(doc) + self._render("doc_to_target", doc) if self.config.get("doc_to_target") else None

    def generation_settings(self, settings: Any) -> Any:
        kwargs = self.config.get("generation_kwargs") or {}
        changes = {field: kwargs[key] for key, field in GENERATION_KEYS.items() if key in kwargs and key != "until"}
        if "max_new_tokens" in changes:
            changes["max_new_tokens"] = int(changes.pop("max_new_tokens"))
        return dataclasses.replace(settings, **changes) if changes else settings


def render_template(template: str, doc: Doc, where: str) -> str:
    from jinja2 import TemplateError
    from jinja2.sandbox import SandboxedEnvironment

    try:
        return SandboxedEnvironment(keep_trailing_newline=True).from_string(template).render(**doc)
    except TemplateError as exc:
        raise CodeevalError(f"{where}: template error: {exc}") from None


def _function_metrics(cfg: Mapping[str, Any]) -> list[tuple[str, FunctionRef]]:
    return [(m["metric"].dotted.rpartition(".")[2], m["metric"]) for m in cfg.get("metric_list") or [] if isinstance(m.get("metric"), FunctionRef)]


def metric_names(cfg: Mapping[str, Any]) -> tuple[tuple[str, ...], dict[str, str]]:
    """The task's metric names and their aggregations, from `metric_list` (pass@k for execution tasks)."""
    names, aggregations = [], {}
    for item in cfg.get("metric_list") or []:
        metric = item["metric"]
        name = metric.dotted.rpartition(".")[2] if isinstance(metric, FunctionRef) else str(metric)
        names.append(name)
        if item.get("aggregation"):
            aggregations[name] = str(item["aggregation"])
    if cfg.get("test") and "pass@k" not in names:
        names.insert(0, "pass@k")
    return tuple(names) or ("exact_match",), aggregations


def validate(cfg: Mapping[str, Any], lines: Mapping[str, int], path: Path) -> None:
    from pytest_codeeval.metrics import AGGREGATIONS, check_metric

    where = lambda key: f"{path}:{lines.get(key) or 1}"  # noqa: E731
    for key in ("task", "dataset_path", "doc_to_text"):
        if not cfg.get(key):
            raise CodeevalError(f"{path}:1: missing required key {key!r}")
    if not cfg.get("test") and not cfg.get("doc_to_target"):
        raise CodeevalError(f"{path}:1: a task needs doc_to_target (match-based) or test (unit-test execution)")
    if cfg.get("output_type", "generate_until") not in OUTPUT_TYPES:
        raise CodeevalError(f"{where('output_type')}: output_type {cfg['output_type']!r} is not supported; use generate_until")
    unknown = set(cfg.get("generation_kwargs") or {}) - set(GENERATION_KEYS)
    if unknown:
        raise CodeevalError(f"{where('generation_kwargs')}: unknown generation_kwargs {sorted(unknown)}; known: {sorted(GENERATION_KEYS)}")
    names, aggregations = metric_names(cfg)
    functions = dict(_function_metrics(cfg))
    for name in names:
        check_metric(name, functions, where("metric_list"))
    for name, how in aggregations.items():
        if how not in AGGREGATIONS:
            raise CodeevalError(f"{where('metric_list')}: aggregation {how!r} of {name!r}: use one of {', '.join(AGGREGATIONS)}")


def yaml_task_class(path: Path) -> type[YamlTask]:
    """A Task subclass for the YAML file (validated now; its data and functions load only when it runs)."""
    cfg, lines = read_yaml(path)
    validate(cfg, lines, path)
    names, aggregations = metric_names(cfg)
    attrs = {
        "name": str(cfg["task"]), "description": str(cfg.get("description", "")), "config": cfg, "path": path, "lines": lines,
        "language": str(cfg.get("language", "python")), "metrics": names, "aggregations": aggregations,
        "repeats": int(cfg["repeats"]) if cfg.get("repeats") else None, "default_timeout": float(cfg.get("timeout", 10.0)),
        "DATASET_PATH": cfg["dataset_path"],
    }
    return type(f"YamlTask_{cfg['task']}", (YamlTask,), attrs)
