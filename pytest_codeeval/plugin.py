"""pytest entry point: options, and the role this process plays (`pytest_plugin/roles.py`), which does the work."""

from __future__ import annotations

import pytest

from pytest_codeeval.generation.files import SAVE_FORMATS
from pytest_codeeval.pytest_plugin import usage
from pytest_codeeval.sandbox.api import SANDBOX_LEVELS
from pytest_codeeval.settings import DEFAULT_K, read_settings

SESSION_PLUGIN = "codeeval-session"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("codeeval", "code-generation benchmarks (pytest-codeeval)")
    add = group.addoption

    # Where completions come from, and which benchmarks.
    add("--codeeval-model", metavar="NAME",
        help="model: 'reference', 'smollm2-135m', a hub id, a local dir, a .gguf file, vllm:MODEL (any of these "
             "in vLLM, in process), or openai:MODEL served at --codeeval-base-url")
    add("--codeeval-load-generations", metavar="PATH",
        help="evaluate completions from a file: human-eval or evalplus JSONL, evalplus's folder (TASK_ID/N.py), "
             "bigcode JSON, or MultiPL-E's completion or result files (a file, or a directory of them)")
    add("--codeeval-save-generations", metavar="PATH",
        help="write the evaluated completions (.jsonl: human-eval format, .json: bigcode format, DIR/: MultiPL-E's "
             "files; --codeeval-save-format chooses another, evalplus with DIR/: evalplus's folder)")
    add("--codeeval-file-programs", default="file", choices=("file", "rows"),
        help="what a MultiPL-E file's samples run: the file's own prompt, completion and tests, as MultiPL-E's "
             "evaluator runs them (default), or the completion between the task's rows' prompt and tests")
    add("--codeeval-save-format", default="auto", choices=SAVE_FORMATS,
        help="format of --codeeval-save-generations (default: auto, by the path)")
    add("--codeeval-tasks", action="append", metavar="NAMES",
        help="tasks to run: names or globs, comma-separated (default: humaneval and the project's own tasks)")
    add("--codeeval-task-path", action="append", metavar="DIR",
        help="directory of YAML tasks and task directories to load")
    add("--codeeval-dataset", action="append", metavar="TASK=PATH",
        help="read TASK's dataset from a local file (.jsonl/.json/.csv/.parquet or a save_to_disk directory) in "
             "the hub schema (repeatable)")
    add("--codeeval-mbppplus-mbpp-tests", action="store_true", default=None,
        help="mbppplus: run MBPP's original tests instead of MBPP+'s (bigcode's MBPPPLUS_USE_MBPP_TESTS=1)")
    add("--codeeval-list-tasks", action="store_true", default=False, help="list every known task and exit")
    add("--codeeval-export-dataset", action="append", metavar="TASK=PATH",
        help="write the rows TASK would run (after --codeeval-limit) to PATH as JSONL in its hub schema, and exit "
             "without running anything; --codeeval-dataset=TASK=PATH reads them back (repeatable)")
    add("--codeeval-prompt", metavar="FORMAT",
        help="prompt format of the tasks that take one, as BCEH's --prompt (HumanEvalPack: instruct, octocoder, ...)")
    add("--codeeval-load-data-path", metavar="PATH",
        help="descriptions for humanevalexplainsynthesize-*, as BCEH's --load_data_path")
    add("--codeeval-limit", type=int, metavar="N", help="keep only the first N problems of each task")

    # Execution.
    add("--codeeval-timeout", type=float, metavar="SECONDS",
        help="CPU-time limit per sample, whole seconds (default: per task)")
    add("--codeeval-timeout-clock", default="cpu", choices=("cpu", "wall"),
        help="what --codeeval-timeout counts: CPU time (default: the same verdict on a loaded machine) or wall-clock "
             "time as well (human-eval's evaluator: a sleeping sample times out)")
    add("--codeeval-jobs", default="auto", metavar="N",
        help="samples executing at once in each pytest process (default: auto, the CPUs, shared among xdist workers)")
    add("--codeeval-no-dedupe", action="store_true", default=False,
        help="run every sample's program, even one identical to another sample's (default: identical programs "
             "of one task run once per process and share the verdict)")
    add("--codeeval-sandbox", default="strict", choices=SANDBOX_LEVELS,
        help="isolation level for generated code (default: strict)")

    # Metrics, reports and gates.
    add("--codeeval-k", default=",".join(map(str, DEFAULT_K)), metavar="K,...",
        help="k values for pass@k (default: 1,10,100)")
    add("--codeeval-strict", action="store_true", default=False,
        help="make any failing sample fail the run (for reference checks)")
    add("--codeeval-require-complete", action="store_true", default=False,
        help="fail the run when a generations file has samples for only part of a task's problems")
    add("--codeeval-report", metavar="PATH", help="write the JSON report")
    add("--codeeval-markdown", metavar="PATH",
        help="write a Markdown summary (pull-request comment, $GITHUB_STEP_SUMMARY)")
    add("--codeeval-html", metavar="PATH", help="write a self-contained HTML report")
    add("--codeeval-fail-under", action="append", metavar="SPEC",
        help="fail when a metric is below: pass@1=0.3 or task:pass@1=0.3 (repeatable)")
    add("--codeeval-baseline", metavar="PATH", help="JSON report of an earlier run to compare against")
    add("--codeeval-max-regression", action="append", metavar="SPEC",
        help="tolerated drop against the baseline: pass@1=0.02 (repeatable)")
    add("--codeeval-alpha", type=float, default=0.05, metavar="A",
        help="significance level of the regression test (default: 0.05)")

    # Generation.
    add("--codeeval-n-samples", type=int, default=1, metavar="N", help="completions per problem (default: 1)")
    add("--codeeval-max-new-tokens", type=int, default=512, metavar="N",
        help="generated tokens per completion (default: 512)")
    add("--codeeval-batch-size", type=int, metavar="N", help="sequences per forward pass (default: automatic)")
    add("--codeeval-temperature", type=float, metavar="T",
        help="sampling temperature (default: 0.2); given, it is used even for one sample (0: greedy)")
    add("--codeeval-top-p", type=float, default=0.95, metavar="P", help="nucleus sampling (default: 0.95)")
    add("--codeeval-top-k", type=int, default=0, metavar="K", help="top-k sampling, 0 = off (default: 0)")
    add("--codeeval-do-sample", action="store_true", default=None,
        help="sample even when n-samples is 1 (default: greedy for n=1 unless --codeeval-temperature is given)")
    add("--codeeval-seed", type=int, default=0, metavar="N", help="random seed (default: 0)")
    add("--codeeval-precision", default="auto", choices=("auto", "fp32", "fp16", "bf16"),
        help="model weights precision")
    add("--codeeval-device-map", metavar="MAP",
        help="model parallel: accelerate device map, e.g. auto for models larger than one GPU")
    add("--codeeval-devices", metavar="LIST",
        help="data parallel: one model replica per device, each in its own process: auto (every visible GPU) or "
             "cuda:0,cuda:1")
    add("--codeeval-load-in-8bit", action="store_true", default=False, help="8-bit weights (needs bitsandbytes)")
    add("--codeeval-load-in-4bit", action="store_true", default=False, help="4-bit weights (needs bitsandbytes)")
    add("--codeeval-peft", metavar="PATH", help="PEFT adapter to apply to the model")
    add("--codeeval-revision", metavar="REV", help="model revision on the hub")
    add("--codeeval-trust-remote-code", action="store_true", default=False, help="allow models with custom code")
    add("--codeeval-chat-template", action="store_true", default=False,
        help="wrap prompts in the tokenizer's chat template")
    add("--codeeval-instruction-tokens", metavar="USER,END,ASSISTANT", help="bigcode-style instruction tokens")
    add("--codeeval-prefix", default="", metavar="TEXT", help="text put before every prompt")
    add("--codeeval-fim-format", metavar="FAMILY", help="fill-in-the-middle tokens for infilling tasks (default: the "
        "tokenizer's): starcoder, santacoder, qwen2.5-coder, deepseek-coder, codellama, codestral")

    # vLLM in process (--codeeval-model=vllm:MODEL); --codeeval-precision, --codeeval-peft (a LoRA adapter),
    # --codeeval-revision and --codeeval-trust-remote-code apply too.
    add("--codeeval-tensor-parallel-size", type=int, metavar="N",
        help="vllm: GPUs each layer is split over (default: 1)")
    add("--codeeval-pipeline-parallel-size", type=int, metavar="N",
        help="vllm: stages the layers are split into, one per GPU or node (default: 1)")
    add("--codeeval-distributed-executor", choices=("ray", "mp"),
        help="vllm: what runs the GPUs' workers: ray (several nodes, a Ray cluster) or mp (one machine) "
        "(default: vLLM's choice)")
    add("--codeeval-gpu-memory-utilization", type=float, metavar="F",
        help="vllm: fraction of each GPU's memory the engine may take (default: vLLM's, 0.9)")
    add("--codeeval-max-model-len", type=int, metavar="N",
        help="vllm: context length in tokens, prompt and completion (default: the model's)")
    add("--codeeval-quantization", metavar="METHOD",
        help="vllm: quantization method, e.g. awq, gptq, fp8 (default: what the checkpoint says)")
    add("--codeeval-enforce-eager", action="store_true", default=False,
        help="vllm: no CUDA graphs or compilation: a faster start, slower generation")
    add("--codeeval-download-dir", metavar="DIR", help="vllm: where hub weights go (default: the hub cache)")

    # OpenAI-compatible servers (--codeeval-model=openai:MODEL).
    add("--codeeval-base-url", action="append", metavar="URL",
        help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (repeatable: endpoints share the requests)")
    add("--codeeval-api-key-env", metavar="NAME",
        help="environment variable holding the API key (default: OPENAI_API_KEY)")
    add("--codeeval-chat", action="store_true", default=False,
        help="use the chat endpoint (instruct models) instead of completions")
    add("--codeeval-concurrency", type=int, metavar="N", help="requests in flight at once (default: 8 per endpoint)")
    add("--codeeval-request-timeout", type=float, default=600.0, metavar="SECONDS",
        help="per-request timeout (default: 600)")
    add("--codeeval-max-retries", type=int, default=6, metavar="N",
        help="retries of a request answered 429 or 5xx, failures in a row of an endpoint (default: 6)")

    add("--codeeval-cache-dir", metavar="DIR", help="generation cache (default: in pytest's cache directory)")
    add("--codeeval-regenerate", action="store_true", default=False, help="ignore cached completions")

    parser.addini("codeeval_fail_under", type="linelist", default=[],
        help="metric thresholds, as --codeeval-fail-under")
    parser.addini("codeeval_datasets", type="linelist", default=[], help="TASK=PATH lines, as --codeeval-dataset")
    parser.addini("codeeval_mbppplus_mbpp_tests", type="bool", default=False, help="as --codeeval-mbppplus-mbpp-tests")
    parser.addini("codeeval_task_path", type="linelist", default=[], help="task directories, as --codeeval-task-path")


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_codeeval import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@usage.hook
def pytest_cmdline_main(config: pytest.Config) -> int | None:
    if config.getoption("codeeval_list_tasks"):
        from pytest_codeeval.pytest_plugin.listing import list_tasks

        return list_tasks(config, read_settings(config))
    if config.getoption("codeeval_export_dataset"):  # before any session: xdist starts no workers
        from pytest_codeeval.pytest_plugin.export import export_datasets

        return export_datasets(config, read_settings(config))
    return None


@pytest.hookimpl(trylast=True)  # after xdist's own configure: the role depends on whether it runs workers
@usage.hook
def pytest_configure(config: pytest.Config) -> None:
    settings = read_settings(config)
    n, temperature = settings.generation.n_samples, settings.generation.temperature
    if n > 1 and temperature == 0:
        config.issue_config_time_warning(pytest.PytestConfigWarning(
            f"--codeeval-temperature=0 with --codeeval-n-samples={n}: temperature 0 is greedy, so every sample "
            "of a problem is the same and pass@k above 1 measures nothing; give a temperature such as 0.8"
        ), stacklevel=2)
    if not settings.active:
        return
    from pytest_codeeval.pytest_plugin.roles import make_role

    config.pluginmanager.register(make_role(config, settings), SESSION_PLUGIN)
