"""Long runs cut short: Ctrl-C (SIGINT to the process group, as a terminal sends it) while generating or while
samples run ends the run at once with pytest's exit 2, keeps every completion received, says so, and the same
command resumes from the cache; requests of bounded size; a cache file cut mid-line by a kill -9."""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path

import pytest
from helpers import cache_lines, interrupt_when, our_traceback
from servers import SlowCompletions
from tiny_models import build

from pytest_codeeval.generation.base import Completion, GenerationRequest
from pytest_codeeval.generation.cache import GenerationCache
from pytest_codeeval.samples import SampleKey

pytestmark = pytest.mark.timeout(300)


def interrupt_once_cached(
    command: list[str], cwd: Path, cache: Path, at_least: int, then: float = 0.0
) -> tuple[int, float, str]:
    """SIGINT once the cache holds `at_least` lines (and `then` s more)."""
    def ready(_: Path) -> bool:
        if len(cache_lines(cache)) < at_least:
            return False
        time.sleep(then)
        return True

    return interrupt_when(command, cwd, ready, wait=120)


@pytest.mark.parametrize("xdist", [(), ("-n", "2")], ids=["single", "xdist"])
def test_ctrl_c_against_a_slow_server_keeps_what_arrived_and_the_same_command_resumes(
    tmp_path: Path, xdist: tuple[str, ...]
) -> None:
    cache = tmp_path / "cache" / "completions.jsonl"
    with SlowCompletions(delay=0.3) as server:
        command = [sys.executable, "-m", "pytest", "codeeval", "--codeeval-model=openai:fake",
                   f"--codeeval-base-url={server.url}", "--codeeval-tasks=humaneval", "--codeeval-limit=2",
                   "--codeeval-n-samples=1000", "--codeeval-batch-size=4", "--codeeval-concurrency=2",
                   f"--codeeval-cache-dir={cache.parent}", f"--codeeval-report={tmp_path / 'r.json'}",
                   "-p", "no:cacheprovider", "--tb=no", *xdist]  # samples fail while generation goes on: not shown
        status, seconds, out = interrupt_once_cached(command, tmp_path, cache, 8)
        assert status == pytest.ExitCode.INTERRUPTED and seconds < 10, out[-3000:]
        kept = len(cache_lines(cache))
        assert 8 <= kept < 2000 and all(body["n"] <= 4 for body in server.seen)
        generation = json.loads((tmp_path / "r.json").read_text())["generation"]
        assert generation["generated"] == kept and generation["stopped"].startswith(f"interrupted; {kept} of 2000 ")
        assert (f"codeeval: generation interrupted; {kept} of 2000 completions are in the cache (0 from earlier runs, "
                f"{kept} now; {cache.parent}): a rerun with the same generation settings generates only the other "
                f"{2000 - kept}") in out
        assert "KeyboardInterrupt" in out and not our_traceback(out)
        assert "codeeval: 2000 completions to generate with openai (0 of 2000 from the cache)" in out
        asked = len(server.seen)
        status, _, again = interrupt_once_cached(command, tmp_path, cache, kept + 8)
        assert status == pytest.ExitCode.INTERRUPTED, again[-3000:]
        assert f"codeeval: {2000 - kept} completions to generate with openai ({kept} of 2000 from the cache)" in again
        assert f"generation interrupted; {len(cache_lines(cache))} of 2000 completions are in the cache ({kept} from " in again
        assert len(server.seen) - asked < len(cache_lines(cache)), "the cached samples were asked for again"
    texts = [json.loads(line)["text"] for line in cache_lines(cache)]
    assert len(set(texts)) == len(texts) and all(text.startswith("\n    return ") for text in texts)


def test_a_second_ctrl_c_ends_the_run_at_once(tmp_path: Path) -> None:
    """The second SIGINT comes while the first one's ending (xdist's workers stopping) is under way: nothing
    catches it, so the process ends at once (killed by SIGINT, or already done with pytest's exit 2)."""
    cache = tmp_path / "cache" / "completions.jsonl"
    with SlowCompletions(delay=0.3) as server:
        command = [sys.executable, "-m", "pytest", "codeeval", "--codeeval-model=openai:fake",
                   f"--codeeval-base-url={server.url}", "--codeeval-tasks=humaneval", "--codeeval-limit=1",
                   "--codeeval-n-samples=1000", "--codeeval-batch-size=4", f"--codeeval-cache-dir={cache.parent}",
                   "-p", "no:cacheprovider", "-n", "2"]
        status, seconds, out = interrupt_when(command, tmp_path, lambda _: len(cache_lines(cache)) >= 8,
                                              again_after=0.1)
    assert status in (pytest.ExitCode.INTERRUPTED, -signal.SIGINT) and seconds < 5, out[-3000:]


