"""The generation contract: requests in, completions out. Backends (transformers in process, OpenAI-compatible
servers) implement `Backend`; tasks and runners never see which one ran."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pytest_codeeval.samples import SampleKey


@dataclass(frozen=True)
class GenerationSettings:
    """Everything besides the model and prompt that determines a completion (part of the cache key)."""

    max_new_tokens: int = 512
    n_samples: int = 1
    do_sample: bool | None = None  # None: greedy when n_samples == 1, sampling otherwise
    temperature: float = 0.2
    top_p: float = 0.95
    top_k: int = 0
    seed: int = 0
    batch_size: int | None = None  # None: automatic
    precision: str = "auto"
    chat_template: bool = False
    instruction_tokens: tuple[str, str, str] | None = None
    prefix: str = ""
    fim_format: str | None = None  # a fill-in-the-middle family (generation/fim.py); None: read off the tokenizer

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

    def generate(self, requests: Sequence[GenerationRequest], settings: GenerationSettings) -> Iterator[Completion]:
        """Yield completions as they finish (any order), so that a cache can keep them if the run is cut off."""
        ...


@dataclass(frozen=True)
class ModelOptions:
    """How to load a model (transformers and vLLM backends); part of the cache key where it changes outputs."""

    revision: str | None = None
    device_map: str | None = None
    trust_remote_code: bool = False
    load_in_8bit: bool = False
    load_in_4bit: bool = False
    peft: str | None = None  # vLLM: served as a LoRA adapter
    devices: tuple[str, ...] = ()  # data parallel: one replica per device, each in its own process
    # vLLM's engine (`--codeeval-model=vllm:MODEL`); None: vLLM's own default
    tensor_parallel_size: int | None = None
    pipeline_parallel_size: int | None = None
    distributed_executor: str | None = None  # "ray" (several nodes) or "mp" (one machine)
    gpu_memory_utilization: float | None = None
    max_model_len: int | None = None
    quantization: str | None = None
    enforce_eager: bool = False
    download_dir: str | None = None


@dataclass(frozen=True)
class ServerOptions:
    """How to reach OpenAI-compatible endpoints (`--codeeval-model=openai:MODEL`); none of it changes outputs."""

    base_urls: tuple[str, ...] = ()
    api_key_env: str | None = None  # None: OPENAI_API_KEY when set, else no key (local servers)
    chat: bool = False
    concurrency: int | None = None  # None: 8 requests in flight per endpoint
    request_timeout: float = 600.0
    max_retries: int = 6
