"""The transformers backend: one model load, all requests of the session batched across problems.

Rows are sorted by prompt length and left padded; every row stops at its own stop words or EOS and leaves the
batch (its cache rows are dropped), so finished sequences cost nothing. Each row samples from its own generator
seeded by (seed, task, problem, sample), so a completion does not depend on what else was selected or batched:
which is also why a batch that runs out of GPU memory can be retried in halves without changing any output."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.generation.backends.whole_import import whole_import
from pytest_codeeval.generation.base import Completion, GenerationRequest, GenerationSettings, ModelOptions, row_seed
from pytest_codeeval.generation.models import ModelSpec, convert_gguf
from pytest_codeeval.generation.prompts import format_prompt

DTYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}
STOP_TAIL_TOKENS = 24  # tokens decoded at each step to look for a stop word
AUTO_BATCH = 64  # rows per batch unless --codeeval-batch-size says otherwise (halved on out-of-memory)


def out_of_memory(exc: BaseException) -> bool:
    """CUDA's out-of-memory error; older torch (and other accelerators) raise a RuntimeError that says so."""
    import torch

    return isinstance(exc, torch.cuda.OutOfMemoryError) or (
        isinstance(exc, RuntimeError) and "out of memory" in str(exc)
    )




class TransformersBackend:
    name = "transformers"
    loads = 1

    def __init__(self, spec: ModelSpec, options: ModelOptions, precision: str, device: str | None = None) -> None:
        with whole_import("torch"):
            import torch
            from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

        from pytest_codeeval.tasks.loading import hub_reachable

        self.spec = spec
        source = str(convert_gguf(spec)) if spec.gguf_file else spec.source
        is_hub = "revision" in spec.identity
        common: dict[str, Any] = {"revision": options.revision, "trust_remote_code": options.trust_remote_code}
        if is_hub and not hub_reachable():
            common["local_files_only"] = True  # no network wait: use the local hub cache or fail at once
        try:
            config = AutoConfig.from_pretrained(source, **common)
            self.tokenizer = AutoTokenizer.from_pretrained(source, **common)
            model_cls = AutoModelForSeq2SeqLM if config.is_encoder_decoder else AutoModelForCausalLM
            self.model = model_cls.from_pretrained(source, **common, **self._load_kwargs(options, precision, torch))
        except (OSError, ValueError) as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            offline = " (the Hugging Face hub is unreachable: download the model first and pass its directory)"
            hint = offline if common.get("local_files_only") else ""
            raise CodeevalError(f"--codeeval-model={spec.name}: cannot load it: {first}{hint}") from None
        if options.peft:
            self.model = self._apply_peft(options.peft)
        self.seq2seq = bool(config.is_encoder_decoder)
        if not options.device_map and not (options.load_in_8bit or options.load_in_4bit):
            self.model.to(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.use_model(self.model.eval())
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        eos = getattr(self.model.generation_config, "eos_token_id", None)
        self.eos_ids = {i for i in ([eos] if isinstance(eos, int) else list(eos or [])) if i is not None}
        if self.tokenizer.eos_token_id is not None:
            self.eos_ids.add(self.tokenizer.eos_token_id)
        self.end_ids: dict[int, set[int]] = {}  # per fill-in-the-middle request: its family's end-of-middle tokens
        self.auto_batch = AUTO_BATCH  # the automatic size; once halved for running out of memory, kept so
        self.batch_size: int | None = None  # the size the last batches ran with (the report's batch_size)

    def use_model(self, model: Any) -> None:
        """Decode with `model`, passing what its forward takes: the KV cache as `cache` in current transformers
        (`past_key_values` is deprecated; releases before the rename know only that), and at the prompt only the
        last position's logits where it can (all of them would take rows x prompt length x vocabulary floats)."""
        import inspect

        base = model.get_base_model() if hasattr(model, "get_base_model") else model  # peft passes them on
        parameters = inspect.signature(base.forward).parameters
        self.model, self.device = model, next(model.parameters()).device
        self.cache_arg = "cache" if "cache" in parameters else "past_key_values"
        self.prompt_args = {"logits_to_keep": 1} if "logits_to_keep" in parameters else {}

    @staticmethod
    def _load_kwargs(options: ModelOptions, precision: str, torch: Any) -> dict[str, Any]:
        if precision == "auto":
            gpu = torch.cuda.is_available()
            dtype = (torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16) if gpu else torch.float32
        else:
            dtype = getattr(torch, DTYPES[precision])
        kwargs: dict[str, Any] = {"dtype": dtype}
        if options.device_map:
            kwargs["device_map"] = options.device_map
        if options.load_in_8bit or options.load_in_4bit:
            try:
                import bitsandbytes  # noqa: F401 - only whether it is installed
                from transformers import BitsAndBytesConfig
            except ImportError:
                raise CodeevalError(
                    "--codeeval-load-in-8bit/4bit needs bitsandbytes: pip install bitsandbytes"
                ) from None
            kwargs["quantization_config"] = BitsAndBytesConfig(
                load_in_8bit=options.load_in_8bit, load_in_4bit=options.load_in_4bit
            )
            kwargs.setdefault("device_map", "auto")
        return kwargs

    def _apply_peft(self, adapter: str) -> Any:
        try:
            from peft import PeftModel
        except ImportError:
            raise CodeevalError("--codeeval-peft needs the peft package: pip install peft") from None
        return PeftModel.from_pretrained(self.model, adapter)

    def identity(self) -> dict[str, Any]:
        return self.spec.identity

    def usage(self) -> dict[str, Any]:
        return {"batch_size": self.batch_size} if self.batch_size else {}

    # -- generation ------------------------------------------------------------------------------------------
    def generate(
        self, requests: Sequence[GenerationRequest], settings: GenerationSettings, stop: threading.Event | None = None,
    ) -> Iterator[Completion]:
        interrupted = (stop or threading.Event()).is_set
        texts = {
            id(r): format_prompt(r.prompt, settings, self.tokenizer, answer_start=r.answer_start, suffix=r.suffix,
                                 instruction=r.instruction)
            for r in requests
        }
        self.end_ids = {id(r): self._fim_end_ids(settings) for r in requests if r.suffix is not None}
        encoded = {id(r): self.tokenizer(texts[id(r)])["input_ids"] for r in requests}
        pending = sorted(requests, key=lambda r: len(encoded[id(r)]))
        step = self._seq2seq_chunk if self.seq2seq else self._causal_chunk
        while pending and not interrupted():
            self.batch_size = settings.batch_size or self.auto_batch  # one long tail per batch: bigger ones share it
            chunk, pending = pending[: self.batch_size], pending[self.batch_size :]
            finished: set[int] = set()
            try:
                for completion in step(chunk, [encoded[id(r)] for r in chunk], settings, interrupted):
                    finished.add(id(completion.request))
                    yield completion
                continue
            except Exception as exc:
                if not out_of_memory(exc):
                    raise
            # out of memory: what the batch had not finished goes back, to run in half-size batches
            left = [r for r in chunk if id(r) not in finished]
            self._back_off(len(chunk), max(len(encoded[id(r)]) for r in left), settings)
            pending = left + pending

    def _back_off(self, rows: int, prompt_tokens: int, settings: GenerationSettings) -> None:
        """Halve the automatic batch size after a batch of `rows` ran out of memory; a fixed size, or a single
        row, that does not fit is the user's to change."""
        import gc

        import torch

        gc.collect()  # the failed batch's tensors, and their blocks, so that the halves find them free
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
        if rows == 1:
            dtype = str(self.model.dtype).removeprefix("torch.")
            raise CodeevalError(
                f"out of GPU memory on a single row (a {prompt_tokens}-token prompt + --codeeval-max-new-tokens="
                f"{settings.max_new_tokens} with the model in {dtype}; --codeeval-batch-size cannot go below 1): "
                "lower --codeeval-max-new-tokens, or load the model in less memory (--codeeval-precision=bf16, "
                "--codeeval-load-in-8bit, --codeeval-device-map=auto across GPUs)"
            )
        if settings.batch_size:
            raise CodeevalError(
                f"--codeeval-batch-size={settings.batch_size}: a batch of {rows} rows ran out of GPU memory; lower "
                "it, or leave it out (automatic: halved until batches fit)"
            )
        self.auto_batch = rows // 2

    def _fim_end_ids(self, settings: GenerationSettings) -> set[int]:
        from pytest_codeeval.generation.fim import fim_end_ids, fim_format

        return fim_end_ids(self.tokenizer, fim_format(self.tokenizer, settings.fim_format))

    def _stopped(self, request: GenerationRequest, ids: list[int]) -> bool:
        """EOS, the end-of-middle token of a fill-in-the-middle request, or one of the request's stop words, seen
        with the special tokens as BCEH's stopping check sees them (an instruction token may be one)."""
        if ids[-1] in self.eos_ids or ids[-1] in self.end_ids.get(id(request), ()):
            return True
        tail = self.tokenizer.decode(ids[-STOP_TAIL_TOKENS:], skip_special_tokens=False)
        return any(word and word in tail for word in request.stop_words)

    def _completion(self, request: GenerationRequest, ids: list[int]) -> Completion:
        return Completion(request, self.tokenizer.decode(ids, skip_special_tokens=True), len(ids))

    def _choose(self, logits: Any, generators: list[Any], settings: GenerationSettings) -> Any:
        import torch

        if not settings.sampling:
            return logits.argmax(dim=-1)
        logits = logits.float() / max(settings.temperature, 1e-5)
        if settings.top_k:
            kth = torch.topk(logits, min(settings.top_k, logits.shape[-1])).values[:, -1:]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        if settings.top_p < 1.0:
            sorted_logits, order = torch.sort(logits, descending=True)
            cumulative = sorted_logits.softmax(-1).cumsum(-1)
            drop = cumulative - sorted_logits.softmax(-1) > settings.top_p
            logits = logits.scatter(1, order, sorted_logits.masked_fill(drop, float("-inf")))
        probs = logits.softmax(-1).cpu()
        return torch.stack(
            [torch.multinomial(p, 1, generator=g)[0] for p, g in zip(probs, generators, strict=True)]).to(logits.device
        )

    def _causal_chunk(
        self, chunk: list[GenerationRequest], rows: list[list[int]], settings: GenerationSettings,
        interrupted: Callable[[], bool],
    ) -> Iterator[Completion]:
        import torch
        from transformers import DynamicCache

        width = max(len(r) for r in rows)
        pad = self.tokenizer.pad_token_id
        ids = torch.tensor([[pad] * (width - len(r)) + r for r in rows], device=self.device)
        mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows], device=self.device)
        generators = [torch.Generator().manual_seed(row_seed(settings.seed, r)) for r in chunk]
        active = list(range(len(chunk)))
        generated: list[list[int]] = [[] for _ in chunk]
        cache = DynamicCache()
        with torch.inference_mode():
            out = self.model(input_ids=ids, attention_mask=mask, position_ids=(mask.cumsum(-1) - 1).clamp(min=0),
                             use_cache=True, **{self.cache_arg: cache}, **self.prompt_args)
            for _ in range(settings.max_new_tokens):
                if interrupted():  # the rows in hand are abandoned: a rerun generates them
                    return
                chosen = self._choose(out.logits[:, -1, :], [generators[i] for i in active], settings)
                keep = []
                for j, (row, token) in enumerate(zip(active, chosen.tolist(), strict=True)):
                    generated[row].append(token)
                    stopped = self._stopped(chunk[row], generated[row])
                    if stopped or len(generated[row]) >= settings.max_new_tokens:
                        yield self._completion(chunk[row], generated[row])
                    else:
                        keep.append(j)
                if not keep:
                    return
                if len(keep) < len(active):  # finished rows leave the batch and its cache
                    index = torch.tensor(keep, device=self.device)
                    cache.batch_select_indices(index)
                    mask, chosen = mask[index], chosen[index]
                    active = [active[j] for j in keep]
                mask = torch.cat([mask, mask.new_ones((len(active), 1))], dim=-1)
                out = self.model(input_ids=chosen[:, None], attention_mask=mask,
                                 position_ids=mask.sum(-1, keepdim=True) - 1, use_cache=True, **{self.cache_arg: cache})

    def _seq2seq_chunk(
        self, chunk: list[GenerationRequest], rows: list[list[int]], settings: GenerationSettings,
        interrupted: Callable[[], bool],
    ) -> Iterator[Completion]:
        """Encoder-decoder models: transformers' own generate, one row at a time so each row keeps its seed."""
        import torch

        for request, row in zip(chunk, rows, strict=True):
            if interrupted():
                return
            torch.manual_seed(row_seed(settings.seed, request))
            with torch.inference_mode():
                out = self.model.generate(
                    input_ids=torch.tensor([row], device=self.device), max_new_tokens=settings.max_new_tokens,
                    do_sample=settings.sampling, temperature=settings.temperature if settings.sampling else None,
                    top_p=settings.top_p if settings.sampling else None, top_k=settings.top_k or None,
                    pad_token_id=self.tokenizer.pad_token_id,
                )
            ids = [t for t in out[0].tolist()[1:] if t != self.tokenizer.pad_token_id]
            yield self._completion(request, ids)
