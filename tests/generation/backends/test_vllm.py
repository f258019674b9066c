"""vLLM, real and without mocks, on the embedded model: the in-process backend (`--codeeval-model=vllm:MODEL`)
against the transformers backend and against itself; pytest runs through it (xdist, every task family, Ctrl-C, a
LoRA adapter); and a vLLM OpenAI-compatible server for the `openai:` backend. vLLM's CPU build lives in its own
environment (`make setup-vllm`), where `make test` runs this file; the option checks run in every environment.
Engine starts are the file's cost: three in all (the module's engine, the LoRA run's, the server's)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import cache_lines, first_ids, interrupt_when, problems
from servers import VllmServer, embedded_dir, free_port

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.generation.base import GenerationRequest, GenerationSettings, ModelOptions, ServerOptions
from pytest_codeeval.samples import SampleKey
from pytest_codeeval.tasks.base import stop_at_stop_words
from pytest_codeeval.tasks.catalogue.humaneval import HumanEval

pytestmark = pytest.mark.timeout(900)
HAS_VLLM = importlib.util.find_spec("vllm") is not None
needs_vllm = pytest.mark.skipif(
    not HAS_VLLM, reason="vLLM is not installed here: `make setup-vllm` makes .venv-vllm, where `make test` runs this file"
)
HUMANEVAL = HumanEval()
STOPS = tuple(HUMANEVAL.stop_words)
TOKENS = 48
ENGINE = ModelOptions(enforce_eager=True, max_model_len=2048)  # eager: the engine starts in a fraction of the time
SAMPLED = {"max_new_tokens": 24, "n_samples": 3, "temperature": 1.0, "seed": 7}


def requests(problem_ids: list[str], n_samples: int = 1, stop: tuple[str, ...] = STOPS) -> list[GenerationRequest]:
    """HumanEval's requests as the task makes them (its prompt is stripped, as bigcode-evaluation-harness does)."""
    return [GenerationRequest(SampleKey("humaneval", pid, i), HUMANEVAL.get_prompt(problems()[pid]), stop)
            for pid in problem_ids for i in range(n_samples)]


def texts(backend: Any, reqs: list[GenerationRequest], **settings: Any) -> dict[SampleKey, str]:
    return {c.request.key: c.text for c in backend.generate(reqs, GenerationSettings(precision="fp32", **settings))}


def cut(found: dict[SampleKey, str]) -> dict[SampleKey, str]:
    """What the task keeps of each text: the backends differ in what they return past a stop word."""
    return {key: stop_at_stop_words(text, STOPS) for key, text in found.items()}


@pytest.fixture(scope="module")
def model_dir() -> Path:
    return embedded_dir()


@pytest.fixture(scope="module")
def transformers(model_dir: Path) -> Any:
    from pytest_codeeval.generation.backends.transformers import TransformersBackend
    from pytest_codeeval.generation.models import resolve_model

    return TransformersBackend(resolve_model(str(model_dir), ModelOptions()), ModelOptions(), "fp32")


@pytest.fixture(scope="module")
def reference(transformers: Any) -> dict[SampleKey, str]:
    """The transformers backend's greedy completions of the first 16 HumanEval problems."""
    return texts(transformers, requests(first_ids(16)), max_new_tokens=TOKENS)


@pytest.fixture(scope="module")
def engine(model_dir: Path) -> Any:
    from pytest_codeeval.generation.backends import vllm
    from pytest_codeeval.generation.models import resolve_model

    backend = vllm.load(resolve_model(str(model_dir), ENGINE), ENGINE, "fp32")
    # A first request imports what generation imports, here: pytester's in-process runs drop the modules first
    # imported inside them, and vLLM's classes must stay the ones its engine knows.
    list(backend.generate(requests(first_ids(1)), GenerationSettings(max_new_tokens=1)))
    return backend


@needs_vllm
def test_greedy_equals_the_transformers_backend_on_16_prompts(reference: dict, engine: Any) -> None:
    found = texts(engine, requests(first_ids(16)), max_new_tokens=TOKENS)
    assert cut(found) == cut(reference)
    assert all(found.values()) and sum(bool(text.strip()) for text in cut(found).values()) >= 5


