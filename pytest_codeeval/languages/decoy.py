"""The decoy run: a passing program is run once more with its tests changed (an expected value), and passes only if
that variant does not (languages/proof.py says why).

A test statement is found by its language's own template, `deep_equality(LEFT, RIGHT)` rendered with sentinels:
the text before, between and after the two sides, matched at a line's start with a bracket- and string-aware scan
(a separator such as `==` or `,` counts only at the statement's own nesting level). Only the tests' part of the
program is searched (from `tests_at`, the end of the completion): the completion never adds statements to choose
from, and is never rewritten. An integer inside an expected list (a tuple, a map) becomes a random other of as many
digits (`renumber`): the value keeps its type and length and is new to the tests. Where there is none, two
statements swap their expected values, so the variant stays well typed in every typed language, and the tests
compare with the same values in another order: an answer that remembers them cannot tell the decoy by a value seen
twice (which giving one statement another's value allowed). Two values that the tests' helper could find equal (the
same text, or numbers within a tolerance, as `check-within` and `all.equal` compare) are never swapped, nor is an
integer changed to one of them, so an honest program always fails its decoy (at the first changed statement) and
its verdict does not depend on the random choice."""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TypeVar

LEFT, RIGHT = "\x01codeeval-left\x01", "\x02codeeval-right\x02"  # the sentinels a template is rendered with
_NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")
_CLOSE = 1e-2  # numbers this close (relative, at least 1 absolute) may be equal to a tolerant helper: never swapped
_OPEN, _CLOSING = "([{", ")]}"
_NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w*")  # a name, not a field after a dot
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])\'')  # a string, a character
_OPERATOR = "=!<>"
# an integer literal of at most 8 digits (its type's suffix allowed: 5L, 5l, 5u, 0l.toLong), not part of a name or a
# float: another of as many digits is an `int` in every language
_INTEGER = re.compile(r"(?<![\w.])\d{1,8}(?=[lLuU]?(?!\w|\.\d))")
_CHARACTER = re.compile(r"'(?:\\.|[^'\\])'")  # a character literal, where two digits would not fit
# scalars that some language's test helper finds equal to each other (after quotes and case are dropped)
_LOOSE = {"true": "1", "false": "0", "": "0", **dict.fromkeys(("none", "null", "undefined", "nil", "nothing"), "null")}
T = TypeVar("T")
Span = tuple[int, int]  # an expected value's place in the program: [start, end)
Change = tuple[Span, str, bool]  # a place, its new text, whether that negates a condition


@dataclass(frozen=True)
class Partner:
    """The other statement of a swap (counted from 1): it expects the first one's old value, `placed` at `span`."""

    statement: int
    span: Span
    placed: str


@dataclass(frozen=True)
class Decoy:
    """The program with its tests changed: statement `statement` (counted from 1 among those found) expects `new`
    instead of `old` (the texts as in the program): `placed` took the place `span` of `old`; in a swap, `partner`
    expects `old` instead of `new`."""

    text: str
    statement: int
    old: str
    new: str
    span: Span
    placed: str
    negated: bool = False  # a flip: the condition `old` became `new`, its negation
    partner: Partner | None = None

    def edits(self) -> list[tuple[Span, str, str]]:
        """(place in the program, old text, new text) of each changed statement, in the program's order."""
        own = [(self.span, self.old, self.placed)]
        if self.partner is not None:
            own.append((self.partner.span, self.new, self.partner.placed))
        return sorted(own)

    def starts(self) -> list[tuple[int, str]]:
        """Where each new text begins in `text`, with that text, in order."""
        placed = [(span, new) for span, _, new in self.edits()]
        return list(zip(_starts(placed), [new for _, new in placed], strict=True))

    @property
    def statements(self) -> tuple[int, ...]:
        """The changed statements, counted from 1."""
        return tuple(sorted({self.statement} | ({self.partner.statement} if self.partner else set())))

    def choosing(self, program: str, choice: Callable[[str, str], str]) -> tuple[str, list[int]]:
        """`program` with each changed statement's old text replaced by `choice(old, new)`, an expression that
        picks one at run time; and where each such expression begins."""
        chosen = [(span, choice(old, placed)) for span, old, placed in self.edits()]
        return _replaced(program, chosen), _starts(chosen)

    def movable(self, predeclared: frozenset[str]) -> bool:
        """Whether every name of a new text is known wherever it may stand: a `predeclared` one, or a name of the
        old text. One build holds both values (`Language.chooser`), and a variable of the tests' own would fail
        the real run's build where it is out of scope (HumanEvalPack's Go/151 expects `odd_sum`, declared after
        six other checks; Go/53's loop expects `int(x+y)`). Where it is not, the two are built apart."""
        return all(_names(placed) <= _names(old) | predeclared for _, old, placed in self.edits())

    @property
    def change(self) -> str:
        """What changed, for the verdict's detail."""
        if self.negated:
            return f"statement {self.statement} negated: {_short(self.new)}"
        said = f"statement {self.statement} expecting {_short(self.new)} instead of {_short(self.old)}"
        if self.partner is None:
            return said
        return f"{said}, statement {self.partner.statement} {_short(self.old)} instead of {_short(self.new)}"


