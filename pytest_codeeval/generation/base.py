"""The generation contract: requests in, completions out. Backends (transformers in process, OpenAI-compatible
servers) implement `Backend`; tasks and runners never see which one ran."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.options import option
from pytest_codeeval.samples import SampleKey


@dataclass(frozen=True)
class GenerationSettings:
    """Everything besides the model and prompt that determines a completion (part of the cache key)."""

    max_new_tokens: int = option(
        "--codeeval-max-new-tokens", "generated tokens per completion (default: 512)", default=512, type=int,
        metavar="N", check=lambda v: v >= 1, expect="expected at least 1")
    n_samples: int = option("--codeeval-n-samples", "completions per problem (default: 1)", default=1, type=int,
                            metavar="N", check=lambda v: v >= 1, expect="expected at least 1")
    do_sample: bool | None = option(  # None: greedy when n_samples == 1, sampling otherwise
        "--codeeval-do-sample", "sample even when n-samples is 1 (default: greedy for n=1 unless "
        "--codeeval-temperature is given)", action="store_true")
    temperature: float = option(  # argparse's None: not given (settings.read_settings then samples at it)
        "--codeeval-temperature", "sampling temperature (default: 0.2); given, it is used even for one sample "
        "(0: greedy)", default=0.2, raw=None, type=float, metavar="T",
        parse=lambda given, flag: 0.2 if given is None else given,
        check=lambda v: v >= 0, expect="expected 0 or more (0: greedy), e.g. 0.2")  # false for NaN too
    top_p: float = option("--codeeval-top-p", "nucleus sampling (default: 0.95)", default=0.95, type=float,
                          metavar="P", check=lambda v: 0 < v <= 1,
                          expect="expected a probability above 0 and at most 1, e.g. 0.95")
    top_k: int = option("--codeeval-top-k", "top-k sampling, 0 = off (default: 0)", default=0, type=int, metavar="K",
                        check=lambda v: v >= 0, expect="expected 0 (off) or a positive number of tokens")
    seed: int = option("--codeeval-seed", "random seed (default: 0)", default=0, type=int, metavar="N")
    batch_size: int | None = option(  # None: automatic
        "--codeeval-batch-size", "sequences per forward pass (default: automatic); openai: samples per request "
        "(default 16)", type=int, metavar="N",
        check=lambda v: v >= 1, expect="expected at least 1 sequence")
    precision: str = option("--codeeval-precision", "model weights precision", default="auto",
                            choices=("auto", "fp32", "fp16", "bf16"))
    chat_template: bool = option("--codeeval-chat-template", "wrap prompts in the tokenizer's chat template",
                                 default=False, action="store_true")
    instruction_tokens: tuple[str, str, str] | None = option(
        "--codeeval-instruction-tokens", "bigcode-style instruction tokens", metavar="USER,END,ASSISTANT",
        parse=lambda v, flag: _instruction_tokens(v, flag))
    prefix: str = option("--codeeval-prefix", "text put before every prompt", default="", metavar="TEXT")
    fim_format: str | None = option(  # a fill-in-the-middle family (generation/fim.py); None: read off the tokenizer
        "--codeeval-fim-format", "fill-in-the-middle tokens for infilling tasks (default: the tokenizer's): starcoder, "
        "santacoder, qwen2.5-coder, deepseek-coder, codellama, codestral", metavar="FAMILY")

    @property
    def sampling(self) -> bool:
        return self.do_sample if self.do_sample is not None else self.n_samples > 1


@dataclass(frozen=True)
class GenerationRequest:
    """One completion to produce: the task's prompt for one (task, problem, sample). With a `suffix`, the model
    fills in the middle: the prompt is the text before the hole, the suffix the text after it."""

    key: SampleKey
    prompt: str
    stop_words: tuple[str, ...] = ()
    settings: GenerationSettings | None = None  # the task's own overrides (YAML generation_kwargs); None: the run's
    answer_start: str = ""  # text after the instruction tokens that the model continues (Task.answer_start)
    suffix: str | None = None  # fill-in-the-middle: the text after the gap (Task.get_suffix)
    instruction: bool = False  # an instruction task's prompt, which instruction tokens wrap (Task.instruction_task)


def row_seed(seed: int, request: GenerationRequest) -> int:
    """One sample's own seed, from (seed, task, problem, sample) only: it does not depend on what else was selected
    or on how requests were batched or split, in any backend."""
    key = f"{seed}:{request.key.task}:{request.key.problem}:{request.key.index}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:7], "big")


@dataclass
class Completion:
    request: GenerationRequest
    text: str  # the generated text only, without the prompt
    tokens: int = 0
    cacheable: bool = True  # False: a stand-in (a prompt the server's context cannot hold) that a rerun asks again


@dataclass
class GenerationStats:
    """The `generation` section of the JSON report."""

    backend: str
    model: str
    model_loads: int = 0
    generated: int = 0
    cached: int = 0
    tokens: int = 0
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "extra"}
        data["tokens_per_second"] = round(self.tokens / self.seconds, 2) if self.seconds else None
        data.update(self.extra)
        return data


class Backend(Protocol):
    """A loaded model. `identity()` names what determines its outputs (model, revision or weights hash)."""

    name: str
    loads: int  # model loads this backend made (the report's model_loads)

    def identity(self) -> dict[str, Any]: ...

    def usage(self) -> dict[str, Any]:
        """Backend-specific accounting for the report's `generation` section (requests, tokens, warnings)."""
        ...

    def generate(
        self, requests: Sequence[GenerationRequest], settings: GenerationSettings, stop: threading.Event | None = None,
    ) -> Iterator[Completion]:
        """Yield completions as they finish (any order), so that a cache can keep them if the run is cut off. Once
        `stop` is set (Ctrl-C, the run's end), return within a token or a poll, leaving the unfinished ones: a
        long batch must not outlive the run in its thread."""
        ...


