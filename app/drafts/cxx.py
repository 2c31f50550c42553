"""Raise sites in the C++ and CUDA sources a package ships (flashinfer's JIT sources): the
checks and throws whose message reaches Python as the error's text.

Read with a small lexer, not a compiler: comments are dropped, string literals kept, and
each site's message is its string literals in order with a placeholder for every other
piece (`FLASHINFER_CHECK(ok, "size ", n, " too large")` -> `size {n} too large`). Macro
definitions are skipped: their sites are where they are used.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from app.drafts.extract import Placeholder
from app.drafts.records import message_pattern

NATIVE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".cc", ".cpp", ".cxx")
FORM_CXX_CHECK = "C++ check"  # FLASHINFER_CHECK(cond, ...), TORCH_CHECK, TVM_FFI_ICHECK << ...
FORM_CXX_THROW = "C++ throw"  # FLASHINFER_ERROR(msg), TVM_FFI_THROW(Cls) << ..., throw std::x(...)
NATIVE_FORMS = (FORM_CXX_CHECK, FORM_CXX_THROW)
MIN_LITERAL = 8  # literal characters a message needs to be a record
MAX_ARGS_CHARS = 4_000
MAX_CONDITION = 300
_STREAM_LOOKBACK = 40  # lines searched back for a `stream << ...` a throw reads

# How each macro's message reaches Python (flashinfer::Error and c10::Error are
# RuntimeError; tvm-ffi maps its error kinds to the Python class of that name).
_CHECKS = {
    "FLASHINFER_CHECK": "RuntimeError",
    "TORCH_CHECK": "RuntimeError",
}
_ICHECK = re.compile(r"TVM_FFI_ICHECK(?:_(EQ|NE|LT|LE|GT|GE|NOTNULL))?")
_STD_THROWS = {
    "runtime_error": "RuntimeError",
    "invalid_argument": "ValueError",
    "out_of_range": "IndexError",
    "logic_error": "RuntimeError",
    "domain_error": "ValueError",
    "length_error": "ValueError",
    "overflow_error": "OverflowError",
}
_SITE = re.compile(
    r"\b(FLASHINFER_CHECK|FLASHINFER_ERROR|TORCH_CHECK|TVM_FFI_THROW"
    r"|TVM_FFI_ICHECK(?:_(?:EQ|NE|LT|LE|GT|GE|NOTNULL))?"
    r"|throw\s+(?:std::)?(?:" + "|".join(_STD_THROWS) + r"))\s*\("
)
_CONTROL = frozenset({"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype"})
_CONTAINER = re.compile(r"\b(?:namespace|struct|class|union|enum)\b|extern\s*\"C\"")
_NAME_BEFORE_PAREN = re.compile(
    r"((?:[A-Za-z_~]\w*\s*(?:<[^()<>;{}\n]*>)?\s*::\s*)*[A-Za-z_~]\w*)\s*(?:<[^()<>;{}\n]*>)?\s*$"
)
_TEMPLATE_ARGS = re.compile(r"<[^()<>;{}\n]*>|\s+")
_STREAM_VAR = re.compile(r"^\s*([A-Za-z_]\w*)\s*\.\s*str\s*\(\s*\)\s*$")


@dataclass(frozen=True, slots=True)
class NativeSite:
    """One C++ raise site: where, what Python sees, its message parts and its check."""

    line: int
    end_line: int
    error_class: str
    parts: tuple[str | Placeholder, ...]
    pattern: str
    form: str
    function: str
    condition: str | None


_LEXEMES = re.compile(
    r"""^[ \t]*\#(?:[^\n]*\\\n)*[^\n]*"""  # a preprocessor line and its continuations
    r"""|//[^\n]*|/\*.*?(?:\*/|\Z)"""  # comments
    r"""|"(?:\\.|[^"\\\n])*"?|(?<![\w'])'(?:\\.|[^'\\\n])*'?""",  # literals
    re.M | re.S,
)
_NOT_NEWLINE = re.compile(r"[^\n]")


def _blank(text: str) -> tuple[str, str]:
    """(code, bare): `code` is the text with comments and preprocessor lines blanked,
    string literals kept; `bare` also blanks the literals' contents. Offsets and line
    breaks are those of the text."""
    code: list[str] = []
    bare: list[str] = []
    pos = 0
    for m in _LEXEMES.finditer(text):
        code.append(text[pos : m.start()])
        bare.append(text[pos : m.start()])
        lexeme = m.group()
        blank = _NOT_NEWLINE.sub(" ", lexeme)
        if lexeme[0] in "\"'":
            code.append(lexeme)
            bare.append(lexeme[0] + blank[1:])
        else:
            code.append(blank)
            bare.append(blank)
        pos = m.end()
    code.append(text[pos:])
    bare.append(text[pos:])
    return "".join(code), "".join(bare)


