"""Where solutions come from: the reference pseudo-model, a generations file, or a model (generated once)."""

from __future__ import annotations

from pathlib import Path

from pytest_codeeval.settings import Settings
from pytest_codeeval.solutions.base import SolutionSource
from pytest_codeeval.solutions.file import FileSource
from pytest_codeeval.solutions.model import ModelSource
from pytest_codeeval.solutions.reference import ReferenceSource

__all__ = ["FileSource", "ModelSource", "ReferenceSource", "SolutionSource", "make_source"]


def make_source(settings: Settings, cache_dir: Path | None) -> SolutionSource:
    if settings.load_generations:
        return FileSource(settings.load_generations, settings.tasks, settings.file_programs)
    if settings.model == "reference":
        return ReferenceSource()
    return ModelSource(settings, cache_dir)
