"""Exception classes that word their own message, and what a construction of one says.

`class OutOfResources(TritonError)` builds its message in `__str__` from what `__init__`
kept (`self.name = name`); `raise_(OutOfResources(shared, limit, "shared memory"))` then
says `out of resource: shared memory, Required: {shared}, Hardware limit: {limit}. ...`.
The drafter reads such classes (a `__str__` that returns a message, or an `__init__` that
passes one to `super().__init__`) and fills their template with each construction's
arguments: literal arguments become text, others stay placeholders.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from app.drafts.defined import ClassDef, closure
from app.drafts.extract import (
    EXCEPTION_SUFFIXES,
    Part,
    Placeholder,
    _name,
    bind_arguments,
    has_literal_text,
    message_parts,
    normalise,
)


@dataclass(frozen=True, slots=True)
class ClassMessage:
    """A class's message template; placeholders named by an `__init__` parameter are
    filled from each construction."""

    name: str
    params: tuple[str, ...]
    parts: tuple[Part, ...]

    def construct(self, call: ast.Call) -> tuple[Part, ...]:
        """The message a construction `Name(args)` gives."""
        values = bind_arguments(self.params, call)
        out: list[Part] = []
        for part in self.parts:
            if isinstance(part, Placeholder) and part.name in values:
                arg = values[part.name]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str | int | float):
                    out.append(str(arg.value))
                else:
                    out.append(Placeholder(_name(arg)))
            else:
                out.append(part)
        return normalise(out)


def _exceptions(classes: list[ast.ClassDef]) -> set[str]:
    """Names of the module's exception classes: a base named like one (`...Error`), or a
    base that is one of the module's own exception classes (`class QuotaError(BaseErr)`)."""
    defs = [
        ClassDef(n.name, n.name, tuple(_name(b).rsplit(".", 1)[-1] for b in n.bases), False)
        for n in classes
    ]
    return closure(defs, frozenset(), EXCEPTION_SUFFIXES)


def _method(node: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
            return stmt
    return None


def _template(node: ast.ClassDef) -> tuple[tuple[str, ...], tuple[Part, ...]] | None:
    init = _method(node, "__init__")
    params: tuple[str, ...] = ()
    kept: dict[str, str] = {}  # self.attr -> parameter
    raw: list[Part] | None = None
    if init is not None:
        args = init.args
        params = tuple(a.arg for a in [*args.posonlyargs, *args.args][1:] + args.kwonlyargs)
        for stmt in init.body:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Attribute)
                and isinstance(stmt.targets[0].value, ast.Name)
                and stmt.targets[0].value.id == "self"
                and isinstance(stmt.value, ast.Name)
                and stmt.value.id in params
            ):
                kept[f"self.{stmt.targets[0].attr}"] = stmt.value.id
            if (
                isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Call)
                and _name(stmt.value.func) == "super().__init__"
                and stmt.value.args
            ):
                raw = message_parts(stmt.value.args[0])
    text = _method(node, "__str__")
    if text is not None and text.body and isinstance(text.body[-1], ast.Return):
        value = text.body[-1].value
        found = message_parts(value) if value is not None else None
        if found is not None:
            raw = found
    if raw is None:
        return None
    parts = tuple(
        Placeholder(kept.get(p.name, p.name)) if isinstance(p, Placeholder) else p for p in raw
    )
    parts = normalise(list(parts))
    return (params, parts) if has_literal_text(parts) else None


def class_messages(tree: ast.AST) -> list[ClassMessage]:
    """The exception classes of a module that word their own message."""
    out: list[ClassMessage] = []
    classes = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    exceptions = _exceptions(classes)
    for node in classes:
        if node.name in exceptions:
            found = _template(node)
            if found is not None:
                out.append(ClassMessage(node.name, *found))
    return out


def by_name(found: Iterable[ClassMessage]) -> Mapping[str, ClassMessage]:
    """Unique names only: two classes of one name with different messages are left out."""
    out: dict[str, ClassMessage] = {}
    clash: set[str] = set()
    for cm in found:
        if cm.name in out and out[cm.name] != cm:
            clash.add(cm.name)
        out.setdefault(cm.name, cm)
    return {k: v for k, v in out.items() if k not in clash}


def may_define(data: bytes) -> bool:
    """Cheap pre-filter: a module that could define such a class."""
    return b"class " in data and (b"def __str__" in data or b"super().__init__(" in data)
