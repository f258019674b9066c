"""Reading and validating lm-evaluation-harness style task YAML, with every mistake reported as
`file:line: what is wrong (and the fix)`.

The loader is yaml.SafeLoader plus one tag, `!function module.fn`, which names a function in `module.py` in the
YAML file's own directory (never anywhere on sys.path); it is imported only when the task runs. Mappings
remember the line of each key, in their own file, so errors in an `include`d base point at the base."""

from __future__ import annotations

import difflib
import importlib.util
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from pytest_codeeval.errors import CodeevalError

KEYS = {
    "task", "task_alias", "tag", "group", "description", "include", "dataset_path", "dataset_name", "dataset_kwargs",
    "test_split", "validation_split", "training_split", "fewshot_split", "process_docs", "doc_to_text",
    "doc_to_target", "process_results", "generation_kwargs", "repeats", "num_fewshot", "fewshot_delimiter",
    "target_delimiter", "metric_list", "output_type", "unsafe_code", "metadata",
    # pytest-codeeval's additions: execution (test, language, timeout, judge), readable problem ids, and the score
    # on the first metric that makes a match sample pass
    "test", "language", "timeout", "judge", "problem_id", "pass_threshold",
}
NOT_SUPPORTED = {  # lm-eval keys a user may bring; said plainly rather than "unknown"
    "filter_list", "doc_to_choice", "fewshot_config", "use_prompt", "should_decontaminate",
    "doc_to_decontamination_query", "gen_prefix", "multiple_input", "multiple_target", "custom_dataset",
    "doc_to_image", "doc_to_audio",
}
GENERATION_KEYS = {"until": "stop words", "max_gen_toks": "max_new_tokens", "do_sample": "do_sample",
                   "temperature": "temperature", "top_p": "top_p", "top_k": "top_k"}
METRIC_ITEM_KEYS = ("metric", "aggregation", "higher_is_better")
OUTPUT_TYPES = ("generate_until",)
_MODULES: dict[Path, ModuleType] = {}


class Located(dict):
    """A YAML mapping that remembers where it and each of its keys were written."""

    origin: str = "?"
    lines: dict[str, str]

    def where(self, key: str | None = None) -> str:
        return self.lines.get(key, self.origin) if key is not None else self.origin


@dataclass(frozen=True)
class FunctionRef:
    """`!function module.fn`: a function in `module.py` beside the YAML file that declared it, loaded on first use."""

    directory: Path
    dotted: str
    where: str = field(compare=False)

    @property
    def name(self) -> str:
        return self.dotted.rpartition(".")[2]

    def load(self) -> Callable[..., Any]:
        module_name, _, fn_name = self.dotted.rpartition(".")
        path = (self.directory / (module_name.replace(".", "/") + ".py")).resolve()
        if not path.is_file():
            raise CodeevalError(f"{self.where}: !function {self.dotted}: no file {path.name} in {self.directory}")
        if path not in _MODULES:
            spec = importlib.util.spec_from_file_location(f"codeeval_yaml_{len(_MODULES)}_{path.stem}", path)
            # A spec (with a loader) exists for any existing .py path; the stubs allow None for other paths.
            module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
            spec.loader.exec_module(module)  # type: ignore[union-attr]
            _MODULES[path] = module
        fn = getattr(_MODULES[path], fn_name, None)
        if not callable(fn):
            raise CodeevalError(f"{self.where}: !function {self.dotted}: {path.name} has no function {fn_name!r}")
        return fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.load()(*args, **kwargs)

    def __str__(self) -> str:
        return f"!function {self.dotted}"


class _Loader(yaml.SafeLoader):
    path: Path


def _function(loader: _Loader, node: yaml.Node) -> FunctionRef:
    dotted = str(loader.construct_scalar(node)).strip()  # type: ignore[arg-type]  # a !function tag is a scalar
    where = f"{loader.path}:{node.start_mark.line + 1}"
    parts = dotted.split(".")
    if len(parts) < 2 or not all(part.isidentifier() for part in parts):
        raise CodeevalError(
            f"{where}: !function {dotted!r}: expected module.function, with module.py beside this YAML file"
        )
    return FunctionRef(loader.path.parent, dotted, where)


def _mapping(loader: _Loader, node: yaml.MappingNode) -> Iterator[Located]:
    data = Located()
    yield data
    data.update(loader.construct_mapping(node))
    data.origin = f"{loader.path}:{node.start_mark.line + 1}"
    data.lines = {str(k.value): f"{loader.path}:{k.start_mark.line + 1}" for k, _ in node.value}


