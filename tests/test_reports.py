"""Reports people read: Markdown for pull requests, a self-contained HTML page (rendered in a real headless
browser), and JUnit XML with the task and problem of every test case."""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest
from helpers import canonical, first_ids, write_jsonl

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


def test_html_is_self_contained_and_escaped(pytester: pytest.Pytester) -> None:
    make_run(pytester, "--codeeval-html=report.html")
    html = (pytester.path / "report.html").read_text()
    assert "<script>document.title" not in html and "&lt;script&gt;document.title" in html
    assert "http://" not in html and "https://" not in html  # nothing loaded from the network
    assert html.count('class="cell"') == 6 and html.count('class="sample"') == 7
    assert 'data-problem="HumanEval/0"' in html and "hsl(60, 70%, 45%)" in html  # half of HumanEval/0's samples pass


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(chromium() is None, reason="needs a headless chromium (apt-get install chromium); .ci/run installs it")
def test_html_renders_and_searches_in_a_headless_browser(pytester: pytest.Pytester) -> None:
    make_run(pytester, "--codeeval-html=report.html")
    page = (pytester.path / "report.html").as_uri()
    flags = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + str(pytester.path / "profile")]
    dom = subprocess.run([*flags, "--dump-dom", page + "#q=failed%20HumanEval/0"], capture_output=True, text=True, timeout=120).stdout
    assert 'data-shown="1"' in dom and "1 of 7 samples" in dom  # the search ran and kept the one failing sample
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
