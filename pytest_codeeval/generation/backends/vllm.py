"""vLLM in process (`--codeeval-model=vllm:MODEL`): one engine per process, every request of a call handed to it at
once.

vLLM's scheduler batches continuously and shares a prompt's KV cache among its samples (prefix caching), so the
requests go in together and come out as each finishes, into the generation cache (an interrupted run keeps them).
The model sees what the transformers backend's model sees: the same prompt text (generation/prompts.py and fim.py),
tokenized by the same tokenizer call, handed over as token ids. Each sample carries its own seed (`row_seed`), so
it does not depend on what else was selected or on batch composition. vLLM samples differently from the
transformers backend, so the backend is part of the model's identity (the cache key)."""

from __future__ import annotations

import atexit
import contextlib
import itertools
import json
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.generation.backends.whole_import import whole_import
from pytest_codeeval.generation.base import Completion, GenerationRequest, GenerationSettings, ModelOptions, row_seed
from pytest_codeeval.generation.models import ModelSpec, convert_gguf
from pytest_codeeval.generation.prompts import format_prompt
from pytest_codeeval.options import flag_of

PREFIX = "vllm:"
DTYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}


def is_vllm_model(name: str) -> bool:
    return name.startswith(PREFIX)


# ModelOptions' fields that set vLLM's engine, and the transformers backend's that vLLM does with another option.
ENGINE_OPTIONS = ("tensor_parallel_size", "pipeline_parallel_size", "distributed_executor", "gpu_memory_utilization",
                  "max_model_len", "quantization", "enforce_eager", "download_dir")
NOT_FOR_VLLM = {"devices": "tensor_parallel_size", "device_map": "tensor_parallel_size",
                "load_in_8bit": "quantization", "load_in_4bit": "quantization"}


def check_options(model: str, options: ModelOptions) -> None:
    """vLLM's options name no setting of another backend, and the transformers backend's placement and
    quantization options have vLLM counterparts: given to the wrong backend, one line names the right one."""
    if is_vllm_model(model):
        wrong = next((name for name in NOT_FOR_VLLM if getattr(options, name)), None)
        if wrong:
            raise CodeevalError(f"{flag_of(ModelOptions, wrong)} is for the transformers backend; with "
                                f"--codeeval-model={model} use {flag_of(ModelOptions, NOT_FOR_VLLM[wrong])}")
        return
    wrong = next((name for name in ENGINE_OPTIONS if getattr(options, name) not in (None, False)), None)
    if wrong:
        raise CodeevalError(f"{flag_of(ModelOptions, wrong)} sets vLLM's engine: it needs --codeeval-model=vllm:MODEL")


def vllm_identity(spec: ModelSpec, options: ModelOptions) -> dict[str, Any]:
    """The model's identity with what changes vLLM's outputs besides it: the backend, quantization, an adapter."""
    identity: dict[str, Any] = {"backend": "vllm", **spec.identity}
    if options.quantization:
        identity["quantization"] = options.quantization
    if options.peft:
        identity["adapter"] = options.peft
    return identity


_loaded: dict[tuple[Any, ...], VllmBackend] = {}


def load(spec: ModelSpec, options: ModelOptions, precision: str) -> VllmBackend:
    """The process's engine for this model, started on first use. A session's second generation pass (chained
    tasks) reuses it; another model replaces it (the old engine is stopped first, which gives its memory back)."""
    key = (spec.name, spec.source, spec.gguf_file, options, precision)
    backend = _loaded.get(key)
    if backend is not None:
        backend.loads = 0
        return backend
    for replaced in _loaded.values():
        replaced.close()
    _loaded.clear()
    backend = _loaded[key] = VllmBackend(spec, options, precision)
    return backend


def _lora_rank(adapter: str) -> int:
    """The adapter's own rank, read off its config (before vLLM is imported: a wrong path is one line either way)."""
    config = Path(adapter, "adapter_config.json")
    try:
        return int(json.loads(config.read_text(encoding="utf-8"))["r"])
    except (OSError, ValueError, KeyError, TypeError):
        raise CodeevalError(
            f"--codeeval-peft={adapter}: no LoRA adapter there (vLLM reads adapter_config.json and its rank 'r'); "
            "pass a PEFT LoRA adapter directory"
        ) from None


def _max_lora_rank(adapter: str, rank: int) -> int:
    """vLLM sizes its LoRA buffers before it sees the adapter, for one of a few ranks: the smallest that holds it."""
    from typing import get_args

    from vllm.config.lora import MaxLoRARanks

    sizes = sorted(get_args(MaxLoRARanks))
    if rank > sizes[-1]:
        raise CodeevalError(f"--codeeval-peft={adapter}: its rank {rank} is above vLLM's largest LoRA rank, "
                            f"{sizes[-1]}; use the transformers backend for it")
    return next(size for size in sizes if size >= rank)


