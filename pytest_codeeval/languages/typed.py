"""What statically typed translators share: the walk over a Python annotation (scalars, List, Tuple, Dict,
Optional, Union), written once here; each language gives its scalars' names and small hooks that spell its
containers (`list_type`, `tuple_type`, `dict_type`, `optional_type`), as MultiPL-E's translators do, and says
which of the annotations MultiPL-E's translator for it leaves untranslated (the problem is then left out).

By default a test's values stay Python values while the expression is walked and are written in `finalize`,
where the signature's type of each argument and of the result is known (Swift's and Dart's translations);
the other typed languages write text as they walk, as their MultiPL-E translators do (cfamily.py, coerced.py)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, ClassVar

from pytest_codeeval.languages.base import Language
from pytest_codeeval.languages.translate import Untranslatable


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple[Any, ...]


@dataclass(frozen=True)
class Tup:
    """A Python tuple (kept apart from lists: typed languages write them differently)."""

    items: tuple[Any, ...]


def parts(annotation: Any) -> tuple[str, list[Any]]:
    """('List', [inner]), ('int', []), ... for a Python annotation."""
    match annotation:
        case ast.Name(id=name):
            return name, []
        case ast.Constant(value=None):
            return "None", []
        case ast.Subscript(value=ast.Name(id=name), slice=ast.Tuple(elts=items)):
            return name, list(items)
        case ast.Subscript(value=ast.Name(id=name), slice=inner):
            return name, [inner]
    raise Untranslatable("an annotation this translation does not handle")


def is_ellipsis(annotation: Any) -> bool:
    return isinstance(annotation, ast.Constant) and annotation.value is Ellipsis


def c_string(value: str) -> str:
    """A double-quoted literal with the escapes C-like languages share."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


class TypedLanguage(Language):
    """Subclasses give `scalars` and the container hooks; `type_name` walks an annotation with them."""

    # the types of Python's names int, float, bool, str (and None, Any where the translation writes them)
    scalars: ClassVar[dict[str, Any]] = {}
    # the type of the annotation `None` (a constant, not a name), where the translation writes one
    none_annotation: ClassVar[Any] = None
    # where set: a Dict's key and value must be plain names, and only these (MultiPL-E's Go, Rust, D, Haskell and
    # OCaml translators match them as the bare strings of the names they list)
    dict_names: ClassVar[frozenset[str] | None] = None
    # where set: every Tuple annotation is this one type, whatever its items (Go's []interface{})
    any_tuple: ClassVar[str | None] = None

    # -- the walk --------------------------------------------------------------------------------------------------
    def type_name(self, annotation: Any) -> Any:
        match annotation:
            case ast.Name(id=name) if name in self.scalars:
                return self.scalars[name]
            case ast.Constant(value=None) if self.none_annotation is not None:
                return self.none_annotation
            case ast.Subscript(value=ast.Name(id=kind), slice=inner):
                items = inner.elts if isinstance(inner, ast.Tuple) else None
                if kind == "List":
                    return self.list_type(self.type_name(inner))
                if kind == "Optional":
                    return self.optional_type(self.type_name(inner))
                if kind == "Tuple":
                    if self.any_tuple is not None:
                        return self.any_tuple
                    if items is None:
                        return self.lone_tuple(inner)
                    if any(is_ellipsis(item) for item in items):
                        return self.ellipsis_tuple(items)
                    return self.tuple_type([self.type_name(item) for item in items])
                if kind == "Dict" and items is not None and len(items) >= 2:
                    return self.dict_type(self.dict_part(items[0]), self.dict_part(items[1]))
                if kind == "Dict":
                    return self.odd_dict()
                if kind == "Union" and items is not None:
                    return self.union_type([self.type_name(item) for item in items])
        raise Untranslatable(f"{self.title}'s translation has no type for {ast.dump(annotation)[:60]}")

    def dict_part(self, annotation: Any) -> Any:
        if self.dict_names is None:
            return self.type_name(annotation)
        if isinstance(annotation, ast.Name) and annotation.id in self.dict_names:
            return self.scalars[annotation.id]
        raise Untranslatable(f"{self.title}'s translation takes a dictionary's types as plain names only")

    # -- the hooks -------------------------------------------------------------------------------------------------
    def list_type(self, item: Any) -> Any:
        raise Untranslatable(f"no {self.title} type for a list")

    def tuple_type(self, items: list[Any]) -> Any:
        raise Untranslatable(f"no {self.title} type for a tuple")

    def dict_type(self, key: Any, value: Any) -> Any:
        raise Untranslatable(f"no {self.title} type for a dictionary")

    def optional_type(self, item: Any) -> Any:
        raise Untranslatable(f"no {self.title} type for an optional")

    def union_type(self, items: list[Any]) -> Any:
        raise Untranslatable(f"no {self.title} type for a union")

    def lone_tuple(self, item: Any) -> Any:
        """`Tuple[X]`, whose subscript is no tuple."""
        raise Untranslatable(f"no {self.title} type for a one-item tuple")

    def ellipsis_tuple(self, items: list[Any]) -> Any:
        """`Tuple[X, ...]`."""
        raise Untranslatable(f"no {self.title} type for a tuple of any length")

    def odd_dict(self) -> Any:
        """A Dict whose subscript is not a (key, value) pair."""
        raise Untranslatable(f"no {self.title} type for that dictionary")

    # -- the signature ---------------------------------------------------------------------------------------------
    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        self.arg_types = [a.annotation for a in args]
        self.return_type = returns
        self.entry = name
        return self.signature(name, args, returns, description)

    def signature(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        raise NotImplementedError

    def value(self, value: Any, annotation: Any) -> str:
        raise NotImplementedError

    def call(self, func: str, args: list[str]) -> str:
        return f"{func}(" + ", ".join(args) + ")"

    # -- the deferred values ---------------------------------------------------------------------------------------
    def gen_literal(self, value: Any) -> Any:
        return value

    def gen_list(self, items: list[Any]) -> Any:
        return list(items)

    def gen_tuple(self, items: list[Any]) -> Any:
        return Tup(tuple(items))

    def gen_dict(self, keys: list[Any], values: list[Any]) -> Any:
        return dict(zip(keys, values, strict=True))

    def gen_call(self, func: Any, args: list[Any]) -> Any:
        return Call(func, tuple(args))

    def finalize(self, expr: Any, side: str) -> str:
        if isinstance(expr, Call):
            if len(expr.args) != len(self.arg_types):
                raise Untranslatable("a call with another number of arguments than the signature")
            return self.call(expr.func, [self.value(a, t) for a, t in zip(expr.args, self.arg_types, strict=True)])
        return self.value(expr, self.return_type)


def items_of(value: Any) -> tuple[Any, ...]:
    return value.items if isinstance(value, Tup) else tuple(value)


def has_ellipsis(inner: list[Any]) -> bool:
    """Whether a Tuple annotation's items hold `...` (Tuple[int, ...]: MultiPL-E writes such tuples as lists)."""
    return any(is_ellipsis(item) for item in inner)
