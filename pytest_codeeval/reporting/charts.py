"""The HTML report's plots, drawn as inline SVG from the JSON report: no library, no script, no network, and sized
in pixels so that a screenshot of the page reads as the page does. Every text drawn comes from datasets and
models, so every text is escaped."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from pytest_codeeval.metrics.passk import estimate_pass_at_k

WIDTH = 560
LABEL_WIDTH = 150  # the left margin that holds a row's name
ROW = 22  # pixels per bar row
KIND_COLOURS = {
    "passed": "#2e7d32", "assertion": "#c62828", "exception": "#e57373", "syntax error": "#8e24aa",
    "wrong answer": "#ad1457", "exited early": "#5d4037", "other failure": "#9e9e9e", "timeout": "#ef6c00",
    "error": "#37474f",
}
SERIES_COLOURS = ("#1565c0", "#c62828", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#5d4037", "#ad1457")
MAX_SERIES = len(SERIES_COLOURS)
BAR_COLOUR = "#455a64"  # the per-task bars: no series colour, so that a screenshot tells the plots apart


@dataclass(frozen=True)
class Chart:
    """One plot: its heading, the SVG, and a line that says how to read it."""

    key: str  # the chart's kind, a stable name for the page's DOM (data-chart)
    title: str
    svg: str
    note: str


def failure_kind(status: str, detail: str) -> str:
    """The kind a sample's verdict falls in: its status, and for a failed sample the first words of its detail."""
    if status != "failed":
        return status
    head = detail.split(":", 1)[0].strip().lower()
    for kind in ("assertion", "exception", "syntax error", "wrong answer", "exited early"):
        if head.startswith(kind):
            return kind
    return "other failure"


def _svg(key: str, height: int, body: Iterable[str], label: str) -> str:
    return (f'<svg class="chart" data-chart="{key}" role="img" aria-label="{escape(label)}" width="{WIDTH}" '
            f'height="{height}" viewBox="0 0 {WIDTH} {height}">'
            f'{"".join(body)}</svg>')


def _text(x: float, y: float, text: str, anchor: str = "start", size: int = 12, colour: str = "#222") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}" fill="{colour}">'
            f"{escape(text)}</text>")


def _rect(x: float, y: float, w: float, h: float, colour: str, title: str) -> str:
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}" height="{h:.1f}" fill="{colour}">'
            f"<title>{escape(title)}</title></rect>")


def _name(text: str, room: int = 22) -> str:
    return text if len(text) <= room else text[: room - 1] + "…"


def _legend(y: float, entries: Sequence[tuple[str, str]]) -> list[str]:
    parts, x = [], float(LABEL_WIDTH)
    for name, colour in entries:
        parts += [_rect(x, y - 10, 10, 10, colour, name), _text(x + 14, y, name, size=11)]
        x += 24 + 6.5 * len(name)
    return parts


def _samples(task: Mapping[str, Any]) -> Iterable[Mapping[str, Any]]:
    for problem in task["problems"].values():
        yield from problem["samples"]


def failure_kinds(tasks: Mapping[str, Any]) -> Chart | None:
    """Per task, a bar of its samples split by verdict kind: what to fix first, at a glance."""
    counts = {name: Counter(failure_kind(s["status"], s.get("detail") or "") for s in _samples(t))
              for name, t in tasks.items()}
    kinds = [k for k in KIND_COLOURS if any(c[k] for c in counts.values())]
    if not kinds:
        return None
    body = _legend(14, [(k, KIND_COLOURS[k]) for k in kinds])
    span = WIDTH - LABEL_WIDTH - 10
    for row, (name, counted) in enumerate(counts.items()):
        y, x, total = 26 + row * ROW, float(LABEL_WIDTH), sum(counted.values()) or 1
        body.append(_text(LABEL_WIDTH - 6, y + 14, _name(name), "end"))
        for kind in kinds:
            w = span * counted[kind] / total
            body.append(_rect(x, y, w, ROW - 6, KIND_COLOURS[kind], f"{name}: {counted[kind]} {kind}"))
            if w > 24:
                body.append(_text(x + w / 2, y + 12, str(counted[kind]), "middle", 10, "#fff"))
            x += w
    height = 30 + len(counts) * ROW
    return Chart("kinds", "Verdicts by kind", _svg("kinds", height, body, "samples per verdict kind per task"),
                 "each bar is one task's samples; a failed sample's kind is the first words of its detail")


def _ks(n: int) -> list[int]:
    """1..n for a few samples; for many, 1, 2, 5, 10, 20, ... and n."""
    if n <= 12:
        return list(range(1, n + 1))
    ks = [m * 10**e for e in range(int(math.log10(n)) + 1) for m in (1, 2, 5) if m * 10**e < n]
    return [*ks, n]


