"""The run's configuration, read once from pytest options and ini values into one typed object."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Protocol

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.evaluation.gates import Spec, parse_specs
from pytest_codeeval.generation.base import GenerationSettings, ModelOptions, ServerOptions
from pytest_codeeval.generation.files import save_format


class Options(Protocol):
    """What settings read of pytest's Config: the options, the ini values and the rootdir (a Protocol, so that
    this module does not import pytest)."""

    @property
    def rootpath(self) -> Path: ...

    def getoption(self, name: str) -> Any: ...

    def getini(self, name: str) -> Any: ...


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


@dataclass(frozen=True)
class Settings:
    model: str | None
    load_generations: Path | None
    save_generations: Path | None
    save_format: str  # one of generation/files.SAVE_FORMATS, "auto" resolved by the path
    tasks: tuple[str, ...]
    task_paths: tuple[Path, ...]
    datasets: tuple[tuple[str, Path], ...]  # (task, local file of its dataset's rows): --codeeval-dataset
    limit: int | None
    k: tuple[int, ...]
    timeout: float | None
    timeout_clock: str  # "cpu" (the default) or "wall": what --codeeval-timeout counts
    strict: bool
    require_complete: bool  # a generations file covering part of a task fails the run (a gate)
    sandbox: str
    jobs: int | None  # samples executing at once per pytest process; None: automatic (execution.pool.default_jobs)
    dedupe: bool  # identical programs run once per process
    report: Path | None
    markdown: Path | None
    html: Path | None
    baseline: Path | None
    fail_under: tuple[Spec, ...]
    max_regression: tuple[Spec, ...]
    alpha: float
    cache_dir: Path | None
    regenerate: bool
    generation: GenerationSettings
    model_options: ModelOptions
    server: ServerOptions
    list_tasks: bool
    # BCEH's task parameters (--prompt, --load_data_path, MBPP+'s tests), given to the tasks that take them
    task_options: dict[str, Any] = field(default_factory=dict)
    # (task, JSONL file to write its rows to): --codeeval-export-dataset, which runs nothing
    export: tuple[tuple[str, Path], ...] = ()

    @property
    def active(self) -> bool:
        """Only a run that asks for codeeval gets items, header lines or cost."""
        return bool(self.model or self.load_generations)

    def describe(self) -> dict[str, Any]:
        """The configuration as it goes into the JSON report."""
        return {
            "model": self.model,
            "load_generations": str(self.load_generations) if self.load_generations else None,
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


def _devices(value: str | None) -> tuple[str, ...]:
    """A comma-separated list such as `cuda:0,cuda:1` or `cpu,cpu`, or `auto` (resolved at load: `visible`)."""
    if not value:
        return ()
    if value == "auto":
        return ("auto",)
    devices = tuple(part.strip() for part in value.split(",") if part.strip())
    if not devices or any(not (d == "cpu" or d.startswith(("cuda", "mps", "xpu"))) for d in devices):
        raise CodeevalError(
            f"--codeeval-devices={value}: expected auto or devices such as cuda:0,cuda:1 (cpu,cpu for a test)"
        )
    return devices


def _path(value: str | None) -> Path | None:
    return Path(value).expanduser() if value else None


def _jobs(value: str) -> int | None:
    if value == "auto":
        return None
    if not value.isdigit() or int(value) < 1:
        raise CodeevalError(f"--codeeval-jobs={value!r}: expected a positive number of samples or 'auto'")
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
        raise CodeevalError(f"{option}={value}: MultiPL-E's format is a directory of files, and this is a file; "
                            "pass a directory path")
    existing = path.parent
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise CodeevalError(f"{option}={value}: {existing} is not a directory this run can write to; pass another path")
    return path


def _datasets(config: Options) -> tuple[tuple[str, Path], ...]:
    """`TASK=PATH` pairs from --codeeval-dataset (relative to the working directory) and the ini's
    codeeval_datasets (relative to the rootdir); a later pair for the same task wins."""
    pairs: dict[str, Path] = {}
    given = [(spec, "codeeval_datasets", config.rootpath) for spec in config.getini("codeeval_datasets")]
    given += [(spec, "--codeeval-dataset", Path()) for spec in config.getoption("codeeval_dataset") or ()]
    for spec, option, base in given:
        name, sep, path = spec.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise CodeevalError(f"{option}={spec!r}: expected TASK=PATH, e.g. mbpp=data/mbpp-test.jsonl")
        pairs[name.strip()] = base / Path(path.strip()).expanduser()
    return tuple(pairs.items())


def _exports(config: Options) -> tuple[tuple[str, Path], ...]:
    """`TASK=PATH` pairs of --codeeval-export-dataset, each path checked writable now."""
    pairs = []
    for spec in config.getoption("codeeval_export_dataset") or ():
        name, sep, path = (part.strip() for part in spec.partition("="))
        if not sep or not name or not path:
            raise CodeevalError(
                f"--codeeval-export-dataset={spec!r}: expected TASK=PATH, e.g. humaneval=humaneval.jsonl"
            )
        target = _output(path, f"--codeeval-export-dataset={name}")
        assert target is not None  # a non-empty path
        pairs.append((name, target))
    return tuple(pairs)


def _check_sampling(opt: Any) -> None:
    """Values no backend can use: said at configure, not as a server's HTTP 400 or a silent greedy run."""
    temperature, top_p, top_k = opt("codeeval_temperature"), opt("codeeval_top_p"), opt("codeeval_top_k")
    if not temperature >= 0:  # false for NaN too
        raise CodeevalError(f"--codeeval-temperature={temperature}: expected 0 or more (0: greedy), e.g. 0.2")
    if not 0 < top_p <= 1:
        raise CodeevalError(f"--codeeval-top-p={top_p}: expected a probability above 0 and at most 1, e.g. 0.95")
    if top_k < 0:
        raise CodeevalError(f"--codeeval-top-k={top_k}: expected 0 (off) or a positive number of tokens")
    if opt("codeeval_max_new_tokens") < 1:
        raise CodeevalError(f"--codeeval-max-new-tokens={opt('codeeval_max_new_tokens')}: expected at least 1")
    batch = opt("codeeval_batch_size")
    if batch is not None and batch < 1:
        raise CodeevalError(f"--codeeval-batch-size={batch}: expected at least 1 sequence")


