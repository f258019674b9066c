"""xdist glue (registered only when xdist is installed): the controller generates once for all workers."""

from __future__ import annotations

from typing import Any

from pytest_codeeval.records import SampleKey
from pytest_codeeval.session import STORE_KEY, CodeevalSession
from pytest_codeeval.sources import ModelSource


class XdistSupport:
    def __init__(self, session: CodeevalSession) -> None:
        self.session = session

    def pytest_configure_node(self, node: Any) -> None:
        source = self.session.source
        if isinstance(source, ModelSource) and source.store_path is not None:
            node.workerinput[STORE_KEY] = str(source.store_path)

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        """Called on the controller with the ids a worker collected (after -k and --lf): exactly the selection.
        The scheduler sends no item before this returns, so the store is complete when samples run."""
        keys = [key for key in map(SampleKey.from_nodeid, ids) if key is not None]
        self.session.expected_items, self.session.expected_samples = len(ids), len(keys)  # every worker: the same
        self.session.prepare(keys)
        self.session.freeze()