@needs_vllm
def test_prompt_formats_are_built_as_the_transformers_backend_builds_them(transformers: Any, engine: Any) -> None:
    reqs = requests(first_ids(2))
    chat = {"max_new_tokens": 16, "chat_template": True}
    wrapped = {"max_new_tokens": 16, "prefix": "# Python 3\n",
               "instruction_tokens": ("<|im_start|>user\n", "<|im_end|>\n", "<|im_start|>assistant\n")}
    for settings in (chat, wrapped):
        assert cut(texts(engine, reqs, **settings)) == cut(texts(transformers, reqs, **settings))


@needs_vllm
def test_sampling_is_reproducible_and_independent_of_selection_and_batch(engine: Any) -> None:
    everything = texts(engine, requests(first_ids(4), 3), **SAMPLED)
    crowded = requests(first_ids(8), 3)[::-1]  # other problems in the same batch, in another order
    assert {k: v for k, v in texts(engine, crowded, **SAMPLED).items() if k in everything} == everything
    subset = [r for r in requests(first_ids(4), 3) if r.key.index == 1 or r.key.problem.endswith("/2")]
    assert texts(engine, subset, **SAMPLED) == {r.key: everything[r.key] for r in subset}
    assert len({everything[SampleKey("humaneval", "HumanEval/0", i)] for i in range(3)}) > 1  # samples differ
    assert texts(engine, requests(first_ids(4), 3), **{**SAMPLED, "seed": 8}) != everything


@needs_vllm
def test_stop_words_end_each_sample_and_max_tokens_bounds_it(engine: Any) -> None:
    reqs = requests(first_ids(4), stop=())
    free = {c.request.key: c for c in engine.generate(reqs, GenerationSettings(max_new_tokens=30))}
    assert all(0 < c.tokens <= 30 for c in free.values())
    word = max((c.text[3:6] for c in free.values() if len(c.text) > 10), key=len)
    stopped = texts(engine, requests(first_ids(4), stop=(word,)), max_new_tokens=30)
    assert any(text.endswith(word) for text in stopped.values())
    for key, text in stopped.items():
        assert free[key].text.startswith(text)
        assert text.endswith(word) or word not in free[key].text[: len(text) + len(word)]


@needs_vllm
def test_fill_in_the_middle_where_the_model_has_the_tokens(transformers: Any, engine: Any) -> None:
    from pytest_codeeval.generation.fim import FIM_FORMATS, detect_fim_format

    if detect_fim_format(engine.tokenizer) is None:
        pytest.skip("the embedded SmolLM2's tokenizer has no fill-in-the-middle tokens of any known family "
                    f"({', '.join(FIM_FORMATS)}): there is no FIM prompt to build")
    reqs = [GenerationRequest(SampleKey("fim", pid, 0), problems()[pid]["prompt"], (), suffix="\n    return result\n")
            for pid in first_ids(3)]
    assert texts(engine, reqs, max_new_tokens=24) == texts(transformers, reqs, max_new_tokens=24)


@needs_vllm
def test_a_prompt_longer_than_the_context_gets_an_empty_uncached_completion(engine: Any) -> None:
    long = GenerationRequest(SampleKey("humaneval", "long", 0), "x = 1\n" * 1500, STOPS)
    found = {c.request.key.problem: c for c in engine.generate([long, *requests(first_ids(1))], GenerationSettings(max_new_tokens=8))}
    assert (found["long"].text, found["long"].cacheable) == ("", False)
    assert found["HumanEval/0"].cacheable and found["HumanEval/0"].tokens > 0
    usage = engine.usage()
    assert usage["too_long"] == 1 and "do not fit vLLM's context of 2048 tokens" in usage["warnings"][0]


# The engine fixture's options on the command line: an in-process run with them gets the module's engine (vLLM's
# `load` keeps one per process), so a pytest run through `vllm:` starts no engine of its own: `model_loads` is 0.
SAME_ENGINE = ("--codeeval-enforce-eager", "--codeeval-max-model-len=2048", "--codeeval-precision=fp32")
SAMPLED_RUN = ("--codeeval-tasks=humaneval", "--codeeval-limit=3", "--codeeval-n-samples=3", "--codeeval-temperature=1.0",
               "--codeeval-seed=7", "--codeeval-max-new-tokens=24")


