"""Options declared once, on the field of the value they fill: flag, help, argparse's attributes, the ini name, the
parsing and the check. pytest's `addoption`/`addini` calls and the reading of a Config into the dataclass both walk
these declarations, so adding an option is one field (docs/architecture.md, "Where to add things")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, Field, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pytest_codeeval.errors import CodeevalError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")
SAME = object()  # argparse's default is the field's own


class Config(Protocol):
    """What is read of pytest's Config: the options, the ini values and the rootdir (a Protocol, so that nothing
    below the pytest layer imports pytest)."""

    @property
    def rootpath(self) -> Path: ...

    def getoption(self, name: str) -> Any: ...

    def getini(self, name: str) -> Any: ...


class Group(Protocol):
    """pytest's OptionGroup, as far as declaring options needs it."""

    def addoption(self, *opts: str, **attrs: Any) -> None: ...


class IniParser(Protocol):
    """pytest's Parser, as far as declaring ini values needs it."""

    def addini(self, name: str, help: str, type: Any = ..., default: Any = ...) -> None: ...


@dataclass(frozen=True)
class Ini:
    """An ini value that the option's reader combines with the flag (`read=`)."""

    name: str
    type: str
    help: str
    default: Any


@dataclass(frozen=True)
class Option:
    """One option, kept in its field's metadata."""

    flag: str
    help: str
    attrs: dict[str, Any]  # argparse's: default, type, choices, metavar, action
    parse: Callable[[Any, str], Any] | None  # (the flag's value, the flag) -> the field's value
    check: Callable[[Any], bool] | None  # false: "FLAG=VALUE: expect" (not called on None)
    expect: str
    read: Callable[[Config, Option], Any] | None  # a value made of the flag and something else (an ini value)
    ini: Ini | None

    @property
    def dest(self) -> str:
        """The name pytest stores the value under (its rule for a long flag)."""
        return self.flag.lstrip("-").replace("-", "_")

    def value(self, config: Config) -> Any:
        if self.read is not None:
            return self.read(config, self)
        given = config.getoption(self.dest)
        value = self.parse(given, self.flag) if self.parse else given
        if self.check is not None and value is not None and not self.check(value):
            raise CodeevalError(f"{self.flag}={value}: {self.expect}")
        return value


def option(
    flag: str, help: str, *, default: Any = None, factory: Callable[[], Any] | None = None, raw: Any = SAME,
    parse: Callable[[Any, str], Any] | None = None, check: Callable[[Any], bool] | None = None, expect: str = "",
    read: Callable[[Config, Option], Any] | None = None, ini: Ini | None = None, **attrs: Any,
) -> Any:
    """A dataclass field filled from `flag`: `default` is the field's (`factory` makes it), `raw` argparse's where it
    differs (the text `parse` turns into the field's value); `check` and `expect` make the one-line error."""
    attrs["default"] = default if raw is SAME else raw
    declared = Option(flag, help, attrs, parse, check, expect, read, ini)
    if factory is not None:
        return field(default_factory=factory, metadata={"option": declared})
    return field(default=default, metadata={"option": declared})


def declared(item: Field[Any]) -> Option | None:
    found = item.metadata.get("option")
    return found if isinstance(found, Option) else None


def declarations(*classes: type) -> list[Option]:
    return [found for cls in classes for item in fields(cls) if (found := declared(item))]


def add_options(group: Group, parser: IniParser, *classes: type) -> None:
    """pytest_addoption's work: every declared flag, then every declared ini value."""
    found = declarations(*classes)
    for opt in found:
        group.addoption(opt.flag, help=opt.help, **opt.attrs)
    for ini in (opt.ini for opt in found if opt.ini):
        parser.addini(ini.name, ini.help, type=ini.type, default=ini.default)


def read(cls: type[T], config: Config, **given: Any) -> T:
    """`cls` made of its declared options' values (parsed and checked in field order), and `given` for the rest."""
    values = {item.name: found.value(config) for item in fields(cls) if (found := declared(item))}
    return cls(**values, **given)


def changed(value: Any) -> list[str]:
    """The flags of a declared dataclass's fields that hold other than their defaults."""
    return [
        found.flag for item in fields(value)
        if (found := declared(item)) and getattr(value, item.name) != _default(item)
    ]


def _default(item: Field[Any]) -> Any:
    return item.default_factory() if item.default is MISSING and item.default_factory is not MISSING else item.default


def flag_of(cls: type, name: str) -> str:
    """The flag that fills `cls.name`, for messages that name another option."""
    found = declared(next(item for item in fields(cls) if item.name == name))
    assert found is not None, f"{cls.__name__}.{name} is declared by no option"
    return found.flag
