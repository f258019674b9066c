"""A chat model's reply turned into what a completion model would have written after the task's prompt.

Every backend's chat replies go through `code_from_reply`, because every task's post-processing expects a
continuation of its prompt: the rest of the function the prompt opens, then whatever the model wrote after it.
A reply is prose around one or more code blocks, and the code usually repeats the prompt's signature (with or
without its docstring), which then replaces the prompt's own instead of being glued onto it:

- Python (a prompt ending inside a `def`): the repeated function's body, re-indented to the prompt's; the
  reply's imports, helpers and constants are moved into that body (a nested helper behaves as a module-level
  one, and the task's stop words no longer cut it off);
- brace languages (a prompt ending with `{`: JavaScript, TypeScript, C++, Java, Go, Rust, C#, PHP, ...): the
  repeated function's body, then its closing brace at the prompt's indentation, where the task's stop words
  expect it; JavaScript and TypeScript helpers are nested in the body (hoisted), other languages cannot nest
  functions and lose them;
- other languages (a prompt ending with a signature line: Lua, Ruby, R, ...): the code after the repeated
  signature line;
- a prompt with no function to continue (MBPP, APPS, instructions): the code block whole.
"""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize
from dataclasses import dataclass

THINKING = re.compile(r"<think>.*?</think>", re.DOTALL)  # reasoning models' hidden reasoning, when a server keeps it
FENCE_LINE = re.compile(r"^[ \t]*(```|~~~)")
FENCE_OPENS = re.compile(r"(```|~~~)[\w+#.-]*[ \t]*$")  # a fence after prose on its line: "Sure! ```python"
FENCE_CLOSES = re.compile(r"(```|~~~)[ \t]*$")  # a fence after code on its line: "}```"
PY_DEF = re.compile(r"^([ \t]*)(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(", re.MULTILINE)
NOT_NAMES = {"function", "func", "fn", "if", "for", "while", "switch", "return", "sub", "def", "catch", "main"}
JS_HELPER = re.compile(r"^(?:async\s+)?function\b|^(?:const|let|var)\s+\w+\s*=")
USING = re.compile(r"^[ \t]*using[ \t]+namespace[ \t]+[\w:]+[ \t]*;", re.MULTILINE)  # C++: legal in a body too


@dataclass(frozen=True)
class Target:
    """The function the prompt opens: its name, its signature line's indentation, and how its body is written."""

    name: str
    indent: str
    kind: str  # "python", "brace" or "line"
    signature: str  # the signature line, stripped ("line" kind: the anchor looked for in the reply)
    nests_functions: bool = False  # brace languages that allow a function declaration inside a function (JS, TS)
    context: str = ""  # the prompt: what the reply repeats of it is not moved into the body


def code_from_reply(reply: str, context: str) -> str:
    """The continuation of `context` (the task's prompt, and an instruction task's answer start) that `reply`
    means. The block that defines the prompt's function is used, else the first code block, else the whole
    reply."""
    reply = THINKING.sub("", reply)
    blocks = _code_blocks(reply)
    target = _target(context)
    newline = "" if not context or context.endswith("\n") else "\n"
    if target is not None:
        for block in blocks:
            continuation = _continue(target, block)
            if continuation is not None:
                return _join(newline, continuation)
    code = next((block for block in blocks if block.strip()), "")
    stripped = context.strip()
    if stripped and stripped in code:  # the reply repeats the whole prompt: what follows it continues it
        return _join(newline, code.split(stripped, 1)[1].lstrip("\n"))
    if target is not None:
        return _join(newline, _body_only(target, code))
    return _join(newline, code)


def _join(newline: str, continuation: str) -> str:
    return newline + continuation if continuation and not continuation.startswith("\n") else continuation


def _code_blocks(reply: str) -> list[str]:
    """The reply's fenced blocks in order (a block the reply's end cut off included); the whole reply if none. A
    fence may also end a line of prose (it opens a block) or of code (it closes one)."""
    blocks: list[str] = []
    current: list[str] | None = None
    for line in reply.splitlines(keepends=True):
        if FENCE_LINE.match(line):
            if current is None:
                current = []
            else:
                blocks.append("".join(current))
                current = None
        elif current is None:
            if FENCE_OPENS.search(line):
                current = []
        elif closing := FENCE_CLOSES.search(line):
            blocks.append("".join(current) + line[: closing.start()] + "\n")
            current = None
        else:
            current.append(line)
    if current is not None:
        blocks.append("".join(current))
    return blocks or [reply]


