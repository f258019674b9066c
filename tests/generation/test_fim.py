"""Fill-in-the-middle generation: each family's prompt (on tiny tokenizers carrying that family's real special
tokens), detection and its override, the cache key, and stopping at the family's end-of-middle token."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

pytest.importorskip("transformers")
pytestmark = pytest.mark.timeout(300)

from tiny_models import tiny_tokenizer  # noqa: E402

from pytest_codeeval.errors import CodeevalError  # noqa: E402
from pytest_codeeval.generation.base import GenerationRequest, GenerationSettings, ModelOptions  # noqa: E402
from pytest_codeeval.generation.cache import cache_key  # noqa: E402
from pytest_codeeval.generation.fim import detect_fim_format  # noqa: E402
from pytest_codeeval.generation.prompts import format_prompt  # noqa: E402
from pytest_codeeval.samples import SampleKey  # noqa: E402

PREFIX, SUFFIX = "def f(x):\n    ", "\n    return y\n"
# family: (the special tokens its tokenizer carries, its EOS, the text the model must see for PREFIX and SUFFIX)
FAMILIES = {
    "starcoder": (("<|endoftext|>", "<fim_prefix>", "<fim_middle>", "<fim_suffix>", "<fim_pad>", "<filename>", "<file_sep>"),
                  "<|endoftext|>", "<fim_prefix>def f(x):\n    <fim_suffix>\n    return y\n<fim_middle>"),
    "santacoder": (("<|endoftext|>", "<fim-prefix>", "<fim-middle>", "<fim-suffix>", "<fim-pad>"),
                   "<|endoftext|>", "<fim-prefix>def f(x):\n    <fim-suffix>\n    return y\n<fim-middle>"),
    "qwen2.5-coder": (("<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>",
                       "<|file_sep|>"), "<|endoftext|>", "<|fim_prefix|>def f(x):\n    <|fim_suffix|>\n    return y\n<|fim_middle|>"),
    "deepseek-coder": (("<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜fim▁hole｜>", "<｜fim▁begin｜>", "<｜fim▁end｜>", "<|EOT|>"),
                       "<｜end▁of▁sentence｜>", "<｜fim▁begin｜>def f(x):\n    <｜fim▁hole｜>\n    return y\n<｜fim▁end｜>"),
    "codellama": (("<s>", "</s>", "▁<PRE>", "▁<MID>", "▁<SUF>", "▁<EOT>"), "</s>", "▁<PRE> def f(x):\n    ▁<SUF>\n    return y\n▁<MID>"),
    "codestral": (("<s>", "</s>", "[INST]", "[/INST]", "[PREFIX]", "[MIDDLE]", "[SUFFIX]"), "</s>",
                  "[SUFFIX]\n    return y\n[PREFIX]def f(x):\n    "),
}
MARKERS = {"starcoder": ["<fim_prefix>", "<fim_suffix>", "<fim_middle>"], "santacoder": ["<fim-prefix>", "<fim-suffix>", "<fim-middle>"],
           "qwen2.5-coder": ["<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"],
           "deepseek-coder": ["<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>"], "codellama": ["▁<PRE>", "▁<SUF>", "▁<MID>"],
           "codestral": ["[SUFFIX]", "[PREFIX]"]}


def family_tokenizer(family: str):
    special, eos, _ = FAMILIES[family]
    return tiny_tokenizer((*special, "<pad>"), eos=eos, pad="<pad>")


@pytest.mark.parametrize("family", list(FAMILIES))
def test_each_family_gets_its_own_prompt(family: str) -> None:
    tokenizer = family_tokenizer(family)
    assert detect_fim_format(tokenizer) == family
    text = format_prompt(PREFIX, GenerationSettings(), tokenizer, suffix=SUFFIX)
    assert text == FAMILIES[family][2]
    ids = tokenizer(text)["input_ids"]
    marker_ids = [tokenizer.convert_tokens_to_ids(m) for m in MARKERS[family]]
    positions = [ids.index(i) for i in marker_ids]  # each marker is one token, in the family's order
    assert positions == sorted(positions)
    assert tokenizer.decode(ids, skip_special_tokens=True) == (SUFFIX + PREFIX if family == "codestral" else
                                                               (" " if family == "codellama" else "") + PREFIX + SUFFIX)


def test_the_format_can_be_named_and_must_fit_the_tokenizer() -> None:
    both = tiny_tokenizer(("<|endoftext|>", "<fim_prefix>", "<fim_middle>", "<fim_suffix>", "<fim-prefix>", "<fim-middle>",
                           "<fim-suffix>", "<pad>"), eos="<|endoftext|>", pad="<pad>")
    assert format_prompt("a", GenerationSettings(), both, suffix="b") == "<fim_prefix>a<fim_suffix>b<fim_middle>"
    assert format_prompt("a", GenerationSettings(fim_format="santacoder"), both, suffix="b") == "<fim-prefix>a<fim-suffix>b<fim-middle>"
    with pytest.raises(CodeevalError, match="'codellama': the model's tokenizer has no ▁<PRE>, ▁<SUF>, ▁<MID> token"):
        format_prompt("a", GenerationSettings(fim_format="codellama"), both, suffix="b")
    with pytest.raises(CodeevalError, match="format 'starcoder2' is unknown; use one of starcoder, santacoder"):
        format_prompt("a", GenerationSettings(fim_format="starcoder2"), both, suffix="b")
    with pytest.raises(CodeevalError, match="no fill-in-the-middle tokens of a known family"):
        format_prompt("a", GenerationSettings(), tiny_tokenizer(), suffix="b")
    assert format_prompt("a", GenerationSettings(), tiny_tokenizer()) == "a"  # no suffix: a plain completion


def test_the_suffix_and_the_format_are_part_of_the_cache_key() -> None:
    key, settings = SampleKey("t", "p", 0), GenerationSettings()
    plain = cache_key({"model": "m"}, GenerationRequest(key, PREFIX), settings)
    filled = cache_key({"model": "m"}, GenerationRequest(key, PREFIX, suffix=SUFFIX), settings)
    other = cache_key({"model": "m"}, GenerationRequest(key, PREFIX, suffix=SUFFIX + "#"), settings)
    named = cache_key({"model": "m"}, GenerationRequest(key, PREFIX, suffix=SUFFIX), dataclasses.replace(settings, fim_format="starcoder"))
    assert len({plain, filled, other, named}) == 4
    # a run that uses no FIM keeps the keys it had before FIM existed (computed with the code of commit 7e73324)
    assert plain == "54f97b3b8c2059d1dde1a7140018408c0170bdf24432dce4a65ae9bd8d37f65b"


def _always_first_token_model(directory: Path, family: str) -> Path:
    """A tiny llama whose output layer is zero: every step's argmax is token 0, the family's first special token.
    For CodeLlama's table below that is ▁<EOT>, its end-of-middle token, and not the model's EOS."""
    import torch
    from transformers import AutoModelForCausalLM, LlamaConfig

    special, eos, _ = FAMILIES[family]
    tokenizer = tiny_tokenizer((special[-1], *special[:-1], "<pad>"), eos=eos, pad="<pad>")
    assert tokenizer.convert_ids_to_tokens(0) == special[-1]
    config = LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=512, vocab_size=len(tokenizer), eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id, tie_word_embeddings=False)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config)
    with torch.no_grad():
        model.lm_head.weight.zero_()
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def test_generation_stops_at_the_end_of_middle_token(tmp_path: Path) -> None:
    from pytest_codeeval.generation.engine import generate

    model = _always_first_token_model(tmp_path / "m", "codellama")
    settings = GenerationSettings(max_new_tokens=6)
    requests = [GenerationRequest(SampleKey("t", "fim", 0), PREFIX, suffix=SUFFIX), GenerationRequest(SampleKey("t", "plain", 0), PREFIX)]
    done, _ = generate(str(model), requests, settings, ModelOptions(), None)
    assert done[requests[0].key].tokens == 1 and done[requests[0].key].text == ""  # ▁<EOT> ends the middle
    assert done[requests[1].key].tokens == 6  # the same token is no stop for a plain completion
