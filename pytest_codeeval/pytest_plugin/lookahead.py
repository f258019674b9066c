"""Which items to start ahead: the samples of the next items run on the execution pool before pytest reaches them.
The policy is the role's (`Policy`): a single process follows the session's order (`SessionOrder`), an xdist
worker the items the controller sent it (`WorkerQueue`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol

import pytest

from pytest_codeeval.pytest_plugin.compat import xdist_pending_indices

# How far a process starts samples ahead when pytest starts an item, per executor. While an item waits for a slow
# sample (one that runs into its time limit), the pool goes further, one sample per idle executor (roles.py, _feed).
LOOKAHEAD_PER_JOB = 32


class Lookahead:
    """Which items to start next, in a single process, which knows its whole order (the session's items): the next
    `window` of them when pytest starts an item, and beyond them, one by one, while an item waits for a slow sample
    (`further`). Each item is returned once."""

    def __init__(self) -> None:
        self._positions: dict[int, int] | None = None
        self._reached = 0  # items before this position were returned already

    def upcoming(self, item: Any, order: Sequence[Any], window: int) -> list[Any]:
        if self._positions is None:
            self._positions = {id(it): n for n, it in enumerate(order)}
        position = self._positions.get(id(item))
        if position is None:
            return [item]
        start, self._reached = max(position, self._reached), max(self._reached, position + window)
        return list(order[start : position + window])

    def further(self, order: Sequence[Any]) -> Iterator[Any]:
        """The items after those returned so far, each marked returned as it is taken."""
        while self._reached < len(order):
            self._reached += 1
            yield order[self._reached - 1]


class Policy(Protocol):
    """What a role asks about the order of its items: which to start when pytest starts `item`, and which next,
    one at a time, while an item waits for a slow sample."""

    def upcoming(self, item: pytest.Item, nextitem: pytest.Item | None, window: int) -> Iterable[pytest.Item]: ...

    def further(self, session: pytest.Session) -> Iterator[pytest.Item]: ...


class SessionOrder:
    """A single process knows its whole order, the session's items: the next `window` of them, then the rest."""

    def __init__(self) -> None:
        self._lookahead = Lookahead()

    def upcoming(self, item: pytest.Item, nextitem: pytest.Item | None, window: int) -> Iterable[pytest.Item]:
        return self._lookahead.upcoming(item, item.session.items, window)

    def further(self, session: pytest.Session) -> Iterator[pytest.Item]:
        return self._lookahead.further(session.items)


class WorkerQueue:
    """An xdist worker learns its items as the controller sends them: the current, the next, and the first `window`
    of those it holds (xdist's queue, read through compat.xdist_pending_indices); then the others it holds."""

    def __init__(self, config: pytest.Config) -> None:
        self._config = config
        self._pending: Callable[[int | None, int], list[int]] | None = None
        self._last_fed: int | None = None  # the index of the last item that `further` gave

    def upcoming(self, item: pytest.Item, nextitem: pytest.Item | None, window: int) -> Iterable[pytest.Item]:
        items = item.session.items
        return [i for i in (item, nextitem) if i is not None] + [items[i] for i in self._waiting(None, window)]

    def further(self, session: pytest.Session) -> Iterator[pytest.Item]:
        while batch := self._waiting(self._last_fed, 16):
            for index in batch:
                self._last_fed = index
                yield session.items[index]

    def _waiting(self, after: int | None, n: int) -> list[int]:
        if self._pending is None:
            self._pending = xdist_pending_indices(self._config)
        return self._pending(after, n)