def pass_at_k_curve(tasks: Mapping[str, Any]) -> Chart | None:
    """pass@k against k, the unbiased estimator over every k up to the fewest samples of a problem."""
    curves = {}
    for name, task in list(tasks.items())[:MAX_SERIES]:
        problems = [(p["n"], p["passed"]) for p in task["problems"].values() if p["n"]]
        fewest = min((n for n, _ in problems), default=0)
        if fewest >= 2:
            curves[name] = [(k, sum(estimate_pass_at_k(n, c, k) for n, c in problems) / len(problems))
                            for k in _ks(fewest)]
    if not curves:
        return None
    ks = sorted({k for points in curves.values() for k, _ in points})
    left, top, plot_w, plot_h = 50, 30, WIDTH - 70, 180

    def x(k: int) -> float:
        return left + plot_w * (ks.index(k) / max(len(ks) - 1, 1))

    def y(v: float) -> float:
        return top + plot_h * (1 - v)

    body = _legend(14, [(name, SERIES_COLOURS[i]) for i, name in enumerate(curves)])
    for tick in (0, 0.25, 0.5, 0.75, 1):
        body += [f'<line x1="{left}" x2="{left + plot_w}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#ddd"/>',
                 _text(left - 6, y(tick) + 4, f"{tick:g}", "end", 11)]
    body += [_text(x(k), top + plot_h + 16, str(k), "middle", 11) for k in ks]
    body.append(_text(left + plot_w / 2, top + plot_h + 32, "k (samples drawn per problem)", "middle", 11))
    for i, (name, points) in enumerate(curves.items()):
        colour = SERIES_COLOURS[i]
        path = " ".join(f"{x(k):.1f},{y(v):.1f}" for k, v in points)
        body.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        body += [f'<circle cx="{x(k):.1f}" cy="{y(v):.1f}" r="3" fill="{colour}"><title>{escape(name)} '
                 f"pass@{k} = {v:.3f}</title></circle>" for k, v in points]
    return Chart("passk", "pass@k against k", _svg("passk", top + plot_h + 40, body, "pass@k against k per task"),
                 "the chance that at least one of k samples passes, estimated from every sample (unbiased estimator)")


def baseline_change(tasks: Mapping[str, Any], comparison: Mapping[str, Any]) -> Chart | None:
    """Per task and metric, every problem both runs share on one line: a red bar down where this run is worse, a
    green bar up where it is better; the paired test's result beside it."""
    rows = [(name, metric, c) for name, metrics in comparison.items() for metric, c in metrics.items()
            if name in tasks]
    if not rows:
        return None
    body, band = [], 56
    span = WIDTH - LABEL_WIDTH - 10
    for row, (name, metric, c) in enumerate(rows):
        top = row * band + 4
        mid = top + 26
        problems = list(tasks[name]["problems"])
        worse, better = set(c["regressed_problems"]), set(c["improved_problems"])
        step = span / max(len(problems), 1)
        verdict = "significant drop" if c["regressed"] else "no significant drop"
        body += [_text(LABEL_WIDTH - 6, mid - 4, _name(f"{name} {metric}"), "end"),
                 _text(LABEL_WIDTH - 6, mid + 10, f"{c['delta']:+.3f}, p={c['p_value']:.2g}", "end", 11,
                       "#c62828" if c["regressed"] else "#555"),
                 f'<line x1="{LABEL_WIDTH}" x2="{LABEL_WIDTH + span}" y1="{mid}" y2="{mid}" stroke="#999"/>']
        for i, pid in enumerate(problems):
            if pid in worse or pid in better:
                down = pid in worse
                body.append(_rect(LABEL_WIDTH + i * step, mid if down else mid - 18, max(step - 1, 2), 18,
                                  "#c62828" if down else "#2e7d32", f"{pid}: {'worse' if down else 'better'}"))
        body.append(_text(LABEL_WIDTH + span, top + 10, f"{len(worse)} worse, {len(better)} better of "
                          f"{c['problems']} problems; {c['test']}: {verdict}", "end", 11))
    return Chart("baseline", "Change against the baseline, per problem",
                 _svg("baseline", len(rows) * band + 8, body, "problems worse and better than the baseline"),
                 "problems in dataset order: red below the line = worse than the baseline, green above = better")


def _length(sample: Mapping[str, Any], tokens: bool) -> int:
    return int(sample.get("tokens") or 0) if tokens else len(sample.get("completion") or "")


