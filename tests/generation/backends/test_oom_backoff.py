"""Out-of-memory back-off in the transformers backend, with CUDA's out-of-memory error injected on CPU above a
chosen batch size: halved batches give the same completions, the working size is kept for the rest of the load
and reported, and what cannot be halved is one clear line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import first_ids, problems
from tiny_models import build, run_out_of_memory_above

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.generation.base import GenerationRequest, GenerationSettings, ModelOptions
from pytest_codeeval.generation.models import resolve_model
from pytest_codeeval.samples import SampleKey

pytestmark = pytest.mark.timeout(600)

TESTS = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build("llama", tmp_path_factory.mktemp("models") / "llama")


def backend(model: Path):
    from pytest_codeeval.generation.backends.transformers import TransformersBackend

    return TransformersBackend(resolve_model(str(model), ModelOptions()), ModelOptions(), "auto")


def requests(problem_ids: list[str], n_samples: int, stop: tuple[str, ...] = ()) -> list[GenerationRequest]:
    return [GenerationRequest(SampleKey("humaneval", t, i), problems()[t]["prompt"], stop)
            for t in problem_ids for i in range(n_samples)]


def texts(completions) -> dict[SampleKey, str]:
    out: dict[SampleKey, str] = {}
    for c in completions:
        assert c.request.key not in out, f"{c.request.key} was yielded twice"
        out[c.request.key] = c.text
    return out


SAMPLED = GenerationSettings(max_new_tokens=12, n_samples=2, temperature=1.0, seed=5)


def test_halved_batches_give_the_undisturbed_completions_and_the_size_is_kept(llama: Path) -> None:
    reqs = requests(first_ids(12), 2, stop=("e",))  # a common letter: rows end at different steps
    undisturbed = backend(llama)
    expected = texts(undisturbed.generate(reqs, SAMPLED))
    assert undisturbed.usage() == {"batch_size": 64}
    lengths = sorted(len(text) for text in expected.values())
    # the injected error comes at the 3rd decoding step: some rows have finished by then, others have not
    finishing = [c.tokens for c in backend(llama).generate(reqs, SAMPLED)]
    assert min(finishing) <= 3 < max(finishing), lengths

    disturbed = backend(llama)
    prefills = run_out_of_memory_above(disturbed.model, rows=5, after_steps=3)
    assert texts(disturbed.generate(reqs, SAMPLED)) == expected
    assert prefills[0] == 24 and disturbed.auto_batch == 3 and disturbed.usage() == {"batch_size": 3}

    later = requests(first_ids(16)[12:], 2)  # the rest of the session starts from the working size
    prefills.clear()
    assert texts(disturbed.generate(later, SAMPLED)) == texts(undisturbed.generate(later, SAMPLED))
    assert prefills == [3, 3, 2] and disturbed.usage() == {"batch_size": 3}


def test_greedy_outputs_survive_a_failing_prefill(llama: Path) -> None:
    reqs = requests(first_ids(8), 1)
    settings = GenerationSettings(max_new_tokens=10)
    expected = texts(backend(llama).generate(reqs, settings))
    disturbed = backend(llama)
    prefills = run_out_of_memory_above(disturbed.model, rows=2)
    assert texts(disturbed.generate(reqs, settings)) == expected
    assert prefills == [2, 2, 2, 2] and disturbed.usage() == {"batch_size": 2}  # 8 fails, then 4 (its half) fails


def test_a_fixed_batch_size_that_does_not_fit_is_one_clear_error(llama: Path) -> None:
    disturbed = backend(llama)
    run_out_of_memory_above(disturbed.model, rows=2)
    with pytest.raises(CodeevalError, match=r"^--codeeval-batch-size=4: a batch of 4 rows ran out of GPU memory; "
                                            r"lower it, or leave it out \(automatic: halved until batches fit\)$"):
        list(disturbed.generate(requests(first_ids(4), 1), GenerationSettings(max_new_tokens=4, batch_size=4)))


def test_data_parallel_replicas_start_from_the_kept_size(llama: Path) -> None:
    from pytest_codeeval.generation.backends.data_parallel import DataParallelBackend

    reqs = requests(first_ids(5), 1)
    settings = GenerationSettings(max_new_tokens=6)
    replicas = DataParallelBackend(resolve_model(str(llama), ModelOptions()), ModelOptions(), "auto", ("cpu", "cpu"))
    replicas.auto_batch = 2  # as if a replica had come down to it
    assert texts(replicas.generate(reqs, settings)) == texts(backend(llama).generate(reqs, settings))
    assert replicas.usage() == {"replicas": {"cpu#0": 3, "cpu#1": 2}, "batch_size": 2}


def injecting(rows: int) -> str:
    """A conftest that makes every model the session loads run out of memory above `rows` rows."""
    return f"""
import sys
sys.path.insert(0, {str(TESTS)!r})
from tiny_models import run_out_of_memory_above
from pytest_codeeval.generation.backends import transformers

loaded = transformers.TransformersBackend.__init__

def load(self, *args, **kwargs):
    loaded(self, *args, **kwargs)
    run_out_of_memory_above(self.model, {rows})

transformers.TransformersBackend.__init__ = load
"""


def completions(report: dict) -> dict[str, str]:
    return {f"{pid}/{i}": s["completion"]
            for pid, p in report["tasks"]["humaneval"]["problems"].items() for i, s in enumerate(p["samples"])}


def test_the_report_gives_the_batch_size_and_the_same_completions_under_xdist(
    pytester: pytest.Pytester, llama: Path
) -> None:
    args = (f"--codeeval-model={llama}", "--codeeval-limit=5", "--codeeval-max-new-tokens=8", "--codeeval-regenerate",
            "--codeeval-report=r.json", "-n", "2")
    plain = pytester.runpytest_subprocess(*args)
    assert plain.ret == 0, plain.stdout.str()[-3000:]
    undisturbed = json.loads((pytester.path / "r.json").read_text())
    pytester.makeconftest(injecting(rows=2))
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == 0, result.stdout.str()[-3000:]
    disturbed = json.loads((pytester.path / "r.json").read_text())
    assert undisturbed["generation"]["batch_size"] == 64 and disturbed["generation"]["batch_size"] == 2
    assert disturbed["generation"]["generated"] == 5
    assert completions(disturbed) == completions(undisturbed) and len(completions(disturbed)) == 5


def test_a_single_row_that_does_not_fit_is_one_line_and_exit_4(pytester: pytest.Pytester, llama: Path) -> None:
    pytester.makeconftest(injecting(rows=0))
    result = pytester.runpytest_subprocess(f"--codeeval-model={llama}", "--codeeval-limit=2",
                                           "--codeeval-max-new-tokens=8")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        "ERROR: out of GPU memory on a single row (a *-token prompt + --codeeval-max-new-tokens=8 with the model in "
        "float32; --codeeval-batch-size cannot go below 1): lower --codeeval-max-new-tokens, or load the model in "
        "less memory (--codeeval-precision=bf16, --codeeval-load-in-8bit, --codeeval-device-map=auto across GPUs); "
        "0 of 2 completions are in the cache*"
    ])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
