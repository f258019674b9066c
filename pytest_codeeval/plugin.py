"""pytest entry point: options, and the role this process plays (`pytest_plugin/roles.py`), which does the work."""

from __future__ import annotations

import pytest

from pytest_codeeval.options import add_options
from pytest_codeeval.pytest_plugin import usage
from pytest_codeeval.settings import DECLARED, read_settings

SESSION_PLUGIN = "codeeval-session"


def pytest_addoption(parser: pytest.Parser) -> None:
    """Every option and ini value, from their declarations (settings.DECLARED)."""
    add_options(parser.getgroup("codeeval", "code-generation benchmarks (pytest-codeeval)"), parser, *DECLARED)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_codeeval import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@usage.hook
def pytest_cmdline_main(config: pytest.Config) -> int | None:
    if config.getoption("codeeval_list_tasks"):
        from pytest_codeeval.pytest_plugin.listing import list_tasks

        return list_tasks(config, read_settings(config))
    if config.getoption("codeeval_export_dataset"):  # before any session: xdist starts no workers
        from pytest_codeeval.pytest_plugin.export import export_datasets

        return export_datasets(config, read_settings(config))
    return None


@pytest.hookimpl(trylast=True)  # after xdist's own configure: the role depends on whether it runs workers
@usage.hook
def pytest_configure(config: pytest.Config) -> None:
    settings = read_settings(config)
    n, temperature = settings.generation.n_samples, settings.generation.temperature
    if n > 1 and temperature == 0:
        config.issue_config_time_warning(pytest.PytestConfigWarning(
            f"--codeeval-temperature=0 with --codeeval-n-samples={n}: temperature 0 is greedy, so every sample "
            "of a problem is the same and pass@k above 1 measures nothing; give a temperature such as 0.8"
        ), stacklevel=2)
    if not settings.active:
        return
    from pytest_codeeval.pytest_plugin.roles import make_role

    config.pluginmanager.register(make_role(config, settings), SESSION_PLUGIN)