def _names(text: str) -> set[str]:
    return set(_NAME.findall(_STRING.sub("", text)))


def _replaced(program: str, replacements: Sequence[tuple[Span, str]]) -> str:
    """`program` with each place (in order, apart) replaced by its text."""
    parts, at = [], 0
    for (start, end), new in replacements:
        parts += [program[at:start], new]
        at = end
    return "".join(parts) + program[at:]


def _starts(replacements: Sequence[tuple[Span, str]]) -> list[int]:
    """Where each replacement (in order, apart) begins once all are made."""
    starts, shift = [], 0
    for (start, end), new in replacements:
        starts.append(start + shift)
        shift += len(new) - (end - start)
    return starts


@dataclass(frozen=True)
class Form:
    """A test statement's shape: `before` (its leading white space dropped), then the two sides with `between`,
    then `after`; `expected_first` when the expected value comes first (Ruby's, Elixir's); `between` is None for
    a statement that holds only the expected value (D's check of an optional's value)."""

    before: str
    between: str | None
    after: str
    expected_first: bool

    @classmethod
    def of(cls, template: str) -> Form | None:
        """The form of `template` (a statement rendered with LEFT and RIGHT); None if it holds no RIGHT."""
        if RIGHT not in template:
            return None
        template = template.lstrip()
        if LEFT not in template:
            before, after = template.split(RIGHT)
            return cls(before, None, after, True)
        first, second = sorted((LEFT, RIGHT), key=template.index)
        before, rest = template.split(first)
        between, after = rest.split(second)
        return cls(before, between, after, first == RIGHT)


def spans(program: str, tests_at: int, forms: Sequence[Form], quotes: str) -> list[Span]:
    """The expected values of the test statements after `tests_at`, in order."""
    found: list[Span] = []
    for line in re.finditer(r"^[ \t]*", program[tests_at:], re.MULTILINE):
        start = tests_at + line.end()
        for form in forms:
            span = _match(program, start, form, quotes)
            if span is not None:
                found.append(span)
                break
    return found


def without_expected(program: str, forms: Sequence[Form], quotes: str) -> str:
    """`program` with every test statement's expected value left out: what a decoy (which changes one) leaves as it
    was, so that a run's set-up read from it is the same for the real run and its decoy."""
    for start, end in reversed(spans(program, 0, forms, quotes)):
        program = program[:start] + program[end:]
    return program


def expected_in(text: str, start: int, end: int, forms: Sequence[Form], quotes: str) -> Span | None:
    """The expected value of the statement `text[start:end]` (an item of a list of checks), by the first of `forms`
    that spans it whole; None if none does."""
    for form in forms:
        span = _match(text[:end], start, form, quotes, lines=True)
        if span is not None and text[span[1] : end].strip() == form.after.strip():
            return span
    return None


def _match(text: str, start: int, form: Form, quotes: str, lines: bool = False) -> Span | None:
    opened = _leading(form.before).match(text, start)
    if opened is None:
        return None
    # inside a bracket the template opened, the statement may go on over several lines
    lines = lines or sum(map(form.before.count, _OPEN)) > sum(map(form.before.count, _CLOSING))
    first = opened.end()
    if form.between is None:
        end = _scan(text, first, form.after, quotes, lines)
        return None if end is None else _trimmed(text, first, end)
    middle = _scan(text, first, form.between, quotes, lines)
    if middle is None:
        return None
    second = middle + len(form.between.strip())
    end = _scan(text, second, form.after, quotes, lines)
    if end is None:
        return None
    return _trimmed(text, first, middle) if form.expected_first else _trimmed(text, second, end)