def engine_args(spec: ModelSpec, options: ModelOptions, precision: str, cpu: bool) -> dict[str, Any]:
    """`vllm.LLM`'s arguments; the options left unset take vLLM's defaults."""
    args: dict[str, Any] = {
        "model": str(convert_gguf(spec)) if spec.gguf_file else spec.source,
        "revision": options.revision,
        "trust_remote_code": options.trust_remote_code,
        # as the transformers backend: fp32 on a CPU when nothing is asked for, else the checkpoint's own
        "dtype": DTYPES.get(precision, "float32" if cpu else "auto"),
        "enforce_eager": options.enforce_eager,
        "seed": 0,
    }
    given = {
        "tensor_parallel_size": options.tensor_parallel_size,
        "pipeline_parallel_size": options.pipeline_parallel_size,
        "distributed_executor_backend": options.distributed_executor,  # Ray spans nodes; tp/pp run on it
        "gpu_memory_utilization": options.gpu_memory_utilization,
        "max_model_len": options.max_model_len,
        "quantization": options.quantization,
        "download_dir": options.download_dir,
    }
    args.update({name: value for name, value in given.items() if value is not None})
    if cpu:  # the CPU build's seeded sampling crashes the engine with chunked prefill ("does not use offset")
        args["enable_chunked_prefill"] = False
        if not os.environ.get(KV_CACHE_ENV) and options.gpu_memory_utilization is None:
            args["kv_cache_memory_bytes"] = cpu_kv_cache_bytes(available_memory())
    return args


KV_CACHE_ENV = "VLLM_CPU_KVCACHE_SPACE"  # GiB; set, vLLM's CPU build takes it as it is
GIB = 1 << 30
KV_CACHE_SHARE, KV_CACHE_MIN, KV_CACHE_MAX = 0.25, GIB // 4, 8 * GIB


def cpu_kv_cache_bytes(available: int) -> int:
    """The KV cache on a CPU, from the memory available now: a quarter of it, at most 8 GiB (enough for hundreds
    of 2k-token sequences of a small model). vLLM's CPU default reserves 90% of the machine's *total* memory and
    refuses to start wherever other processes use more than a tenth of it."""
    size = min(int(available * KV_CACHE_SHARE), KV_CACHE_MAX)
    if size < KV_CACHE_MIN:
        raise CodeevalError(
            f"--codeeval-model={PREFIX}MODEL: {available / GIB:.1f} GiB of memory available, too little for vLLM's "
            f"KV cache on this CPU: set {KV_CACHE_ENV}=GIB (the KV cache's size) or "
            "--codeeval-gpu-memory-utilization=FRACTION (of the machine's memory), or free memory"
        )
    return size


