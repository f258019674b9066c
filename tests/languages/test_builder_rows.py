"""The offline `multiple-<lang>` and `multiple-mbpp-<lang>` rows against MultiPL-E's own builder output
(tests/data/multiple/builder/, nuprl/MultiPL-E commit 8963d9a): the same problems, and for each one the same
prompt, tests and stop tokens, byte for byte."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_codeeval.languages import get_language
from pytest_codeeval.languages.translate import SOURCES, rows
from pytest_codeeval.tasks.catalogue.multiple import LANGUAGES

BUILDER = Path(__file__).parents[1] / "data" / "multiple" / "builder"
FIELDS = ("prompt", "tests", "stop_tokens")


def builder_rows(source: str, language: str) -> list[dict[str, Any]]:
    with gzip.open(BUILDER / f"{source}-{language}.jsonl.gz", "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def first_difference(ours: str, theirs: str) -> str:
    """Where two texts part, with a little context on each side."""
    at = next((i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), min(len(ours), len(theirs)))
    return (
        f"at character {at}: ours {ours[max(0, at - 40) : at + 40]!r}, builder's {theirs[max(0, at - 40) : at + 40]!r}"
    )


def differences(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> list[str]:
    """What differs, one line each: problems kept by one side only, then each differing field of each problem."""
    mine = {row["name"]: row for row in ours}
    built = {row["name"]: row for row in theirs}
    found = [f"only in ours: {name}" for name in mine if name not in built]
    found += [f"only in the builder's: {name}" for name in built if name not in mine]
    for name in (name for name in built if name in mine):
        for field in FIELDS:
            a, b = mine[name][field], built[name][field]
            if a != b:
                detail = first_difference(a, b) if isinstance(a, str) else f"ours {a!r}, builder's {b!r}"
                found.append(f"{name} {field} {detail}")
    return found


def identical(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> int:
    """How many of the builder's rows ours has with the same prompt, tests and stop tokens."""
    mine = {row["name"]: row for row in ours}
    return sum(all(mine.get(row["name"], {}).get(f) == row[f] for f in FIELDS) for row in theirs)


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_rows_equal_the_builders(source: str, language: str) -> None:
    ours = rows(get_language(language), source)
    theirs = builder_rows(source, language)
    found = differences(ours, theirs)
    same = identical(ours, theirs)
    assert not found, (
        f"{source}-{language}: {len(found)} differences ({same} of {len(theirs)} builder rows identical"
        f"{', ' + str(len(ours)) + ' rows ours' if len(ours) != len(theirs) else ''}); first: {found[0]}"
    )
    assert [row["name"] for row in ours] == [row["name"] for row in theirs]  # the same order too


def test_a_difference_is_reported_with_its_row_and_place() -> None:
    """The report names the first differing problem, the field, and where the texts part."""
    theirs = builder_rows("humaneval", "lua")[:2]
    ours = [dict(theirs[0], tests=theirs[0]["tests"].replace("lu.assertEquals", "lu.assertEqual", 1)), theirs[1]]
    found = differences(ours, theirs)
    assert len(found) == 1
    assert found[0].startswith(f"{theirs[0]['name']} tests at character ")
    assert "assertEqual(" in found[0] and "assertEquals(" in found[0]
    assert differences(theirs[:1], theirs) == [f"only in the builder's: {theirs[1]['name']}"]