_Loader.add_constructor("!function", _function)
_Loader.add_constructor("tag:yaml.org,2002:map", _mapping)


def _parse(path: Path) -> Located:
    try:
        loader = _Loader(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CodeevalError(f"{path}: cannot read: {exc.strerror}") from None
    loader.path = path
    try:
        data = loader.get_single_data()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise CodeevalError(f"{path}{line}: invalid YAML: {getattr(exc, 'problem', None) or exc}") from None
    finally:
        loader.dispose()
    if not isinstance(data, Located):
        raise CodeevalError(
            f"{path}:1: a task file must be a mapping of keys (task:, dataset_path:, doc_to_text:, ...)"
        )
    for key in data:
        if key in NOT_SUPPORTED:
            raise CodeevalError(f"{data.where(key)}: lm-evaluation-harness key {key!r} is not supported by "
                                "pytest-codeeval; see docs/writing-tasks.md for the supported keys")
        if key not in KEYS:
            close = difflib.get_close_matches(str(key), sorted(KEYS), n=1)
            raise CodeevalError(
                f"{data.where(key)}: unknown key {key!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
            )
    return data


def read_config(path: Path, chain: tuple[Path, ...] = ()) -> Located:
    """The task's keys with its `include` resolved (relative to the file; the including file's keys win)."""
    data = _parse(path)
    if "include" not in data:
        return data
    include = data.pop("include")
    base_path = path.parent / str(include)
    if not base_path.is_file():
        raise CodeevalError(f"{data.where('include')}: include: no such file {base_path}")
    if base_path.resolve() in (*chain, path.resolve()):
        raise CodeevalError(f"{data.where('include')}: include: {base_path} includes this file again (a cycle)")
    base = read_config(base_path, (*chain, path.resolve()))
    merged = Located({**base, **data})
    merged.origin, merged.lines = data.origin, {**base.lines, **data.lines}
    return merged


def functions_in(value: Any) -> Iterator[FunctionRef]:
    """Every `!function` in a config, to load them all when the task starts (one clear error, not one mid-run)."""
    if isinstance(value, FunctionRef):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from functions_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from functions_in(item)


@dataclass
class MetricSpec:
    """What `metric_list` declares, in the Task's terms."""

    names: tuple[str, ...]
    aggregations: dict[str, Any]
    scorers: dict[str, FunctionRef]
    options: dict[str, dict[str, Any]]


def _expect(cfg: Located, key: str, kinds: tuple[type, ...], what: str) -> None:
    value = cfg.get(key)
    if value is not None and (not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds)):
        raise CodeevalError(f"{cfg.where(key)}: {key} must be {what}, not {value!r}")


def metric_spec(cfg: Located) -> MetricSpec:
    from pytest_codeeval.metrics import TASK_METRICS, check_aggregation, check_metric, check_options

    execution = cfg.get("test") is not None
    items = cfg.get("metric_list") or []
    if not isinstance(items, list):
        raise CodeevalError(
            f"{cfg.where('metric_list')}: metric_list must be a list of {{metric: NAME, aggregation: mean}}"
        )
    spec = MetricSpec((), {}, {}, {})
    names: list[str] = ["pass@k"] if execution else []
    for item in items:
        if not isinstance(item, Located) or "metric" not in item:
            raise CodeevalError(
                f"{getattr(item, 'origin', cfg.where('metric_list'))}: each metric_list entry needs `metric: NAME`"
            )
        metric, where = item["metric"], item.where("metric")
        name = metric.name if isinstance(metric, FunctionRef) else str(metric)
        if isinstance(metric, FunctionRef):
            spec.scorers[name] = metric
        if execution and name != "pass@k" and not (cfg.get("judge") and name in TASK_METRICS):
            raise CodeevalError(f"{where}: task {cfg['task']!r} runs tests (test:), so it is judged by pass@k"
                                f"{' and its judge' if cfg.get('judge') else ''}'s metrics; metric {name!r} needs a "
                                "match-based task (doc_to_target without test)")
        if cfg.get("process_results") is None:
            check_metric(name, spec.scorers, f"{where}: task {cfg['task']!r}")
        if item.get("aggregation") is not None:
            check_aggregation(item["aggregation"], item.where("aggregation"))
            spec.aggregations[name] = item["aggregation"]
        options = {k: v for k, v in item.items() if k not in METRIC_ITEM_KEYS}
        if options and name not in spec.scorers:
            check_options(name, options, where)
        if options:
            spec.options[name] = options
        if name not in names:
            names.append(name)
    spec.names = tuple(names) or ("exact_match",)
    return spec


