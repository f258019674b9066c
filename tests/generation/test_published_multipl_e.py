"""MultiPL-E's published 2022 results files (nuprl/MultiPL-E `experiments/`, excerpts: tests/data/README.md) judged
here as their own programs agree with the statuses MultiPL-E's evaluator wrote into them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import language_or_skip

PUBLISHED = Path(__file__).parent.parent / "data" / "multiple" / "published_2022"

# language folder: (samples, passed, disagreements expected with their reason; none so far)
EXPECTED = {
    "r": (3, 2, []),  # r-davinci-0.2-keep: whole programs only (no prompt, tests); one SyntaxError, two OK
    "cpp": (4, 4, []),  # cpp-codegen-0.2-reworded: all OK, the digit-sum completion too (single-digit tests)
    "lua": (2, 2, []),  # lua-davinci-0.2-keep: whole programs only, both OK
    "js": (3, 2, []),  # js-davinci-0.2-keep: whole programs only; an empty body fails its AssertionError here too
    "rb": (2, 2, []),  # rb-davinci-0.2-keep: whole programs only, both OK
    "rkt": (3, 3, []),  # rkt-davinci-0.2-keep: whole programs only, all the same (the completion is read empty)
}


@pytest.mark.parametrize(("language", "workers"), [("r", "0"), ("r", "2"), ("cpp", "0"), ("lua", "2"), ("rkt", "0"), ("js", "2"), ("rb", "0")])
def test_published_2022_results_agree_with_their_verdicts(pytester: pytest.Pytester, language: str,
                                                         workers: str) -> None:
    """Every sample's verdict here equals the file's `status` (OK is a pass); a loader or runner defect would
    show as a disagreement or a load error."""
    language_or_skip(language)
    shutil.copytree(PUBLISHED / language, pytester.path / "gens")
    samples, passed, disagreements = EXPECTED[language]
    result = pytester.runpytest("--codeeval-load-generations=gens", "--codeeval-report=r.json", "-n", workers)
    result.assert_outcomes(passed=passed, failed=samples - passed)
    verdicts = json.loads((pytester.path / "r.json").read_text())["file_verdicts"]
    assert (verdicts["compared"], verdicts["disagreements"]) == (samples, disagreements)


def test_an_early_results_file_without_lines_to_split_is_named(pytester: pytest.Pytester) -> None:
    """A file with neither prompt nor tests whose program is one line: no line to tell the prompt from the tests."""
    data = {"name": "HumanEval_53_add", "language": "lua", "results": [{"program": "return 1", "status": "OK"}]}
    (pytester.path / "gens").mkdir()
    (pytester.path / "gens" / "HumanEval_53_add.results.json").write_text(json.dumps(data))
    result = pytester.runpytest("--codeeval-load-generations=gens")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*HumanEval_53_add.results.json: no 'prompt', 'tests' and its programs share no*"])