@dataclass(frozen=True)
class ModelOptions:
    """How to load a model (transformers and vLLM backends); part of the cache key where it changes outputs."""

    revision: str | None = option("--codeeval-revision", "model revision on the hub", metavar="REV")
    device_map: str | None = option("--codeeval-device-map",
                                    "model parallel: accelerate device map, e.g. auto for models larger than one GPU",
                                    metavar="MAP")
    trust_remote_code: bool = option("--codeeval-trust-remote-code", "allow models with custom code", default=False,
                                     action="store_true")
    load_in_8bit: bool = option("--codeeval-load-in-8bit", "8-bit weights (needs bitsandbytes)", default=False,
                                action="store_true")
    load_in_4bit: bool = option("--codeeval-load-in-4bit", "4-bit weights (needs bitsandbytes)", default=False,
                                action="store_true")
    peft: str | None = option(  # vLLM: served as a LoRA adapter
        "--codeeval-peft", "PEFT adapter to apply to the model", metavar="PATH")
    devices: tuple[str, ...] = option(  # data parallel: one replica per device, each in its own process
        "--codeeval-devices", "data parallel: one model replica per device, each in its own process: auto (every "
        "visible GPU) or cuda:0,cuda:1", default=(), raw=None, metavar="LIST", parse=lambda v, flag: _devices(v, flag))
    # vLLM's engine (`--codeeval-model=vllm:MODEL`; its rules: backends/vllm.py); None: vLLM's own default
    tensor_parallel_size: int | None = option(
        "--codeeval-tensor-parallel-size", "vllm: GPUs each layer is split over (default: 1)", type=int,
        metavar="N", check=lambda v: v >= 1, expect="expected at least 1 GPU")
    pipeline_parallel_size: int | None = option(
        "--codeeval-pipeline-parallel-size", "vllm: stages the layers are split into, one per GPU or node "
        "(default: 1)", type=int, metavar="N", check=lambda v: v >= 1, expect="expected at least 1 GPU")
    distributed_executor: str | None = option(  # "ray" (several nodes) or "mp" (one machine)
        "--codeeval-distributed-executor", "vllm: what runs the GPUs' workers: ray (several nodes, a Ray cluster) "
        "or mp (one machine) (default: vLLM's choice)", choices=("ray", "mp"))
    gpu_memory_utilization: float | None = option(
        "--codeeval-gpu-memory-utilization", "vllm: fraction of each GPU's memory the engine may take (default: "
        "vLLM's, 0.9)", type=float, metavar="F", check=lambda v: 0 < v <= 1,  # false for NaN too
        expect="expected a fraction of each GPU's memory, e.g. 0.9")
    max_model_len: int | None = option(
        "--codeeval-max-model-len", "vllm: context length in tokens, prompt and completion (default: the model's)",
        type=int, metavar="N", check=lambda v: v >= 1, expect="expected a positive number of tokens")
    quantization: str | None = option(
        "--codeeval-quantization", "vllm: quantization method, e.g. awq, gptq, fp8 (default: what the checkpoint "
        "says)", metavar="METHOD")
    enforce_eager: bool = option(
        "--codeeval-enforce-eager", "vllm: no CUDA graphs or compilation: a faster start, slower generation",
        default=False, action="store_true")
    download_dir: str | None = option(
        "--codeeval-download-dir", "vllm: where hub weights go (default: the hub cache)", metavar="DIR",
        parse=lambda v, flag: str(Path(v).expanduser()) if v is not None else None)