def _functions(bare: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of each function body, by braces: a `{` outside any function
    whose header has a call-like `name(` (not `if (`, not a namespace or class)."""
    out: list[tuple[int, int, str]] = []
    stack: list[tuple[str, int, str]] = []  # (kind, start, name)
    boundary = 0
    depth_in_function = 0
    for m in _BRACES.finditer(bare):
        i, c = m.start(), m.group()
        if c == ";":
            boundary = i + 1
        elif c == "{":
            if depth_in_function:
                stack.append(("block", i, ""))
                depth_in_function += 1
            elif _CONTAINER.search(bare, boundary, i):
                stack.append(("container", i, ""))
            else:
                name = _function_name(bare[boundary:i])
                if name:
                    stack.append(("function", i, name))
                    depth_in_function = 1
                else:
                    stack.append(("block", i, ""))
            boundary = i + 1
        else:
            if stack:
                kind, start, name = stack.pop()
                if kind == "function":
                    out.append((start, i, name))
                    depth_in_function = 0
                elif depth_in_function:
                    depth_in_function -= 1
            boundary = i + 1
    return out


_BRACES = re.compile(r"[;{}]")


def _function_name(header: str) -> str | None:
    """`template <...> inline void Foo<T>::bar(int x) const` -> `Foo<T>::bar`'s `Foo::bar`."""
    head = header.split("(", 1)
    if len(head) < 2 or ")" not in head[1]:
        return None
    m = _NAME_BEFORE_PAREN.search(head[0])
    if m is None:
        return None
    name = _TEMPLATE_ARGS.sub("", m.group(1))
    last = name.rsplit("::", 1)[-1]
    if last in _CONTROL or not last or last[0].isdigit():
        return None
    return name


def _args(code: str, start: int) -> tuple[list[str], int] | None:
    """The top-level comma-separated arguments of the call whose `(` is at `start`, and the
    offset after its `)`; None when it does not close within MAX_ARGS_CHARS."""
    depth = 0
    args: list[str] = []
    piece_start = start + 1
    i = start
    end = min(len(code), start + MAX_ARGS_CHARS)
    while i < end:
        c = code[i]
        if c == '"' or c == "'":
            i = _past_literal(code, i, end)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append(code[piece_start:i])
                return [a.strip() for a in args], i + 1
        elif c == "," and depth == 1:
            args.append(code[piece_start:i])
            piece_start = i + 1
        i += 1
    return None


_LITERAL = re.compile(r'\s*(?:u8|u|U|L)?"((?:\\.|[^"\\\n])*)"\s*')
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "'": "'", "\\": "\\", "0": ""}


def _literal_text(expr: str) -> str | None:
    """The value of an expression made only of adjacent string literals, else None."""
    pos, out = 0, []
    while pos < len(expr):
        m = _LITERAL.match(expr, pos)
        if m is None:
            return None
        out.append(re.sub(r"\\(.)", lambda e: _ESCAPES.get(e.group(1), e.group(1)), m.group(1)))
        pos = m.end()
    return "".join(out) if out else None


def _placeholder(expr: str) -> Placeholder:
    name = re.sub(r"\W+", "_", expr.strip()).strip("_")[:40] or "value"
    return Placeholder(name)


def _parts_of(pieces: list[str]) -> list[str | Placeholder]:
    """Each piece a literal's text or a placeholder (`std::string(x)`, `n`, `name.str()`)."""
    out: list[str | Placeholder] = []
    for piece in pieces:
        if not piece.strip():
            continue
        text = _literal_text(piece)
        if text is not None:
            if out and isinstance(out[-1], str):
                out[-1] += text
            else:
                out.append(text)
        elif not (out and isinstance(out[-1], Placeholder)):
            out.append(_placeholder(piece))
    return out


def _past_literal(text: str, i: int, end: int) -> int:
    """The offset after the string or character literal that opens at `i`."""
    quote = text[i]
    j = i + 1
    while j < end and text[j] != quote and text[j] != "\n":
        j += 2 if text[j] == "\\" else 1
    return j + 1