def _changed(value: Any, default: Any) -> list[str]:
    """The options of a settings object (GenerationSettings, ModelOptions, ServerOptions) given other than their
    defaults, as the command line spells them."""
    names = {"base_urls": "base-url"}
    return [
        f"--codeeval-{names.get(f.name, f.name.replace('_', '-'))}"
        for f in fields(value) if getattr(value, f.name) != getattr(default, f.name)
    ]


def _check_source(settings: Settings) -> None:
    """Options that do nothing where nothing is generated (the reference, a generations file), and an OpenAI-
    compatible model without an endpoint or a model name that is a typo: one line now, not a silent run."""
    if settings.model == "reference" or settings.load_generations:
        source = "--codeeval-model=reference" if settings.model == "reference" else "--codeeval-load-generations"
        unused = (_changed(settings.generation, GenerationSettings()) + _changed(settings.model_options, ModelOptions())
                  + _changed(settings.server, ServerOptions()))
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


def _server_options(opt: Any) -> ServerOptions:
    concurrency, timeout = opt("codeeval_concurrency"), opt("codeeval_request_timeout")
    retries = opt("codeeval_max_retries")
    if concurrency is not None and concurrency < 1:
        raise CodeevalError(f"--codeeval-concurrency={concurrency}: expected at least 1 request in flight")
    if not timeout > 0:
        raise CodeevalError(f"--codeeval-request-timeout={timeout}: expected a positive number of seconds")
    if retries < 0:
        raise CodeevalError(f"--codeeval-max-retries={retries}: expected 0 or more")
    return ServerOptions(
        base_urls=tuple(opt("codeeval_base_url") or ()), api_key_env=opt("codeeval_api_key_env"),
        chat=opt("codeeval_chat"), concurrency=concurrency, request_timeout=timeout, max_retries=retries,
    )
# vLLM's engine options (`--codeeval-model=vllm:MODEL`) and the transformers backend's that vLLM does otherwise.
VLLM_OPTIONS = ("tensor_parallel_size", "pipeline_parallel_size", "distributed_executor", "gpu_memory_utilization",
                "max_model_len", "quantization", "enforce_eager", "download_dir")
