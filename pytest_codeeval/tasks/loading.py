"""Dataset loading: the hub through `datasets` when it answers, without waiting on a network that is not there."""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from pytest_codeeval.errors import CodeevalError, DataUnavailable

HUB_HOST = "huggingface.co"


@lru_cache(maxsize=1)
def hub_reachable(timeout: float = 1.0) -> bool:
    """True when the hub can be used: not forced offline, and its host resolves and accepts a connection."""
    if any(os.environ.get(name, "0") not in ("", "0") for name in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")):
        return False
    try:
        with socket.create_connection((HUB_HOST, 443), timeout=timeout):
            return True
    except OSError:
        return False


def load_hf_dataset(
    path: str, name: str | None, split: str, task: str = "TASK", **kwargs: Any
) -> Sequence[Mapping[str, Any]]:
    """Load one split with `datasets` (hub id, local directory, or a builder such as `json` with data_files);
    `task` is named in the error's fix."""
    try:
        import datasets
    except ImportError as exc:
        raise DataUnavailable(
            task, f"loading the hub dataset {path} needs the 'datasets' package",
            "pip install 'pytest-codeeval[datasets]', or give the rows with --codeeval-dataset={task}=PATH",
        ) from exc
    offline = not hub_reachable()
    if offline:  # a cached copy still loads; anything else fails at once instead of retrying for minutes
        datasets.config.HF_HUB_OFFLINE = True
    try:
        return datasets.load_dataset(path, name, split=split, **kwargs)
    except Exception as exc:  # datasets raises many types; the user needs the input and the cause
        if "data_files" in kwargs:  # the user's own files: bad input, whatever the network
            raise CodeevalError(f"could not load dataset {path!r} (name={name!r}, split={split!r}): {exc}") from exc
        where = f"{path}:{name}" if name else path
        why = (f"the hub is unreachable and {where} is not in the local datasets cache" if offline
               else f"{where} could not be loaded from the hub ({_first_line(exc)})")
        fix = "give the split's rows in the hub's schema with --codeeval-dataset={task}=PATH"
        general = "the hub is unreachable and the dataset is not in the local datasets cache" if offline else None
        raise DataUnavailable(task, why, fix, general) from exc


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__


def in_datasets_cache(path: str) -> bool:
    """Whether a hub dataset was downloaded here before (the hub's file cache or `datasets`' own), so that it
    loads without the network; looked up by directory name, nothing is read."""
    home = Path(os.environ.get("HF_HOME") or Path.home() / ".cache" / "huggingface")
    hub = Path(os.environ.get("HF_HUB_CACHE") or home / "hub")
    built = Path(os.environ.get("HF_DATASETS_CACHE") or home / "datasets")
    return (hub / f"datasets--{path.replace('/', '--')}").is_dir() or (built / path.replace("/", "___")).is_dir()