@pytest.mark.parametrize("xdist", [(), ("-n", "2")], ids=["single", "xdist"])
def test_ctrl_c_while_samples_run_ends_the_run_at_once(tmp_path: Path, xdist: tuple[str, ...]) -> None:
    """Every sample sleeps 2 s in the sandbox: SIGINT once generation is over lands among running programs."""
    cache = tmp_path / "cache" / "completions.jsonl"
    with SlowCompletions(delay=0.05, text="\n    import time\n    time.sleep(2)\n    return {n}\n") as server:
        command = [sys.executable, "-m", "pytest", "codeeval", "--codeeval-model=openai:fake",
                   f"--codeeval-base-url={server.url}", "--codeeval-tasks=humaneval", "--codeeval-limit=1",
                   "--codeeval-n-samples=40", f"--codeeval-cache-dir={cache.parent}", "-p", "no:cacheprovider", *xdist]
        status, seconds, out = interrupt_once_cached(command, tmp_path, cache, 40, then=4.0)
    assert status == pytest.ExitCode.INTERRUPTED and seconds < 10, out[-3000:]
    assert "KeyboardInterrupt" in out and "codeeval: the run stopped before its last sample" in out


DROPS_CTRL_C = """
import os
import signal


class DropsCtrlC:
    def __del__(self):  # the SIGINT's KeyboardInterrupt is raised in here: Python prints it as ignored and drops it
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):
            pass


def test_ctrl_c_lands_in_a_finalizer():
    DropsCtrlC()
"""


@pytest.mark.parametrize("xdist", [(), ("-n", "1")], ids=["single", "xdist"])
def test_a_ctrl_c_that_python_dropped_in_a_finalizer_still_ends_the_run(
    pytester: pytest.Pytester, xdist: tuple[str, ...]
) -> None:
    """Python drops a KeyboardInterrupt raised inside a finalizer (a garbage collection can run one anywhere): the
    run goes on, every sample after it judged, unless the signal itself is remembered and raised again."""
    pytester.makepyfile(test_drop=DROPS_CTRL_C)
    result = pytester.runpytest_subprocess("test_drop.py", "codeeval", "--codeeval-model=reference", "--codeeval-tasks=humaneval",
                                           "--codeeval-limit=3", "-p", "no:cacheprovider", *xdist)
    out = result.stdout.str()
    assert "Exception ignored in: <function DropsCtrlC.__del__" in out  # Python did drop it (pytest shows it)
    assert result.ret == pytest.ExitCode.INTERRUPTED, out[-3000:]
    assert "no samples ran" in out and "INTERNALERROR" not in out


def test_ctrl_c_while_the_transformers_backend_generates_keeps_its_finished_batches(tmp_path: Path) -> None:
    model = build("gpt2", tmp_path / "gpt2")
    cache = tmp_path / "cache" / "completions.jsonl"
    command = [sys.executable, "-m", "pytest", "codeeval", f"--codeeval-model={model}", "--codeeval-tasks=humaneval",
               "--codeeval-limit=4", "--codeeval-n-samples=200", "--codeeval-batch-size=2",
               "--codeeval-max-new-tokens=64", f"--codeeval-cache-dir={cache.parent}", "-p", "no:cacheprovider"]
    status, seconds, out = interrupt_once_cached(command, tmp_path, cache, 2)
    assert status == pytest.ExitCode.INTERRUPTED and seconds < 10, out[-3000:]
    kept = len(cache_lines(cache))
    assert 2 <= kept < 800
    assert f"codeeval: generation interrupted; {kept} of 800 completions are in the cache" in out


def test_a_cache_line_cut_by_a_kill_mid_write_is_skipped_and_the_next_entry_stands_alone(tmp_path: Path) -> None:
    def completion(index: int) -> Completion:
        return Completion(GenerationRequest(SampleKey("t", "p", index), "prompt"), f"text {index}", 3)

    cache = GenerationCache(tmp_path)
    cache.put("first", completion(0))
    cache.put("second", completion(1))
    whole = cache.path.read_bytes()
    cache.path.write_bytes(whole[: len(whole) - 10])  # the second line cut, as a kill -9 mid-write leaves it
    reopened = GenerationCache(tmp_path)
    assert set(reopened.entries) == {"first"}
    reopened.put("third", completion(2))
    again = GenerationCache(tmp_path)
    assert set(again.entries) == {"first", "third"}
    found = again.get("third", completion(2).request)
    assert found is not None and (found.text, found.tokens) == ("text 2", 3)


def test_a_stop_while_a_server_thinks_returns_without_waiting_for_the_reply() -> None:
    """The run's end sets the stop event while a request is in flight: the backend returns within a poll,
    abandoning the request, instead of holding the generation thread until the server answers."""
    import threading

    from pytest_codeeval.generation.backends.openai import OpenAIBackend
    from pytest_codeeval.generation.base import GenerationSettings, ServerOptions

    with SlowCompletions(delay=3.0) as server:
        backend = OpenAIBackend("openai:fake", ServerOptions(base_urls=(server.url,)))
        stop = threading.Event()
        threading.Timer(0.5, stop.set).start()
        started = time.monotonic()
        done = list(backend.generate([GenerationRequest(SampleKey("t", "p", 0), "prompt")], GenerationSettings(), stop))
        assert done == [] and time.monotonic() - started < 2
