"""The cputime judge's harness: the program that runs in the sandbox in place of a sample, tests it and times it
against the problem's reference solutions (Mercury's way of judging efficiency).

Not imported by pytest-codeeval: its source is sent as the program, with the sample (`solution.py`) and its
specification (`spec.json`: entry_point, tests, references, convert, evaluate, timeout, rounds, min_cpu) beside it.
Every run of a program is a forked process of its own: it loads the program into a fresh copy of the prelude's
namespace, makes `Solution()`, and for each test turns the stored case into arguments with the problem's
`convert_offline`, calls the entry point (this call alone is timed, in CPU time of the process, so that a loaded
machine does not change the figure) and judges the result with `evaluate_offline`. It repeats the whole timed pass
until it has spent `min_cpu` seconds, and reports the CPU seconds of one pass. The sample runs first; if it passes,
`rounds` rounds follow in which the sample and each reference run once more, alternating, and each program's figure
is the median of its rounds. The last line printed is the verdict: RESULT_MARK and a JSON object. Processes are
started and collected by sandbox/forked.py, as the stdio judge's are."""

import contextlib
import copy
import gc
import json
import os
import statistics
import sys
import time

from pytest_codeeval.sandbox.forked import (  # the sample's interpreter has the package
    collect,
    enter_child,
    harness_inputs,
)

RESULT_MARK = "@@codeeval-cputime "
CLIP = 300  # characters of a failing test's input, expected and actual output kept for the report
MAX_PASSES = 10000  # timed passes over the tests in one run, whatever min_cpu asks
# Mercury's evaluator runs every program after these imports (BCEH's beyond_eval.py); a program may rely on them.
PRELUDE_MODULES = ("re", "itertools", "collections", "heapq", "bisect", "string", "sys", "functools", "math", "copy")
OPTIONAL_MODULES = ("lctk", "sortedcontainers")  # its converters build linked lists and trees with lctk
PRELUDE_NAMES = {
    "math": ("floor", "ceil", "factorial", "sqrt", "inf"),
    "sys": ("maxsize", "stdin"),
    "bisect": ("bisect_left", "bisect_right"),
    "itertools": ("permutations", "zip_longest"),
    "heapq": ("heappush", "heappop", "heapify"),
    "collections": ("deque", "defaultdict", "OrderedDict"),
    "typing": ("List", "Optional", "Tuple"),
    "functools": ("lru_cache", "cache"),
}
NODES = """
class ListNode:
    def __init__(self, val=0, next=None):
        self.val = val
        self.next = next


class TreeNode:
    def __init__(self, val=0, left=None, right=None):
        self.val = val
        self.left = left
        self.right = right


def print(*args, **kwargs):
    pass
"""


def prelude():
    """The namespace every run starts from: Mercury's imports, LeetCode's node classes, and a silent print."""
    space = {"__name__": "__sample__", "__builtins__": __builtins__}
    for name in PRELUDE_MODULES:
        space[name] = __import__(name)
    for name in OPTIONAL_MODULES:
        with contextlib.suppress(ImportError):  # only a program or converter that uses it notices
            space[name] = __import__(name)
    for module, names in PRELUDE_NAMES.items():
        imported = __import__(module)
        space.update({n: getattr(imported, n) for n in names})
    exec(NODES, space)
    return space


def clip(value):
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= CLIP else text[:CLIP] + "..."


def _error(exc):
    return f"{type(exc).__name__}: {clip(str(exc))}"


def _send(fd, verdict):
    os.write(fd, json.dumps(verdict).encode())


def _load(code, space, spec):
    """The entry point, converter and judge of one run, from the program and the problem's code."""
    exec(code, space)
    method = getattr(space["Solution"](), spec["entry_point"])
    convert = evaluate = None
    if spec.get("convert"):
        exec(spec["convert"], space)
        convert = space["convert_offline"]
    if spec.get("evaluate"):
        exec(spec["evaluate"], space)
        evaluate = space["evaluate_offline"]
    return method, convert or (lambda case: case), evaluate or (lambda inputs, outputs, expected: outputs == expected)