def _split_top(expr: str, sep: str) -> list[str]:
    """`expr` split at `sep` outside brackets and literals (`<<` of a stream, `+`)."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(expr):
        c = expr[i]
        if c == '"' or c == "'":
            i = _past_literal(expr, i, len(expr))
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and expr.startswith(sep, i):
            out.append(expr[start:i])
            i += len(sep)
            start = i
            continue
        i += 1
    out.append(expr[start:])
    return out


def _stream_after(code: str, pos: int) -> list[str]:
    """`<< a << b` after a check, up to its `;`."""
    end = code.find(";", pos)
    tail = code[pos : end if end >= 0 else len(code)][:MAX_ARGS_CHARS].strip()
    if not tail.startswith("<<"):
        return []
    return _split_top(tail[2:], "<<")


def _stream_writes(code: str, var: str, before: int, floor: int) -> list[str]:
    """What `var << ...;` statements wrote, in order, in the lines before `before`."""
    start = max(floor, before)
    for _ in range(_STREAM_LOOKBACK):
        nl = code.rfind("\n", floor, start - 1)
        if nl < 0:
            start = floor
            break
        start = nl + 1
    pieces: list[str] = []
    for m in re.finditer(r"\b" + re.escape(var) + r"\s*<<", code[start:before]):
        stmt_end = code.find(";", start + m.end())
        stmt = code[start + m.end() : stmt_end if stmt_end >= 0 else before]
        pieces.extend(_split_top(stmt, "<<"))
    return pieces


def _condition(expr: str) -> str | None:
    flat = " ".join(expr.split())
    return flat[:MAX_CONDITION] if flat else None


def native_sites(text: str) -> list[NativeSite]:
    """Every raise site in one C++/CUDA source file whose message has literal text."""
    code, bare = _blank(text)
    functions = _functions(bare)
    lines = _line_starts(text)
    out: list[NativeSite] = []
    for m in _SITE.finditer(code):
        if bare[m.start()] == " ":
            continue  # inside a literal or a comment
        parsed = _args(code, m.end() - 1)
        if parsed is None:
            continue
        args, after = parsed
        found = _site(m.group(1), args, code, after, m.start())
        if found is None:
            continue
        cls, pieces, form, condition, prefix = found
        parts = _parts_of(pieces)
        literal = sum(len(p.strip()) for p in parts if isinstance(p, str))
        if literal < MIN_LITERAL:
            continue
        function = _enclosing(functions, m.start())
        pattern = prefix + message_pattern(parts, cls)
        end = code.find(";", after)
        out.append(
            NativeSite(
                _line_of(lines, m.start()),
                _line_of(lines, end if end >= 0 else after),
                cls,
                tuple(parts),
                pattern,
                form,
                function,
                condition,
            )
        )
    return out


def _site(
    macro: str,
    args: list[str],
    code: str,
    after: int,
    at: int,
) -> tuple[str, list[str], str, str | None, str] | None:
    """(class, message pieces, form, condition, pattern prefix) of one site."""
    if macro in _CHECKS:
        if not args:
            return None
        return _CHECKS[macro], args[1:], FORM_CXX_CHECK, _condition(args[0]), ""
    if macro == "FLASHINFER_ERROR":
        if len(args) != 1:
            return None
        var = _STREAM_VAR.match(args[0])
        if var is not None:
            pieces = _stream_writes(code, var.group(1), at, _block_start(code, at))
        else:
            pieces = _split_top(args[0], "+")
        return "RuntimeError", pieces, FORM_CXX_THROW, None, ""
    if macro == "TVM_FFI_THROW":
        cls = args[0].strip() if args else ""
        if not re.fullmatch(r"[A-Za-z_]\w*", cls):
            return None
        return cls, _stream_after(code, after), FORM_CXX_THROW, None, ""
    icheck = _ICHECK.fullmatch(macro)
    if icheck is not None:
        # tvm-ffi words it `Check failed: (cond) is false: <message>` (the comparison
        # forms print both sides): what precedes the message varies, the message does not.
        condition = _condition(", ".join(args))
        return (
            "InternalError",
            _stream_after(code, after),
            FORM_CXX_CHECK,
            condition,
            (r"(?:Check failed: .*?: ?)?"),
        )
    kind = macro.rsplit(":", 1)[-1].split()[-1]
    if kind in _STD_THROWS and len(args) == 1:
        return _STD_THROWS[kind], _split_top(args[0], "+"), FORM_CXX_THROW, None, ""
    return None


def _block_start(code: str, at: int) -> int:
    """Offset of the innermost `{` still open at `at` (a stream of the same name in a
    sibling block is another message)."""
    depth = 0
    i = at
    while i > 0:
        i = max(code.rfind("{", 0, i), code.rfind("}", 0, i))
        if i < 0:
            return 0
        if code[i] == "}":
            depth += 1
        elif depth == 0:
            return i
        else:
            depth -= 1
    return 0


def _enclosing(functions: list[tuple[int, int, str]], pos: int) -> str:
    best = ""
    best_start = -1
    for start, end, name in functions:
        if start <= pos <= end and start > best_start:
            best, best_start = name, start
    return best


def _line_starts(text: str) -> list[int]:
    return [0, *(m.end() for m in _NEWLINE.finditer(text))]


_NEWLINE = re.compile(r"\n")


def _line_of(starts: list[int], pos: int) -> int:
    return bisect.bisect_right(starts, pos)
