"""Batching across problems: the transformers backend (all prompts batched across problems, finished rows dropped)
against bigcode-evaluation-harness's way re-enacted in process (one problem at a time, n return sequences per
forward), same model, same settings, side by side in one run. Prints tokens/s of each and the ratio. (The
contest with the harness's own main.py and with vLLM is benchmarks/generation_throughput.py.)

    .venv/bin/python benchmarks/generation_batching.py                       # embedded SmolLM2-135M on CPU
    .venv/bin/python benchmarks/generation_batching.py --n-samples 4 --temperature 0.8
    .venv/bin/python benchmarks/generation_batching.py --config bigcode/starcoder2-7b --device cuda --dtype bf16

`--config NAME` builds a random-weight model from that architecture config (real size, no download of weights;
the config itself must be in the local hub cache or be a local directory) with the embedded model's tokenizer.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from helpers import first_ids, problems

from pytest_codeeval.generation.base import GenerationRequest, GenerationSettings, ModelOptions
from pytest_codeeval.generation.models import convert_gguf, resolve_model
from pytest_codeeval.samples import SampleKey
from pytest_codeeval.tasks.catalogue.humaneval import HumanEval


def load(args: argparse.Namespace):
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    from pytest_codeeval.generation.backends.transformers import TransformersBackend

    embedded = convert_gguf(resolve_model("smollm2-135m", ModelOptions()))
    spec = resolve_model(str(embedded), ModelOptions())
    backend = TransformersBackend(spec, ModelOptions(), args.dtype)
    if args.config:
        config = AutoConfig.from_pretrained(args.config)
        config.vocab_size = max(config.vocab_size, len(backend.tokenizer))
        backend.model = AutoModelForCausalLM.from_config(
            config, dtype=getattr(torch, {"bf16": "bfloat16", "fp16": "float16"}.get(args.dtype, "float32"))
        )
    backend.model.to(args.device).eval()
    backend.device = next(backend.model.parameters()).device
    return backend


def ours(backend, reqs: list[GenerationRequest], settings: GenerationSettings) -> tuple[float, int]:
    start = time.perf_counter()
    tokens = sum(c.tokens for c in backend.generate(reqs, settings))
    return time.perf_counter() - start, tokens


def one_problem_at_a_time(
    backend, prompts: list[str], settings: GenerationSettings, stop: list[str]
) -> tuple[float, int]:
    """bigcode-evaluation-harness: per problem, model.generate with num_return_sequences=n and a stop criterion
    that waits until every sequence of the batch has a stop word."""
    import torch
    from transformers import StoppingCriteria, StoppingCriteriaList

    tok, model = backend.tokenizer, backend.model

    class EndOfFunction(StoppingCriteria):
        def __init__(self, start: int) -> None:
            self.start = start

        def __call__(self, input_ids, scores, **kwargs) -> bool:
            texts = tok.batch_decode(input_ids[:, self.start :])
            return all(any(s in t for s in stop) for t in texts)

    start, tokens = time.perf_counter(), 0
    for prompt in prompts:
        ids = tok(prompt, return_tensors="pt").input_ids.to(backend.device)
        with torch.inference_mode():
            out = model.generate(
                ids, max_new_tokens=settings.max_new_tokens, do_sample=settings.sampling,
                temperature=settings.temperature if settings.sampling else None,
                top_p=settings.top_p if settings.sampling else None,
                num_return_sequences=settings.n_samples, pad_token_id=tok.pad_token_id,
                stopping_criteria=StoppingCriteriaList([EndOfFunction(ids.shape[1])]),
            )
        for row in out[:, ids.shape[1] :].tolist():  # count what a harness keeps: up to EOS or padding
            kept = [t for t in row if t != tok.pad_token_id]
            tokens += len(kept)
    return time.perf_counter() - start, tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=16)
    parser.add_argument("--n-samples", type=int, default=1)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=None)
    parser.add_argument("--temperature", type=float, default=0.2)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default="fp32", choices=("fp32", "fp16", "bf16"))
    parser.add_argument("--config", default=None, help="random-weight model from this architecture config")
    args = parser.parse_args()
    backend = load(args)
    task = HumanEval()
    ids = first_ids(args.problems)
    settings = GenerationSettings(max_new_tokens=args.max_new_tokens, n_samples=args.n_samples,
                                  temperature=args.temperature, batch_size=args.batch_size)
    reqs = [GenerationRequest(SampleKey("humaneval", t, i), problems()[t]["prompt"], tuple(task.stop_words))
            for t in ids for i in range(args.n_samples)]
    prompts = [problems()[t]["prompt"] for t in ids]
    base_s, base_tokens = one_problem_at_a_time(backend, prompts, settings, task.stop_words)
    our_s, our_tokens = ours(backend, reqs, settings)
    print(f"model: {args.config or 'smollm2-135m'} on {args.device} ({args.dtype}); {args.problems} problems x "
          f"{args.n_samples} samples, max {args.max_new_tokens} new tokens")
    print(f"one problem at a time (bigcode) : {base_s:7.2f} s  {base_tokens:6d} tokens  "
          f"{base_tokens / base_s:8.1f} tokens/s  {len(reqs) / base_s:6.2f} completions/s")
    print(f"batched across problems (ours)  : {our_s:7.2f} s  {our_tokens:6d} tokens  "
          f"{our_tokens / our_s:8.1f} tokens/s  {len(reqs) / our_s:6.2f} completions/s")
    print(f"ratio (completions/s, ours / bigcode): {base_s / our_s:.2f}x")


if __name__ == "__main__":
    main()
