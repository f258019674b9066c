"""`pytest --codeeval-list-tasks`: the known tasks, no dataset loaded. One row per task that fits the terminal:
its language, whether its data is here, whether it has reference solutions, its size and description; `-k` and
`--codeeval-tasks` filter the rows, and `-v` adds the metrics, the hub dataset and where the task is defined."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import pytest

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.pytest_plugin.compat import Expression, run_session
from pytest_codeeval.pytest_plugin.registry import build_registry
from pytest_codeeval.settings import Settings
from pytest_codeeval.tasks import TaskRegistry
from pytest_codeeval.tasks.registry import TaskEntry

HEADERS = ("task", "lang", "data", "refs", "size")
MIN_DESCRIPTION = 16  # narrower than this, the description is left to -v
LEGEND = ("data: packaged = ships with pytest-codeeval or a dependency (runs offline); local = a file given for "
          "the task; cached = a hub dataset downloaded before; hub = downloaded on first use; own = the task makes its "
          "rows. refs: reference solutions (--codeeval-model=reference). -v: metrics, hub dataset, source.")


@dataclass(frozen=True)
class Row:
    entry: TaskEntry
    language: str
    data: str
    refs: str

    @property
    def description(self) -> str:
        return " ".join(self.entry.description.split())  # one line, whatever the task's text holds

    def cells(self) -> tuple[str, ...]:
        size = "?" if self.entry.size is None else str(self.entry.size)
        return (self.entry.name, self.language, self.data, self.refs, size)


def list_tasks(config: pytest.Config, settings: Settings) -> int:
    def show(config: pytest.Config, session: pytest.Session) -> int:
        tw = config.get_terminal_writer()
        registry = build_registry(config, settings.task_paths, settings.datasets, settings.task_options)
        names = registry.select(settings.tasks) if settings.tasks else registry.names()
        names = [name for name in names if keyword_matches(config.option.keyword, name)]
        rows = [describe(registry, name) for name in names]
        lines = wide_lines(rows) if config.option.verbose > 0 else narrow_lines(rows, tw.fullwidth)
        for line in lines:
            tw.line(line)
        known = len(registry.names())
        count = f"{len(rows)} of {known} tasks" if len(rows) < known else f"{known} tasks"
        if lines and not lines[0].endswith("description"):
            count += " (descriptions: -v, fewer rows with -k, or a wider terminal)"
        for line in textwrap.wrap(f"{count}. {LEGEND}", width=max(tw.fullwidth - 1, 40)):
            tw.line(line)
        return 0

    return run_session(config, show)


def keyword_matches(expression: str, name: str) -> bool:
    """Whether `-k expression` matches a task of this name, as pytest matches node names (substrings, any case)."""
    if not expression.strip():
        return True
    try:
        compiled = Expression.compile(expression)
    except SyntaxError:
        raise CodeevalError(f"-k {expression!r}: not a valid -k expression") from None
    return bool(compiled.evaluate(lambda ident, /, **_: ident.lower() in name.lower()))


def describe(registry: TaskRegistry, name: str) -> Row:
    """What the row says of a task: its instance is made (no data loaded) to ask it."""
    from pytest_codeeval.tasks.loading import in_datasets_cache

    entry = registry.entry(name)
    try:
        task = registry.get(name)
    except Exception:  # noqa: BLE001 - a task that cannot even be made says why when it runs, not in the list
        return Row(entry, "?", "?", "?")
    data = task.data_origin()
    if data == "hub" and task.DATASET_PATH and in_datasets_cache(task.DATASET_PATH):
        data = "cached"
    return Row(entry, language_title(task.language), data, task.reference_solutions())


def language_title(name: str) -> str:
    """A language as people write it (`C++`, `JavaScript`); a runner variant of one (`humanevalpack-rust`) by its
    last part."""
    from pytest_codeeval.languages import get_language

    for candidate in (name, name.rsplit("-", 1)[-1]):
        try:
            return str(get_language(candidate).title)
        except KeyError:
            continue
    return name.rsplit("-", 1)[-1]


def narrow_lines(rows: list[Row], width: int) -> list[str]:
    """The table within `width` columns: the description takes what the other columns leave, cut with '…'."""
    table = [HEADERS, *(row.cells() for row in rows)]
    widths = [max(len(cells[i]) for cells in table) for i in range(len(HEADERS))]
    room = width - 1 - sum(widths) - 2 * len(widths)
    lines = []
    for cells, row in zip(table, [None, *rows], strict=True):
        pairs = zip(cells, widths, strict=True)
        text = "  ".join(cell.rjust(w) if i == 4 else cell.ljust(w) for i, (cell, w) in enumerate(pairs))
        if room >= MIN_DESCRIPTION:
            description = "description" if row is None else row.description
            text += "  " + (description if len(description) <= room else description[: room - 1] + "…")
        lines.append(text.rstrip())
    return lines


def wide_lines(rows: list[Row]) -> list[str]:
    """Everything, however wide: the table as before (task, metrics, size, dataset, source) then the new columns."""
    headers = ("task", "metrics", "size", "dataset", "source", "lang", "data", "refs")
    table = [headers] + [
        (r.entry.name, ",".join(r.entry.metrics), r.cells()[4], r.entry.dataset or "-", r.entry.source, r.language,
         r.data, r.refs) for r in rows
    ]
    widths = [max(len(cells[i]) for cells in table) for i in range(len(headers))]
    descriptions = ["description", *(r.description for r in rows)]
    return ["  ".join(cell.ljust(w) for cell, w in zip(cells, widths, strict=True)) + "  " + description
            for cells, description in zip(table, descriptions, strict=True)]