def report_of(pytester: pytest.Pytester, model: str, *args: str) -> dict:
    """A run in this process (vLLM's engine shared with the module), its JSON report."""
    report = pytester.path / "r.json"
    report.unlink(missing_ok=True)
    result = pytester.runpytest_inprocess(
        f"--codeeval-model={model}", f"--codeeval-report={report}", f"--codeeval-cache-dir={pytester.path / 'cache'}",
        "-p", "no:cacheprovider", *args,
    )
    assert result.ret in (0, 1), result.stdout.str()[-3000:] + result.stderr.str()[-3000:]
    return json.loads(report.read_text())


def solutions(report: dict, task: str = "humaneval") -> dict[SampleKey, str]:
    return {SampleKey(task, pid, s["index"]): s["solution"]
            for pid, p in report["tasks"][task]["problems"].items() for s in p["samples"]}


@needs_vllm
def test_a_run_under_xdist_gives_the_engines_samples_and_caches_them_as_vllms(
    pytester: pytest.Pytester, model_dir: Path, engine: Any, transformers: Any
) -> None:
    """The controller generates (with the module's engine: none started), its two workers run the samples."""
    vllm = f"vllm:{model_dir}"
    first = report_of(pytester, vllm, *SAMPLED_RUN, *SAME_ENGINE, "-n", "2")
    generation = first["generation"]
    assert generation["backend"] == "vllm" and generation["vllm"] and generation["max_model_len"] == 2048
    assert (generation["model_loads"], generation["generated"], generation["cached"]) == (0, 9, 0)
    reqs = {r.key: r for r in requests(first_ids(3), 3)}
    expected = {key: reqs[key].prompt + text for key, text in cut(texts(engine, list(reqs.values()), **SAMPLED)).items()}
    assert solutions(first) == expected
    again = report_of(pytester, vllm, *SAMPLED_RUN, *SAME_ENGINE)["generation"]
    assert (again["generated"], again["cached"]) == (0, 9) and "load_seconds" not in again  # no backend started
    other = report_of(pytester, str(model_dir), *SAMPLED_RUN)["generation"]  # the transformers backend: not vLLM's
    assert (other["backend"], other["generated"], other["cached"]) == ("transformers", 9, 0)


DATA = Path(__file__).parents[2] / "data"
# One task of every family that runs offline, with its local rows where it has no packaged data. Left out: the
# fill-in-the-middle families (santacoder_fim, starcoder_fim, humaneval-infilling-*): the embedded SmolLM2 has no
# FIM tokens (test_fill_in_the_middle_where_the_model_has_the_tokens).
def _multipl_e_task() -> str:
    """MultiPL-E's family in a language this machine runs: Lua where CI installed it, else the shell (a task named
    without its toolchain is a usage error)."""
    from pytest_codeeval.languages import get_language

    return next((f"multiple-{name}" for name in ("lua", "sh") if get_language(name).unavailable() is None), "multiple-lua")


FAMILIES = {
    "humaneval": None, "instruct_wizard_humaneval": None, "parity": None, _multipl_e_task(): None,
    "humanevalplus": "humanevalplus/test.jsonl", "mbpp": "mbpp/test.jsonl", "mbppplus": "mbppplus/test.jsonl",
    "instruct-humaneval": "instructhumaneval/test.jsonl", "apps-introductory": "apps/apps_test.jsonl",
    "conala": "conala/conala.jsonl", "concode": "conala/concode.jsonl",
    "codexglue_code_to_text-python": "codexglue/code_to_text-python.jsonl",
    "codexglue_text_to_text-da_en": "codexglue/text_to_text-da_en.jsonl",
    "ds1000-numpy-completion": "ds1000/ds1000_test.jsonl",
    "humanevalsynthesize-python": "humanevalpack/python.jsonl", "humanevalfixtests-python": "humanevalpack/python.jsonl",
    "humanevalfixdocs-python": "humanevalpack/python.jsonl",
    "humanevalexplaindescribe-python": "humanevalpack/python.jsonl",
    "humanevalexplainsynthesize-python": "humanevalpack/python.jsonl",  # chained: a second generation pass
    "mercury": "mercury/eval.jsonl", "pal-gsm8k-greedy": "pal/gsm8k_test.jsonl",
    "perturbed-humaneval-nlaugmenter-num_seeds_2": "perturbed_humaneval/nlaugmenter.jsonl",
    "quixbugs": "quixbugs/train.jsonl", "python_bugs": "python_bugs/train.jsonl", "spider": "spider/validation.jsonl",
    "studenteval": "studenteval/test.jsonl",
}


