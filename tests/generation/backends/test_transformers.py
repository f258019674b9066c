"""Generation: batching across problems, stop words, reproducibility, the cache, one model load under xdist,
clear errors for bad model names, and the embedded offline model."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from helpers import first_ids, problems
from tiny_models import ARCHITECTURES, build

from pytest_codeeval.generation.base import GenerationRequest, GenerationSettings, ModelOptions
from pytest_codeeval.samples import SampleKey

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("models")
    return {arch: build(arch, root / arch) for arch in ARCHITECTURES}


def requests(n_problems: int, n_samples: int = 1, stop: tuple[str, ...] = ()) -> list[GenerationRequest]:
    return [
        GenerationRequest(SampleKey("humaneval", tid, i), problems()[tid]["prompt"], stop)
        for tid in first_ids(n_problems) for i in range(n_samples)
    ]


def run(model: Path, reqs: list[GenerationRequest], **settings: object) -> dict[SampleKey, str]:
    from pytest_codeeval.generation.engine import generate

    completions, _ = generate(str(model), reqs, GenerationSettings(**settings), ModelOptions(), None)
    return {key: c.text for key, c in completions.items()}


@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_batching_across_problems_matches_one_at_a_time(tiny: dict[str, Path], arch: str) -> None:
    reqs = requests(6)
    batched = run(tiny[arch], reqs, max_new_tokens=12, batch_size=6)
    single = run(tiny[arch], reqs, max_new_tokens=12, batch_size=1)
    assert batched == single
    assert all(batched.values())


def test_the_decode_loop_uses_no_deprecated_transformers_api(tiny: dict[str, Path]) -> None:
    with warnings.catch_warnings():  # e.g. the KV cache passed as `past_key_values`, renamed `cache`
        warnings.simplefilter("error", DeprecationWarning)
        warnings.simplefilter("error", FutureWarning)
        for arch in ARCHITECTURES:
            assert len(run(tiny[arch], requests(2), max_new_tokens=4)) == 2


def test_encoder_decoder_models_generate_reproducibly(tmp_path: Path) -> None:
    model = build("t5", tmp_path / "t5")
    first = run(model, requests(3, n_samples=2), max_new_tokens=8, n_samples=2, temperature=1.0)
    again = run(model, requests(3, n_samples=2), max_new_tokens=8, n_samples=2, temperature=1.0, batch_size=1)
    assert first == again and len(first) == 6 and all(first.values())


def test_stop_words_end_each_row_on_its_own(tiny: dict[str, Path]) -> None:
    free = run(tiny["llama"], requests(4), max_new_tokens=30, batch_size=4)
    word = max((text[3:5] for text in free.values() if len(text) > 8), key=len)
    stopped = run(tiny["llama"], requests(4, stop=(word,)), max_new_tokens=30, batch_size=4)
    for key, text in stopped.items():
        if word in free[key][: len(text)]:
            assert text.find(word) >= 0 and len(text) < len(free[key])
        assert free[key].startswith(text)


def test_sampling_is_reproducible_and_independent_of_selection(tiny: dict[str, Path]) -> None:
    everything = run(tiny["gpt2"], requests(4, n_samples=3), max_new_tokens=10, n_samples=3, temperature=1.0, seed=7)
    again = run(tiny["gpt2"], requests(4, n_samples=3), max_new_tokens=10, n_samples=3, temperature=1.0, seed=7, batch_size=2)
    subset = [r for r in requests(4, n_samples=3) if r.key.index == 1 or r.key.problem.endswith("/2")]
    alone = run(tiny["gpt2"], subset, max_new_tokens=10, n_samples=3, temperature=1.0, seed=7)
    assert again == everything
    assert alone == {r.key: everything[r.key] for r in subset}
    assert len({everything[SampleKey("humaneval", "HumanEval/0", i)] for i in range(3)}) > 1  # samples differ
    other_seed = run(tiny["gpt2"], requests(4, n_samples=3), max_new_tokens=10, n_samples=3, temperature=1.0, seed=8)
    assert other_seed != everything


def generation_report(pytester: pytest.Pytester, *args: str) -> dict:
    result = pytester.runpytest_subprocess(*args, "--codeeval-limit=3", "--codeeval-max-new-tokens=8", "--codeeval-report=r.json")
    assert result.ret == 0, result.stdout.str()[-3000:]
    return json.loads((pytester.path / "r.json").read_text())["generation"]


def test_cache_hits_misses_and_one_load_under_xdist(pytester: pytest.Pytester, tiny: dict[str, Path]) -> None:
    model = f"--codeeval-model={tiny['starcoder2']}"
    first = generation_report(pytester, model, "-n", "2")
    assert (first["model_loads"], first["generated"], first["cached"]) == (1, 3, 0)
    assert first["backend"] == "transformers" and first["tokens"] > 0
    second = generation_report(pytester, model)
    assert (second["model_loads"], second["generated"], second["cached"]) == (0, 0, 3)
    forced = generation_report(pytester, model, "--codeeval-regenerate")
    assert (forced["model_loads"], forced["generated"]) == (1, 3)
    changed = generation_report(pytester, model, "--codeeval-prefix=# solve\n")
    assert (changed["generated"], changed["cached"]) == (3, 0)
    moved = generation_report(pytester, model, f"--codeeval-cache-dir={pytester.path / 'elsewhere'}")
    assert moved["generated"] == 3 and (pytester.path / "elsewhere" / "completions.jsonl").exists()


@pytest.mark.parametrize(
    "model, message",
    [
        ("/no/such/model-dir", "--codeeval-model=/no/such/model-dir: no such directory or file"),
        ("no-such-org/no-such-model", "--codeeval-model=no-such-org/no-such-model: cannot load it*"),
    ],
)
def test_bad_model_names_are_one_clear_error(pytester: pytest.Pytester, model: str, message: str) -> None:
    result = pytester.runpytest_subprocess(f"--codeeval-model={model}", "--codeeval-limit=1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_embedded_model_runs_offline(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(
        "--codeeval-model=smollm2-135m", "--codeeval-limit=2", "--codeeval-max-new-tokens=24", "--codeeval-report=r.json",
    )
    assert result.ret == 0
    data = json.loads((pytester.path / "r.json").read_text())
    assert data["generation"]["generated"] == 2 and data["generation"]["model"] == "smollm2-135m"
    assert all(s["completion"].strip() for p in data["tasks"]["humaneval"]["problems"].values() for s in p["samples"])


def test_data_parallel_replicas_give_what_one_process_gives(tiny: dict[str, Path]) -> None:
    from pytest_codeeval.generation.engine import generate

    reqs = requests(5, n_samples=2)
    settings = GenerationSettings(max_new_tokens=10, n_samples=2, temperature=1.0, seed=3)
    single, _ = generate(str(tiny["llama"]), reqs, settings, ModelOptions(), None)
    split, stats = generate(str(tiny["llama"]), reqs, settings, ModelOptions(devices=("cpu", "cpu")), None)
    assert {k: c.text for k, c in split.items()} == {k: c.text for k, c in single.items()}
    assert stats.model_loads == 2 and sorted(stats.extra["replicas"].values()) == [5, 5]


def test_data_parallel_loads_once_per_device_under_xdist(pytester: pytest.Pytester, tiny: dict[str, Path]) -> None:
    first = generation_report(pytester, f"--codeeval-model={tiny['gpt2']}", "--codeeval-devices=cpu,cpu", "-n", "2")
    assert (first["model_loads"], first["generated"]) == (2, 3) and set(first["replicas"]) == {"cpu#0", "cpu#1"}
    result = pytester.runpytest_subprocess(f"--codeeval-model={tiny['gpt2']}", "--codeeval-devices=cpu,gpu9")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --codeeval-devices=cpu,gpu9: expected auto or devices such as cuda:0,cuda:1*"])
    both = pytester.runpytest_subprocess(f"--codeeval-model={tiny['gpt2']}", "--codeeval-devices=cpu,cpu", "--codeeval-device-map=auto", "--codeeval-limit=1")
    assert both.ret == pytest.ExitCode.USAGE_ERROR
    both.stderr.fnmatch_lines(["ERROR: --codeeval-devices and --codeeval-device-map: choose data parallel or model parallel, not both"])


def test_a_special_token_that_is_a_stop_word_stops_generation() -> None:
    """An instruction token that is a special token of the tokenizer (not EOS) stops a row, as BCEH's
    EndOfFunctionCriteria stops it (tests/data/instructhumaneval/bceh_special_stop.json, its own code's answers);
    decoded without special tokens, `<|end|>` was never seen."""
    from tiny_models import tiny_tokenizer

    from pytest_codeeval.generation.backends.transformers import TransformersBackend

    bceh = json.loads((Path(__file__).parents[2] / "data" / "instructhumaneval" / "bceh_special_stop.json").read_text())
    backend = TransformersBackend.__new__(TransformersBackend)  # only what the stopping check reads
    backend.tokenizer = tiny_tokenizer(special=tuple(bceh["special"]))
    backend.eos_ids, backend.end_ids = {backend.tokenizer.eos_token_id}, {}
    request = GenerationRequest(SampleKey("t", "p", 0), bceh["prompt"], tuple(bceh["stop_words"]))
    start = len(backend.tokenizer(bceh["prompt"])["input_ids"])
    stopped = [backend._stopped(request, backend.tokenizer(bceh["prompt"] + text)["input_ids"][start:])
               for text in bceh["generations"]]
    assert stopped == bceh["stopped"]


def test_a_stop_ends_the_batch_at_the_next_token(tiny: dict[str, Path]) -> None:
    """Ctrl-C or the run's end sets the stop event from another thread: the backend abandons the batch in hand at
    the next token, and starts no other, so a long batch does not outlive the run in its thread."""
    import threading

    from pytest_codeeval.generation.backends.transformers import TransformersBackend
    from pytest_codeeval.generation.models import resolve_model

    backend = TransformersBackend(resolve_model(str(tiny["gpt2"]), ModelOptions()), ModelOptions(), "auto")
    stop, forward, passes = threading.Event(), backend.model.forward, []

    def counted(*args: object, **kwargs: object) -> object:
        passes.append(1)
        if len(passes) == 3:
            stop.set()
        return forward(*args, **kwargs)

    backend.model.forward = counted
    settings = GenerationSettings(max_new_tokens=200, batch_size=2)
    done = list(backend.generate(requests(4), settings, stop))
    assert len(passes) == 3 and all(c.tokens <= 2 for c in done)
    stop.clear()
    assert len(list(backend.generate(requests(4), settings, stop))) == 4  # the same backend goes on afterwards
