"""HumanEvalPack (bigcode/humanevalpack): BCEH's prompts and post-processing pinned on real rows, the reference
self-check, generations files, and Explain's two stages (two runs, or one run that chains them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import report, write_jsonl

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.tasks.catalogue.humanevalpack.tasks import LANGUAGES, SCENARIOS, task_class

pytestmark = pytest.mark.timeout(600)

DATA = Path(__file__).parents[2] / "data" / "humanevalpack"
PY_TASKS = [f"{scenario}-python" for scenario in SCENARIOS]


def rows(language: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / f"{language}.jsonl").read_text().splitlines()]


def task(scenario: str, language: str = "python", **options):
    made = task_class(scenario, language)(**options)
    made.dataset_override = DATA / f"{language}.jsonl"
    return made


def dataset_args(tasks: list[str], directory: Path) -> list[str]:
    for language in LANGUAGES:
        (directory / f"{language}.jsonl").write_text((DATA / f"{language}.jsonl").read_text())
    return [f"--codeeval-dataset={name}={name.rsplit('-', 1)[1]}.jsonl" for name in tasks]


# -- prompts, pinned to what BCEH's humanevalpack.py builds for Python/2 and Python/53 ---------------------------
ADD_DOC = '\n\ndef add(x: int, y: int):\n    """Add two numbers x and y\n    >>> add(2, 3)\n    5\n    >>> add(5, 7)\n    12\n    """\n'
ADD_INSTRUCTION = ("Write a Python function `add(x: int, y: int)` to solve the following problem:\nAdd two numbers x and y\n"
                   ">>> add(2, 3)\n5\n>>> add(5, 7)\n12")
ADD_TEST = ("\n\n\n\n\ndef check(add):\n    import random\n\n    assert add(0, 1) == 1\n    assert add(1, 0) == 1\n    assert "
            "add(2, 3) == 5\n    assert add(5, 7) == 12\n    assert add(7, 5) == 12\n\n    for i in range(100):\n        x, y "
            "= random.randint(0, 1000), random.randint(0, 1000)\n        assert add(x, y) == x + y\n\ncheck(add)")
TRUNCATE_DOC = ('\n\ndef truncate_number(number: float) -> float:\n    """ Given a positive floating point number, it can be '
                'decomposed into\n    and integer part (largest integer smaller than given number) and decimals\n    '
                '(leftover part always smaller than 1).\n\n    Return the decimal part of the number.\n    >>> '
                'truncate_number(3.5)\n    0.5\n    """\n')
PYTHON_IMPORTS = ("import math\nimport re\nimport sys\nimport copy\nimport datetime\nimport itertools\nimport collections\n"
                  "import heapq\nimport statistics\nimport functools\nimport hashlib\nimport numpy\nimport numpy as np\n"
                  "import string\nfrom typing import *\nfrom collections import *")

PROMPTS = [
    ("humanevalsynthesize", "instruct", 2, ADD_INSTRUCTION + "\n\n" + ADD_DOC.rstrip()),
    ("humanevalsynthesize", "continue", 2, ADD_DOC.strip()),
    ("humanevalsynthesize", "octocoder", 2, "Question: " + ADD_INSTRUCTION + "\n\nAnswer:\n" + ADD_DOC.rstrip()),
    ("humanevalsynthesize", "codellama", 1,
     "[INST] Write a Python function `truncate_number(number: float) -> float` to solve the following problem:\nGiven a "
     "positive floating point number, it can be decomposed into\nand integer part (largest integer smaller than given "
     "number) and decimals\n(leftover part always smaller than 1).\nReturn the decimal part of the number.\n>>> "
     "truncate_number(3.5)\n0.5 [/INST] " + TRUNCATE_DOC.rstrip()),
    ("humanevalfixtests", "instruct", 2,
     "def add(x: int, y: int):\n    return x + y + y + x\n\n" + ADD_TEST + "\nFix bugs in add.\n\ndef add(x: int, y: int):"),
    ("humanevalfixtests", "octocoder", 2,
     "Question: Fix bugs in add.\ndef add(x: int, y: int):\n    return x + y + y + x\n\n" + ADD_TEST
     + "\n\nAnswer:\ndef add(x: int, y: int):"),
    ("humanevalfixdocs", "instruct", 1,
     TRUNCATE_DOC.lstrip() + "    return number % 1.0 + 1.0\n\nFix bugs in truncate_number.\n\n" + TRUNCATE_DOC.rstrip()),
    ("humanevalfixdocs", "file", 2,
     "<file_name>\nadd.py\n<commit_before>\n" + ADD_DOC + "    return x + y + y + x\n\n<commit_msg>\nFix bugs in add."
     "<commit_after>\n" + ADD_DOC.rstrip()),
    ("humanevalexplaindescribe", "instruct", 2,
     "def add(x: int, y: int):\n    return x + y\n\nProvide a concise natural language description of the code using at "
     "most 56 characters."),
    ("humanevalexplaindescribe", "wizardcoder", 1,
     "Below is an instruction that describes a task. Write a response that appropriately completes the request.\n\n"
     "### Instruction:\nProvide a concise natural language description of the code using at most 246 characters.\n"
     "def truncate_number(number: float) -> float:\n    return number % 1.0\n\n\n### Response:"),
]


