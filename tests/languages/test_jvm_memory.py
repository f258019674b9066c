"""The JVM languages' heap follows the sample's memory bound (2 GiB by default), as MultiPL-E's JVMs are bounded
only by their container: a correct program holding one 1.2 GiB array passes (a fixed `-Xmx1g` failed it), one
holding 3 GiB fails as out of memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import language_or_skip

from pytest_codeeval.languages import get_language
from pytest_codeeval.languages.base import heap_flags
from pytest_codeeval.sandbox import get_executor
from pytest_codeeval.sandbox.api import Limits

SAMPLES = json.loads((Path(__file__).parents[1] / "data" / "languages" / "samples.json").read_text())
# strlen's body, holding one array of `{n}` longs while it answers
HOLDING = {
    "java": "        long[] held = new long[{n}];\n        held[{n} - 1] = string.length();\n        return held[{n} - 1];",
    "scala": "        val held = new Array[Long]({n})\n        held({n} - 1) = string.length\n        held({n} - 1)",
    "clj": "  (let [held (long-array {n})] (aset held (dec {n}) (count string)) (aget held (dec {n})))",
}
GIB = 1024**3


def holding(name: str, size: float) -> str:
    body = HOLDING[name].replace("{n}", str(int(size * GIB) // 8))
    return SAMPLES[name]["program"].replace("{body}", body)


@pytest.mark.parametrize("name", sorted(HOLDING))
def test_a_correct_program_holding_1_2_gib_passes(name: str) -> None:
    outcome = language_or_skip(name).run(holding(name, 1.2), Limits(cpu_seconds=10), get_executor("strict"))
    assert (outcome.status, outcome.detail) == ("passed", "ok"), outcome.output[-2000:]


def test_a_program_holding_3_gib_fails_out_of_memory() -> None:
    outcome = language_or_skip("java").run(holding("java", 3), Limits(cpu_seconds=10), get_executor("strict"))
    assert outcome.status == "failed", outcome.output[-2000:]
    assert "out of memory" in outcome.detail or "OutOfMemoryError" in outcome.detail


def test_the_heap_follows_the_memory_bound() -> None:
    assert heap_flags(Limits()) == ["-Xmx1792m", "-XX:NewRatio=7"]  # 2 GiB less 256 MiB for the JVM's own memory
    assert heap_flags(Limits(memory_bytes=512 * 1024**2))[0] == "-Xmx384m"  # a quarter kept, at most


@pytest.mark.parametrize("name", sorted(HOLDING))
def test_each_jvm_runs_with_the_heap_of_its_sample(name: str) -> None:
    request = get_language(name).request(holding(name, 0.1), Limits(memory_bytes=4 * GIB))
    files = dict(request.files)
    assert " -Xmx3840m -XX:NewRatio=7 " in files[".run.sh"].decode()  # on the command: no file beside the program
    assert set(files) == {request.filename, ".run.sh"}
