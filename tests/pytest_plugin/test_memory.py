"""What a run keeps per sample until its end (docs/scaling.md, "A million samples"): one record per sample, in the
results; the item drops its record once the report carries it; a report keeps only the sample's identity and status
once every plugin has seen it; a sample whose identical program ran holds that sample's texts, not a copy."""

from __future__ import annotations

import pytest
from helpers import canonical, first_ids, report, write_jsonl

from pytest_codeeval.evaluation.results import Results
from pytest_codeeval.samples import SampleRecord

pytestmark = pytest.mark.timeout(300)

# A plugin that looks at the records as other plugins and the end of the session see them.
CONFTEST = """
import json

SEEN = {}


def pytest_runtest_logreport(report):
    if getattr(report, "codeeval", None) and report.when == "call":
        SEEN[report.nodeid] = sorted(report.codeeval)


def pytest_terminal_summary(terminalreporter):
    kept = [r for reports in terminalreporter.stats.values() for r in reports if getattr(r, "codeeval", None)]
    items = [i for i in terminalreporter._session.items if hasattr(i, "record")]
    terminalreporter.write_line("KEPT " + json.dumps(sorted({tuple(sorted(r.codeeval)) for r in kept})))
    terminalreporter.write_line(f"SEEN {len(SEEN)} {json.dumps(sorted({tuple(v) for v in SEEN.values()}))}")
    terminalreporter.write_line(f"ITEM RECORDS {sum(i.record is not None for i in items)} of {len(items)}")
"""


def _texts(program: str) -> SampleRecord:
    return SampleRecord("humaneval", "HumanEval/0", 0, "passed", "ok", program="".join(["x = 1\n", program]),
                        output="".join(["o", "k"]), solution="".join(["s", program]), completion="".join(["c", "1"]))


def test_a_shared_sample_holds_the_texts_of_the_one_that_ran() -> None:
    ran, shared, other = _texts("a"), _texts("a"), _texts("a")
    shared.index, shared.shared_with = 1, "codeeval::humaneval::HumanEval/0::sample0"
    other.index = 2  # equal texts, but its own run: nothing to share
    results = Results()
    for record in (ran, shared, other):
        results.add(record)
    assert shared.program is ran.program and shared.solution is ran.solution and shared.output is ran.output
    assert shared.completion is ran.completion
    assert other.program is not ran.program and other.program == ran.program
    assert not hasattr(ran, "__dict__") and not hasattr(ran.key, "__dict__")  # slotted: no dictionary each
    assert SampleRecord.from_wire(ran.to_wire()) == ran


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["single", "xdist"])
def test_reports_keep_identity_and_status_once_aggregated(pytester: pytest.Pytester, workers: list[str]) -> None:
    pytester.makeconftest(CONFTEST)
    rows = [{"task_id": tid, "completion": canonical(tid)} for tid in first_ids(2) for _ in range(2)]
    rows += [{"task_id": first_ids(1)[0], "completion": "    return None\n"}]
    path = write_jsonl(pytester.path / "s.jsonl", rows)
    result = pytester.runpytest_subprocess(f"--codeeval-load-generations={path}", "--codeeval-tasks=humaneval",
                                           "--codeeval-report=r.json", *workers)
    result.assert_outcomes(passed=4, failed=1)
    full = sorted(SampleRecord("t", "p", 0, "passed").to_dict())
    result.stdout.fnmatch_lines([
        'KEPT [["index", "problem", "status", "task"]]',
        f"SEEN 5 [{', '.join(f'{chr(34)}{name}{chr(34)}' for name in full).join('[]')}]",
        "ITEM RECORDS 0 of *",
    ])
    samples = report(pytester.path / "r.json")["tasks"]["humaneval"]["problems"]
    assert sum(len(p["samples"]) for p in samples.values()) == 5
    first = samples[first_ids(1)[0]]["samples"]
    assert first[0]["program"] == first[1]["program"] and first[1]["shared_with"].endswith("::sample0")
    assert first[2]["status"] == "failed" and first[2]["output"]


def test_the_json_report_is_written_in_pieces_as_json_dumps_writes_it(tmp_path) -> None:
    """write_json streams the document a problem at a time; the file is json.dumps's text, byte for byte."""
    import json

    from pytest_codeeval.reporting.json_report import write_json

    sample = {"index": 0, "program": "print('é')\n", "output": "\ud800", "scores": {}, "shared_with": None}
    doc = {"schema": 2, "run": {"statuses": {"passed": 1}, "lost": []}, "gates": None, "tasks": {
        "humaneval": {"metrics": {"pass@1": 0.5}, "problems": {"HumanEval/0": {"n": 2, "samples": [sample, sample]},
                                                               "HumanEval/1": {}}, "intervals": {}},
        "empty": {}}}
    write_json(tmp_path / "r.json", doc)
    assert (tmp_path / "r.json").read_text(encoding="utf-8") == json.dumps(doc)