NOT_FOR_VLLM = {"devices": "--codeeval-tensor-parallel-size", "device_map": "--codeeval-tensor-parallel-size",
                "load_in_8bit": "--codeeval-quantization", "load_in_4bit": "--codeeval-quantization"}


def _flag(name: str) -> str:
    return "--codeeval-" + name.replace("_", "-")


def _vllm_options(opt: Any) -> dict[str, Any]:
    values = {name: opt("codeeval_" + name) for name in VLLM_OPTIONS}
    fraction, length = values["gpu_memory_utilization"], values["max_model_len"]
    for name in ("tensor_parallel_size", "pipeline_parallel_size"):
        if values[name] is not None and values[name] < 1:
            raise CodeevalError(f"{_flag(name)}={values[name]}: expected at least 1 GPU")
    if fraction is not None and not 0 < fraction <= 1:  # false for NaN too
        raise CodeevalError(
            f"--codeeval-gpu-memory-utilization={fraction}: expected a fraction of each GPU's memory, e.g. 0.9"
        )
    if length is not None and length < 1:
        raise CodeevalError(f"--codeeval-max-model-len={length}: expected a positive number of tokens")
    if values["download_dir"] is not None:
        values["download_dir"] = str(Path(values["download_dir"]).expanduser())
    return values


def _check_backend_options(model: str, opt: Any) -> None:
    """vLLM's options name no setting of another backend, and the transformers backend's placement and
    quantization options have vLLM counterparts: given to the wrong backend, one line names the right one."""
    from pytest_codeeval.generation.backends.vllm import is_vllm_model

    if is_vllm_model(model):
        wrong = next((name for name in NOT_FOR_VLLM if opt("codeeval_" + name)), None)
        if wrong:
            raise CodeevalError(
                f"{_flag(wrong)} is for the transformers backend; with --codeeval-model={model} use "
                f"{NOT_FOR_VLLM[wrong]}"
            )
        return
    wrong = next((name for name in VLLM_OPTIONS if opt("codeeval_" + name) not in (None, False)), None)
    if wrong:
        raise CodeevalError(f"{_flag(wrong)} sets vLLM's engine: it needs --codeeval-model=vllm:MODEL")


def _mbpp_tests(config: Options) -> bool:
    """MBPP+'s original-tests switch: option, else ini, else bigcode's environment variable (scripts carry over)."""
    given = config.getoption("codeeval_mbppplus_mbpp_tests")
    if given is not None:
        return bool(given)
    return bool(config.getini("codeeval_mbppplus_mbpp_tests")) or os.environ.get("MBPPPLUS_USE_MBPP_TESTS") == "1"