@pytest.mark.parametrize(("scenario", "prompt", "row", "expected"), PROMPTS, ids=[f"{s}-{p}" for s, p, _, _ in PROMPTS])
def test_prompts_are_bcehs(scenario: str, prompt: str, row: int, expected: str) -> None:
    made = task(scenario, prompt=prompt)
    assert made.get_prompt(made.docs[row]) == expected


def test_explain_synthesize_prompt_reads_the_description(tmp_path: Path) -> None:
    descriptions = tmp_path / "generations.json"
    descriptions.write_text(json.dumps([["Has close elements."], ["Decimal part."], ["Adds x and y."]]))
    made = task("humanevalexplainsynthesize", load_data_path=str(descriptions))
    assert made.get_prompt(made.docs[2]) == (
        "Adds x and y.\nWrite functional code in Python according to the description.\n\ndef add(x: int, y: int):"
    )
    made = task("humanevalexplainsynthesize", prompt="octocoder", load_data_path=str(descriptions))
    assert made.get_prompt(made.docs[1]) == (
        "Question: Write functional code in Python according to the description.\nDecimal part.\n\nAnswer:\n"
        "def truncate_number(number: float) -> float:"
    )


def test_synthesize_cuts_the_completion_and_builds_bcehs_program() -> None:
    made = task("humanevalsynthesize")
    doc = made.docs[2]
    raw = made.get_prompt(doc) + "\n    return x + y\n\n\nprint(add(1, 2))\n"
    solution = made.postprocess_generation(raw, 2)
    assert solution == ADD_DOC.rstrip() + "\n    return x + y\n\n"
    assert made.build_program(doc, solution) == (PYTHON_IMPORTS + "\n" + ADD_DOC.rstrip() + "\n    return x + y" + "\n\n" + ADD_TEST)
    # An unindented line ends the function even without a stop word.
    assert made.postprocess_generation(made.get_prompt(doc) + "\n    return x + y\nx = 1\n", 2) == ADD_DOC.rstrip() + "\n    return x + y"


def test_fix_solution_starts_from_the_code_the_model_was_shown() -> None:
    made = task("humanevalfixtests", prompt="octocoder")
    raw = made.get_prompt(made.docs[2]) + "\n    return x + y\n#test\n"
    assert made.postprocess_generation(raw, 2) == "def add(x: int, y: int):\n    return x + y"
    made = task("humanevalfixdocs")
    raw = made.get_prompt(made.docs[1]) + "\n    return number % 1.0\n<|endoftext|>"
    assert made.postprocess_generation(raw, 1) == TRUNCATE_DOC.rstrip() + "\n    return number % 1.0\n"


def test_describe_keeps_the_docstrings_length_without_code() -> None:
    made = task("humanevalexplaindescribe")
    prompt = made.get_prompt(made.docs[2])
    assert made.postprocess_generation(prompt + " Adds two integers and returns the sum.\ndef add(x, y): return x + y", 2) == (
        "Adds two integers and returns the sum."
    )
    long = " Return the sum of the two numbers x and y, which the caller passes in as ints, added."
    assert made.postprocess_generation(prompt + long, 2) == long.strip()[:56].rstrip()


def test_other_languages_cut_where_the_function_closes() -> None:
    java = task("humanevalsynthesize", "java")
    raw = java.get_prompt(java.docs[2]) + "\n        return x + y;\n    }\n}\n\npublic class Main {}"
    assert java.postprocess_generation(raw, 2).endswith("    public int add(int x, int y) {\n        return x + y;\n    }\n}")
    go = task("humanevalsynthesize", "go")
    raw = go.get_prompt(go.docs[2]) + "\n    return x + y\n}\n\nfunc main() {}"
    assert go.postprocess_generation(raw, 2).endswith("func Add(x int, y int) int {\n    return x + y\n}")


