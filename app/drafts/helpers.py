"""Functions that raise a message their caller passes in, and what each call says.

`def raise_error_or_warn(obj, strict, counter_name, message): ... raise ValueError(message)`
raises whatever its callers built: `msg = "token_to_kv_pool_allocator memory leak detected! "
f"{token_msg}"; raise_error_or_warn(self, strict, "count", msg)`. The raise statement has
no literal text of its own, so it is no record; each call that passes literal text is one,
located at the helper's `raise` (the line a traceback's innermost frame shows) with the
caller's message, condition and function.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from app.drafts.extract import (
    Part,
    Placeholder,
    _exception_class,
    _name,
    bind_arguments,
    message_arg,
    message_parts,
    normalise,
)

MAX_RAISES = 3  # raises of one helper that depend on its parameters
# A parameter named like a message carries one; any other (`direction`, `side`) carries a
# value, and a caller's literal for it is a message only if it reads as text (a space).
_MESSAGE_PARAM = re.compile(r"msg|message|reason|err|text|detail|hint|prefix|desc", re.I)


@dataclass(frozen=True, slots=True)
class HelperRaise:
    """One `raise` of a helper whose message holds a parameter."""

    cls: str
    parts: tuple[Part, ...]
    line: int
    end_line: int


@dataclass(frozen=True, slots=True)
class RaisingHelper:
    """A function of the package that raises a message built from its parameters."""

    name: str  # the def's own name, as calls spell it
    function: str  # dotted scope (`Class.method`), as the scanner names functions
    params: tuple[str, ...]  # positional order, `self`/`cls` of a method left out
    method: bool
    raises: tuple[HelperRaise, ...]
    path: str = ""  # package-relative file, set by the release drafter

    def construct(
        self, call: ast.Call, resolve: Callable[[ast.expr], list[Part] | None]
    ) -> list[tuple[HelperRaise, tuple[Part, ...]]]:
        """Each raise's message for this call, when the call passes literal text into it.
        `resolve` turns an argument into its template (in the caller's function)."""
        values = bind_arguments(self.params, call)
        out = []
        for raised in self.raises:
            parts: list[Part] = []
            passed = False
            for part in raised.parts:
                if not isinstance(part, Placeholder) or part.name not in values:
                    parts.append(part)
                    continue
                arg = values[part.name]
                found = resolve(arg)
                texts = [p.strip() for p in found or () if isinstance(p, str) and p.strip()]
                if not found or not texts:
                    parts.append(Placeholder(_name(arg)))
                    continue
                parts.extend(found)
                if _MESSAGE_PARAM.search(part.name) or any(" " in t for t in texts):
                    passed = True
            if passed:
                out.append((raised, normalise(parts)))
        return out


def _own_body(node: ast.AST) -> Iterable[ast.AST]:
    """The nodes of a function's body, not of the functions or classes nested in it."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        sub = stack.pop()
        if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        yield sub
        stack.extend(ast.iter_child_nodes(sub))


def _helper(
    node: ast.FunctionDef | ast.AsyncFunctionDef, scope: list[str], in_class: bool
) -> RaisingHelper | None:
    args = node.args
    names = [a.arg for a in [*args.posonlyargs, *args.args]]
    static = any(_name(d) == "staticmethod" for d in node.decorator_list)
    method = in_class and not static and bool(names) and names[0] in ("self", "cls")
    params = tuple(names[1:] if method else names) + tuple(a.arg for a in args.kwonlyargs)
    if not params:
        return None
    raises: list[HelperRaise] = []
    for sub in _own_body(node):
        if not isinstance(sub, ast.Raise) or sub.exc is None:
            continue
        found = _exception_class(sub.exc)
        arg = message_arg(found[1]) if found else None
        if found is None or arg is None:
            continue
        if isinstance(arg, ast.Name):
            parts: list[Part] | None = [Placeholder(arg.id)]
        else:
            parts = message_parts(arg)
        if not parts or not any(isinstance(p, Placeholder) and p.name in params for p in parts):
            continue
        raises.append(HelperRaise(found[0], normalise(parts), sub.lineno, sub.end_lineno or 0))
    if not raises or len(raises) > MAX_RAISES:
        return None
    function = ".".join([*scope, node.name])
    return RaisingHelper(node.name, function, params, method, tuple(sorted(raises, key=_line)))


def _line(raised: HelperRaise) -> int:
    return raised.line


def raising_helpers(tree: ast.AST) -> list[RaisingHelper]:
    """The module's functions (and methods) that raise a message a parameter carries."""
    out: list[RaisingHelper] = []

    def visit(body: list[ast.stmt], scope: list[str], in_class: bool) -> None:
        for stmt in body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                found = _helper(stmt, scope, in_class)
                if found is not None:
                    out.append(found)
                visit(stmt.body, [*scope, stmt.name], False)
            elif isinstance(stmt, ast.ClassDef):
                visit(stmt.body, [*scope, stmt.name], True)

    visit(getattr(tree, "body", []), [], False)
    return out


def by_name(found: Iterable[RaisingHelper]) -> Mapping[str, RaisingHelper]:
    """Unique names only: two helpers of one name (in two files, or a function and a
    method) are left out, since a call could not tell them apart."""
    out: dict[str, RaisingHelper] = {}
    clash: set[str] = set()
    for helper in found:
        if helper.name in out:
            clash.add(helper.name)
        out.setdefault(helper.name, helper)
    return {k: v for k, v in out.items() if k not in clash and not k.startswith("__")}


def may_define(data: bytes) -> bool:
    """Cheap pre-filter: a module that could define such a function."""
    return b"raise " in data and b"def " in data


def own_imports(tree: ast.AST, own: str) -> tuple[frozenset[str], frozenset[str]]:
    """Names bound in the module by imports from package `own` (`from own.x import f`,
    relative imports) and module aliases of it (`import own.x.y as m`, `from own.x import m`)."""
    names: set[str] = set()
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level or module.split(".", 1)[0] == own:
                for alias in node.names:
                    names.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".", 1)[0] == own:
                    modules.add(alias.asname or alias.name.split(".", 1)[0])
    return frozenset(names), frozenset(modules | names)
