"""The stdio judge's comparisons (APPS's: a program's printed text against the expected output, and a called
solution's value against the expected one), as APPS's own evaluator compares."""

from __future__ import annotations

import pytest

from pytest_codeeval.judges.stdio_harness import call_match, stdio_match


@pytest.mark.parametrize("text, expected, verdict", [
    ("3\n", "3\n", True),
    ("  3  \n\n", "3", True),                      # the whole text stripped
    ("1 2\n3 4\n", ["1 2", "3 4"], True),           # expected lines joined
    ("1 2 \n\n3 4\n", "1 2\n3 4\n", True),         # each line stripped, blank lines dropped
    ("0.3333333\n", "0.333333\n", True),           # numbers within numpy's allclose
    ("0.33\n", "0.333\n", False),
    ("b a\nc\n", "c\na b\n", True),                # lines as sets of tokens, in any order
    ("1.00001 2\n", "1.0 2\n", True),              # tokens as numbers rounded to 3 places
    ("Yes\n1 4\n", "Yes\n1 4 ", True),
    ("No\n", "Yes\n", False),
    ("", "1\n", False),
])
def test_stdio_comparison_is_apps(text: str, expected: object, verdict: bool) -> None:
    assert stdio_match(text, expected) is verdict


def test_call_comparison_is_apps() -> None:
    assert call_match((1, 2), [1, 2]) and call_match([1, 2], [[1, 2]]) and call_match([(1, 2)], [[[1, 2]]])
    assert call_match("x", ["x"]) and not call_match(3, [4])
