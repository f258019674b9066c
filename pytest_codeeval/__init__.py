"""pytest-codeeval: code-generation benchmarks as pytest tests."""

from __future__ import annotations

__version__ = "0.1.0"