def _timed_passes(method, convert, evaluate, spec, report_fd):
    """Run every test until min_cpu is spent; report CPU seconds per pass, or the first test that fails."""
    clock = time.process_time
    gc.disable()  # as timeit does: a collection's pause belongs to no one call
    spent, passes = 0.0, 0
    while True:
        for index, case in enumerate(spec["tests"]):
            try:
                inputs, expected = convert((copy.deepcopy(case["input"]), copy.deepcopy(case["expected"])))
                start = clock()
                outputs = method(*inputs)
                spent += clock() - start
                ok = evaluate(inputs, outputs, expected)
            except Exception as exc:  # noqa: BLE001 - Mercury: an error while testing fails the program
                _send(report_fd, {"ok": False, "test": index, "error": _error(exc)})
                return
            if not ok:
                _send(report_fd, {"ok": False, "test": index, "got": clip(outputs)})
                return
        passes += 1
        if spent >= spec["min_cpu"] or passes >= MAX_PASSES:
            break
    _send(report_fd, {"ok": True, "cpu": spent / passes, "passes": passes})


def _child(code, base, spec, report_fd):
    """One run, in its own process: never returns."""
    try:
        enter_child(report_fd, spec["timeout"])
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        try:
            method, convert, evaluate = _load(code, dict(base), spec)
        except BaseException as exc:  # noqa: BLE001 - the program does not load
            _send(report_fd, {"ok": False, "load": True, "error": _error(exc)})
        else:
            _timed_passes(method, convert, evaluate, spec, report_fd)
    except BaseException as exc:  # noqa: BLE001
        with contextlib.suppress(BaseException):
            _send(report_fd, {"ok": False, "error": _error(exc)})
    os._exit(0)


def run_once(code, base, spec):
    """Fork one run and read its report; the CPU limit is the run's, the wall clock a backstop."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(code, base, spec, write_fd)
    os.close(write_fd)
    died, data = collect(pid, read_fd, 3 * spec["timeout"] + 2)
    if died:
        return {"ok": False, "error": died, **({"timeout": True} if died == "time limit" else {})}
    try:
        return json.loads(data)
    except ValueError:
        return {"ok": False, "error": "ended without a result"}


def _compile(source, name):
    return compile(source, name, "exec", dont_inherit=True)


def judge(spec, source):
    if not spec.get("tests"):
        return {"passed": False, "failure": {"error": "the problem has no tests"}}
    try:
        code = _compile(source, "solution.py")
    except (SyntaxError, ValueError) as exc:
        return {"passed": False, "failure": {"load": True, "error": _error(exc)}}
    base = prelude()
    first = run_once(code, base, spec)
    if not first["ok"]:
        failure = {k: first[k] for k in ("test", "got", "error", "load", "timeout") if k in first}
        if "test" in failure:
            case = spec["tests"][failure["test"]]
            failure.update(input=clip(case["input"]), expected=clip(case["expected"]))
        return {"passed": False, "failure": failure}
    references = []
    for index, reference in enumerate(spec.get("references", [])):
        try:
            references.append(_compile(reference, f"reference{index}.py"))
        except (SyntaxError, ValueError):
            references.append(None)
    alive = [program is not None for program in references]  # a reference that fails once leaves the distribution
    runs = [[first["cpu"]]] + [[] for _ in references]
    reference_error = None
    programs = [code, *references]
    for round_ in range(spec["rounds"]):
        for shift in range(len(programs)):  # each round starts with the next program: no place is favoured
            index = (round_ + shift) % len(programs)
            if index == 0:
                report = run_once(code, base, spec)
                if not report["ok"]:  # it passed once and fails now: a failure all the same
                    failure = {k: report[k] for k in ("test", "got", "error", "timeout") if k in report}
                    return {"passed": False, "failure": failure, "flaky": True}
                runs[0].append(report["cpu"])
            elif alive[index - 1]:
                report = run_once(programs[index], base, spec)
                if report["ok"]:
                    runs[index].append(report["cpu"])
                else:
                    alive[index - 1] = False
                    reference_error = reference_error or report.get("error") or f"wrong on test {report.get('test')}"
    return {"passed": True, "cpu": statistics.median(runs[0]), "cpu_runs": runs[0],
            "reference_cpu": [statistics.median(r) if ok else None for ok, r in zip(alive, runs[1:], strict=True)],
            "reference_error": reference_error}


def main():
    spec, source = harness_inputs("spec.json")
    verdict = judge(spec, source)
    sys.stdout.write("\n" + RESULT_MARK + json.dumps(verdict) + "\n")
    sys.stdout.flush()


if __name__ == "__sample__":  # the sandbox's name for the program it runs; importing this module runs nothing
    main()
