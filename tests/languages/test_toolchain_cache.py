"""Toolchain artefacts built once per machine (C++'s precompiled header, Go's seeded build cache, GHC's main object):
built once under a lock, tried again after a failed build; for GHC's main, a program that behaves as the one GHC
links itself; Go's cache read in place where the sandbox makes it read-only, and left as it was."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from pytest_codeeval.languages import get_language
from pytest_codeeval.languages.haskell import main_object
from pytest_codeeval.sandbox import toolchains


def test_an_artefact_is_built_once_and_a_failed_build_is_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(toolchains, "cache_dir", lambda: str(tmp_path))
    calls: list[str] = []

    def failing(directory: str) -> bool:
        calls.append("failing")
        return False

    def building(directory: str) -> bool:
        calls.append("building")
        Path(directory).mkdir()
        (Path(directory) / "done").write_text("")
        return True

    assert toolchains.built_once("thing", "done", failing) is None
    assert toolchains.built_once("thing", "done", building) == str(tmp_path / "thing")
    assert toolchains.built_once("thing", "done", building) == str(tmp_path / "thing")
    assert calls == ["failing", "building"]


@pytest.mark.skipif(shutil.which("ghc") is None, reason="GHC not installed: apt-get install ghc")
def test_a_haskell_program_linked_with_the_main_compiled_once_runs_as_ghc_s_own(tmp_path: Path) -> None:
    main = main_object()
    assert main is not None
    assert get_language("hs").build_commands("program.hs")[0][-2:] == ["-no-hs-main", main]
    (tmp_path / "program.hs").write_text('main :: IO ()\nmain = do\n  putStrLn "ran"\n  error "assertion failed"\n')
    runs = {}
    for name, extra in (("ghc", []), ("ours", ["-no-hs-main", main])):
        built = subprocess.run(
            ["ghc", "-dynamic", "program.hs", "-o", name, "-outputdir", f"out-{name}", *extra],
            cwd=tmp_path, capture_output=True, text=True, timeout=300,
        )
        assert built.returncode == 0, built.stderr
        runs[name] = [
            subprocess.run([f"./{name}", *options], cwd=tmp_path, capture_output=True, text=True, timeout=60)
            for options in ([], ["+RTS", "-M1k", "-RTS"], ["+RTS", "--info", "-RTS"])
        ]
    for ghc_s, ours in zip(runs["ghc"], runs["ours"], strict=True):
        assert (ours.returncode, ours.stdout, ours.stderr.replace("ours:", "")) == (
            ghc_s.returncode, ghc_s.stdout, ghc_s.stderr.replace("ghc:", "")
        )
    plain, limited, _ = runs["ours"]
    assert (plain.returncode, plain.stdout) == (1, "ran\n")
    assert "Most RTS options are disabled" in limited.stderr  # only the safe RTS options, as GHC's own main


def _listing(directory: str) -> list[tuple[str, int, int]]:
    return sorted((str(path), path.stat().st_size, path.stat().st_mtime_ns) for path in Path(directory).rglob("*"))


@pytest.mark.parametrize(("level", "kind"), [("strict", "a link to it"), ("basic", "a copy")])
def test_a_go_build_reads_the_shared_cache_in_place_only_where_it_is_read_only(level: str, kind: str) -> None:
    """Read-only in the sandbox, the shared cache is the sample's build cache (no copy per sample); at `basic`,
    where a sample could write to it, a copy. Either way a passing program's build leaves it as it was."""
    from helpers import language_or_skip

    from pytest_codeeval.languages import go
    from pytest_codeeval.languages.translate import originals, translate_original
    from pytest_codeeval.sandbox import get_executor
    from pytest_codeeval.sandbox.api import Limits

    language = language_or_skip("go")
    warm = go.warm_cache(language.env, language.warm_up)
    assert warm is not None
    seeded = get_language("sh").run(
        f"sh -c {shlex.quote(go.SEED)} seed {shlex.quote(warm)} $HOME/gocache\n"
        '[ -L "$HOME/gocache" ] && echo "a link to it" || { [ -f "$HOME/gocache/README" ] && echo "a copy"; }\nexit 3\n',
        Limits(cpu_seconds=10), get_executor(level))
    assert seeded.output.strip() == kind, seeded.output
    before = _listing(warm)
    first = next(original for original in originals("humaneval") if original.number == 0)
    prompt, tests = translate_original(language, first)
    completion = json.loads((Path(__file__).parents[1] / "data" / "multiple" / "completions.json").read_text())
    program = prompt + completion["go"]["ok"]
    outcome = language.run(f"{program}\n{tests}", Limits(cpu_seconds=15), get_executor(level), tests_at=len(program))
    assert (outcome.status, outcome.detail) == ("passed", "ok"), outcome.output
    assert _listing(warm) == before