@dataclass(frozen=True)
class ServerOptions:
    """How to reach OpenAI-compatible endpoints (`--codeeval-model=openai:MODEL`); none of it changes outputs."""

    base_urls: tuple[str, ...] = option(
        "--codeeval-base-url", "OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (repeatable: endpoints "
        "share the requests)", default=(), raw=None, action="append", metavar="URL",
        parse=lambda v, flag: tuple(v or ()))
    api_key_env: str | None = option(  # None: OPENAI_API_KEY when set, else no key (local servers)
        "--codeeval-api-key-env", "environment variable holding the API key (default: OPENAI_API_KEY)",
        metavar="NAME")
    chat: bool = option("--codeeval-chat", "use the chat endpoint (instruct models) instead of completions",
                        default=False, action="store_true")
    concurrency: int | None = option(  # None: 8 requests in flight per endpoint
        "--codeeval-concurrency", "requests in flight at once (default: 8 per endpoint)", type=int, metavar="N",
        check=lambda v: v >= 1, expect="expected at least 1 request in flight")
    request_timeout: float = option(
        "--codeeval-request-timeout", "per-request timeout (default: 600)", default=600.0, type=float,
        metavar="SECONDS", check=lambda v: v > 0, expect="expected a positive number of seconds")
    max_retries: int = option(
        "--codeeval-max-retries", "retries of a request answered 429 or 5xx, failures in a row of an endpoint "
        "(default: 6)", default=6, type=int, metavar="N", check=lambda v: v >= 0, expect="expected 0 or more")


def _instruction_tokens(value: str | None, flag: str) -> tuple[str, str, str] | None:
    if not value:
        return None
    parts = value.split(",")
    if len(parts) != 3:
        raise CodeevalError(f"{flag}={value!r}: expected three comma-separated tokens <user>,<end>,<assistant>, as in "
                            "bigcode-evaluation-harness")
    return (parts[0], parts[1], parts[2])


def _devices(value: str | None, flag: str) -> tuple[str, ...]:
    """A comma-separated list such as `cuda:0,cuda:1` or `cpu,cpu`, or `auto` (resolved at load: `visible`)."""
    if not value:
        return ()
    if value == "auto":
        return ("auto",)
    devices = tuple(part.strip() for part in value.split(",") if part.strip())
    if not devices or any(not (d == "cpu" or d.startswith(("cuda", "mps", "xpu"))) for d in devices):
        raise CodeevalError(f"{flag}={value}: expected auto or devices such as cuda:0,cuda:1 (cpu,cpu for a test)")
    return devices
