"""Module names bound only under a condition and read in a function: `if _is_cuda: from
sgl_kernel import build_tree_kernel as sgl_build_tree_kernel`, then a call of it on a
machine where the test failed raises `NameError: name 'sgl_build_tree_kernel' is not
defined`. Each function's first read of such a name is a statement site.

A read under an `if` with the binding's own test is skipped (it runs only when the name
is there); names bound under `if TYPE_CHECKING:` serve annotations; a module that binds
names it cannot list (`from x import *`, `globals()[...] = ...`) is left alone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from app.drafts.unset import Binder, Guard, Sets, assigns

MAX_READS_PER_MODULE = 64
_TYPE_CHECKING = ("TYPE_CHECKING", "typing.TYPE_CHECKING")


@dataclass(frozen=True, slots=True)
class UnboundRead:
    """The first statement of a function that reads a name the module may not bind."""

    function: str  # the function's qualified name (`Class.method`, `outer.inner`)
    node: ast.FunctionDef | ast.AsyncFunctionDef
    stmt: ast.stmt
    name: str
    unbound_when: Guard  # the test the module binds it under, as a condition


class _Names(Binder):
    """Names a module-level statement binds."""

    def target(self, node: ast.AST) -> Iterator[str]:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                yield n.id

    def statement(self, stmt: ast.stmt) -> Iterator[str]:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            for alias in stmt.names:
                yield alias.asname or alias.name.split(".", 1)[0]
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield stmt.name

    def dynamic(self, stmt: ast.stmt, nested: bool = False) -> bool:
        # Asked of nested statements too: the walk below looks for calls, not for imports.
        if isinstance(stmt, ast.ImportFrom):
            return any(a.name == "*" for a in stmt.names)
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return False  # a `globals()` in its body runs in its own time, if ever
        return any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "globals"
            for n in ast.walk(stmt)
        )


_NAMES = _Names()


def _type_checking(guard: Guard) -> bool:
    return guard is not None and ast.unparse(guard[1]) in _TYPE_CHECKING


def _locals(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names local to the function (Python makes a name local wherever it is bound in it)."""
    args = func.args
    found = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    found.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    todo: list[ast.AST] = list(func.body)
    declared_global: set[str] = set()
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(node.name)
            continue  # its own scope
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Global | ast.Nonlocal):
            declared_global.update(node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            found.add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            found.update(_NAMES.statement(node))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.add(node.name)
        todo.extend(ast.iter_child_nodes(node))
    return found - declared_global


def _statements(
    stmts: list[ast.stmt], tests: tuple[tuple[bool, str], ...]
) -> Iterator[tuple[ast.stmt, tuple[tuple[bool, str], ...]]]:
    """A function's statements in order (not those of nested functions), each with the
    `if` tests it runs under: (True, test) in the body, (False, test) in the `else`."""
    for stmt in stmts:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        yield stmt, tests
        if isinstance(stmt, ast.If):
            test = ast.unparse(stmt.test)
            yield from _statements(stmt.body, (*tests, (True, test)))
            yield from _statements(stmt.orelse, (*tests, (False, test)))
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _statements(getattr(stmt, field, []) or [], tests)
        for handler in getattr(stmt, "handlers", []) or []:
            yield from _statements(handler.body, tests)
        for case in getattr(stmt, "cases", []) or []:
            yield from _statements(case.body, tests)


def _loads(stmt: ast.stmt) -> Iterator[str]:
    """Names the statement itself reads (not its nested blocks, nor annotations)."""
    for field, value in ast.iter_fields(stmt):
        if field in ("body", "orelse", "finalbody", "handlers", "cases", "annotation"):
            continue
        for v in value if isinstance(value, list) else [value]:
            if not isinstance(v, ast.AST):
                continue
            for n in ast.walk(v):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                    yield n.id


def _functions(
    body: list[ast.stmt], scope: tuple[str, ...]
) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, tuple[str, ...]]]:
    """Every function (methods and nested ones too), its qualified name and its scope."""
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            yield ".".join((*scope, stmt.name)), stmt, scope
            yield from _functions(stmt.body, (*scope, stmt.name))
        elif isinstance(stmt, ast.ClassDef):
            yield from _functions(stmt.body, (*scope, stmt.name))
        elif isinstance(stmt, ast.If | ast.Try | ast.With | ast.AsyncWith):
            for field in ("body", "orelse", "finalbody"):
                yield from _functions(getattr(stmt, field, []) or [], scope)


def unbound_reads(tree: ast.AST) -> list[UnboundRead]:
    """Each function's first read of each module name bound only under a condition."""
    body = getattr(tree, "body", [])
    sets = Sets(set(), {})
    always = assigns(body, sets, None, _NAMES)
    if sets.dynamic:
        return []
    maybe = {
        name: guard
        for name, guard in sets.sometimes.items()
        if name not in always and not _type_checking(guard)
    }
    if not maybe:
        return []
    found: list[UnboundRead] = []
    shadowed: dict[tuple[str, ...], set[str]] = {}
    for qualified, func, scope in _functions(body, ()):
        local = _locals(func)
        shadowed[(*scope, func.name)] = local
        # A name an enclosing function binds is that function's, not the module's.
        outer = set().union(*(shadowed.get(scope[:i], set()) for i in range(1, len(scope) + 1)))
        seen: set[str] = set()
        for stmt, tests in _statements(func.body, ()):
            for name in _loads(stmt):
                if name not in maybe or name in seen or name in local or name in outer:
                    continue
                guard = maybe[name]
                if guard is not None and (guard[0], ast.unparse(guard[1])) in tests:
                    continue  # read only where the module bound it
                seen.add(name)
                found.append(UnboundRead(qualified, func, stmt, name, guard))
                if len(found) >= MAX_READS_PER_MODULE:
                    return found
    return found
