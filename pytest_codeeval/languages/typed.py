"""What statically typed translators share: the walk over a Python annotation (scalars, List, Tuple, Dict,
Optional, Union), written once here; each language gives its scalars' names and small hooks that spell its
containers (`list_type`, `tuple_type`, `dict_type`, `optional_type`), as MultiPL-E's translators do, and says
which of the annotations MultiPL-E's translator for it leaves untranslated (the problem is then left out).

How a test's values are written differs more: as (text, type) pairs coerced by editing the text (cfamily.py: C++,
C#, Java, Scala), as text coerced at the top (coerced.py: Rust, Haskell, OCaml), as text typed by guesses (Go),
as text alone (D), or as Python values written at the signature's types (Swift)."""

from __future__ import annotations

import ast
from typing import Any, ClassVar

from pytest_codeeval.languages.base import Translator
from pytest_codeeval.languages.translate import Untranslatable


def is_ellipsis(annotation: Any) -> bool:
    return isinstance(annotation, ast.Constant) and annotation.value is Ellipsis


class TypedLanguage(Translator):
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
    # the containers' types: `{}` stands for the item's type, `{key}` and `{value}` for a dictionary's; a tuple's
    # is (start, separator between its items' types, end); empty where the translation has none
    list_format: ClassVar[str] = ""
    optional_format: ClassVar[str] = ""
    dict_format: ClassVar[str] = ""
    tuple_format: ClassVar[tuple[str, str, str]] = ("", "", "")

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
                if kind == "Dict":
                    return self.dictionary(items)
                if kind == "Union" and items is not None:
                    return self.union_type([self.type_name(item) for item in items])
        shown = ast.unparse(annotation) if isinstance(annotation, ast.AST) else repr(annotation)
        raise Untranslatable(f"{self.title}'s translation has no type for {shown[:60]}")

    def dictionary(self, items: list[Any] | None) -> Any:
        if items is None or len(items) != 2:
            return self.odd_dict()
        if self.dict_names is None:
            return self.dict_type(self.type_name(items[0]), self.type_name(items[1]))
        if not all(isinstance(item, ast.Name) for item in items):
            return self.odd_dict()
        if any(item.id not in self.dict_names for item in items):
            raise Untranslatable(f"{self.title}'s translation takes no such names in a dictionary's type")
        return self.dict_type(self.scalars[items[0].id], self.scalars[items[1].id])

    # -- the hooks: by default the containers' formats below; a language overrides one to do more ----------------
    def list_type(self, item: Any) -> Any:
        return self.spelled(self.list_format, "a list", self.contained(item))

    def tuple_type(self, items: list[Any]) -> Any:
        start, separator, end = self.tuple_format
        return self.spelled(start and start + "{}" + end, "a tuple", separator.join(map(self.contained, items)))

    def dict_type(self, key: Any, value: Any) -> Any:
        return self.spelled(self.dict_format, "a dictionary", key=self.contained(key), value=self.contained(value))

    def optional_type(self, item: Any) -> Any:
        return self.spelled(self.optional_format, "an optional", self.contained(item))

    def contained(self, item: Any) -> Any:
        """A type as a container's item (Java boxes its primitives)."""
        return item

    def spelled(self, form: str, what: str, *args: Any, **names: Any) -> str:
        if not form:
            raise Untranslatable(f"no {self.title} type for {what}")
        return form.format(*args, **names)

    def union_type(self, items: list[Any]) -> Any:
        raise Untranslatable(f"no {self.title} type for a union")

    def lone_tuple(self, item: Any) -> Any:
        """`Tuple[X]`, whose subscript is no tuple."""
        raise Untranslatable(f"no {self.title} type for a one-item tuple")

    def ellipsis_tuple(self, items: list[Any]) -> Any:
        """`Tuple[X, ...]`."""
        raise Untranslatable(f"no {self.title} type for a tuple of any length")

    def odd_dict(self) -> Any:
        """A Dict whose subscript is not a (key, value) pair (of plain names, where `dict_names` is set)."""
        raise Untranslatable(f"no {self.title} type for that dictionary")

    # -- the signature ---------------------------------------------------------------------------------------------
    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        self.arg_types = [a.annotation for a in args]
        self.return_type = returns
        self.entry = name
        return self.signature(name, args, returns, description)

    def signature(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        raise NotImplementedError
