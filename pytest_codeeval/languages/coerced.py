"""What the Rust, Haskell and OCaml translators share, as MultiPL-E writes them: a value's text is written as it
is walked, without its type, and coerced at the top, where the signature's type is known (each argument of a
call to `candidate`, and a test's result): an optional's constructor put around it, ".0" after a float written
without a point, and after each item of a float list. The coercion edits the text as MultiPL-E's does, quirks
included, so that the rows are its builder's: OCaml's `None` (a Python None inside a test's call) is written
`Some(None)`, Haskell's `Nothing` inside an optional `Just (Nothing)`, an empty Haskell or OCaml float list
`[.0]`; such problems cannot be solved, in MultiPL-E's dataset and here alike."""

from __future__ import annotations

import ast
from typing import Any, ClassVar

from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.languages.typed import TypedLanguage


def named(annotation: Any, name: str) -> bool:
    """Whether an annotation (a node, or a name's bare string as the float list's items are coerced) is `name`."""
    return annotation == name or (isinstance(annotation, ast.Name) and annotation.id == name)


def generic(annotation: Any, name: str) -> bool:
    return isinstance(annotation, ast.Subscript) and named(annotation.value, name)


class Coerced(TypedLanguage):
    some: ClassVar[str] = "Some({})"
    nothing: ClassVar[str] = "None"  # what an optional's `None` text becomes
    list_open: ClassVar[str] = "["  # a list's text starts with it, and ends with "]"
    list_separator: ClassVar[str] = ", "  # between a list's items as written
    items_separator: ClassVar[str] = ", "  # what a float list's text is split at to coerce its items
    pair_separator: ClassVar[str] = ", "  # between a dictionary's (key, value) pairs
    curried: ClassVar[bool] = True  # a call is `f a b`, not `f(a, b)`
    booleans: ClassVar[tuple[str, str]] = ("false", "true")
    string_format: ClassVar[str] = '"{}"'  # the characters as they are: MultiPL-E escapes nothing here
    negative_format: ClassVar[str] = "-{}"  # a negative int, given its absolute value
    none_literal: ClassVar[str | None] = "None"  # None, and any constant that is no bool, str or number

    # -- values: text while walking, coerced at the top ------------------------------------------------------------
    def gen_literal(self, value: Any) -> Any:
        if isinstance(value, bool):
            return self.booleans[value]
        if isinstance(value, str):
            return self.string_format.format(value)
        if isinstance(value, int) and value < 0:
            return self.negative_format.format(-value)
        return repr(value) if isinstance(value, (int, float)) else self.none_literal

    def gen_list(self, items: list[Any]) -> Any:
        return self.list_open + self.list_separator.join(items) + "]"

    def gen_tuple(self, items: list[Any]) -> Any:
        return "(" + ", ".join(items) + ")"

    def gen_dict(self, keys: list[Any], values: list[Any]) -> Any:
        return "[" + self.pair_separator.join(f"({k}, {v})" for k, v in zip(keys, values, strict=True)) + "]"

    def gen_call(self, func: Any, args: list[Any]) -> Any:
        if func == "candidate":
            if len(args) > len(self.arg_types):
                raise Untranslatable("a call with more arguments than the signature")
            args = [self.coerce(arg, kind) for arg, kind in zip(args, self.arg_types, strict=False)]
        return f"{func} {' '.join(args)}" if self.curried else f"{func}(" + ", ".join(args) + ")"

    def finalize(self, expr: Any, side: str) -> Any:
        return expr if side == "lhs" else self.coerce(expr, self.return_type)

    def coerce(self, text: Any, annotation: Any) -> Any:
        """A value's text where the signature's type `annotation` goes."""
        if generic(annotation, "Optional"):
            return self.nothing if text == "None" else self.some.format(text)
        special = self.coerce_first(text, annotation)
        if special is not None:
            return special
        if named(annotation, "float"):
            return text if "." in text else f"{text}.0"
        if generic(annotation, "List") and named(annotation.slice, "float"):
            items = text[len(self.list_open) : -1].split(self.items_separator)
            return self.list_open + self.items_separator.join(self.coerce(item, "float") for item in items) + "]"
        return self.coerce_last(text, annotation)

    def coerce_first(self, text: Any, annotation: Any) -> Any:
        """The language's own coercions, before a float's."""
        return None

    def coerce_last(self, text: Any, annotation: Any) -> Any:
        """The language's own coercions, after a float list's."""
        return text
