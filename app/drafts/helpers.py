"""Functions that raise a message their caller passes in, and what each call says.

`def raise_error_or_warn(obj, strict, counter_name, message): ... raise ValueError(message)`
raises whatever its callers built: `msg = "token_to_kv_pool_allocator memory leak detected! "
f"{token_msg}"; raise_error_or_warn(self, strict, "count", msg)`. The raise statement has
no literal text of its own, so it is no record; each call that passes literal text is one,
located at the helper's `raise` (the line a traceback's innermost frame shows) with the
caller's message, condition and function.

A message can also reach its raise through a store: `def record_failure(self, room, reason):
self.failure_records[room] = reason`, then elsewhere `reason = self.kv_mgr.failure_records.pop(
self.bootstrap_room, "...")` and `raise KVTransferError(self.bootstrap_room, reason)`. Each call
of the recorder that passes literal text (`self.kv_mgr.record_failure(room, "Aborted by
AbortReq.")`) is a site of that raise too (`recording_helpers`).
"""

from __future__ import annotations

import ast
import re
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

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
    # A raise in another function than the helper (a recorder's: `recording_helpers`):
    # its own dotted function and package-relative file.
    function: str = ""
    path: str = ""


@dataclass(frozen=True, slots=True)
class RaisingHelper:
    """A function of the package that raises a message built from its parameters."""

    name: str  # the def's own name, as calls spell it
    function: str  # dotted scope (`Class.method`), as the scanner names functions
    params: tuple[str, ...]  # positional order, `self`/`cls` of a method left out
    method: bool
    raises: tuple[HelperRaise, ...]
    path: str = ""  # package-relative file, set by the release drafter
    # A recorder (`self.kv_mgr.record_failure(...)`): called through any object, not only
    # `self` or the module's own imports.
    any_receiver: bool = False

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


# Each function's own nodes, kept while its tree lives: three scans of a module read them.
_OWN_BODIES: weakref.WeakKeyDictionary[ast.AST, tuple[ast.AST, ...]] = weakref.WeakKeyDictionary()


def _own_body(node: ast.AST) -> tuple[ast.AST, ...]:
    """The nodes of a function's body, not of the functions or classes nested in it."""
    found = _OWN_BODIES.get(node)
    if found is None:
        found = _OWN_BODIES[node] = tuple(_walk_own_body(node))
    return found


def _walk_own_body(node: ast.AST) -> Iterator[ast.AST]:
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


