"""The stdio judge's harness: the program that runs in the sandbox in place of a sample and tests it.

Not imported by pytest-codeeval: its source is sent as the program, with the sample (`solution.py`) and its tests
(`tests.json`) beside it. It compiles the sample once, then runs each test in a forked process of its own (fresh
state, its own CPU-time limit, stdin from the test's input) and compares the result the way APPS's checker does.
The last line it prints is the verdict: RESULT_MARK and a JSON object, per test True, False, -1 (runtime error or
time limit) or -2 (the sample does not compile: the only result). Everything here uses the standard library only,
besides the imports APPS puts before every sample and sandbox/forked.py (its processes, shared with the cputime
judge's harness; the sandbox's interpreter, a fork of the zygote, imports it from the package)."""

import contextlib
import json
import math
import os
import sys

from pytest_codeeval.sandbox.forked import (  # the sample's interpreter has the package
    collect,
    enter_child,
    harness_inputs,
)

RESULT_MARK = "@@codeeval-stdio "
CLIP = 600  # characters of an input, expected and actual output kept for the report
# APPS's checker runs every sample after these imports (testing_util.py); a sample may rely on them.
PRELUDE_MODULES = ("sys", "time", "itertools", "collections", "math", "fractions", "random", "heapq")
PRELUDE_NAMES = {
    "itertools": ("accumulate", "product", "permutations", "combinations"),
    "collections": ("Counter", "OrderedDict", "deque", "defaultdict", "ChainMap"),
    "functools": ("lru_cache",),
    "math": ("sqrt", "sin", "cos", "tan", "ceil", "fabs", "floor", "gcd", "exp", "log", "log2"),
    "typing": ("List", "Tuple"),
}


def prelude():
    """The namespace every test starts from: APPS's imports, numpy with one thread (its thread pool would not
    fit the sandbox's address-space limit on a many-core machine), and `from heapq import *`."""
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"
    space = {"__name__": "__sample__", "__builtins__": __builtins__}
    for name in PRELUDE_MODULES:
        space[name] = __import__(name)
    for module, names in PRELUDE_NAMES.items():
        imported = __import__(module)
        space.update({n: getattr(imported, n) for n in names})
    import heapq

    space.update({n: getattr(heapq, n) for n in heapq.__all__})
    try:
        import numpy

        space["np"] = numpy
    except ImportError:  # only a sample that uses np notices
        pass
    return space


def clip(value):
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= CLIP else text[:CLIP] + "..."


def _close(a, b):
    """numpy.allclose on two floats (rtol 1e-5, atol 1e-8; infinities equal only to themselves, NaN to nothing)."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return a == b
    return abs(a - b) <= 1e-8 + 1e-5 * abs(b)


def _floats(items):
    return [float(e) for e in items]


def stdio_match(text, expected):
    """APPS's standard-input comparison, step by step: the whole text with ends stripped, with each line
    stripped, line lists without blank lines, numbers within numpy's allclose, then each line as a set of tokens
    (lines in any order) and those tokens as numbers rounded to 3 places."""
    if isinstance(expected, list):
        expected = "\n".join(expected)
    lines = text.splitlines()
    want = expected.strip()
    if "\n".join(lines).strip() == want or "\n".join(x.strip() for x in lines).strip() == want:
        return True
    if lines == [expected]:
        return True
    expected_lines = [x.strip() for x in expected.split("\n") if x]
    if lines == expected_lines:
        return True
    lines = [x for x in lines if x]
    if lines == expected_lines:
        return True
    try:
        got, gold = _floats(lines), _floats(expected_lines)
        if len(got) == len(gold) and all(_close(a, b) for a, b in zip(got, gold, strict=True)):
            return True
    except (ValueError, OverflowError):
        pass
    expected_sets = [set(x.split()) for x in expected_lines]
    output_sets = [set(tokens) for tokens in (x.split() for x in lines) if tokens]
    result = {frozenset(s) for s in output_sets} == {frozenset(s) for s in expected_sets}
    try:
        rounded = {frozenset(round(float(t), 3) for t in s) for s in output_sets}
        result = result or rounded == {frozenset(round(float(t), 3) for t in s) for s in expected_sets}
    except (ValueError, OverflowError):
        pass
    return result


def _int_keys(value):
    return {int(k): v for k, v in value.items()}


def call_match(output, expected):
    """APPS's call-based comparison: tuples read as lists; the expected value may be wrapped in one more list."""
    if isinstance(output, tuple):
        output = list(output)
    ok = output == expected
    if isinstance(expected, list) and expected:
        ok = ok or output == expected[0]
    try:
        if isinstance(output[0], tuple):
            ok = ok or [list(x) for x in output] == expected[0]
    except Exception:  # noqa: BLE001 - APPS ignores any failure of this extra form
        pass
    return bool(ok)