def validate(cfg: Located) -> MetricSpec:
    """Check what can be checked without data or user code; returns the task's metrics."""
    for key in ("task", "dataset_path", "doc_to_text"):
        if cfg.get(key) in (None, ""):
            raise CodeevalError(f"{cfg.where()}: missing required key {key!r}")
    if cfg.get("test") is None and cfg.get("doc_to_target") is None:
        raise CodeevalError(f"{cfg.where()}: a task needs doc_to_target (match-based) or test (unit-test execution)")
    text = (str, FunctionRef)
    for key in ("task", "dataset_path", "dataset_name", "test_split", "validation_split", "training_split",
                "fewshot_split",
                "description", "target_delimiter", "fewshot_delimiter", "language", "problem_id", "test", "judge"):
        _expect(cfg, key, (str,), "a string")
    if cfg.get("judge") is not None:
        from pytest_codeeval.runners import JUDGES

        if cfg["judge"] not in JUDGES or cfg.get("test") is None:
            raise CodeevalError(f"{cfg.where('judge')}: judge {cfg['judge']!r} needs `test:` (the judge's data) and "
                                f"one of {', '.join(sorted(JUDGES))}")
    for key in ("doc_to_text", "doc_to_target"):
        _expect(cfg, key, text, "a template, a field name or !function module.fn")
    for key in ("process_docs", "process_results"):
        _expect(cfg, key, (FunctionRef,), "!function module.fn")
    _expect(cfg, "dataset_kwargs", (Mapping,), "a mapping")
    _expect(cfg, "timeout", (int, float), "a number of seconds")
    _expect(cfg, "pass_threshold", (int, float), "a number (the first metric's score that passes a sample)")
    for key, least in (("repeats", 1), ("num_fewshot", 0)):
        _expect(cfg, key, (int,), "a whole number")
        if cfg.get(key) is not None and cfg[key] < least:
            raise CodeevalError(f"{cfg.where(key)}: {key} must be at least {least}")
    if cfg.get("output_type", "generate_until") not in OUTPUT_TYPES:
        raise CodeevalError(f"{cfg.where('output_type')}: output_type {cfg['output_type']!r} needs log-likelihoods, "
                            "which pytest-codeeval does not compute; use generate_until")
    _check_generation(cfg)
    _check_templates(cfg)
    return metric_spec(cfg)


def _check_generation(cfg: Located) -> None:
    kwargs = cfg.get("generation_kwargs") or Located()
    if not isinstance(kwargs, Located):
        raise CodeevalError(f"{cfg.where('generation_kwargs')}: generation_kwargs must be a mapping")
    for key in kwargs:
        if key not in GENERATION_KEYS:
            raise CodeevalError(
                f"{kwargs.where(key)}: unknown generation_kwargs key {key!r}; known: {', '.join(GENERATION_KEYS)}"
            )
    until = kwargs.get("until")
    strings = isinstance(until, str) or (isinstance(until, list) and all(isinstance(u, str) for u in until))
    if until is not None and not strings:
        raise CodeevalError(f"{kwargs.where('until')}: until must be a string or a list of strings")
    for key, kinds, what in (("max_gen_toks", (int,), "a whole number"), ("top_k", (int,), "a whole number"),
                             ("do_sample", (bool,), "true or false"), ("temperature", (int, float), "a number"),
                             ("top_p", (int, float), "a number")):
        _expect(kwargs, key, kinds, what)


def _check_templates(cfg: Located) -> None:
    from jinja2 import TemplateSyntaxError

    for key in ("doc_to_text", "doc_to_target", "test", "description"):
        if isinstance(cfg.get(key), str):
            try:
                environment().parse(cfg[key])
            except TemplateSyntaxError as exc:
                raise CodeevalError(f"{cfg.where(key)}: {key}: template error: {exc.message}") from None


def environment() -> Any:
    """lm-eval's Jinja2 set-up (undefined names are errors, `regex_replace` filter), sandboxed."""
    import re

    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    env = SandboxedEnvironment(keep_trailing_newline=True, undefined=StrictUndefined)
    env.filters["regex_replace"] = lambda s, pattern, repl, count=0: re.sub(pattern, repl, s, count=count)
    return env