# -- the prompt's function --------------------------------------------------------------------------------------
def _target(context: str) -> Target | None:
    lines = [line for line in context.rstrip().splitlines() if line.strip()]
    if not lines:
        return None
    python = _python_target(context)
    if python is not None:
        return python
    context = context.strip()
    last = lines[-1]
    if last.rstrip().endswith("{"):
        signature = last if last.strip() != "{" or len(lines) < 2 else lines[-2]
        name = _function_name(signature)
        if name is None:
            return None
        indent = signature[: len(signature) - len(signature.lstrip())]
        js = signature.strip().startswith(("function ", "async function ", "export function ")) and "$" not in signature
        return Target(name, indent, "brace", signature.strip(), js, context)
    name = _function_name(last)
    if name is None:
        return None
    return Target(name, last[: len(last) - len(last.lstrip())], "line", last.strip(), False, context)


def _python_target(context: str) -> Target | None:
    """The last `def` of the context, when the context ends in its signature or docstring (a body is due)."""
    matches = list(PY_DEF.finditer(context))
    if not matches:
        return None
    match = matches[-1]
    indent, name = match.group(1), match.group(2)
    rest = context[match.start() :].splitlines()
    header = next((i for i, line in enumerate(rest) if line.split("#")[0].rstrip().endswith(":")), None)
    if header is None:
        return None
    for line in rest[header + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) <= len(indent):
            return None  # the function is complete and something else follows: nothing to continue
    return Target(name, indent, "python", rest[0].strip(), False, context)


def _function_name(signature: str) -> str | None:
    """The name a signature line defines: `name <- function(`, `sub name`, else the first `name(` that is no
    keyword (JavaScript, C++, Java, Go, Rust, Lua, Ruby, PHP, ...)."""
    assigned = re.match(r"\s*(?:(?:local|const|let|var)\s+)?(\w+)\s*(?:<-|=)\s*(?:async\s+)?function\b", signature)
    if assigned:
        return assigned.group(1)
    perl = re.match(r"\s*sub\s+(\w+)", signature)
    if perl:
        return perl.group(1)
    for match in re.finditer(r"(\w+)\s*\(", signature):
        if match.group(1) not in NOT_NAMES:
            return match.group(1)
    return None


# -- the reply's function ---------------------------------------------------------------------------------------
def _continue(target: Target, block: str) -> str | None:
    """The continuation when `block` defines the target function; None when it does not."""
    if target.kind == "python":
        return _python_continuation(target, block)
    if target.kind == "brace":
        return _brace_continuation(target, block)
    return _line_continuation(target, block)


def _python_continuation(target: Target, block: str) -> str | None:
    code = textwrap.dedent(block)
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return _python_text_continuation(target, code)
    lines = code.splitlines(keepends=True)
    function = next(
        (node for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
         and node.name == target.name), None,
    )
    if function is None:
        return None
    body = function.body
    if len(body) > 1 and _is_docstring(body[0]):
        body = body[1:]
    first, last = body[0], body[-1]
    assert last.end_lineno is not None
    one_line = _header_line(lines, first)
    if one_line == function.lineno - 1:  # `def f(x): return x`: the statement shares its line
        text = " " * (function.col_offset + 4) + "".join(lines[first.lineno - 1 : last.end_lineno])[first.col_offset :]
    else:
        text = "".join(lines[_start_line(lines, first, body is not function.body) : last.end_lineno])
    body_indent = target.indent + "    "
    reply_indent = lines[first.lineno - 1][: first.col_offset] if one_line < 0 else " " * (function.col_offset + 4)
    own = _reindent(text, reply_indent, body_indent)
    moved = []
    for node in tree.body:
        if node is not function and _is_helper(node):
            source = "".join(lines[_first_line(node) - 1 : node.end_lineno])
            if source.strip() not in target.context:  # the prompt's own imports and helpers are there already
                moved.append(_reindent(source, "", body_indent))
    return "".join(moved) + own


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _is_helper(node: ast.stmt) -> bool:
    """What a module around the function needs: imports, functions, classes and constants (not tests or prints)."""
    if isinstance(node, ast.ImportFrom) and node.module == "__future__":
        return False
    return isinstance(node, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                      | ast.Assign | ast.AnnAssign)


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _header_line(lines: list[str], node: ast.stmt) -> int:
    """The 0-based line of `node`, or -1 when something precedes it on its line (a one-line `def`)."""
    line = lines[node.lineno - 1]
    return node.lineno - 1 if line[: node.col_offset].strip() else -1