def _json_keys(inputs, expected):
    """JSON turned APPS's integer dictionary keys into strings; turn them back as its checker does."""
    try:
        if isinstance(inputs[0], dict):
            inputs = [_int_keys(inputs[0])]
    except Exception:  # noqa: BLE001
        pass
    if isinstance(expected, dict):
        with contextlib.suppress(Exception):
            return inputs, [_int_keys(expected)]
    with contextlib.suppress(Exception):
        if isinstance(expected[0], dict):
            return inputs, [_int_keys(expected[0])]
    return inputs, expected


def _send(fd, verdict):
    os.write(fd, json.dumps(verdict).encode())


def _child(code, space, spec, index, report_fd):
    """One test, in its own process: never returns."""
    try:
        enter_child(report_fd, spec["timeout"])
        stdin = os.open("input.txt", os.O_RDONLY)
        stdout = os.open("output.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(stdin, 0)
        os.dup2(stdout, 1)
        os.dup2(devnull, 2)
        sys.stdin = open(0, encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115 - the test's own
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        fn_name = spec.get("fn_name")
        if not fn_name:
            with contextlib.suppress(SystemExit):  # APPS swallows it: the output so far is judged
                exec(code, dict(space))
            sys.stdout.flush()
            _send(report_fd, {"ran": True})
        else:
            _call(code, space, spec, index, fn_name, report_fd)
    except BaseException as exc:  # noqa: BLE001
        with contextlib.suppress(BaseException):
            sys.stdout.flush()
        _send(report_fd, {"r": -1, "error": f"{type(exc).__name__}: {clip(str(exc))}"})
    os._exit(0)


def _call(code, space, spec, index, fn_name, report_fd):
    namespace = dict(space)
    try:
        exec(code, namespace)
        target = namespace["Solution"]() if "class Solution" in spec["source"] else None
        method = getattr(target, fn_name) if target is not None else namespace[fn_name]
    except BaseException as exc:  # noqa: BLE001 - APPS: the sample does not load, a compile error
        _send(report_fd, {"r": -2, "error": f"{type(exc).__name__}: {clip(str(exc))}"})
        return
    inputs, expected = _json_keys(spec["inputs"][index], spec["outputs"][index])
    output = method(*inputs)
    _send(report_fd, {"r": call_match(output, expected), "got": clip(output)})


def run_test(code, space, spec, index):
    """Fork, run test `index`, and read its verdict; the CPU limit is the test's, the wall clock a backstop."""
    test_input = spec["inputs"][index]
    if not spec.get("fn_name"):
        text = "\n".join(test_input) if isinstance(test_input, list) else str(test_input)
        with open("input.txt", "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        open("input.txt", "w").close()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _child(code, space, spec, index, write_fd)
    os.close(write_fd)
    died, data = collect(pid, read_fd, 3 * spec["timeout"] + 2)
    if died:
        return {"r": -1, "error": died}
    try:
        verdict = json.loads(data)
    except ValueError:
        return {"r": -1, "error": "ended without a result"}
    if verdict.get("ran"):
        with open("output.txt", encoding="utf-8", errors="replace") as handle:
            got = handle.read()
        return {"r": stdio_match(got, spec["outputs"][index]), "got": clip(got)}
    return verdict


def judge(spec, source):
    if not spec["inputs"]:
        return {"results": [-2], "error": "the problem has no tests"}
    try:
        code = compile(source, "solution.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return {"results": [-2], "error": f"{type(exc).__name__}: {exc}"}
    space = prelude()
    results, first = [], None
    for index in range(len(spec["inputs"])):
        verdict = run_test(code, space, spec, index)
        if verdict["r"] == -2:
            return {"results": [-2], "error": verdict.get("error")}
        results.append(verdict["r"])
        if verdict["r"] is not True and first is None:
            expected = spec["outputs"][index] if index < len(spec["outputs"]) else None
            first = {"test": index, "input": clip(spec["inputs"][index]), "expected": clip(expected),
                     **{k: verdict[k] for k in ("got", "error") if k in verdict}}
    return {"results": results, "first_failure": first}


def main():
    spec, source = harness_inputs("tests.json")
    spec["source"] = source
    verdict = judge(spec, source)
    sys.stdout.write("\n" + RESULT_MARK + json.dumps(verdict) + "\n")
    sys.stdout.flush()


if __name__ == "__sample__":  # the sandbox's name for the program it runs; importing this module runs nothing
    main()
