"""What the C++, C#, Java and Scala translators share (`CFamily`; `ClassWrapped` for the last three, `Jvm` for Java
and Scala), as MultiPL-E's C++ translator is the base of the other three: a value is written as it is walked, as
a pair (text, the Python type it was written at), and where a call's argument or a test's result meets the
signature's type, its text is coerced by editing it: wrapped in parentheses when the types agree, else its
leading constructor (`std::vector<long>(`) replaced by the expected type's, or the expected type put around it.
The coercion is MultiPL-E's to the letter, quirks included (a Scala float result written as an int stays an int;
a C++ float list whose first item is an int has its items cast to `long`), so that the rows are the ones its
builder makes.

Each language gives its names (`scalars`, `int_suffix`, `float_suffix`, the constructors), its containers' types
(typed.py) and values as formats, and where that is not enough the hooks (`make_list`, `optional_value`, `cast`,
`coerced_prefix`, `primitive_cast`, `wants_optional`)."""

from __future__ import annotations

import ast
import re
from typing import Any, ClassVar

from pytest_codeeval.languages.decoy import LEFT, RIGHT
from pytest_codeeval.languages.translate import Untranslatable
from pytest_codeeval.languages.typed import TypedLanguage

Written = tuple[str, Any]  # (text, the Python type it was written at: an annotation node, or None for a name)


def py_type(kind: str, *items: Any) -> ast.expr:
    """The annotation `kind` or `kind[items]` (a value's type, to walk as the signature's are walked)."""
    name = ast.Name(id=kind)
    if not items:
        return name
    inner = items[0] if kind == "List" else ast.Tuple(elts=list(items))
    return ast.Subscript(value=name, slice=inner)