def test_unknown_and_unsupported_prompts_are_one_line_errors() -> None:
    with pytest.raises(CodeevalError, match="unknown HumanEvalPack prompt; choose one of continue, instruct"):
        task("humanevalsynthesize", prompt="instrut")
    with pytest.raises(CodeevalError, match="diff, diff-carper"):
        task("humanevalfixtests", prompt="diff")
    made = task("humanevalfixtests", prompt="continue")
    with pytest.raises(CodeevalError, match="continue is for humanevalsynthesize only"):
        made.get_prompt(made.docs[0])
    made = task("humanevalsynthesize", prompt="issue")
    with pytest.raises(CodeevalError, match=r"issue is for humanevalfix\* only"):
        made.get_prompt(made.docs[0])
    made = task("humanevalfixdocs", prompt="issue")
    assert made.get_prompt(made.docs[2]).startswith("<issue_start>username_0: Fix bugs in add.\n\n```\n\ndef add(")
    assert "<|endoftext|>" in made.stop_words and "```" in made.stop_words


# -- runs ----------------------------------------------------------------------------------------------------
def test_every_name_is_listed_with_its_hub_config(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--codeeval-list-tasks", "-v")
    out = result.stdout.str()
    for scenario in SCENARIOS:
        for language in LANGUAGES:
            assert f"{scenario}-{language} " in out
    assert "bigcode/humanevalpack:rust" in out


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_reference_self_check_python(pytester: pytest.Pytester, workers: list[str]) -> None:
    result = pytester.runpytest_subprocess(
        "--codeeval-model=reference", "--codeeval-tasks=humaneval*-python", *dataset_args(PY_TASKS, pytester.path),
        "--codeeval-strict", "--codeeval-report=r.json", *workers,
    )
    result.assert_outcomes(passed=15)
    tasks = report(pytester.path / "r.json")["tasks"]
    assert tasks["humanevalexplainsynthesize-python"]["metrics"]["pass@1"] == 1.0  # chained: docstrings described them
    assert tasks["humanevalexplaindescribe-python"]["metrics"]["described"] == 1.0


def test_generations_file_passing_and_failing(pytester: pytest.Pytester) -> None:
    data = rows("python")
    lines = []
    explain_ids = {"Python/0": ["Python/0/d0", "Python/0/d1"]}  # two descriptions of Python/0 below
    for scenario in ("humanevalsynthesize", "humanevalfixdocs", "humanevalfixtests", "humanevalexplainsynthesize"):
        name = f"{scenario}-python"
        for row in data:
            ids = explain_ids.get(row["task_id"], [row["task_id"]]) if "explain" in scenario else [row["task_id"]]
            for task_id in ids:
                lines.append({"task": name, "task_id": task_id, "completion": row["canonical_solution"]})
                lines.append({"task": name, "task_id": task_id, "completion": row["buggy_solution"]})
    for row in data:
        lines.append({"task": "humanevalexplaindescribe-python", "task_id": row["task_id"], "completion": row["docstring"]})
    lines.append({"task": "humanevalexplaindescribe-python", "task_id": "Python/0", "completion": "   "})
    write_jsonl(pytester.path / "gen.jsonl", lines)
    result = pytester.runpytest_subprocess(
        "--codeeval-load-generations=gen.jsonl", *dataset_args(PY_TASKS, pytester.path), "-n", "2",
        "--codeeval-report=r.json", "--codeeval-k=1",
    )
    assert result.ret == 0
    tasks = report(pytester.path / "r.json")["tasks"]
    for scenario in ("humanevalsynthesize", "humanevalfixdocs", "humanevalfixtests"):
        problems = tasks[f"{scenario}-python"]["problems"]
        assert {pid: (p["n"], p["passed"]) for pid, p in problems.items()} == {
            "Python/0": (2, 1), "Python/2": (2, 1), "Python/53": (2, 1)}
    # Describe's two samples for Python/0 make two problems of synthesize; the blank description fails describe.
    explain = tasks["humanevalexplainsynthesize-python"]["problems"]
    assert sorted(explain) == ["Python/0/d0", "Python/0/d1", "Python/2", "Python/53"]
    assert {pid: (p["n"], p["passed"]) for pid, p in explain.items()} == {
        "Python/0/d0": (2, 1), "Python/0/d1": (2, 1), "Python/2": (2, 1), "Python/53": (2, 1)}
    assert tasks["humanevalexplaindescribe-python"]["metrics"]["described"] == pytest.approx((0.5 + 1 + 1) / 3)
    result.stdout.fnmatch_lines(["*humanevalexplaindescribe-python Python/0 sample 1*", "*", "failed: wrong answer: described = 0"])


def test_explain_two_runs_with_bcehs_descriptions_file(pytester: pytest.Pytester) -> None:
    pytester.path.joinpath("descriptions.json").write_text(json.dumps([["Close elements."], ["Decimal part."], ["Add."]]))
    result = pytester.runpytest_subprocess(
        "--codeeval-model=reference", "--codeeval-tasks=humanevalexplainsynthesize-python",
        "--codeeval-load-data-path=descriptions.json", *dataset_args(["humanevalexplainsynthesize-python"], pytester.path),
        "--codeeval-strict",
    )
    result.assert_outcomes(passed=3)


@pytest.mark.parametrize(("content", "message"), [
    ("[[1, 2]]", "not a list of lists of strings"),
    ('{"task_id": "Python/0"}\n', "descriptions.json:1: not a {\"task_id\", \"completion\"} line"),
    ("[", "not valid JSON at line 1"),
])
def test_bad_descriptions_file_is_one_line(pytester: pytest.Pytester, content: str, message: str) -> None:
    pytester.path.joinpath("descriptions.json").write_text(content)
    result = pytester.runpytest_subprocess(
        "--codeeval-model=reference", "--codeeval-tasks=humanevalexplainsynthesize-python",
        "--codeeval-load-data-path=descriptions.json", *dataset_args(["humanevalexplainsynthesize-python"], pytester.path),
    )
    assert result.ret != pytest.ExitCode.OK  # found while collecting, as a bad --codeeval-dataset file is
    assert message in result.stdout.str() + result.stderr.str()
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_explain_chained_in_one_run_equals_two_runs(pytester: pytest.Pytester, tmp_path: Path) -> None:
    """One command generates the descriptions, then the code from them (-n 2). Run again as BCEH's two runs,
    from the first run's saved descriptions, every synthesize prompt is the same: the cache answers them all."""
    from tiny_models import build

    model = f"--codeeval-model={build('llama', tmp_path / 'llama')}"
    names = ["humanevalexplaindescribe-python", "humanevalexplainsynthesize-python"]
    common = [model, "--codeeval-max-new-tokens=6", "--codeeval-cache-dir=cache", *dataset_args(names, pytester.path)]
    chained = pytester.runpytest_subprocess(*common, f"--codeeval-tasks={','.join(names)}", "-n", "2",
                                            "--codeeval-save-generations=gen.jsonl", "--codeeval-report=r1.json")
    outcomes = chained.parseoutcomes()
    assert outcomes.get("passed", 0) + outcomes.get("failed", 0) == 6 and chained.ret in (0, 1)
    first = report(pytester.path / "r1.json")
    assert first["generation"]["generated"] == 6 and first["generation"]["model_loads"] == 2
    assert sorted(first["tasks"]["humanevalexplainsynthesize-python"]["problems"]) == ["Python/0", "Python/2", "Python/53"]
    saved = [json.loads(line) for line in (pytester.path / "gen.jsonl").read_text().splitlines()]
    assert {line["task"] for line in saved} == set(names)
    second = pytester.runpytest_subprocess(*common, "--codeeval-tasks=humanevalexplainsynthesize-python",
                                           "--codeeval-load-data-path=gen.jsonl", "--codeeval-report=r2.json")
    assert second.ret in (0, 1)
    assert report(pytester.path / "r2.json")["generation"]["cached"] == 3
    assert report(pytester.path / "r2.json")["generation"]["generated"] == 0
    # Synthesize alone, without a descriptions file: describe's samples are generated for it (from the cache here).
    alone = pytester.runpytest_subprocess(*common, "--codeeval-tasks=humanevalexplainsynthesize-python",
                                          "--codeeval-report=r3.json")
    assert alone.ret in (0, 1)
    assert report(pytester.path / "r3.json")["generation"]["cached"] == 6


# -- programs in the other languages, pinned to what BCEH's process_results builds (row 2: `add`) --------------------
GO_SETUP = 'package main\n\nimport (\n    "testing"\n    "math/rand"\n    "github.com/stretchr/testify/assert"\n)\n\n'
RUST_USES = ("use std::{slice::Iter, cmp::{max, self}, mem::replace, collections::{HashSet, HashMap}, ops::Index, "
             "ascii::AsciiExt};\nuse rand::Rng;\nuse regex::Regex;\nuse md5;\nuse std::any::{Any, TypeId};\n")
CPP_HEADERS = ("using namespace std;\n#include<stdlib.h>\n#include<algorithm>\n#include<cmath>\n#include<math.h>\n"
               "#include<numeric>\n#include<stdio.h>\n#include<vector>\n#include<set>\n#include<map>\n#include<queue>\n"
               "#include<stack>\n#include<list>\n#include<deque>\n#include<boost/any.hpp>\n#include<string>\n"
               "#include<climits>\n#include<cstring>\n#include<iostream>\n#include<sstream>\n#include<fstream>\n")


def test_reference_programs_of_the_other_languages_are_bcehs() -> None:
    programs = {}
    for language in ("js", "java", "go", "cpp", "rust"):
        made = task("humanevalsynthesize", language)
        programs[language] = (made.build_program(made.docs[2], made.get_solution(made.docs[2])), made.docs[2])
    js, doc = programs["js"]
    assert js == doc["prompt"] + "  return x + y;\n}\n\n" + "\n\n" + doc["test"]
    java, doc = programs["java"]
    assert java == doc["prompt"] + "        return x + y;\n    }\n}" + "\n\n" + doc["test"]
    go, doc = programs["go"]
    assert go == GO_SETUP + doc["prompt"] + "    return x + y\n}\n\n" + "\n\n" + doc["test"]
    cpp, doc = programs["cpp"]
    assert cpp == CPP_HEADERS + doc["prompt"] + "    return x+y;\n}" + "\n\n" + doc["test"]
    rust, doc = programs["rust"]
    assert rust == doc["prompt"] + "\n    return x + y;\n}\n" + "\n\n" + doc["test"]


def test_other_languages_get_bcehs_missing_pieces(tmp_path: Path) -> None:
    go = task("humanevalfixtests", "go")
    solution = "\nfunc HasCloseElements(numbers []float64, threshold float64) bool {\n    return math.Abs(numbers[0]) < threshold\n}"
    setup = 'package main\n\nimport (\n    "testing"\n    "github.com/stretchr/testify/assert"\n)\n\n'
    assert go.build_program(go.docs[0], solution) == setup + 'import (\n    "math"\n)\n' + solution + "\n\n" + go.docs[0]["test"]
    (tmp_path / "descriptions.json").write_text(json.dumps([["a"], ["b"], ["c"]]))
    rust = task("humanevalexplainsynthesize", "rust", load_data_path=str(tmp_path / "descriptions.json"))
    bare = "fn add(x:i32, y:i32) -> i32{\n    x + y\n}\nfn main(){}\nfn main(){}"
    assert rust.build_program(rust.docs[2], bare) == (
        RUST_USES + "fn add(x:i32, y:i32) -> i32{\n    x + y\n}\nfn main(){}\n" + "\n\n" + rust.docs[2]["test"])
    cpp = task("humanevalfixdocs", "cpp")
    with_main = cpp.docs[2]["prompt"] + "    return x+y;\n}\nint main(){ return 0; }"
    assert cpp.build_program(cpp.docs[2], with_main) == CPP_HEADERS + cpp.docs[2]["prompt"] + "    return x+y;\n}" + "\n\n" + cpp.docs[2]["test"]


OTHER = ("js", "java", "go", "cpp", "rust")


@pytest.fixture
def real_toolchain_homes(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytester gives runs a fresh HOME; rustup's toolchains stay where the real home has them."""
    import os
    import pwd

    home = pwd.getpwuid(os.getuid()).pw_dir
    for name, variable in ((".rustup", "RUSTUP_HOME"), (".cargo", "CARGO_HOME")):
        if not os.environ.get(variable) and os.path.isdir(os.path.join(home, name)):
            monkeypatch.setenv(variable, os.path.join(home, name))


@pytest.mark.usefixtures("real_toolchain_homes")
@pytest.mark.parametrize("language", OTHER)
def test_other_languages_run_for_real(pytester: pytest.Pytester, language: str) -> None:
    """Reference self-check and a generations file (canonical, buggy, not compiling), with the real toolchain in
    the sandbox; -n 2 for the generations file. Skipped, naming the package, where the toolchain is missing."""
    from pytest_codeeval.runners import get_runner
    from pytest_codeeval.tasks.catalogue.humanevalpack.tasks import RUNNER_LANGUAGES

    missing = get_runner(RUNNER_LANGUAGES[language]).unavailable()
    if missing:
        pytest.skip(missing)
    names = [f"humanevalsynthesize-{language}", f"humanevalfixtests-{language}"]
    reference = pytester.runpytest_subprocess("--codeeval-model=reference", f"--codeeval-tasks={','.join(names)}",
                                              *dataset_args(names, pytester.path), "--codeeval-strict")
    assert reference.ret == 0, reference.stdout.str()[-3000:]
    data = rows(language)
    lines = [{"task": names[1], "task_id": row["task_id"], "completion": completion}
             for row in data for completion in (row["canonical_solution"], row["buggy_solution"])]
    lines.append({"task": names[1], "task_id": data[-1]["task_id"], "completion": "}}} not code {{{"})
    write_jsonl(pytester.path / "gen.jsonl", lines)
    result = pytester.runpytest_subprocess("--codeeval-load-generations=gen.jsonl", *dataset_args(names[1:], pytester.path),
                                           "-n", "2", "--codeeval-report=r.json", "--codeeval-k=1")
    assert result.ret == 0, result.stdout.str()[-3000:]
    problems = report(pytester.path / "r.json")["tasks"][names[1]]["problems"]
    counts = {pid: (p["n"], p["passed"]) for pid, p in problems.items()}
    assert counts == {row["task_id"]: (3 if row is data[-1] else 2, 1) for row in data}
    result.stdout.fnmatch_lines(["failed: *error*"])  # the program that is not code: a compile or syntax error


def test_a_missing_toolchain_is_one_line_for_a_named_task_and_a_skip_for_a_matched_one(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its prompts and rows need no toolchain (the tests above run without Go); running its programs does."""
    monkeypatch.setenv("PATH", "/nonexistent")
    names = ["humanevalsynthesize-go", "humanevalfixtests-go"]
    named = pytester.runpytest_subprocess("--codeeval-model=reference", f"--codeeval-tasks={names[0]}",
                                          *dataset_args(names, pytester.path), "-n", "2")
    assert named.ret == pytest.ExitCode.USAGE_ERROR
    named.stderr.fnmatch_lines(["ERROR: humanevalsynthesize-go: Go toolchain not installed (go not found): apt-get*"])
    matched = pytester.runpytest_subprocess("--codeeval-model=reference", "--codeeval-tasks=humaneval*-go",
                                            *dataset_args(names, pytester.path))
    matched.stdout.fnmatch_lines(["codeeval: skipped * humaneval*-go*: Go toolchain not installed (go not found)*"])
    assert matched.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_prompt_option_reaches_the_tasks_that_take_one(pytester: pytest.Pytester) -> None:
    bad = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=humanevalsynthesize-python",
                             "--codeeval-prompt=instrut", *dataset_args(["humanevalsynthesize-python"], pytester.path))
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["ERROR: *--codeeval-prompt=instrut: unknown HumanEvalPack prompt*"])
    # humaneval has no prompt formats: named with one, it is refused rather than run without it (issue 26)
    mixed = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=humaneval,humanevalsynthesize-python",
                               "--codeeval-prompt=octocoder", *dataset_args(["humanevalsynthesize-python"], pytester.path))
    assert mixed.ret == pytest.ExitCode.USAGE_ERROR
    mixed.stderr.fnmatch_lines(["ERROR: --codeeval-prompt=octocoder: task 'humaneval' has no prompt formats*"])
    ok = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=humanevalsynthesize-python",
                            "--codeeval-prompt=octocoder", "--codeeval-limit=1", "--codeeval-report=r.json",
                            *dataset_args(["humanevalsynthesize-python"], pytester.path))
    ok.assert_outcomes(passed=1)
    assert report(pytester.path / "r.json")["config"]["task_options"] == {"prompt": "octocoder"}


def test_a_plain_run_leaves_the_family_out_and_no_hub_is_one_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = pytester.runpytest("--codeeval-model=reference", "--codeeval-limit=1", "--codeeval-report=r.json")
    plain.assert_outcomes(passed=1)
    assert list(report(pytester.path / "r.json")["tasks"]) == ["humaneval"]
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    offline = pytester.runpytest("--codeeval-model=reference", "--codeeval-tasks=humanevalfixdocs-python")
    assert offline.ret == pytest.ExitCode.USAGE_ERROR
    offline.stderr.fnmatch_lines(["ERROR: humanevalfixdocs-python: no data here: the hub is unreachable and "
                                  "bigcode/humanevalpack:python is not in the local datasets cache; give the split's rows "
                                  "in the hub's schema with --codeeval-dataset=humanevalfixdocs-python=PATH"])
