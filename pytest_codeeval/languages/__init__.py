"""Languages, Python's included: each one a module here holding its translator and its runner (see base.py).

Adding a language is adding its module and a line to `runners.MODULES`, the table that names every runner;
docs/languages.md walks through one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_codeeval.runners import MODULES, canonical_name, load

if TYPE_CHECKING:
    from pytest_codeeval.languages.base import Language

__all__ = ["get_language"]


def get_language(name: str) -> Language:
    """The language called `name` (MultiPL-E's short name or an alias); KeyError if there is none."""
    canonical = canonical_name(name)
    if canonical is None:
        raise KeyError(name)
    language: Language = load(f"{__name__}.{MODULES[canonical]}")
    return language