@needs_vllm
def test_every_task_family_runs_end_to_end_through_vllm(pytester: pytest.Pytester, model_dir: Path, engine: Any) -> None:
    """One problem of each: generated by vLLM (one pass, plus Explain's second), run or scored, reported."""
    data = [f"--codeeval-dataset={task}={DATA / path}" for task, path in FAMILIES.items() if path]
    report = report_of(pytester, f"vllm:{model_dir}", *SAME_ENGINE, f"--codeeval-tasks={','.join(FAMILIES)}",
                       "--codeeval-limit=1", "--codeeval-max-new-tokens=16", *data)
    generation, tasks = report["generation"], report["tasks"]
    assert sorted(tasks) == sorted(FAMILIES)
    samples = [s for task in tasks.values() for p in task["problems"].values() for s in p["samples"]]
    assert (generation["backend"], generation["model_loads"], generation["cached"]) == ("vllm", 0, 0)
    assert generation["generated"] == len(samples) >= len(FAMILIES) and generation["tokens"] > len(FAMILIES)
    for name, task in tasks.items():
        assert task["n_problems"] == 1 and task["metrics"] and all(v is not None for v in task["metrics"].values()), name
        assert all(isinstance(s["completion"], str) for p in task["problems"].values() for s in p["samples"]), name
    assert sum(bool(s["completion"].strip()) for s in samples) >= len(FAMILIES) // 2  # the model wrote something


@needs_vllm
def test_ctrl_c_keeps_the_finished_completions_and_a_rerun_generates_the_rest(
    pytester: pytest.Pytester, model_dir: Path, engine: Any
) -> None:
    """SIGINT to this process once the cache holds a completion: the run stops (pytest's exit 2), the cache keeps
    what finished, the engine's other requests are aborted, and the same command then generates only the rest.
    In process, on the module's engine (on a CPU it runs in this process: the interrupt lands inside its step, and
    the rerun uses the same engine). On a GPU a terminal's Ctrl-C also reaches vLLM's engine process, which the
    backend tolerates (`generate`'s `finally`)."""
    cache = pytester.path / "cache" / "completions.jsonl"
    run = (*SAME_ENGINE, "--codeeval-tasks=humaneval", "--codeeval-limit=8", "--codeeval-max-new-tokens=128")
    stop = threading.Event()

    def interrupt() -> None:
        while not stop.is_set():
            if cache.exists() and cache.read_text().count("\n") >= 1:
                os.kill(os.getpid(), signal.SIGINT)
                return
            time.sleep(0.01)

    # Python's own handler, as in a terminal: a shell's background job (a CI step started with `&`) ignores SIGINT
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    watcher = threading.Thread(target=interrupt, daemon=True)
    watcher.start()
    try:
        result = pytester.runpytest_inprocess(f"--codeeval-model=vllm:{model_dir}", *run, "-p", "no:cacheprovider",
                                              f"--codeeval-cache-dir={cache.parent}", no_reraise_ctrlc=True)
    finally:
        stop.set()
        watcher.join()
        signal.signal(signal.SIGINT, previous)
    assert result.ret == pytest.ExitCode.INTERRUPTED, result.stdout.str()[-3000:]
    kept = cache.read_text().splitlines()
    assert 1 <= len(kept) < 8
    report = report_of(pytester, f"vllm:{model_dir}", *run)
    assert (report["generation"]["cached"], report["generation"]["generated"]) == (len(kept), 8 - len(kept))
    assert cache.read_text().splitlines()[: len(kept)] == kept and len(cache.read_text().splitlines()) == 8


@needs_vllm
def test_ctrl_c_while_the_engine_starts_ends_the_run_in_seconds(tmp_path: Path, model_dir: Path) -> None:
    """A process of its own, vLLM's defaults (its KV cache sized here): SIGINT while the engine starts, after 5 s
    of the loading phase's lines, ends the run as pytest's interrupt; nothing was generated, and the summary says so."""
    env = {name: value for name, value in os.environ.items() if name != "VLLM_CPU_KVCACHE_SPACE"}
    env["PYTEST_CODEEVAL_PROGRESS_SECONDS"] = "1"
    command = [sys.executable, "-m", "pytest", "codeeval", f"--codeeval-model=vllm:{model_dir}",
               "--codeeval-tasks=humaneval", "--codeeval-limit=8", f"--codeeval-cache-dir={tmp_path / 'cache'}",
               "-p", "no:cacheprovider"]

    def loading_for_5s(out: Path) -> bool:
        seconds = re.findall(r"^codeeval: loading the model: (\d+)s so far$", out.read_text(errors="replace"), re.M)
        return bool(seconds) and int(seconds[-1]) >= 5

    status, seconds, out = interrupt_when(command, tmp_path, loading_for_5s, env=env)
    assert status == pytest.ExitCode.INTERRUPTED and seconds < 20, out[-3000:]
    assert "codeeval: generation interrupted while the model loaded; 0 of 8 completions are in the cache" in out
    assert "codeeval: loaded in" not in out and "Traceback" not in out


