"""santacoder_fim and starcoder_fim: listed, reference self-check and a generations file (-n 2 too) on real rows,
the FIM prompt the model sees and the post-processing as bigcode-evaluation-harness makes them, and the task's FIM
tokens reaching a real (tiny) model through the plugin, overridable with --codeeval-fim-format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import report

from pytest_codeeval.generation.base import GenerationSettings
from pytest_codeeval.tasks import builtin_registry

pytestmark = pytest.mark.timeout(300)

ROWS = Path(__file__).parents[2] / "data" / "santacoder_fim" / "train.jsonl"
DATASETS = [f"--codeeval-dataset={name}={ROWS}" for name in ("santacoder_fim", "starcoder_fim")]
BOTH_FAMILIES = ("<|endoftext|>", "<fim_prefix>", "<fim_middle>", "<fim_suffix>", "<fim-prefix>", "<fim-middle>", "<fim-suffix>",
                 "<file_sep>", "<pad>")


def docs() -> list[dict]:
    return [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines()]


def test_listed_and_reference_self_check(pytester: pytest.Pytester) -> None:
    listed = pytester.runpytest("--codeeval-list-tasks", "-v").stdout.str()
    assert "santacoder_fim" in listed and "starcoder_fim" in listed and "bigcode/santacoder-fim-task" in listed
    result = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=*_fim", *DATASETS, "--codeeval-report=r.json",
                                "--codeeval-strict")
    result.assert_outcomes(passed=6)
    metrics = report(pytester.path / "r.json")["tasks"]["starcoder_fim"]["metrics"]
    assert metrics == {"exact_match": 1.0, "exact_match[py]": 1.0}


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_generations_file_scores_exact_match_per_language(pytester: pytest.Pytester, workers: list[str]) -> None:
    rows = docs()
    middles = [rows[0]["canonical_solution"], "  " + rows[1]["canonical_solution"].strip() + "  \n", "pass\n"]
    (pytester.path / "g.jsonl").write_text("".join(
        json.dumps({"task": "santacoder_fim", "task_id": str(i), "completion": m}) + "\n" for i, m in enumerate(middles)))
    result = pytester.runpytest_subprocess("--codeeval-load-generations=g.jsonl", *DATASETS, "--codeeval-report=r.json", *workers)
    result.assert_outcomes(passed=2, failed=1)
    metrics = report(pytester.path / "r.json")["tasks"]["santacoder_fim"]["metrics"]
    assert metrics == {"exact_match": pytest.approx(2 / 3), "exact_match[py]": pytest.approx(2 / 3)}


@pytest.mark.parametrize("task", ["santacoder_fim", "starcoder_fim"])
def test_fim_prompt_and_postprocessing_are_bigcodes(task: str) -> None:
    pytest.importorskip("transformers")
    from tiny_models import tiny_tokenizer

    from pytest_codeeval.generation.prompts import format_prompt

    tokenizer = tiny_tokenizer(BOTH_FAMILIES, eos="<|endoftext|>", pad="<pad>")
    registry = builtin_registry()
    registry.use_datasets([(task, ROWS)])
    instance = registry.get(task)
    settings = instance.generation_settings(GenerationSettings())
    for index, expected in enumerate(BCEH[task]):
        doc = instance.docs[index]
        assert format_prompt(instance.get_prompt(doc), settings, tokenizer, suffix=instance.get_suffix(doc)) == expected["prompt"]
        # the harness's exact match strips both texts; the solution here is kept stripped
        assert instance.postprocess_generation(instance.get_prompt(doc) + expected["middle"], index) == expected["post"].strip()


def test_a_tiny_model_gets_the_tasks_fim_tokens_and_the_option_overrides_them(pytester: pytest.Pytester) -> None:
    pytest.importorskip("transformers")
    import torch
    from tiny_models import tiny_tokenizer
    from transformers import AutoModelForCausalLM, LlamaConfig

    tokenizer = tiny_tokenizer(("<|endoftext|>", "<fim_prefix>", "<fim_middle>", "<fim_suffix>", "<pad>"), eos="<|endoftext|>", pad="<pad>")
    config = LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=1024, vocab_size=len(tokenizer), eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id)
    torch.manual_seed(0)
    AutoModelForCausalLM.from_config(config).save_pretrained(pytester.path / "m")
    tokenizer.save_pretrained(pytester.path / "m")
    args = ["--codeeval-model=m", "--codeeval-max-new-tokens=4", "--codeeval-report=r.json", "-p", "no:cacheprovider"]
    santa = pytester.runpytest("--codeeval-tasks=santacoder_fim", DATASETS[0], *args)
    assert santa.ret != 0
    assert "fill-in-the-middle format 'santacoder': the model's tokenizer has no <fim-prefix>" in santa.stdout.str() + santa.stderr.str()
    star = pytester.runpytest("--codeeval-tasks=starcoder_fim", DATASETS[1], *args)
    star.assert_outcomes(failed=3)  # a random model's four tokens are no right answer, but the run is whole
    overridden = pytester.runpytest("--codeeval-tasks=santacoder_fim", DATASETS[0], "--codeeval-fim-format=starcoder", *args)
    overridden.assert_outcomes(failed=3)
    samples = report(pytester.path / "r.json")["tasks"]["santacoder_fim"]["problems"]
    assert all(p["samples"][0]["solution"] != "" for p in samples.values())


# What bigcode-evaluation-harness (8fc5bae) gives for the first two rows: its SantaCoderFIM / StarCoderFIM classes
# run on them (get_prompt, and postprocess_generation of prompt + MIDDLE), written down here.
BCEH = {
    'santacoder_fim': [
        {
            'prompt': '<fim-prefix>from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n    """ Check if in given list of numbers, are any two numbers closer to each other than\n    given threshold.\n    >>> has_close_elements([1.0, 2.0, 3.0], 0.5)\n    False\n    >>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\n    True\n    """\n\n<fim-suffix>        for idx2, elem2 in enumerate(numbers):\n            if idx != idx2:\n                distance = abs(elem - elem2)\n                if distance < threshold:\n                    return True\n\n    return False\n<fim-middle>',
            'middle': '    for idx, elem in enumerate(numbers):\n<|endoftext|>def g():',
            'post': '    for idx, elem in enumerate(numbers):\n',
        },
        {
            'prompt': '<fim-prefix>from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n    """ Check if in given list of numbers, are any two numbers closer to each other than\n    given threshold.\n    >>> has_close_elements([1.0, 2.0, 3.0], 0.5)\n    False\n    >>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\n    True\n    """\n    for idx, elem in enumerate(numbers):\n<fim-suffix>            if idx != idx2:\n                distance = abs(elem - elem2)\n                if distance < threshold:\n                    return True\n\n    return False\n<fim-middle>',
            'middle': 'for x in y:<file_sep>z',
            'post': 'for x in y:<file_sep>z',
        },
    ],
    'starcoder_fim': [
        {
            'prompt': '<fim_prefix>from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n    """ Check if in given list of numbers, are any two numbers closer to each other than\n    given threshold.\n    >>> has_close_elements([1.0, 2.0, 3.0], 0.5)\n    False\n    >>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\n    True\n    """\n\n<fim_suffix>        for idx2, elem2 in enumerate(numbers):\n            if idx != idx2:\n                distance = abs(elem - elem2)\n                if distance < threshold:\n                    return True\n\n    return False\n<fim_middle>',
            'middle': '    for idx, elem in enumerate(numbers):\n<|endoftext|>def g():',
            'post': '    for idx, elem in enumerate(numbers):\n',
        },
        {
            'prompt': '<fim_prefix>from typing import List\n\n\ndef has_close_elements(numbers: List[float], threshold: float) -> bool:\n    """ Check if in given list of numbers, are any two numbers closer to each other than\n    given threshold.\n    >>> has_close_elements([1.0, 2.0, 3.0], 0.5)\n    False\n    >>> has_close_elements([1.0, 2.8, 3.0, 4.0, 5.0, 2.0], 0.3)\n    True\n    """\n    for idx, elem in enumerate(numbers):\n<fim_suffix>            if idx != idx2:\n                distance = abs(elem - elem2)\n                if distance < threshold:\n                    return True\n\n    return False\n<fim_middle>',
            'middle': 'for x in y:<file_sep>z',
            'post': 'for x in y:',
        },
    ],
}