class CFamily(TypedLanguage):
    int_suffix: ClassVar[str] = ""
    float_suffix: ClassVar[str] = "f"
    optional_name: ClassVar[str] = ""  # what an optional type's name holds (the test for one is a substring's)
    tuple_maker: ClassVar[str] = ""  # the call that makes a tuple; a text starting with it is never coerced
    renamed: ClassVar[dict[str, str]] = {"operator": "op", "strlen": "string_length"}  # names the language takes
    comment_indent: ClassVar[str] = ""
    # values: a list ({element} its element type, {literal} its items between `brackets`, or `empty_literal`), an
    # optional ({element}, {text}), a dictionary ({kind} its type, {literal} its `pair_format`s between `map_brackets`)
    list_value: ClassVar[str] = ""
    empty_literal: ClassVar[str] = ""
    brackets: ClassVar[str] = "{}"
    optional_value_format: ClassVar[str] = ""
    pair_format: ClassVar[str] = "{{{key}, {value}}}"
    map_brackets: ClassVar[str] = "{}"
    map_value: ClassVar[str] = "{kind}({literal})"

    def __init__(self) -> None:
        self.union_decls: dict[str, dict[str, str]] = {}
        self.ellipsis = False  # the signature has a Tuple[X, ...]: tuples are written as lists then

    @property
    def primitives(self) -> tuple[str, ...]:
        return (self.scalars["float"], self.scalars["bool"], self.scalars["int"])

    # -- types (the walk is typed.py's) ----------------------------------------------------------------------------
    def ellipsis_tuple(self, items: list[Any]) -> str:
        self.ellipsis = True
        return str(self.list_type(self.type_name(items[0])))

    def lone_tuple(self, item: Any) -> str:
        return str(self.type_name(item))

    def translate_prompt(self, name: str, args: list[Any], returns: Any, description: str) -> str:
        self.union_decls, self.ellipsis = {}, False
        self.arg_type_names = [self.type_name(a.annotation) for a in args]
        typed = [(self.type_name(a.annotation), self.gen_var(a.arg)[0]) for a in args]
        self.entry = self.function_name(name)
        self.return_name = self.type_name(returns)
        return self.declaration(typed, description)

    def declaration(self, typed: list[tuple[str, str]], description: str) -> str:
        """The prompt: the function declared with its parameters' (type, name) and its description."""
        raise NotImplementedError

    def function_name(self, name: str) -> str:
        return self.gen_var(name)[0]

    # -- values: (text, type) while walking --------------------------------------------------------------------------
    def gen_literal(self, value: Any) -> Written:
        if isinstance(value, bool):
            return str(value).lower(), py_type("bool")
        if isinstance(value, str):
            return f'"{value}"'.replace("\n", "\\n"), py_type("str")
        if isinstance(value, int):
            return repr(value) + self.int_suffix, py_type("int")
        if isinstance(value, float):
            return repr(value) + self.float_suffix, py_type("float")
        return self.scalars["None"], py_type("None")

    def gen_var(self, name: str) -> Written:
        return self.renamed.get(name, name), None

    def gen_list(self, items: list[Written]) -> Written:
        if not items:
            return self.make_list(self.scalars["int"], ""), py_type("List", py_type("int"))
        first = items[0][1]
        alike = all(
            self.type_name(first) == self.type_name(kind) or self.type_name(kind) in self.primitives
            for _, kind in items
        )
        element = first if alike else py_type("Any")
        literal = self.array_literal(", ".join(self.cast(text, element) for text, _ in items))
        return self.make_list(self.type_name(element), literal), py_type("List", first)

    def gen_tuple(self, items: list[Written]) -> Written:
        if self.ellipsis:
            return self.gen_list(items)
        if not items:
            return self.make_tuple(""), py_type("Tuple", py_type("int"))
        kinds = py_type("Tuple", *(kind for _, kind in items))
        if self.scalars["None"] in ", ".join(text for text, _ in items):
            # the items all optionals, of the first other item's type
            others = [self.type_name(kind) for _, kind in items if self.type_name(kind) != self.scalars["None"]]
            inner = others[0] if others else self.scalars["int"]
            return self.make_tuple(", ".join(self.optional_value(inner, text) for text, _ in items)), kinds
        return self.make_tuple(", ".join(text for text, _ in items)), kinds

    def gen_dict(self, keys: list[Written], values: list[Written]) -> Written:
        if not keys:
            kind = py_type("Dict", py_type("int"), py_type("int"))
            return self.make_map(self.type_name(kind), ""), kind
        kind = py_type("Dict", keys[0][1], values[0][1])
        literal = self.map_literal([text for text, _ in keys], [text for text, _ in values])
        return self.make_map(self.type_name(kind), literal), kind

    def gen_call(self, func: Written, args: list[Written]) -> Written:
        if len(args) > len(self.arg_type_names):
            raise Untranslatable("a call with more arguments than the signature")
        return self.call_name(func[0]) + "(" + ", ".join(map(self.update_type, args, self.arg_type_names)) + ")", None

    def call_name(self, func: str) -> str:
        return self.gen_var(func)[0]

    def finalize(self, expr: Written, side: str) -> str:
        return expr[0] if side == "lhs" else self.update_type(expr, self.return_name)

    def update_type(self, written: Written, expected: str) -> str:
        """A value's text where a value of the type `expected` goes."""
        text, kind = written
        if expected in self.union_decls:
            return text
        if kind is None:
            raise Untranslatable("a value of no known type where a typed one goes")
        if expected in self.primitives and self.type_name(kind) != expected:
            cast = self.primitive_cast(text, expected)
            if cast is not None:
                return cast
        if self.wants_optional(expected, text):
            return self.optional_value("", text)
        if self.type_name(kind) == expected:
            return f"({text})"
        if self.tuple_maker and text.startswith(self.tuple_maker):
            return text
        if text.startswith(self.scalars["None"]) or self.optional_name in expected:
            return text
        prefix = self.coerced_prefix(text)
        coerced = f"{expected}({text})" if prefix is None else text.replace(prefix, expected + "(")
        return "(" + coerced.replace("(())", "()") + ")"

    # -- the hooks -------------------------------------------------------------------------------------------------
    def primitive_cast(self, text: str, expected: str) -> str | None:
        """A value of another type where a primitive goes (None: coerced as any other value)."""
        return None

    def wants_optional(self, expected: str, text: str) -> bool:
        """Whether the value is wrapped in an optional's constructor before anything else."""
        return False

    def make_list(self, element: str, literal: str) -> str:
        return self.list_value.format(element=self.contained(element), literal=literal or self.empty_literal)

    def array_literal(self, contents: str) -> str:
        return self.brackets[:1] + contents + self.brackets[1:]

    def make_tuple(self, items: str) -> str:
        return f"{self.tuple_maker}({items})"

    def optional_value(self, element: str, text: str) -> str:
        return self.optional_value_format.format(element=element, text=text)

    def map_literal(self, keys: list[str], values: list[str]) -> str:
        pairs = ", ".join(self.pair_format.format(key=k, value=v) for k, v in zip(keys, values, strict=True))
        return self.map_brackets[:1] + pairs + self.map_brackets[1:]

    def make_map(self, kind: str, literal: str) -> str:
        return self.map_value.format(kind=kind, literal=literal)

    def cast(self, text: str, element: Any) -> str:
        """A list's item, written at the list's element type."""
        name = self.type_name(element)
        return text if name == self.scalars["Any"] else f"({name}){text}"

    def coerced_prefix(self, text: str) -> str | None:
        """The constructor a value's text starts with, which coercion replaces (None: wrap the whole text)."""
        found = re.search(r".+?\(", text)
        return found.group(0) if found else None

    def described(self, description: str) -> str:
        from pytest_codeeval.languages.base import describe

        return describe(description, f"{self.comment_indent}// ") + "\n"


