"""DS-1000's original release, as bigcode-evaluation-harness reads it for insertion mode: `ds1000_data/LIB/MODE/qN/`
per problem, with `prompt.txt` (the insertion prompt marks the gap with `[insert]`), `reference_code.txt`,
`code_context.txt` (the test program, `[insert]` where the solution goes), `test_code.py` (`test(result, ans)`, and
`stringTest(code)` for test type 3), `.cfg` (library, test type and case count, perturbation) and pickled inputs
and answers (`input/inputI.pkl`, `ans/ansI.pkl`) with `test_generate_pickle.py`, the program that wrote them. The hub's
simplified release has completion prompts only."""

from __future__ import annotations

import configparser
import os
import shutil
import tempfile
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

from pytest_codeeval.errors import CodeevalError, DataUnavailable

# the release bigcode-evaluation-harness downloads (HKUNLP/DS-1000 at the commit it pins)
RELEASE_URL = ("https://github.com/HKUNLP/DS-1000/blob/49c1c543ada8b58138181333cdc62e613204efcf/ds1000_data.zip"
               "?raw=true")
TEXTS = {"prompt": "prompt.txt", "reference_code": "reference_code.txt", "code_context": "code_context.txt",
         "test_code": "test_code.py", "test_generate_pickle": "test_generate_pickle.py"}


def cached_release(task: str) -> Path:
    """The release's `ds1000_data` directory, downloaded once into the user's cache (`task`: named if it cannot be)."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pytest-codeeval" / "ds1000"
    root = cache / "ds1000_data"
    if root.is_dir():
        return root
    cache.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryDirectory(dir=cache) as tmp:
            archive = Path(tmp) / "ds1000_data.zip"
            with urllib.request.urlopen(RELEASE_URL, timeout=120) as response, archive.open("wb") as out:
                shutil.copyfileobj(response, out)
            with zipfile.ZipFile(archive) as zipped:
                zipped.extractall(tmp)
            if not root.is_dir():  # another process may have finished first
                (Path(tmp) / "ds1000_data").rename(root)
    except (OSError, zipfile.BadZipFile) as exc:
        raise DataUnavailable(
            task, f"DS-1000's original release could not be downloaded from {RELEASE_URL} ({exc})",
            "download and unzip it yourself and name its ds1000_data directory: "
            "--codeeval-dataset={task}=PATH/ds1000_data", "DS-1000's original release could not be downloaded",
        ) from None
    return root


def read_problem(path: Path) -> dict[str, Any]:
    """One problem directory as a row: its texts and its .cfg fields."""
    try:
        config = configparser.RawConfigParser()
        config.read(path / ".cfg")
        row: dict[str, Any] = {"problem_id": int(path.name.removeprefix("q")), "lib": config.get("library", "lib"),
                               "test_type": config.getint("test", "test_type"),
                               "test_case_cnt": config.getint("test", "test_case_cnt"),
                               "perturbation_type": config.get("perturbation", "perturbation_type"),
                               "perturbation_origin_id": config.getint("perturbation", "perturbation_origin_id")}
        for key, name in TEXTS.items():
            row[key] = (path / name).read_text(encoding="utf-8")
    except (OSError, ValueError, configparser.Error) as exc:
        raise CodeevalError(f"DS-1000 problem directory {path}: {exc}; it should hold the original release's files "
                            f"({', '.join(['.cfg', *TEXTS.values()])})") from None
    return row


def read_release(root: Path, library: str, mode: str) -> list[dict[str, Any]]:
    """A library's problems in one mode, in the release's order (by N of qN)."""
    folder = root / library / mode
    if not folder.is_dir():
        raise CodeevalError(f"{root} has no {library}/{mode} directory: name DS-1000's original release "
                            "ds1000_data directory (--codeeval-dataset=TASK=PATH/ds1000_data)")
    problems = sorted((p for p in folder.iterdir() if p.is_dir() and p.name.startswith("q")),
                      key=lambda p: int(p.name[1:]))
    return [read_problem(p) for p in problems]


# The release's test, run in the sandbox. Each case first runs test_generate_pickle.py (`--test_case I`), which writes
# the case's input and answer pickles as the release's authors made them (the stored ones were written by pandas 1.3
# and do not load in pandas 2 or later), then the code context with the solution at [insert] as `program.py
# --test_case I`, which writes result/result_I.pkl; test_code's test(result, ans) must give 1. Test type 3 also asks
# test_code's stringTest() about the code without its print lines, as the release does, first.
HARNESS = """import os, pickle, sys
for _folder in ("input", "ans", "result"):
    os.makedirs(_folder, exist_ok=True)
_tests = {"__name__": "test_code"}
exec(compile(TEST_CODE, "test_code.py", "exec"), _tests)
if TEST_TYPE == 3:
    _code = "\\n".join(l for l in CODE.split("\\n") if not ("print" in l and "#" not in l.split("print")))
    assert _tests["stringTest"](_code), "stringTest failed"
for _case in range(1, max(1, CASES) + 1):
    sys.argv = ["test_generate_pickle.py", "--test_case", str(_case)]
    exec(compile(GENERATE, "test_generate_pickle.py", "exec"), {"__name__": "__main__"})
    sys.argv = ["program.py", "--test_case", str(_case)]
    exec(compile(CONTEXT.replace("[insert]", CODE), "program.py", "exec"), {"__name__": "__main__"})
    with open(f"result/result_{_case}.pkl", "rb") as _f:
        _result = pickle.load(_f)
    _ans = None
    if os.path.exists(f"ans/ans{_case}.pkl"):
        with open(f"ans/ans{_case}.pkl", "rb") as _f:
            _ans = pickle.load(_f)
    assert _tests["test"](_result, _ans) == 1, f"test case {_case}: wrong result"
"""


def release_program(prelude: str, row: dict[str, Any], solution: str) -> str:
    """The sandbox program that tests `solution` on one problem of the original release."""
    values = {"GENERATE": row["test_generate_pickle"], "TEST_CODE": row["test_code"], "CONTEXT": row["code_context"],
              "CODE": solution, "TEST_TYPE": row["test_type"], "CASES": row["test_case_cnt"]}
    return prelude + "".join(f"{name} = {value!r}\n" for name, value in values.items()) + HARNESS