def read_settings(config: Options) -> Settings:
    opt = config.getoption
    limit = opt("codeeval_limit")
    if limit is not None and limit < 1:
        raise CodeevalError(f"--codeeval-limit={limit}: expected a positive number of problems per task")
    timeout = opt("codeeval_timeout")
    if timeout is not None and not 0 < timeout <= MAX_TIMEOUT:  # false for NaN too
        raise CodeevalError(
            f"--codeeval-timeout={timeout}: expected a positive number of seconds, at most {MAX_TIMEOUT}"
        )
    n_samples = opt("codeeval_n_samples")
    if n_samples < 1:
        raise CodeevalError(f"--codeeval-n-samples={n_samples}: expected at least 1")
    instruction = opt("codeeval_instruction_tokens")
    instruction_tokens = None
    if instruction:
        parts = instruction.split(",")
        if len(parts) != 3:
            raise CodeevalError(
                f"--codeeval-instruction-tokens={instruction!r}: expected three comma-separated tokens "
                "<user>,<end>,<assistant>, as in bigcode-evaluation-harness"
            )
        instruction_tokens = (parts[0], parts[1], parts[2])
    _check_sampling(opt)
    generation = GenerationSettings(
        max_new_tokens=opt("codeeval_max_new_tokens"),
        n_samples=n_samples,
        do_sample=opt("codeeval_do_sample"),
        temperature=opt("codeeval_temperature"),
        top_p=opt("codeeval_top_p"),
        top_k=opt("codeeval_top_k"),
        seed=opt("codeeval_seed"),
        batch_size=opt("codeeval_batch_size"),
        precision=opt("codeeval_precision"),
        chat_template=opt("codeeval_chat_template"),
        instruction_tokens=instruction_tokens,
        prefix=opt("codeeval_prefix"),
        fim_format=opt("codeeval_fim_format"),
    )
    model_options = ModelOptions(
        revision=opt("codeeval_revision"),
        device_map=opt("codeeval_device_map"),
        trust_remote_code=opt("codeeval_trust_remote_code"),
        load_in_8bit=opt("codeeval_load_in_8bit"),
        load_in_4bit=opt("codeeval_load_in_4bit"),
        peft=opt("codeeval_peft"),
        devices=_devices(opt("codeeval_devices")),
        **_vllm_options(opt),
    )
    if model_options.devices and model_options.device_map:
        raise CodeevalError(
            "--codeeval-devices and --codeeval-device-map: choose data parallel or model parallel, not both"
        )
    _check_backend_options(opt("codeeval_model") or "", opt)
    server = _server_options(opt)
    for spec in opt("codeeval_tasks") or ():
        if not spec.replace(",", "").strip():
            raise CodeevalError(
                f"--codeeval-tasks={spec!r}: names no task; give names or globs, e.g. --codeeval-tasks=humaneval,mbpp "
                "(without the option a run selects humaneval and the project's own tasks)"
            )
    tasks = tuple(t.strip() for spec in opt("codeeval_tasks") or () for t in spec.split(",") if t.strip())
    task_paths = tuple(Path(p) for p in (opt("codeeval_task_path") or ())) + tuple(
        Path(config.rootpath, p) for p in config.getini("codeeval_task_path")
    )
    fail_under = parse_specs(opt("codeeval_fail_under") or (), "--codeeval-fail-under") + parse_specs(
        config.getini("codeeval_fail_under"), "codeeval_fail_under"
    )
    save_to = opt("codeeval_save_generations")
    save_as = save_format(save_to or "", opt("codeeval_save_format"))
    settings = Settings(
        model=opt("codeeval_model"),
        load_generations=_path(opt("codeeval_load_generations")),
        save_generations=_output(save_to, "--codeeval-save-generations", directory=save_as == "multipl-e"),
        save_format=save_as,
        tasks=tasks,
        task_paths=task_paths,
        datasets=_datasets(config),
        limit=limit,
        k=_int_list(opt("codeeval_k"), "--codeeval-k"),
        timeout=timeout,
        timeout_clock=opt("codeeval_timeout_clock"),
        strict=opt("codeeval_strict"),
        require_complete=opt("codeeval_require_complete"),
        sandbox=opt("codeeval_sandbox"),
        jobs=_jobs(opt("codeeval_jobs")),
        dedupe=not opt("codeeval_no_dedupe"),
        report=_output(opt("codeeval_report"), "--codeeval-report"),
        markdown=_output(opt("codeeval_markdown"), "--codeeval-markdown"),
        html=_output(opt("codeeval_html"), "--codeeval-html"),
        baseline=_path(opt("codeeval_baseline")),
        fail_under=tuple(fail_under),
        max_regression=tuple(parse_specs(opt("codeeval_max_regression") or (), "--codeeval-max-regression")),
        alpha=opt("codeeval_alpha"),
        cache_dir=_path(opt("codeeval_cache_dir")),
        regenerate=opt("codeeval_regenerate"),
        generation=generation,
        model_options=model_options,
        server=server,
        list_tasks=opt("codeeval_list_tasks"),
        task_options={"mbppplus_mbpp_tests": _mbpp_tests(config) or None, "prompt": opt("codeeval_prompt"),
                      "load_data_path": _path(opt("codeeval_load_data_path")),
                      "instruction_tokens": instruction_tokens},
        export=_exports(config),
    )
    if not 0 < settings.alpha < 1:
        raise CodeevalError(
            f"--codeeval-alpha={settings.alpha}: expected a significance level between 0 and 1, e.g. 0.05"
        )
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
    return settings