class ClassWrapped(CFamily):
    """MultiPL-E's Java, C# and Scala: the function is a static method of a class `Problem`, whose `main` holds
    the tests; a primitive result is compared with `==`, any other with its `equals` method."""

    comment_indent = "    "
    stop = ("\n    }\n",)
    main: ClassVar[str] = ""  # the line that opens the tests' main method
    header: ClassVar[str] = ""  # what comes before the class: the program's imports
    assertion: ClassVar[str] = "assert"
    equals: ClassVar[str] = "equals"

    def declaration(self, typed: list[tuple[str, str]], description: str) -> str:
        formal = ", ".join(f"{kind} {name}" for kind, name in typed)
        return (
            f"{self.header}class Problem {{\n{self.described(description)}"
            f"    public static {self.return_name} {self.entry}({formal}) " + "{\n"
        )

    def test_suite_prefix_lines(self, entry_point: str) -> list[str]:
        return ["    }", f"    {self.main}"]

    def test_suite_suffix_lines(self) -> list[str]:
        return ["    }\n", "}\n"]

    def deep_equality(self, left: str, right: str) -> str:
        return self.equality(left, right, self.return_name in self.primitives)

    def equality(self, left: str, right: str, primitive: bool) -> str:
        """A test statement: `==` for a primitive return type, the `equals` method for the others."""
        if primitive:
            return f"    {self.assertion}({left} == {right});"
        return f"    {self.assertion}({left}.{self.equals}({right}));"

    def decoy_templates(self) -> tuple[str, ...]:
        return self.equality(LEFT, RIGHT, True), self.equality(LEFT, RIGHT, False)

    def primitive_cast(self, text: str, expected: str) -> str | None:
        return f"({expected}){text}"


def camel_case(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)


class Jvm(ClassWrapped):
    """What Java and Scala share beyond C#: camelCase names, the call of `candidate` written as the function's own,
    `l`/`f` literal suffixes, a list's items in parentheses."""

    int_suffix = "l"
    float_suffix = "f"
    empty_literal = brackets = "()"

    def function_name(self, name: str) -> str:
        return camel_case(name)

    def call_name(self, func: str) -> str:
        name = camel_case(func)
        return self.entry if name == "candidate" else name