@cache
def _leading(before: str) -> re.Pattern[str]:
    """A statement's opening text, where white space in the template matches any (or none): `assert  (` too."""
    return re.compile("".join(r"\s*" if part.isspace() else re.escape(part) for part in re.split(r"(\s+)", before)))


def _trimmed(text: str, start: int, end: int) -> Span:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _scan(text: str, i: int, stop: str, quotes: str, lines: bool = False) -> int | None:
    """Where `stop` (white space around it left out; any white space if it is only that) begins at nesting level 0
    from `i` (an empty `stop`: the line's end); None if the statement closes, or its line ends, first (with
    `lines`, a line's end does not end it). Strings in `quotes` are skipped; an operator stop is never part of a
    longer operator (`==` of `===`)."""
    depth, n, core = 0, len(text), stop.strip()
    while i < n:
        if depth == 0 and (_stops(text, i, core) if core else text[i].isspace() if stop else text[i] == "\n"):
            return i
        c = text[i]
        if c == "\n" and depth == 0 and not lines:
            return None
        if c in _OPEN:
            depth += 1
        elif c in _CLOSING:
            depth -= 1
            if depth < 0:
                return None
        elif c in quotes:
            i = _string_end(text, i)
            if i < 0:
                return None
        i += 1
    return n if not stop and depth == 0 else None


def _stops(text: str, i: int, stop: str) -> bool:
    if not text.startswith(stop, i):
        return False
    joined_before = stop[0] in _OPERATOR and i > 0 and text[i - 1] in _OPERATOR
    joined_after = stop[-1] in _OPERATOR and text[i + len(stop) : i + len(stop) + 1] == "="
    return not (joined_before or joined_after)


def _string_end(text: str, start: int) -> int:
    quote, i = text[start], start + 1
    while i < len(text) and text[i] != "\n":
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == quote:
            return i
        i += 1
    return -1


def same_value(a: str, b: str) -> bool:
    """Whether two expected values' texts may be equal to a test helper: the same text but for white space, quotes
    and case, with the values a loose equality confuses made one (JavaScript's `"6" == 6`, `true == 1`, `null ==
    undefined`; Perl's `eq_deeply("6", 6)`), or the same text but for numbers that are close (1 and 1.0, 0.5 and
    0.5001 under a tolerance)."""
    a, b = _loose(a), _loose(b)
    if a == b:
        return True
    if _NUMBER.sub("#", a) != _NUMBER.sub("#", b):
        return False
    pairs = zip(_NUMBER.findall(a), _NUMBER.findall(b), strict=True)
    return all(abs(float(x) - float(y)) <= _CLOSE * max(1.0, abs(float(x)), abs(float(y))) for x, y in pairs)


def _loose(text: str) -> str:
    text = "".join(text.replace('"', "").replace("'", "").lower().split())  # `{'a':2}` is `{'a': 2}`
    return _LOOSE.get(text, text)


def swap(program: str, places: Sequence[Span], differ: list[list[int]], wrap: str = "{}") -> Decoy | None:
    """The decoy: one statement, chosen at random among `places`, and another, chosen at random among those
    `differ[i]` lists for it, swap their expected values; None when no statement has one. `wrap` formats each new
    text."""
    choices = [i for i, others in enumerate(differ) if others]
    if not choices:
        return None
    rng = random.Random(secrets.randbits(64))
    i = rng.choice(choices)
    j = rng.choice(differ[i])
    old, new = (program[start:end] for start, end in (places[i], places[j]))
    placed, back = wrap.format(new), wrap.format(old)
    text = _replaced(program, sorted([(places[i], placed), (places[j], back)]))
    return Decoy(text, i + 1, old, new, places[i], placed, partner=Partner(j + 1, places[j], back))