def completion_lengths(tasks: Mapping[str, Any]) -> Chart | None:
    """How long the completions are (tokens when the run generated them, characters for a file's), in doubling
    bins, passed and not passed stacked: a runaway output stands out at the right end."""
    samples = [s for t in tasks.values() for s in _samples(t)]
    tokens = any(s.get("tokens") for s in samples)
    lengths = [(_length(s, tokens), s["status"] == "passed") for s in samples if s.get("completion") or tokens]
    if not lengths:
        return None
    bins = max(int(math.log2(max(n for n, _ in lengths) or 1)) + 1, 1) + 1
    counts = [[0, 0] for _ in range(bins)]
    for n, passed in lengths:
        counts[int(math.log2(n)) + 1 if n else 0][0 if passed else 1] += 1
    left, top, plot_h = 50, 24, 150
    bar_w, tallest = (WIDTH - left - 10) / bins, max(sum(c) for c in counts)
    unit = "tokens" if tokens else "characters"
    body = _legend(14, [("passed", KIND_COLOURS["passed"]), ("not passed", KIND_COLOURS["assertion"])])
    body += [f'<line x1="{left}" x2="{WIDTH - 10}" y1="{top + plot_h}" y2="{top + plot_h}" stroke="#999"/>',
             _text(left - 6, top + 10, str(tallest), "end", 11), _text(left - 6, top + plot_h, "0", "end", 11)]
    for i, (ok, bad) in enumerate(counts):
        low, high = (0, 0) if i == 0 else (2 ** (i - 1), 2**i - 1)
        what = str(low) if high == low else f"{low}–{high}"
        x, base = left + i * bar_w, float(top + plot_h)
        for value, colour, label in ((ok, KIND_COLOURS["passed"], "passed"),
                                     (bad, KIND_COLOURS["assertion"], "not passed")):
            h = plot_h * value / tallest
            base -= h
            body.append(_rect(x + 1, base, bar_w - 2, h, colour, f"{what} {unit}: {value} {label}"))
        if bins <= 16 or i % 2 == 0:
            body.append(_text(x + bar_w / 2, top + plot_h + 14, str(low), "middle", 10))
    body.append(_text(left + (WIDTH - left) / 2, top + plot_h + 30, f"completion length ({unit}, doubling bins)",
                      "middle", 11))
    longest = max(n for n, _ in lengths)
    return Chart("lengths", f"Completion lengths ({unit})", _svg("lengths", top + plot_h + 38, body,
                 f"completion lengths in {unit}"),
                 f"longest: {longest} {unit}" + ("" if tokens else " (a file's completions carry no token counts)"))


def per_task(tasks: Mapping[str, Any]) -> Chart | None:
    """A run of several tasks (MultiPL-E's languages are one task each): each task's first metric with its 95%
    interval, side by side."""
    rows = [(name, metric, t["metrics"][metric], (t.get("intervals") or {}).get(metric))
            for name, t in tasks.items() if t["metrics"] for metric in [next(iter(t["metrics"]))]]
    if len(rows) < 2:
        return None
    top = max(max(v, ci[1] if ci else v) for _, _, v, ci in rows)
    scale = 1.0 if top <= 1 else top
    span = WIDTH - LABEL_WIDTH - 60
    body = []
    for row, (name, metric, value, ci) in enumerate(rows):
        y = 6 + row * ROW
        body += [_text(LABEL_WIDTH - 6, y + 13, _name(f"{name} {metric}", 24), "end"),
                 _rect(LABEL_WIDTH, y, span * value / scale, ROW - 6, BAR_COLOUR,
                       f"{name} {metric} = {value:.3f}"),
                 _text(LABEL_WIDTH + span + 6, y + 13, f"{value:.3f}", size=11)]
        if ci:
            lo, hi = (LABEL_WIDTH + span * v / scale for v in ci)
            body.append(f'<line x1="{lo:.1f}" x2="{hi:.1f}" y1="{y + 8}" y2="{y + 8}" stroke="#111" stroke-width="2"/>')
    return Chart("tasks", "Per task and language", _svg("tasks", 10 + len(rows) * ROW, body,
                 "each task's first metric with its interval"),
                 "each task's first metric; the black line is its 95% interval")


def charts(report: Mapping[str, Any]) -> list[Chart]:
    """The plots this run has data for, in reading order."""
    tasks, comparison = report["tasks"], (report.get("baseline") or {}).get("tasks") or {}
    made = [per_task(tasks), failure_kinds(tasks), pass_at_k_curve(tasks), baseline_change(tasks, comparison),
            completion_lengths(tasks)]
    return [c for c in made if c is not None]
