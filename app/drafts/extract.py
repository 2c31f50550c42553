"""Find `raise X("...")` sites in Python source and recover their message templates.

A message template is a tuple of parts: literal strings and `Placeholder`s for the
values only known at run time (f-string fields, %-format and str.format arguments,
non-literal operands of `+`).
"""

from __future__ import annotations

import ast
import re
import string
from dataclasses import dataclass

MAX_PLACEHOLDER_NAME = 60
# A base class named like one of these is an exception class (`class QuotaError(BaseError)`).
EXCEPTION_SUFFIXES = ("Error", "Exception", "Warning", "Exit", "Interrupt")
_PERCENT = re.compile(
    r"%(?:\((?P<key>[^)\n]{1,100})\))?[#0\- +]*(?:\*|\d{1,4})?(?:\.(?:\*|\d{1,4}))?[hlL]?"
    r"(?P<conv>[diouxXeEfFgGcrsa%])"
)


@dataclass(frozen=True, slots=True)
class Placeholder:
    """A run-time value in a message; `name` is the source expression, shortened."""

    name: str


Part = str | Placeholder


@dataclass(frozen=True, slots=True)
class RaiseSite:
    """One raise statement (or assert) with a recoverable message, and its code context."""

    error_class: str
    parts: tuple[Part, ...]
    line: int
    end_line: int
    form: str = "literal"
    function: str = "<module>"
    condition: str | None = None
    docstring: str | None = None
    reads: tuple[str, ...] = ()
    chained: bool = False
    # Statement sites (scan.STATEMENT_FORMS): the statement's first line, and the pattern
    # of what the interpreter prints for it (the message is not written in the code).
    statement: str | None = None
    pattern: str | None = None
    # A message passed to a raising helper (helpers.py): the helper's file, where it raises.
    path: str | None = None
    # What the function reads (statement drafting only): of its instance, `self.x` as "x"
    # and `self.x.y` as "x.y"; of an imported module, its dotted path ("torch.cuda.x"). An
    # `'Cls' object has no attribute 'x'` or `module 'm' has no attribute 'x'` with no frame
    # names them.
    self_reads: tuple[str, ...] = ()


def _name(node: ast.expr) -> str:
    try:
        text = ast.unparse(node)
    except (ValueError, RecursionError):  # pragma: no cover - malformed synthetic trees
        text = "value"
    text = " ".join(text.split())
    return text if len(text) <= MAX_PLACEHOLDER_NAME else text[: MAX_PLACEHOLDER_NAME - 3] + "..."


def _fstring(node: ast.JoinedStr) -> list[Part]:
    parts: list[Part] = []
    for value in node.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            parts.append(value.value)
        elif isinstance(value, ast.FormattedValue):
            parts.append(Placeholder(_name(value.value)))
        else:  # pragma: no cover - not produced by the parser
            parts.append(Placeholder("value"))
    return parts


def _percent(fmt: str, args: ast.expr) -> list[Part] | None:
    """Expand `"..." % args`; None if the format does not look like %-formatting."""
    if isinstance(args, ast.Tuple):
        positional = [_name(e) for e in args.elts]
    else:
        positional = [_name(args)]
    keyed = {}
    if isinstance(args, ast.Dict):
        for k, v in zip(args.keys, args.values, strict=True):
            if isinstance(k, ast.Constant) and isinstance(k.value, str):
                keyed[k.value] = _name(v)
    parts: list[Part] = []
    pos = 0
    used = 0
    for m in _PERCENT.finditer(fmt):
        parts.append(fmt[pos : m.start()])
        pos = m.end()
        if m.group("conv") == "%":
            parts.append("%")
        elif m.group("key") is not None:
            parts.append(Placeholder(keyed.get(m.group("key"), m.group("key"))))
        else:
            name = positional[used] if used < len(positional) else f"arg{used}"
            used += 1
            parts.append(Placeholder(name))
    parts.append(fmt[pos:])
    return parts