@pytest.fixture(scope="module")
def adapter(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A LoRA adapter for the embedded model, random (not the identity a fresh adapter is), rank 4 on q and v."""
    peft = pytest.importorskip("peft", reason="peft is not installed here (`make setup-vllm` installs it)")
    import torch
    from transformers import AutoModelForCausalLM

    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    config = peft.LoraConfig(r=4, lora_alpha=16, target_modules=["q_proj", "v_proj"], init_lora_weights=False,
                             task_type="CAUSAL_LM")
    directory = tmp_path_factory.mktemp("lora")
    peft.get_peft_model(model, config).save_pretrained(directory)
    return directory


@needs_vllm
def test_a_lora_adapter_changes_the_completions_and_the_cache_identity(
    pytester: pytest.Pytester, model_dir: Path, engine: Any, adapter: Path
) -> None:
    """The adapter's run starts its own engine (in a pytest process of its own: vLLM sizes LoRA at start), finds
    none of the plain model's cached completions, and gives what the transformers backend gives with the adapter."""
    greedy = ("--codeeval-tasks=humaneval", "--codeeval-limit=3", "--codeeval-max-new-tokens=24", *SAME_ENGINE)
    plain = report_of(pytester, f"vllm:{model_dir}", *greedy)
    assert plain["generation"]["generated"] == 3
    report = pytester.path / "lora.json"
    # A weakref.finalize made before multiprocessing is imported, as a script that first makes a temporary
    # directory does (benchmarks/generation_throughput.py did): the process must still end (`VllmBackend.close`).
    pytester.makeconftest("import tempfile\n\nKEPT = tempfile.TemporaryDirectory()\n")
    result = pytester.runpytest_subprocess(
        f"--codeeval-model=vllm:{model_dir}", *greedy, f"--codeeval-peft={adapter}", f"--codeeval-report={report}",
        f"--codeeval-cache-dir={pytester.path / 'cache'}", "-p", "no:cacheprovider", timeout=600,
    )
    assert result.ret in (0, 1), result.stdout.str()[-3000:] + result.stderr.str()[-3000:]
    lora = json.loads(report.read_text())
    assert (lora["generation"]["model_loads"], lora["generation"]["generated"], lora["generation"]["cached"]) == (1, 3, 0)
    assert solutions(lora) != solutions(plain)
    from pytest_codeeval.generation.backends.transformers import TransformersBackend
    from pytest_codeeval.generation.models import resolve_model

    options = ModelOptions(peft=str(adapter))
    with_adapter = TransformersBackend(resolve_model(str(model_dir), options), options, "fp32")
    reqs = requests(first_ids(3))
    found = cut(texts(with_adapter, reqs, max_new_tokens=24))
    assert solutions(lora) == {r.key: r.prompt + found[r.key] for r in reqs}
    again = report_of(pytester, f"vllm:{model_dir}", *greedy, f"--codeeval-peft={adapter}")["generation"]
    assert (again["generated"], again["cached"]) == (0, 3)  # the adapter's own entries; no engine started


@pytest.mark.parametrize("args, message", [
    (("--codeeval-model=vllm:m", "--codeeval-tensor-parallel-size=0"), "--codeeval-tensor-parallel-size=0: expected at least 1 GPU"),
    (("--codeeval-model=vllm:m", "--codeeval-pipeline-parallel-size=0"), "--codeeval-pipeline-parallel-size=0: expected at least 1 GPU"),
    (("--codeeval-model=smollm2-135m", "--codeeval-distributed-executor=ray"), "--codeeval-distributed-executor sets vLLM's engine: it needs --codeeval-model=vllm:MODEL"),
    (("--codeeval-model=vllm:m", "--codeeval-gpu-memory-utilization=1.5"), "--codeeval-gpu-memory-utilization=1.5: expected a fraction*"),
    (("--codeeval-model=vllm:m", "--codeeval-max-model-len=0"), "--codeeval-max-model-len=0: expected a positive number of tokens"),
    (("--codeeval-model=smollm2-135m", "--codeeval-enforce-eager"), "--codeeval-enforce-eager sets vLLM's engine: it needs --codeeval-model=vllm:MODEL"),
    (("--codeeval-model=openai:m", "--codeeval-quantization=awq"), "--codeeval-quantization sets vLLM's engine: it needs --codeeval-model=vllm:MODEL"),
    (("--codeeval-model=vllm:m", "--codeeval-load-in-8bit"), "--codeeval-load-in-8bit is for the transformers backend; with --codeeval-model=vllm:m use --codeeval-quantization"),
    (("--codeeval-model=vllm:m", "--codeeval-devices=cpu,cpu"), "--codeeval-devices is for the transformers backend; with --codeeval-model=vllm:m use --codeeval-tensor-parallel-size"),
    (("--codeeval-model=vllm:smollm2-135m", "--codeeval-peft=/no/such/adapter"), "--codeeval-peft=/no/such/adapter: no LoRA adapter there*"),
    (("--codeeval-model=vllm:/no/such/dir",), "--codeeval-model=/no/such/dir: no such directory or file"),
])
def test_bad_vllm_options_are_one_line_errors(pytester: pytest.Pytester, args: tuple[str, ...], message: str) -> None:
    result = pytester.runpytest_subprocess(*args, "--codeeval-limit=1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_engine_arguments_carry_every_option_and_a_cpu_engine_runs_in_this_process(model_dir: Path) -> None:
    """What `vllm.LLM` is given (no engine started: this runs in every environment)."""
    from pytest_codeeval.generation.backends.vllm import engine_args, in_this_process
    from pytest_codeeval.generation.models import resolve_model

    spec = resolve_model(str(model_dir), ModelOptions())
    everything = ModelOptions(tensor_parallel_size=4, pipeline_parallel_size=2, distributed_executor="ray",
                              gpu_memory_utilization=0.8, max_model_len=4096, quantization="awq", enforce_eager=True,
                              download_dir="/weights", revision="main", trust_remote_code=True)
    args = engine_args(spec, everything, "bf16", cpu=False)
    assert args == {"model": spec.source, "revision": "main", "trust_remote_code": True, "dtype": "bfloat16",
                    "enforce_eager": True, "seed": 0, "tensor_parallel_size": 4, "pipeline_parallel_size": 2,
                    "distributed_executor_backend": "ray", "gpu_memory_utilization": 0.8, "max_model_len": 4096,
                    "quantization": "awq", "download_dir": "/weights"}
    plain = engine_args(spec, ModelOptions(), "auto", cpu=False)
    assert plain["dtype"] == "auto" and "tensor_parallel_size" not in plain and "enable_chunked_prefill" not in plain
    on_cpu = engine_args(spec, ModelOptions(), "auto", cpu=True)
    assert (on_cpu["dtype"], on_cpu["enable_chunked_prefill"]) == ("float32", False)
    assert in_this_process(ModelOptions(), cpu=True) and not in_this_process(ModelOptions(), cpu=False)
    for workers in (ModelOptions(tensor_parallel_size=2), ModelOptions(pipeline_parallel_size=2),
                    ModelOptions(distributed_executor="mp")):
        assert not in_this_process(workers, cpu=True)


def test_a_cpu_engine_sizes_its_kv_cache_to_the_memory_available(model_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """vLLM's CPU default reserves 90% of the machine's total memory and refuses to start where it is not free: left
    unset, a quarter of the available memory (at most 8 GiB); too little is one line naming what to set."""
    from pytest_codeeval.generation.backends import vllm
    from pytest_codeeval.generation.models import resolve_model

    gib = 1 << 30
    assert vllm.cpu_kv_cache_bytes(20 * gib) == 5 * gib and vllm.cpu_kv_cache_bytes(100 * gib) == 8 * gib
    assert vllm.cpu_kv_cache_bytes(gib) == gib // 4
    with pytest.raises(CodeevalError, match=r"^--codeeval-model=vllm:MODEL: 0\.5 GiB of memory available, too little "
                       r"for vLLM's KV cache on this CPU: set VLLM_CPU_KVCACHE_SPACE=GIB .* or "
                       r"--codeeval-gpu-memory-utilization=FRACTION"):
        vllm.cpu_kv_cache_bytes(gib // 2)
    assert 0 < vllm.available_memory() <= os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    spec = resolve_model(str(model_dir), ModelOptions())
    monkeypatch.delenv("VLLM_CPU_KVCACHE_SPACE", raising=False)
    monkeypatch.setattr(vllm, "available_memory", lambda: 12 * gib)
    assert vllm.engine_args(spec, ModelOptions(), "auto", cpu=True)["kv_cache_memory_bytes"] == 3 * gib
    assert "kv_cache_memory_bytes" not in vllm.engine_args(spec, ModelOptions(), "auto", cpu=False)
    given = ModelOptions(gpu_memory_utilization=0.5)  # the user's own fraction: vLLM's rule, as asked
    assert "kv_cache_memory_bytes" not in vllm.engine_args(spec, given, "auto", cpu=True)
    monkeypatch.setenv("VLLM_CPU_KVCACHE_SPACE", "2")  # vLLM reads it itself
    assert "kv_cache_memory_bytes" not in vllm.engine_args(spec, ModelOptions(), "auto", cpu=True)


@pytest.mark.skipif(HAS_VLLM, reason="vLLM is installed here")
def test_without_vllm_the_error_names_the_install(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--codeeval-model=vllm:smollm2-135m", "--codeeval-limit=1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --codeeval-model=vllm:smollm2-135m: needs vLLM: pip install 'pytest-codeeval?vllm?' (without a GPU, vLLM's CPU build: see docs/generation.md)"])  # ? for fnmatch's brackets


# -- a real vLLM server for the openai: backend ----------------------------------------------------------------


@pytest.fixture(scope="module")
def server(model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[VllmServer]:
    """Started once (on first use) for the module; the last test kills its engine."""
    running = VllmServer(model_dir, tmp_path_factory.mktemp("vllm-serve"))
    yield running
    running.stop()


def through(server: VllmServer | str, model_dir: Path, reqs: list[GenerationRequest], *, urls: tuple[str, ...] = (),
            chat: bool = False, **settings: Any) -> tuple[dict[SampleKey, str], dict]:
    from pytest_codeeval.generation.engine import generate

    options = ServerOptions(base_urls=urls or (server if isinstance(server, str) else server.url,), chat=chat,
                            max_retries=1)
    done, stats = generate(f"openai:{model_dir}", reqs, GenerationSettings(**settings), ModelOptions(), None,
                           server=options)
    return {key: c.text for key, c in done.items()}, stats.to_dict()


@needs_vllm
def test_vllm_server_greedy_equals_in_process_and_n_samples_come_in_one_request(
    server: VllmServer, model_dir: Path, reference: dict
) -> None:
    greedy, _ = through(server, model_dir, requests(first_ids(16)), max_new_tokens=TOKENS)
    assert greedy == cut(reference)
    reqs = requests(first_ids(3), 4, stop=())  # whole texts: a stop word can leave several samples empty
    sampled, stats = through(server, model_dir, reqs, max_new_tokens=24, n_samples=4, temperature=0.8, seed=3)
    assert stats["requests"] == 3 and stats["extra_requests_for_n"] == 0 and stats["generated"] == 12
    assert all(len({sampled[SampleKey("humaneval", pid, i)] for i in range(4)}) > 1 for pid in first_ids(3))
    assert not stats["warnings"]
    again, _ = through(server, model_dir, reqs, max_new_tokens=24, n_samples=4, temperature=0.8, seed=3)
    assert again == sampled  # seeded, and the engine survives seeded requests in flight together


@needs_vllm
def test_vllm_server_chat_replies_continue_the_prompt(server: VllmServer, model_dir: Path) -> None:
    replies, stats = through(server, model_dir, requests(first_ids(2)), chat=True, max_new_tokens=96)
    assert stats["generated"] == 2 and stats["completion_tokens"] > 0
    # the backend keeps the raw reply (cached as it came); the code is taken out of it when programs are built
    from pytest_codeeval.generation.chat_reply import code_from_reply

    assert all("```" not in code_from_reply(text, "") for text in replies.values())


@needs_vllm
def test_a_dead_endpoint_beside_a_vllm_server_and_alone(server: VllmServer, model_dir: Path, reference: dict) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"
    reqs = requests(first_ids(4))
    found, stats = through(server, model_dir, reqs, urls=(dead, server.url), max_new_tokens=TOKENS)
    assert found == {r.key: cut(reference)[r.key] for r in reqs}
    assert stats["endpoints"][dead]["failures"] >= 1 and stats["endpoints"][dead]["requests"] < len(reqs) * 2
    with pytest.raises(CodeevalError, match=r"no answer from http://127\.0\.0\.1:\d+/v1: each failed 2 times in a row"):
        through(dead, model_dir, reqs, max_new_tokens=TOKENS)


@needs_vllm
def test_ctrl_c_against_a_vllm_server_keeps_each_chunk_and_the_same_command_resumes(
    tmp_path: Path, server: VllmServer, model_dir: Path
) -> None:
    """200 samples of 2 problems, asked for 4 at a time: SIGINT once 4 are cached ends the run in seconds (the
    requests in flight abandoned), every completion received is kept, and the same command asks only for the rest."""
    cache = tmp_path / "cache" / "completions.jsonl"
    command = [sys.executable, "-m", "pytest", "codeeval", f"--codeeval-model=openai:{model_dir}",
               "--codeeval-tasks=humaneval", "--codeeval-limit=2", "--codeeval-n-samples=200",
               "--codeeval-batch-size=4", "--codeeval-concurrency=2", "--codeeval-max-new-tokens=128",
               f"--codeeval-base-url={server.url}", f"--codeeval-cache-dir={cache.parent}", "-p", "no:cacheprovider"]
    status, seconds, out = interrupt_when(command, tmp_path, lambda _: len(cache_lines(cache)) >= 4)
    assert status == pytest.ExitCode.INTERRUPTED and seconds < 10, out[-3000:]
    kept = len(cache_lines(cache))
    assert 4 <= kept < 400
    assert f"codeeval: generation interrupted; {kept} of 400 completions are in the cache (0 from earlier runs" in out
    status, _, again = interrupt_when(command, tmp_path, lambda _: len(cache_lines(cache)) >= kept + 4)
    assert status == pytest.ExitCode.INTERRUPTED, again[-3000:]
    assert f"codeeval: {400 - kept} completions to generate with openai ({kept} of 400 from the cache)" in again


@needs_vllm
def test_a_server_whose_engine_dies_mid_run_is_one_line_and_keeps_what_was_done(
    pytester: pytest.Pytester, server: VllmServer, model_dir: Path
) -> None:
    """Last: it kills the server's engine (vLLM then shuts the server down)."""
    url, cache = server.url, pytester.path / "cache" / "completions.jsonl"
    command = [sys.executable, "-m", "pytest", f"--codeeval-model=openai:{model_dir}", "--codeeval-tasks=humaneval",
               "--codeeval-limit=16", "--codeeval-max-new-tokens=128", "--codeeval-concurrency=2",
               f"--codeeval-base-url={url}", f"--codeeval-cache-dir={cache.parent}", "-p", "no:cacheprovider"]
    with (pytester.path / "out").open("w") as out, (pytester.path / "err").open("w") as err:
        run = subprocess.Popen(command, cwd=pytester.path, stdout=out, stderr=err, env=os.environ)
    deadline = time.monotonic() + 300
    while not (cache.exists() and cache.read_text().count("\n") >= 1):
        assert run.poll() is None and time.monotonic() < deadline, (pytester.path / "err").read_text()[-3000:]
        time.sleep(0.1)
    engines = server.engine_pids()
    assert engines, server.log()[-2000:]
    for pid in engines:
        os.kill(pid, signal.SIGKILL)
    assert run.wait(timeout=300) == pytest.ExitCode.USAGE_ERROR, (pytester.path / "out").read_text()[-3000:]
    errors = (pytester.path / "err").read_text()
    lines = [line for line in errors.splitlines() if line.startswith("ERROR:")]
    assert len(lines) == 1 and lines[0].startswith(
        f"ERROR: --codeeval-base-url={url}: the server's inference engine died (HTTP 500: EngineCore encountered an issue"
    ), errors[-3000:]
    assert "Traceback" not in errors + (pytester.path / "out").read_text()
    kept = cache.read_text().count("\n")
    assert 1 <= kept < 16  # what finished before the engine died is cached