def _start_line(lines: list[str], first: ast.stmt, after_docstring: bool) -> int:
    """The 0-based line where the kept body starts: just after the docstring (comments between it and the first
    statement stay), or the first statement's line when the body had no docstring."""
    start = first.lineno - 1
    if not after_docstring:
        return start
    while start > 0 and (not lines[start - 1].strip() or lines[start - 1].lstrip().startswith("#")):
        start -= 1
    return start


def _python_text_continuation(target: Target, code: str) -> str | None:
    """A reply that does not parse (cut off by the token limit, say): the lines of the function after its
    signature and docstring, up to the first line back at the `def`'s indentation."""
    lines = code.splitlines(keepends=True)
    start = next(
        (i for i, line in enumerate(lines) if re.match(rf"[ \t]*(?:async[ \t]+)?def[ \t]+{target.name}[ \t]*\(", line)),
        None,
    )
    if start is None:
        return None
    indent = len(lines[start]) - len(lines[start].lstrip())
    at = start
    while at < len(lines) and not lines[at].split("#")[0].rstrip().endswith(":"):
        at += 1
    at += 1
    body: list[str] = []
    for line in lines[at:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line)
    text = "".join(body)
    quote = text.lstrip()[:3]
    if quote in ('"""', "'''") and text.count(quote) >= 2:  # the repeated docstring: what follows its line
        after = text.split(quote, 2)[2]
        text = after.split("\n", 1)[1] if "\n" in after else ""
    own = next((line[: len(line) - len(line.lstrip())] for line in text.splitlines() if line.strip()), "")
    return _reindent(text, own, target.indent + "    ")


def _reindent(text: str, old: str, new: str) -> str:
    """Lines of code from indentation `old` to `new`; lines inside multi-line strings keep theirs, and comments
    and blank lines less indented than `old` move to `new` (so that no stop word sees them at column 0)."""
    inside = _string_lines(text)
    out = []
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if number in inside:
            out.append(line)
        elif not line.strip():
            out.append("\n" if line.endswith("\n") else "")
        elif line.startswith(old):
            out.append(new + line[len(old) :])
        else:
            out.append(new + line.lstrip())
    result = "".join(out)
    return result if result.endswith("\n") or not result else result + "\n"


def _string_lines(text: str) -> set[int]:
    """1-based numbers of the lines that continue a multi-line string literal (their indentation is data)."""
    inside: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                inside.update(range(token.start[0] + 1, token.end[0] + 1))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return inside


def _brace_continuation(target: Target, block: str) -> str | None:
    found = _brace_definition(target.name, block)
    if found is None:
        return None
    start, open_at, close_at = found
    line_start = block.rfind("\n", 0, start) + 1
    reply_indent = block[line_start : line_start + len(block[line_start:]) - len(block[line_start:].lstrip(" \t"))]
    inner = block[open_at + 1 : close_at if close_at is not None else len(block)]
    inner = inner.split("\n", 1)[1] if inner.strip() and inner.split("\n", 1)[0].strip() == "" else inner.lstrip()
    body = _shift(inner.rstrip(), reply_indent, target.indent)
    if body and not body.startswith((" ", "\t")):
        body = target.indent + "    " + body  # `{ return x; }` on one line
    helpers = "".join(f"{target.indent}    {m.group(0).strip()}\n" for m in USING.finditer(block[:line_start]))
    if target.nests_functions:
        outside = block[:line_start] + "\n" + (block[close_at + 1 :] if close_at is not None else "")
        helpers += "".join(
            _shift(chunk, "", target.indent + "    ") + "\n"
            for chunk in _top_level_chunks(outside) if JS_HELPER.match(chunk) and "require(" not in chunk
        )
    closing = f"\n{target.indent}}}\n" if close_at is not None else "\n"
    return helpers + body + closing


def _brace_definition(name: str, code: str) -> tuple[int, int, int | None] | None:
    """(start of the signature, its `{`, the matching `}` or None when the code ends first) of the first
    definition of `name`: `name(...)` then `{` before any `;`, with no call or assignment before it on its line
    (an arrow function or function expression assigned to `name` too)."""
    pattern = re.compile(rf"\b{re.escape(name)}\s*(?:=\s*(?:async\s*)?(?:function\s*)?)?\(")
    for match in pattern.finditer(code):
        line_start = code.rfind("\n", 0, match.start()) + 1
        before = code[line_start : match.start()]
        if any(c in before for c in "(=.;") or re.search(r"\breturn\b|\bnew\b", before):
            continue
        close_paren = _matching(code, match.end() - 1, "(", ")")
        if close_paren is None:
            continue
        rest = code[close_paren + 1 :]
        head = re.match(r"[^;{}]*?(?:=>\s*)?\{", rest)
        if head is None or len(head.group(0)) > 300:
            continue
        open_at = close_paren + 1 + head.end() - 1
        return match.start(), open_at, _matching(code, open_at, "{", "}")
    return None


