"""All sample records of the run, gathered on the controller, and the per-task view that metrics use."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pytest_codeeval.metrics import task_metrics
from pytest_codeeval.samples import STATUSES, SampleKey, SampleRecord, Status

if TYPE_CHECKING:
    from pytest_codeeval.tasks.registry import TaskEntry


@dataclass
class TaskResult:
    name: str
    metric_names: tuple[str, ...]
    problems: dict[str, list[SampleRecord]]  # problem id -> records in sample order, problems in dataset order
    metrics: dict[str, float] = field(default_factory=dict)

    @property
    def n_samples(self) -> int:
        return sum(len(recs) for recs in self.problems.values())

    def status_counts(self) -> Counter[Status]:
        return Counter(r.status for recs in self.problems.values() for r in recs)


class Results:
    def __init__(self) -> None:
        self.records: dict[SampleKey, SampleRecord] = {}

    def add(self, record: SampleRecord) -> None:
        """Keep `record`; one whose program ran as an earlier sample (dedupe) shares that sample's texts."""
        owner = SampleKey.from_nodeid(record.shared_with) if record.shared_with else None
        ran = self.records.get(owner) if owner is not None else None
        if ran is not None:
            record.share_texts(ran)
        self.records[record.key] = record

    def __len__(self) -> int:
        return len(self.records)

    def status_counts(self) -> Counter[Status]:
        counts = Counter({s: 0 for s in STATUSES})
        counts.update(r.status for r in self.records.values())
        return counts

    def by_task(self, entry_of: Callable[[str], TaskEntry], ks: tuple[int, ...]) -> dict[str, TaskResult]:
        """Per task, problems in dataset order with their records in sample order, and the task's metrics."""
        grouped: dict[str, dict[str, list[SampleRecord]]] = {}
        for record in sorted(self.records.values(), key=lambda r: (r.task, r.position, r.index)):
            grouped.setdefault(record.task, {}).setdefault(record.problem, []).append(record)
        results = {}
        for task, problems in sorted(grouped.items()):
            entry = entry_of(task)  # the registry's TaskEntry: metric names and their aggregations
            names = tuple(entry.metrics)
            metrics = task_metrics(names, problems, ks, dict(entry.aggregations))
            results[task] = TaskResult(task, names, problems, metrics)
        return results
