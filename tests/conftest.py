"""The plugin's own tests drive pytest through `pytester`.

In-process pytester runs restore `sys.modules` afterwards; extension modules (numpy) cannot be imported twice
in one process, so everything the plugin imports lazily is imported once, before the first test here runs. That
happens in a fixture, not at import: pytest loads this file for any run started in the checkout (`pytest
codeeval`, `make demo` look into `test*` directories for conftest files), and those runs must not pay for torch.
(Whether importing the plugin alone stays free of heavy modules is checked in a fresh interpreter:
tests/pytest_plugin/test_layout.py.)"""

import contextlib
import importlib

import pytest

# data/ holds benchmark files, some of them Python named like tests (DS-1000's test_code.py): data, not tests
collect_ignore_glob = ["data/*"]

pytest_plugins = ["pytester"]

# What an in-process run imports lazily: the reports (markupsafe's C speedups), the plugin's roles and sandbox,
# and the model backends where installed: an in-process run that generates imports torch, transformers' models
# (whose torch operators register once per process) and, through transformers' generation, scikit-learn and scipy.
# `datasets` registers pyarrow extension types, once per process, too.
PRE_IMPORTED = (
    "jinja2", "numpy", "pytest_codeeval.pytest_plugin.roles", "pytest_codeeval.sandbox",
    "datasets", "torch", "sklearn.metrics", "transformers.modeling_utils", "transformers.generation.utils",
    *(f"transformers.models.{m}.modeling_{m}" for m in ("llama", "gpt2", "t5", "starcoder2")),
)


@pytest.fixture(scope="session", autouse=True)
def _imported_once() -> None:
    """Autouse in this directory only: the items of a `pytest codeeval` run never request it."""
    for name in PRE_IMPORTED:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
