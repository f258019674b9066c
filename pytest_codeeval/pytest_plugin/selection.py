"""What the user selected: codeeval node ids given as arguments, and `-k` expressions that rule out whole tasks
before their data is loaded."""

from __future__ import annotations

import itertools

import pytest

from pytest_codeeval.pytest_plugin.compat import Expression, keyword_idents
from pytest_codeeval.samples import ROOT_NAME

MAX_FREE_NAMES = 12  # above this many unknown -k identifiers, do not try to prove a task out


def lift_nodeid_args(config: pytest.Config) -> list[str]:
    """Remove `codeeval::...` node ids from the arguments (they name no file) and return them."""
    prefix = ROOT_NAME + "::"
    ours = [a for a in config.args if a == ROOT_NAME or a.startswith(prefix)]
    if ours:
        config.args[:] = [a for a in config.args if a not in ours]
    return ours


def nodeid_selected(nodeid: str, explicit: list[str]) -> bool:
    """True when no ids were given, or `nodeid` lies on the path to or below one of them."""
    if not explicit:
        return True
    return any(
        nodeid == e or nodeid.startswith(e + "::") or e.startswith(nodeid + "::") for e in explicit
    )


def keyword_may_match(
    expression: str, known_names: set[str], task_names: set[str] | frozenset[str] = frozenset()
) -> bool:
    """Could some item whose chain contains `known_names` (plus names not known yet) match `-k expression`?

    Identifiers that match a known name are True. An identifier that names another task (a substring of a
    registered task name) selects tasks, so it is False here. Each remaining identifier might match a
    not-yet-known name (a problem or sample): every assignment of those is tried, and a task is ruled out
    only when none matches."""
    expression = expression.strip()
    if not expression:
        return True
    try:
        expr = Expression.compile(expression)
    except SyntaxError:
        return True  # pytest reports the bad expression itself
    idents = keyword_idents(expr)
    if idents is None:  # older pytest: cannot prove anything out
        return True
    lowered = [n.lower() for n in known_names]
    tasks = [t.lower() for t in task_names]
    known = {i: any(i.lower() in n for n in lowered) for i in idents}
    # an identifier without letters (`-k "humaneval and 1"`) is a problem's or sample's number, never a task's name
    free = [
        i
        for i, hit in known.items()
        if not hit and (not any(c.isalpha() for c in i) or not any(i.lower() in t for t in tasks))
    ]
    if len(free) > MAX_FREE_NAMES:
        return True
    for values in itertools.product((False, True), repeat=len(free)):
        if expr.evaluate(_Truth({**known, **dict(zip(free, values, strict=True))})):
            return True
    return False


def keyword_names(expression: str) -> set[str]:
    """The identifiers of a `-k` expression, lowercased (pytest's -k ignores case)."""
    try:
        idents = keyword_idents(Expression.compile(expression)) if expression.strip() else None
    except SyntaxError:
        return set()
    return {ident.lower() for ident in idents or ()}


def keyword_tasks(expression: str, task_names: list[str]) -> list[str]:
    """The tasks a `-k` expression names, so that `-k mbpp` runs MBPP without `--codeeval-tasks`: a task whose name
    is one of its identifiers, or else a family whose names start with it and a dash or underscore
    (`-k multiple` is every multiple-* task, `-k ds1000` every DS-1000 subset). pytest's -k ignores case."""
    named: list[str] = []
    for ident in sorted(keyword_names(expression)):  # a bad expression has none: pytest reports it itself
        exact = [n for n in task_names if n.lower() == ident]
        family = [n for n in task_names if n.lower().startswith((ident + "-", ident + "_"))]
        named.extend(n for n in exact or family if n not in named)
    return named


class _Truth(dict[str, bool]):
    """An assignment of truth values to the identifiers of a `-k` expression, as the matcher pytest evaluates."""

    def __call__(self, name: str, /, **_: str | int | bool | None) -> bool:
        return self.get(name, False)
