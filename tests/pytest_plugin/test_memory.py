"""What a run keeps per sample until its end (docs/scaling.md, "A million samples"): one record per sample, in the
results; the item drops its record once the report carries it; a report keeps only the sample's identity and status
once every plugin has seen it, and its quiet setup and teardown reports are not kept; a problem's items share one
fixture info and their property tuples; a sample whose identical program ran holds that sample's texts, not a copy;
the JSON report makes each sample's dictionary as it writes it."""

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
    quiet = [r for r in terminalreporter.stats.get("", []) if r.nodeid.startswith("codeeval::")]
    terminalreporter.write_line(f"QUIET PHASES {len(quiet)}")
    if items:  # one object per problem, not per item: the fixture info and the task's and problem's properties
        shared = [len({id(i._fixtureinfo) for i in items}), len({id(i.user_properties[0]) for i in items}),
                  len({id(i.user_properties[2]) for i in items}), len({id(i.user_properties[3]) for i in items})]
        terminalreporter.write_line(f"PER ITEM {len(items)} SHARED {json.dumps(shared)}")
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
        "QUIET PHASES 0",  # the passed setup and teardown reports that captured nothing: not kept
    ])
    if not workers:  # 2 problems: 2 fixture infos, 2 task properties; samples 0, 1, 2: 3; passed, failed: 2
        result.stdout.fnmatch_lines(["PER ITEM 5 SHARED [[]2, 2, 3, 2[]]"])
    samples = report(pytester.path / "r.json")["tasks"]["humaneval"]["problems"]
    assert sum(len(p["samples"]) for p in samples.values()) == 5
    first = samples[first_ids(1)[0]]["samples"]
    assert first[0]["program"] == first[1]["program"] and first[1]["shared_with"].endswith("::sample0")
    assert first[2]["status"] == "failed" and first[2]["output"]


def test_durations_keep_every_phase_report(pytester: pytest.Pytester) -> None:
    """--durations reads the setup and teardown reports from the terminal's statistics: they stay there."""
    pytester.makeconftest(CONFTEST)
    path = write_jsonl(pytester.path / "s.jsonl", [{"task_id": tid, "completion": canonical(tid)} for tid in first_ids(2)])
    result = pytester.runpytest_subprocess(f"--codeeval-load-generations={path}", "--codeeval-tasks=humaneval",
                                           "--durations=0", "--durations-min=0")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["QUIET PHASES 4", "*slowest durations*", "*setup*codeeval::humaneval::*sample0*"])


def test_kept_records_share_their_repeated_words_and_empty_mappings() -> None:
    """Records that arrive from xdist workers bring their own copies of every text: the kept record holds one
    interned copy of the task, problem, status, detail and shared node id, and one empty mapping for all."""
    def wire(index: int) -> dict:
        record = SampleRecord("".join(["human", "eval"]), "".join(["HumanEval/", "0"]), index, "passed",
                              "".join(["o", "k"]), shared_with="".join(["codeeval::humaneval::HumanEval/0::", "sample0"]))
        return record.to_wire()

    first, second = SampleRecord.from_wire(wire(1)), SampleRecord.from_wire(wire(2))
    for name in ("task", "problem", "status", "detail", "shared_with"):
        assert getattr(first, name) is getattr(second, name), name
    assert first.scores is second.scores is first.judgement and not first.scores
    scored = SampleRecord("t", "p", 0, "failed", scores={"bleu": 0.5}, judgement={"answer": 3})
    kept = SampleRecord.from_wire(scored.to_wire())
    assert kept == scored and kept.scores == {"bleu": 0.5} and kept.scores is not first.scores
    assert first.to_dict()["scores"] == {} and type(first.to_dict()["scores"]) is dict  # plain JSON types


def test_the_json_report_makes_each_sample_as_it_writes_it(tmp_path) -> None:
    """No dictionary per sample is held while the report is written (a million samples' would be ~600 MB): the
    document's samples are made as they are written, to the bytes json.dumps writes of them as a list."""
    import json
    import tracemalloc

    from pytest_codeeval.evaluation.results import TaskResult
    from pytest_codeeval.reporting.json_report import task_section, write_json

    program = "def f():\n    return 1\n" * 20
    records = [SampleRecord("t", f"P/{i % 7}", i, "passed" if i % 3 else "failed", "ok", position=i % 7,
                            program=program, output="", shared_with=None if i < 7 else "codeeval::t::P/0::sample0")
               for i in range(20_000)]
    problems: dict[str, list[SampleRecord]] = {}
    for record in records:
        problems.setdefault(record.problem, []).append(record)
    result = TaskResult("t", ("pass@1",), problems, {"pass@1": 0.5})
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        write_json(tmp_path / "r.json", {"tasks": {"t": task_section(result, {"codeeval::t::P/1::sample1": 9})}})
        grew = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert grew < 1_000_000, grew  # a dictionary per sample: 12 MB
    section = task_section(result, {"codeeval::t::P/1::sample1": 9})
    listed = {"tasks": {"t": {**section, "problems": {
        pid: {**problem, "samples": list(problem["samples"])} for pid, problem in section["problems"].items()}}}}
    assert (tmp_path / "r.json").read_text(encoding="utf-8") == json.dumps(listed)
    samples = section["problems"]["P/1"]["samples"]
    assert len(samples) == len(problems["P/1"]) and samples[0]["tokens"] == 9 and samples[0]["index"] == 1
    assert samples[1:3] == [samples[1], samples[2]] and "tokens" not in samples[1]


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