def import_nodes(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The module's import statements, in `ast.walk`'s order, walking statements only (an
    import is never inside an expression)."""
    todo: deque[ast.AST] = deque([tree])
    while todo:
        node = todo.popleft()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        todo.extend(
            child
            for child in ast.iter_child_nodes(node)
            if isinstance(child, ast.stmt | ast.excepthandler | ast.match_case)
        )


def own_imports(tree: ast.AST, own: str) -> tuple[frozenset[str], frozenset[str]]:
    """Names bound in the module by imports from package `own` (`from own.x import f`,
    relative imports) and module aliases of it (`import own.x.y as m`, `from own.x import m`)."""
    names: set[str] = set()
    modules: set[str] = set()
    for node in import_nodes(tree):
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


# A store's reads that take out what a recorder put in: `.pop(key, default)`, `.get(...)`.
_TAKES = frozenset({"pop", "get"})
MAX_RECORDED_RAISES = 3  # raises of one store a recorder's call stands for


@dataclass(frozen=True, slots=True)
class Recorder:
    """A method that keeps a parameter under a key of `self.<store>`."""

    name: str
    params: tuple[str, ...]  # positional order, `self` left out
    param: str  # the one it keeps
    store: str
    path: str = ""


@dataclass(frozen=True, slots=True)
class StoredRaise:
    """A raise whose message argument was taken out of `<object>.<store>`."""

    store: str
    cls: str
    call: ast.Call  # the exception's construction
    variable: str  # the argument that carries the taken value, as source (`reason or "..."`)
    line: int
    end_line: int
    function: str
    path: str = ""
    default: ast.expr | None = None  # `.pop(key, "<default>")`: raised when nothing was kept


def _kept(
    node: ast.FunctionDef | ast.AsyncFunctionDef, params: tuple[str, ...]
) -> list[tuple[str, str]]:
    """(store, parameter) of each `self.<store>[key] = <parameter>` in the function."""
    found = []
    for sub in _own_body(node):
        if not isinstance(sub, ast.Assign) or len(sub.targets) != 1:
            continue
        target, value = sub.targets[0], sub.value
        if (
            isinstance(target, ast.Subscript)
            and isinstance(target.value, ast.Attribute)
            and isinstance(target.value.value, ast.Name)
            and target.value.value.id == "self"
            and isinstance(value, ast.Name)
            and value.id in params
        ):
            found.append((target.value.attr, value.id))
    return found


def _taken_from(value: ast.expr) -> str | None:
    """The store a value is taken out of: `x.<store>.pop(k, ...)`, `.get(...)`, `x.<store>[k]`."""
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in _TAKES
        and isinstance(value.func.value, ast.Attribute)
    ):
        return value.func.value.attr
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Attribute):
        return value.value.attr
    return None


def _stored_raises(
    node: ast.FunctionDef | ast.AsyncFunctionDef, function: str
) -> list[StoredRaise]:
    taken: dict[str, tuple[str, ast.expr | None]] = {}  # variable -> (store, default)
    raises: list[ast.Raise] = []
    for sub in _own_body(node):
        if isinstance(sub, ast.Assign) and len(sub.targets) == 1:
            target = sub.targets[0]
            store = _taken_from(sub.value)
            if isinstance(target, ast.Name) and store is not None:
                value = sub.value
                default = (
                    value.args[1] if isinstance(value, ast.Call) and len(value.args) == 2 else None
                )
                taken[target.id] = (store, default)
        elif isinstance(sub, ast.Raise) and sub.exc is not None:
            raises.append(sub)
    out = []
    for sub in raises:
        found = _exception_class(sub.exc) if sub.exc is not None else None
        if found is None:
            continue
        args = [*found[1].args, *(k.value for k in found[1].keywords)]
        for arg in args:
            name, fallback = arg, None
            if isinstance(arg, ast.BoolOp) and isinstance(arg.op, ast.Or) and len(arg.values) == 2:
                name, fallback = arg.values  # `reason or "Failed due to an unknown reason"`
            if isinstance(name, ast.Name) and name.id in taken:
                store, default = taken[name.id]
                out.append(
                    StoredRaise(
                        store,
                        found[0],
                        found[1],
                        _name(arg),
                        sub.lineno,
                        sub.end_lineno or sub.lineno,
                        function,
                        default=fallback or default,
                    )
                )
                break
    return out


def recorders_and_stored_raises(tree: ast.AST) -> tuple[list[Recorder], list[StoredRaise]]:
    """The module's recorders (methods that keep a parameter in a store of `self`) and its
    raises of a message taken out of a store."""
    recorders: list[Recorder] = []
    stored: list[StoredRaise] = []

    def visit(body: list[ast.stmt], scope: list[str], in_class: bool) -> None:
        for stmt in body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                names = [a.arg for a in [*stmt.args.posonlyargs, *stmt.args.args]]
                if in_class and names[:1] == ["self"]:
                    params = tuple(names[1:])
                    for store, param in _kept(stmt, params):
                        recorders.append(Recorder(stmt.name, params, param, store))
                stored.extend(_stored_raises(stmt, ".".join([*scope, stmt.name])))
                visit(stmt.body, [*scope, stmt.name], False)
            elif isinstance(stmt, ast.ClassDef):
                visit(stmt.body, [*scope, stmt.name], True)

    visit(getattr(tree, "body", []), [], False)
    return recorders, stored


def recording_helpers(
    recorders: Iterable[Recorder],
    stored: Iterable[StoredRaise],
    worded: Mapping[str, Any],
    path: str,
) -> dict[str, RaisingHelper]:
    """The recorders a module at `path` may call, as raising helpers: each stands for the
    raises of its store in that module, else in the recorder's own module, else (when
    there are no more than MAX_RECORDED_RAISES) in the package. A raise's message is its
    class's own wording (`worded`: `KVTransferError(bootstrap_room={...}): {reason}`) or
    the taken value alone, with the recorder's parameter in the taken value's place."""
    by_store: dict[str, list[StoredRaise]] = {}
    for raised in stored:
        by_store.setdefault(raised.store, []).append(raised)
    out: dict[str, RaisingHelper] = {}
    clash: set[str] = set()
    for recorder in recorders:
        found = by_store.get(recorder.store, [])
        here = [r for r in found if r.path == path]
        own = [r for r in found if r.path == recorder.path]
        chosen = here or own or (found if len(found) <= MAX_RECORDED_RAISES else [])
        raises = tuple(
            HelperRaise(r.cls, parts, r.line, r.end_line, r.function, r.path)
            for r in chosen[:MAX_RECORDED_RAISES]
            if (parts := _recorded_parts(r, recorder.param, worded)) is not None
        )
        if not raises:
            continue
        helper = RaisingHelper(
            recorder.name,
            raises[0].function,
            recorder.params,
            True,
            raises,
            raises[0].path,
            any_receiver=True,
        )
        if recorder.name in out and out[recorder.name].raises != raises:
            clash.add(recorder.name)
        out.setdefault(recorder.name, helper)
    return {k: v for k, v in out.items() if k not in clash}


def _recorded_parts(
    raised: StoredRaise, param: str, worded: Mapping[str, Any]
) -> tuple[Part, ...] | None:
    """The raise's message with the recorder's parameter where the taken value goes."""
    return _with_taken(raised, worded, [Placeholder(param)])


def default_parts(raised: StoredRaise, worded: Mapping[str, Any]) -> tuple[Part, ...] | None:
    """The message the raise gives when nothing was kept: its take's default text."""
    default = message_parts(raised.default) if raised.default is not None else None
    if not default or not any(isinstance(p, str) and p.strip() for p in default):
        return None
    return _with_taken(raised, worded, default)


def _with_taken(
    raised: StoredRaise, worded: Mapping[str, Any], value: list[Part]
) -> tuple[Part, ...] | None:
    """The raise's message (its class's own wording, else the taken value alone) with
    `value` where the taken value goes; None when the wording leaves it out."""
    message = worded.get(raised.cls.rsplit(".", 1)[-1])
    parts = message.construct(raised.call) if message is not None else ()
    if message is None:
        return normalise(value)
    taken = [isinstance(p, Placeholder) and p.name == raised.variable for p in parts]
    if not any(taken):
        return None  # the class's wording leaves the taken value out
    out: list[Part] = []
    for part, here in zip(parts, taken, strict=True):
        out.extend(value if here else [part])
    return normalise(out)