def _format(fmt: str, call: ast.Call) -> list[Part] | None:
    """Expand `"...".format(...)`; None if the format string is malformed."""
    kwargs = {k.arg: _name(k.value) for k in call.keywords if k.arg}
    positional = [_name(a) for a in call.args]
    parts: list[Part] = []
    auto = 0
    try:
        fields = list(string.Formatter().parse(fmt))
    except ValueError:
        return None
    for literal, field, _spec, _conv in fields:
        parts.append(literal)
        if field is None:
            continue
        head = re.split(r"[.\[]", field, maxsplit=1)[0]
        if head == "":
            name = positional[auto] if auto < len(positional) else f"{auto}"
            auto += 1
        elif head.isdigit():
            idx = int(head)
            name = positional[idx] if idx < len(positional) else head
        else:
            name = kwargs.get(head, head)
        parts.append(Placeholder(name + field[len(head) :] if head else name))
    return parts


def message_parts(node: ast.expr) -> list[Part] | None:
    """Template of a message expression, or None if no literal text is recoverable."""
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        return _fstring(node)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        if isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
            return _percent(node.left.value, node.right)
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        target = node.func.value
        if (
            node.func.attr == "format"
            and isinstance(target, ast.Constant)
            and isinstance(target.value, str)
        ):
            return _format(target.value, node)
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = message_parts(node.left)
        right = message_parts(node.right)
        if left is None and right is None:
            return None
        return (left or [Placeholder(_name(node.left))]) + (
            right or [Placeholder(_name(node.right))]
        )
    return None


def normalise(parts: list[Part]) -> tuple[Part, ...]:
    """Merge adjacent literals and adjacent placeholders; drop empty literals."""
    out: list[Part] = []
    for part in parts:
        if isinstance(part, str):
            if not part:
                continue
            if out and isinstance(out[-1], str):
                out[-1] = out[-1] + part
                continue
        elif out and isinstance(out[-1], Placeholder):
            out[-1] = Placeholder(f"{out[-1].name}{part.name}")
            continue
        out.append(part)
    return tuple(out)


def has_literal_text(parts: tuple[Part, ...]) -> bool:
    return any(isinstance(p, str) and any(c.isalpha() for c in p) for p in parts)


def _exception_class(exc: ast.expr) -> tuple[str, ast.Call] | None:
    if not isinstance(exc, ast.Call) or not isinstance(exc.func, ast.Name | ast.Attribute):
        return None
    name = _name(exc.func)
    last = name.rsplit(".", 1)[-1]
    if not last[:1].isupper():
        return None
    return name, exc


# Keywords that carry an exception's message: `detail` is FastAPI's and Starlette's
# `HTTPException(status_code=..., detail="...")`, whose text the client's body carries.
_RAISE_MESSAGE_KEYWORDS = ("msg", "message", "detail")


def is_status(arg: ast.expr) -> bool:
    """The argument is an HTTP status: `HTTPStatus.BAD_REQUEST`, `status.HTTP_400_...`, 400."""
    if isinstance(arg, ast.Constant):
        return isinstance(arg.value, int) and not isinstance(arg.value, bool)
    name = _name(arg)
    return name.startswith("HTTPStatus.") or ".HTTP_" in name or name.startswith("HTTP_")


def message_arg(call: ast.Call) -> ast.expr | None:
    """The message argument of an exception constructor call: the first positional one,
    the one after a leading HTTP status (`HTTPException(404, "...")`), or a message keyword."""
    args = call.args
    if args and not (is_status(args[0]) and (len(args) > 1 or _message_keyword(call))):
        return args[0]
    if len(args) > 1:
        return args[1]
    return _message_keyword(call)


def _message_keyword(call: ast.Call) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg in _RAISE_MESSAGE_KEYWORDS), None)


def bind_arguments(params: tuple[str, ...], call: ast.Call) -> dict[str, ast.expr]:
    """A call's arguments by the callee's parameter names (positional up to a `*args`)."""
    values: dict[str, ast.expr] = {}
    for param, arg in zip(params, call.args, strict=False):
        if isinstance(arg, ast.Starred):
            break
        values[param] = arg
    for keyword in call.keywords:
        if keyword.arg in params:
            values[keyword.arg] = keyword.value
    return values