def available_memory() -> int:
    """Bytes the kernel can give without swapping (MemAvailable), or free pages where /proc is not there."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def in_this_process(options: ModelOptions, cpu: bool) -> bool:
    """Whether the engine runs in this process (vLLM's VLLM_ENABLE_V1_MULTIPROCESSING=0): on a CPU, with one
    worker, an engine process beside this one would fight it for the same few cores (measured on 2 cores: it starts
    in 16 s instead of 28 s and generates in 0.7 of the time). A GPU keeps vLLM's default, a process of its own."""
    workers = (options.tensor_parallel_size or 1) * (options.pipeline_parallel_size or 1)
    return cpu and workers == 1 and options.distributed_executor is None


class VllmBackend:
    name = "vllm"
    loads = 1

    def __init__(self, spec: ModelSpec, options: ModelOptions, precision: str) -> None:
        adapter = (options.peft, _lora_rank(options.peft)) if options.peft else None
        # vLLM's own log handler would hold the stream pytest captures, closed before vLLM's exit-time shutdown
        # logs to it: its records go through Python's logging instead (pytest's log capture, --log-cli-level).
        os.environ.setdefault("VLLM_CONFIGURE_LOGGING", "0")
        try:
            with whole_import("vLLM"):
                import vllm
                from vllm.platforms import current_platform

                cpu = current_platform.is_cpu()  # its first use imports the platform's modules
        except ImportError:
            raise CodeevalError(
                f"--codeeval-model={PREFIX}{spec.name}: needs vLLM: pip install 'pytest-codeeval[vllm]' "
                "(without a GPU, vLLM's CPU build: see docs/generation.md)"
            ) from None

        self.spec, self.options = spec, options
        args = engine_args(spec, options, precision, cpu)
        if in_this_process(options, cpu):
            os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
        self.lora = None
        if adapter is not None:
            from vllm.lora.request import LoRARequest

            args.update(enable_lora=True, max_lora_rank=_max_lora_rank(*adapter))
            self.lora = LoRARequest("codeeval-peft", 1, str(Path(adapter[0]).resolve()))
        try:
            self.llm = vllm.LLM(**args)
        except (OSError, ValueError, RuntimeError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise CodeevalError(f"--codeeval-model={PREFIX}{spec.name}: vLLM cannot load it: {first}") from None
        self.engine = self.llm.llm_engine
        atexit.register(self.close)
        self.tokenizer = self.llm.get_tokenizer()
        self.max_model_len = int(self.engine.model_config.max_model_len)
        self.version = vllm.__version__
        self.ids = itertools.count()
        self.too_long = 0
        self.warnings: list[str] = []

    def identity(self) -> dict[str, Any]:
        return vllm_identity(self.spec, self.options)

    def close(self) -> None:
        """Stop vLLM's engine (and its process, where it has one); also at exit, registered when the engine started.
        vLLM's own finalizer is not enough: exit hooks run last registered first, so in a process that made a
        `weakref.finalize` (a temporary directory, say) before it imported multiprocessing, multiprocessing would
        join the engine process (not a daemon) before that finalizer told it to stop, and the process would hang."""
        self.engine.engine_core.shutdown()

    def usage(self) -> dict[str, Any]:
        return {"vllm": self.version, "max_model_len": self.max_model_len, "too_long": self.too_long,
                "warnings": list(self.warnings)}

    def generate(
        self, requests: Sequence[GenerationRequest], settings: GenerationSettings, stop: threading.Event | None = None,
    ) -> Iterator[Completion]:
        """Every request in, then the engine stepped until the last is out or `stop` is set; whatever is still
        running when the caller stops (Ctrl-C, an error) is aborted, so that a later call starts from an idle
        engine."""
        from vllm.v1.engine.exceptions import EngineDeadError

        pending: dict[str, GenerationRequest] = {}
        try:
            for request in requests:
                text = format_prompt(
                    request.prompt, settings, self.tokenizer, answer_start=request.answer_start, suffix=request.suffix,
                    instruction=request.instruction,
                )
                ids = self.tokenizer(text)["input_ids"]
                if len(ids) >= self.max_model_len:
                    yield self._too_long(request, len(ids))
                    continue
                request_id = str(next(self.ids))
                (prompt,) = self.llm.renderer.render_cmpl([{"prompt_token_ids": ids}])
                self.engine.add_request(request_id, prompt, self._params(request, settings), lora_request=self.lora)
                pending[request_id] = request
            while pending and not (stop is not None and stop.is_set()):
                for output in self.engine.step():
                    if output.finished:
                        sample = output.outputs[0]
                        yield Completion(pending.pop(output.request_id), sample.text, len(sample.token_ids))
        except EngineDeadError as exc:
            pending.clear()  # nothing left to abort
            raise CodeevalError(
                f"--codeeval-model={PREFIX}{self.spec.name}: vLLM's engine died ({exc}); the completions finished "
                "before it are in the generation cache"
            ) from None
        finally:
            if pending:
                with contextlib.suppress(EngineDeadError):  # Ctrl-C reaches the engine's processes too
                    self.engine.abort_request(list(pending))

    def _params(self, request: GenerationRequest, settings: GenerationSettings) -> Any:
        """The request's stop words (kept in the text, as the transformers backend keeps them), its
        fill-in-the-middle end tokens, and under sampling its own seed."""
        from vllm import SamplingParams
        from vllm.sampling_params import RequestOutputKind

        common: dict[str, Any] = {
            "output_kind": RequestOutputKind.FINAL_ONLY,  # one output per request, when it is done
            "max_tokens": settings.max_new_tokens,
            "stop": [word for word in request.stop_words if word],
            "include_stop_str_in_output": True,
        }
        if request.suffix is not None:
            from pytest_codeeval.generation.fim import fim_end_ids, fim_format

            family = fim_format(self.tokenizer, settings.fim_format)
            common["stop_token_ids"] = sorted(fim_end_ids(self.tokenizer, family))
        if not settings.sampling:
            return SamplingParams(temperature=0.0, **common)
        return SamplingParams(
            temperature=settings.temperature, top_p=settings.top_p, top_k=settings.top_k,
            seed=row_seed(settings.seed, request), **common,
        )

    def _too_long(self, request: GenerationRequest, length: int) -> Completion:
        """A prompt the context cannot hold gets an empty completion that is not cached, as with a server."""
        self.too_long += 1
        if self.too_long == 1:
            self.warnings.append(
                f"some prompts do not fit vLLM's context of {self.max_model_len} tokens; their samples got empty "
                f"completions, not cached (first: {request.key.nodeid}, {length} tokens); raise "
                "--codeeval-max-model-len if the model allows it"
            )
        return Completion(request, "", 0, cacheable=False)
