"""What the Java and Scala translators share beyond the C family's (cfamily.py): camelCase names, the call of
`candidate` written as the function's own, `l`/`f` literal suffixes, a list's items in parentheses. How their
programs run is each language's module's (java.py, scala.py) with base.py's JVM flags."""

from __future__ import annotations

from pytest_codeeval.languages.cfamily import ClassWrapped


def camel_case(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)


class Jvm(ClassWrapped):
    int_suffix = "l"
    float_suffix = "f"
    empty_literal = brackets = "()"

    def function_name(self, name: str) -> str:
        return camel_case(name)

    def call_name(self, func: str) -> str:
        name = camel_case(func)
        return self.entry if name == "candidate" else name