def _matching(code: str, at: int, opening: str, closing: str) -> int | None:
    """The index of the bracket closing the one at `at`, skipping strings and comments (a `'` opens a string
    only when it closes on the same line: Rust's lifetimes have one)."""
    depth, i, n = 0, at, len(code)
    while i < n:
        c = code[i]
        if code.startswith("//", i) or (c == "#" and code.startswith("#include", i)):
            i = code.find("\n", i)
            if i == -1:
                return None
            continue
        if code.startswith("/*", i):
            end = code.find("*/", i + 2)
            if end == -1:
                return None
            i = end + 2
            continue
        if c in "\"`" or (c == "'" and _closes_on_line(code, i)):
            i = _string_end(code, i)
            continue
        if c == opening:
            depth += 1
        elif c == closing:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _closes_on_line(code: str, at: int) -> bool:
    end = code.find("\n", at)
    line = code[at + 1 : end if end != -1 else len(code)]
    return re.match(r"(?:[^'\\]|\\.)*'", line) is not None


def _string_end(code: str, at: int) -> int:
    quote, i = code[at], at + 1
    while i < len(code):
        if code[i] == "\\":
            i += 2
            continue
        if code[i] == quote or (code[i] == "\n" and quote != "`"):
            return i + 1
        i += 1
    return len(code)


def _top_level_chunks(code: str) -> list[str]:
    """Statements at brace depth 0 (a function declaration with its body, a `const` with its value)."""
    chunks: list[str] = []
    current: list[str] = []
    depth = 0
    for line in code.splitlines():
        if not current and not line.strip():
            continue
        current.append(line)
        depth += line.count("{") - line.count("}")
        if depth <= 0 and (line.rstrip().endswith(("}", ";")) or not line.strip()):
            chunks.append(textwrap.dedent("\n".join(current)).strip())
            current, depth = [], 0
    if current:
        chunks.append(textwrap.dedent("\n".join(current)).strip())
    return [chunk for chunk in chunks if chunk]


def _shift(text: str, old: str, new: str) -> str:
    """Every line moved from indentation `old` to `new` (lines less indented than `old` get `new`)."""
    out = []
    for line in text.splitlines():
        if not line.strip():
            out.append("")
        elif line.startswith(old):
            out.append(new + line[len(old) :])
        else:
            out.append(new + line.lstrip())
    return "\n".join(out)


def _line_continuation(target: Target, block: str) -> str | None:
    """Languages whose signature ends its line (Lua, Ruby, R, ...): the code after the reply's signature line,
    the same line with its spacing normalised, or a line that starts as the prompt's does and names the function."""
    lines = block.splitlines(keepends=True)
    wanted = " ".join(target.signature.split())
    lead = target.signature.split(target.name, 1)[0].split()
    for i, line in enumerate(lines):
        text = " ".join(line.split())
        if text == wanted or (
            re.search(rf"\b{re.escape(target.name)}\b", text) and text.split(target.name, 1)[0].split() == lead
        ):
            reply_indent = line[: len(line) - len(line.lstrip())]
            return _shift("".join(lines[i + 1 :]).rstrip(), reply_indent, target.indent) + "\n"
    return None


def _body_only(target: Target, code: str) -> str:
    """Code that does not repeat the signature is the function's body (Python: indented under it, as a body
    written at column 0 must be); a brace language's body that leaves its braces balanced gets the function's
    closing brace."""
    if not code.strip():
        return ""
    if target.kind == "python":
        dedented = textwrap.dedent(code)
        try:
            ast.parse(dedented)
            parses_alone = not re.search(r"^(return|yield)\b", dedented, re.MULTILINE)
        except SyntaxError:
            parses_alone = False
        if parses_alone and not code.startswith((" ", "\t")):
            return code  # module-level code: kept whole
        return _reindent(dedented.strip("\n") + "\n", "", target.indent + "    ")
    if target.kind == "brace" and _balanced(code):
        return code.rstrip() + f"\n{target.indent}}}\n"
    return code


def _balanced(code: str) -> bool:
    depth = 0
    i = 0
    while i < len(code):
        closing = _matching(code, i, "{", "}") if code[i] == "{" else None
        if code[i] == "{":
            if closing is None:
                return False
            i = closing + 1
            continue
        if code[i] == "}":
            depth -= 1
        i += 1
    return depth == 0
