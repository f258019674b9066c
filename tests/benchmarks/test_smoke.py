"""Every benchmark in benchmarks/ runs end to end in its smallest mode (seconds, not a timing), so that a refactor
cannot break one unnoticed until `make bench`: each prints its table and exits 0. A new benchmark needs a line
here (the first test fails until it has one). vLLM's throughput runs in `.venv-vllm` (the Makefile's vLLM line)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(900)
BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
# benchmark -> (its smallest arguments, a piece of the table it must print)
SMOKE: dict[str, tuple[list[str], str]] = {
    "cputime_stability.py": (["1"], "ratio"),
    "execution_vs_human_eval.py": (["--canonical", "--problems", "2", "--rounds", "1", "--workers", "0"], "samples/s"),
    "generation_batching.py": (["--problems", "1", "--max-new-tokens", "4"], "tokens"),
    "generation_throughput.py": (
        ["--problems", "1", "--max-new-tokens", "4", "--rounds", "1", "--workload", "exact", "--eager"], "tokens"
    ),
    "gpu_check.py": (["--smoke"], "tokens"),
    "multiple_vs_multipl_e.py": (["--langs", "py,js", "--repeat", "1", "--rounds", "1"], "same"),
    "sandbox_layers.py": (["--samples", "4", "--rounds", "1"], "strict"),
    "scale.py": (["--smoke"], "per item: humaneval"),
}


def test_every_benchmark_has_a_smoke_run() -> None:
    assert sorted(SMOKE) == sorted(path.name for path in BENCHMARKS.glob("*.py"))


@pytest.mark.parametrize("name", sorted(SMOKE))
def test_benchmark_runs_in_its_smallest_mode(name: str) -> None:
    if name == "generation_throughput.py" and importlib.util.find_spec("vllm") is None:
        pytest.skip("vLLM's benchmark runs in .venv-vllm (make test runs it there)")
    args, expected = SMOKE[name]
    done = subprocess.run([sys.executable, str(BENCHMARKS / name), *args], capture_output=True, text=True, timeout=840)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert expected in done.stdout, done.stdout[-3000:]
