"""Options declared once (pytest_codeeval/options.py): `pytest --help` lists exactly the declared flags and ini
values, the docs name exactly those, and a declaration's command-line default reads back as its field's default."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pytest_codeeval.errors import CodeevalError
from pytest_codeeval.generation.base import GenerationSettings, ModelOptions, ServerOptions
from pytest_codeeval.options import changed, declarations, read
from pytest_codeeval.settings import DECLARED, Settings, TaskOptions, read_settings

ROOT = Path(__file__).resolve().parents[2]
FLAG = re.compile(r"--codeeval-[a-z0-9]+(?:-[a-z0-9]+)*")


class Defaults:
    """A Config on which nothing was given: each option's argparse default, each ini value's default."""

    def __init__(self, rootpath: Path, **given: Any) -> None:
        self.rootpath = rootpath
        found = declarations(*DECLARED)
        self.options = {opt.dest: opt.attrs["default"] for opt in found} | given
        self.ini = {opt.ini.name: opt.ini.default for opt in found if opt.ini}

    def getoption(self, name: str) -> Any:
        return self.options[name]

    def getini(self, name: str) -> Any:
        return self.ini[name]


def documented() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in [ROOT / "README.md", *ROOT.glob("docs/*.md")])


def test_help_lists_the_declarations_and_the_docs_name_each_flag_and_ini_value(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")
    assert result.ret == 0
    text = result.stdout.str()
    helped = set(re.findall(r"^\s+(--codeeval-[a-z0-9-]+)", text, re.MULTILINE))
    found = declarations(*DECLARED)
    assert helped == {opt.flag for opt in found}
    assert len({opt.dest for opt in found}) == len(found)
    docs = documented()
    named = set(FLAG.findall(docs))
    assert sorted(helped - named) == [], "options of `pytest --help` that README.md and docs/*.md do not document"
    assert sorted(named - helped) == [], "flags README.md and docs/*.md name that `pytest --help` does not list"
    for ini in (opt.ini for opt in found if opt.ini):
        assert re.search(rf"^  {ini.name} \({ini.type}\):", text, re.MULTILINE), ini.name
        assert f"`{ini.name}`" in docs, f"ini value {ini.name} is documented nowhere"


def test_each_command_line_default_reads_as_its_field_default(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MBPPPLUS_USE_MBPP_TESTS", raising=False)
    config = Defaults(tmp_path)
    for cls in (GenerationSettings, ModelOptions, ServerOptions, TaskOptions, Settings):
        assert read(cls, config) == cls(), cls.__name__
    assert read_settings(config) == Settings(task_options=dict.fromkeys(
        ("mbppplus_mbpp_tests", "prompt", "load_data_path", "instruction_tokens")))


def test_a_declared_check_is_one_line_naming_the_flag_and_the_value(tmp_path: Path) -> None:
    with pytest.raises(CodeevalError, match=r"^--codeeval-top-p=1\.5: expected a probability above 0 and at most 1"):
        read(GenerationSettings, Defaults(tmp_path, codeeval_top_p=1.5))
    with pytest.raises(CodeevalError, match=r"^--codeeval-concurrency=0: expected at least 1 request in flight$"):
        read(ServerOptions, Defaults(tmp_path, codeeval_concurrency=0))
    # None is "not given", never checked
    assert read(ModelOptions, Defaults(tmp_path, codeeval_max_model_len=None)).max_model_len is None


def test_changed_names_the_flags_given_other_than_their_defaults() -> None:
    assert changed(GenerationSettings()) == changed(ModelOptions()) == changed(ServerOptions()) == []
    assert changed(GenerationSettings(temperature=0.8, seed=3)) == ["--codeeval-temperature", "--codeeval-seed"]
    assert changed(ServerOptions(base_urls=("http://x/v1",))) == ["--codeeval-base-url"]
    assert changed(ModelOptions(devices=("cpu",), enforce_eager=True)) == ["--codeeval-devices", "--codeeval-enforce-eager"]