def changed(program: str, places: Sequence[Span]) -> Decoy | None:
    """The decoy of tests whose expected values are at `places`: an integer inside a list, tuple or map changed (its
    length kept), else two of them swapped (where they differ), else any integer changed."""
    texts = [program[start:end] for start, end in places]
    return (renumber(program, places, inside=True) or swap(program, places, differing(texts, texts_differ))
            or renumber(program, places))


def renumber(program: str, places: Sequence[Span], inside: bool = False) -> Decoy | None:
    """One integer, chosen at random among those of the expected values (`inside` a bracket only: an item of a
    list, a tuple, a map), replaced by a random other of as many digits (3 -> 7, 123 -> 480, "0 2 3" -> "0 2 6"):
    the value keeps its type and its length, differs by more than a tolerance, and is new to the tests (no answer
    sees a value twice). So an answer that checks only a list's length passes it too (swapping two lists of other
    lengths let one pass), and nothing in it tells it from a real one (a leading 9 did: an answer equal to everything
    but a value holding an integer 9x passed HumanEval/34 in 12 languages). A scalar is changed only where nothing
    can be swapped: a boolean written 1 (Perl's) would become a value no boolean is. A value with a backslash (an
    escape's digits) or a character literal is left alone."""
    rng = random.Random(secrets.randbits(64))
    texts = [program[start:end] for start, end in places]
    numbers = [(i, number) for i, (start, end) in enumerate(places)
               if "\\" not in texts[i] and not _CHARACTER.search(program, start, end)
               for number in _INTEGER.finditer(program, start, end)
               if not inside or any(bracket in program[start : number.start()] for bracket in _OPEN)]
    rng.shuffle(numbers)
    for i, number in numbers:
        (start, end), digits = places[i], number.group()
        for _ in range(8):
            new = program[start : number.start()] + _other_integer(digits, rng) + program[number.end() : end]
            if not any(same_value(new, text) for text in texts):
                return Decoy(program[:start] + new + program[end:], i + 1, texts[i], new, (start, end), new)
    return None


def _other_integer(digits: str, rng: random.Random) -> str:
    """Another integer of as many digits (no leading zero): an `int` in every language wherever the first was."""
    low = 0 if len(digits) == 1 else 10 ** (len(digits) - 1)
    while (other := str(rng.randrange(low, 10 ** len(digits)))) == digits:
        pass
    return other


def flip(program: str, places: Sequence[Span], negation: str = "!({})") -> Decoy | None:
    """The decoy of tests with no two expected values to swap: one assertion's condition, chosen at random among
    `places`, negated (`negation` formats it). An honest pass held the condition, so its decoy fails; a program whose
    tests did not run or hold passes it too. An answer equal to everything is caught only by a swap or a change."""
    return rewrite(program, [(place, negation.format(program[place[0] : place[1]]), True) for place in places])


def rewrite(program: str, changes: Sequence[Change]) -> Decoy | None:
    """The decoy made of one of `changes`, chosen at random: each is one that an honest pass fails (Python's
    changed values and negations)."""
    if not changes:
        return None
    i = random.Random(secrets.randbits(64)).randrange(len(changes))
    (start, end), new, negated = changes[i]
    return Decoy(program[:start] + new + program[end:], i + 1, program[start:end], new, (start, end), new, negated)


def items(text: str, opening: int, quotes: str) -> list[Span]:
    """The items of the bracketed list that opens at `opening`, split at its own commas (its lines may break
    anywhere), white space around each left out; empty if the list does not close."""
    end = _scan(text, opening + 1, _CLOSING[_OPEN.index(text[opening])], quotes, lines=True)
    if end is None:
        return []
    inside, found, start = text[:end], [], opening + 1
    while (comma := _scan(inside, start, ",", quotes, lines=True)) is not None:
        found.append(_trimmed(text, start, comma))
        start = comma + 1
    found.append(_trimmed(text, start, end))
    return [(first, last) for first, last in found if first < last]


def differing(values: Sequence[T], differ: Callable[[T, T], bool]) -> list[list[int]]:
    """For each expected value, the indexes of the others it can be swapped with."""
    return [[j for j, other in enumerate(values) if j != i and differ(value, other)] for i, value in enumerate(values)]


def texts_differ(a: str, b: str) -> bool:
    return not same_value(a, b)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."
