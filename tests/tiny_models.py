"""Tiny randomly initialised models from real architecture configs, saved as local model directories."""

from __future__ import annotations

from pathlib import Path

from helpers import problems

ARCHITECTURES = ("llama", "gpt2", "starcoder2")  # causal; "t5" (encoder-decoder) is built on request


def tiny_tokenizer(special: tuple[str, ...] = ("<eos>", "<pad>"), eos: str = "<eos>", pad: str = "<pad>"):
    """A byte-level BPE trained on HumanEval prompts: any text round-trips, and it builds in a second. `special`:
    the special tokens (ids from 0 in this order), e.g. a model family's real fill-in-the-middle tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=list(special),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator([p["prompt"] + p["canonical_solution"] for p in problems().values()], trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=eos, pad_token=pad,
                                   additional_special_tokens=[t for t in special if t not in (eos, pad)])


def build(arch: str, directory: Path) -> Path:
    import torch
    from transformers import (
        AutoModelForCausalLM,
        AutoModelForSeq2SeqLM,
        GPT2Config,
        LlamaConfig,
        Starcoder2Config,
        T5Config,
    )

    tokenizer = tiny_tokenizer()
    ids = {"vocab_size": len(tokenizer), "eos_token_id": tokenizer.eos_token_id, "pad_token_id": tokenizer.pad_token_id}
    config = {
        "llama": lambda: LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                                     num_key_value_heads=2, max_position_embeddings=1024, **ids),
        "gpt2": lambda: GPT2Config(n_embd=32, n_layer=2, n_head=4, n_positions=1024, bos_token_id=ids["eos_token_id"], **ids),
        "starcoder2": lambda: Starcoder2Config(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                                               num_key_value_heads=2, max_position_embeddings=1024, **ids),
        "t5": lambda: T5Config(d_model=32, d_ff=64, d_kv=8, num_layers=2, num_heads=4, decoder_start_token_id=ids["pad_token_id"], **ids),
    }[arch]()
    torch.manual_seed(0)
    model = (AutoModelForSeq2SeqLM if arch == "t5" else AutoModelForCausalLM).from_config(config)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def run_out_of_memory_above(model, rows: int, after_steps: int = 0) -> list[int]:
    """Make `model` raise CUDA's out-of-memory error, as a GPU would, when a forward pass has more than `rows` rows
    (from its `after_steps`-th decoding step on, so that some rows of a batch may finish first). Returns the
    row counts of the prefill passes that ran, in order (the batch sizes used)."""
    import torch

    forward, prefills, step = model.forward, [], [0]

    def limited(*args, **kwargs):
        ids = kwargs["input_ids"]
        step[0] = 0 if ids.shape[1] > 1 else step[0] + 1  # a prompt starts a batch; then one token per step
        if ids.shape[0] > rows and step[0] >= after_steps:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 MiB (injected)")
        if step[0] == 0:
            prefills.append(ids.shape[0])
        return forward(*args, **kwargs)

    model.forward = limited
    return prefills
