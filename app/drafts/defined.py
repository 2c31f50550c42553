"""Classes a package defines that the drafter needs to know by name across its modules:
its Enum classes (a lookup `LoadFormat(value)` raises `'x' is not a valid LoadFormat`) and
its exception classes (a function that returns one, `return RuntimeError(...)`, builds an
error its caller raises). A base names another class of the package by its last part, so
`class B(A)` with `A` an Enum of another module is an Enum too.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from app.drafts.extract import EXCEPTION_SUFFIXES, _name

ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"})
# Builtin exceptions, warnings left out: a function returning a `UserWarning(...)` hands it
# to `warnings.warn`, not to a `raise`.
BUILTIN_EXCEPTIONS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type)
    and issubclass(value, BaseException)
    and not issubclass(value, Warning)
)


@dataclass(frozen=True, slots=True)
class ClassDef:
    """One `class` statement: its name, qualified name and bases (last parts)."""

    name: str
    qualname: str  # what Enum's message names (`Outer.Inner` for a nested class)
    bases: tuple[str, ...]
    missing: bool = False  # defines `_missing_`: a lookup may not raise


@dataclass(frozen=True, slots=True)
class PackageClasses:
    """Enum classes (name -> qualified name; unambiguous ones only) and exception classes."""

    enums: Mapping[str, str]
    exceptions: frozenset[str]


def class_defs(tree: ast.AST) -> list[ClassDef]:
    """Module-level classes and classes nested in them (not classes inside functions)."""
    out: list[ClassDef] = []

    def visit(body: list[ast.stmt], scope: list[str]) -> None:
        for stmt in body:
            if not isinstance(stmt, ast.ClassDef):
                continue
            bases = tuple(_name(b).rsplit(".", 1)[-1] for b in stmt.bases)
            missing = any(
                isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == "_missing_"
                for s in stmt.body
            )
            qualname = ".".join([*scope, stmt.name])
            out.append(ClassDef(stmt.name, qualname, bases, missing))
            visit(stmt.body, [*scope, stmt.name])

    visit(getattr(tree, "body", []), [])
    return out


def closure(defs: list[ClassDef], roots: frozenset[str], suffixes: tuple[str, ...]) -> set[str]:
    """Names of the classes whose bases reach `roots` (or a name with `suffixes`)."""
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for d in defs:
            if d.name in found:
                continue
            if any(
                b in roots or b in found or (suffixes and b.endswith(suffixes)) for b in d.bases
            ):
                found.add(d.name)
                changed = True
    return found


def resolve(found: Iterable[ClassDef]) -> PackageClasses:
    """The package's Enum and exception classes, from the class statements of its modules.
    An Enum name is kept only if every class of that name is an Enum with one qualified
    name and no `_missing_` (a call could not tell them apart otherwise)."""
    defs = list(found)
    enum_names = closure(defs, ENUM_BASES, ())
    enums: dict[str, str] = {}
    clash: set[str] = set()
    for d in defs:
        is_enum = any(b in ENUM_BASES or b in enum_names for b in d.bases)
        if not is_enum or d.missing or enums.get(d.name, d.qualname) != d.qualname:
            clash.add(d.name)
        enums.setdefault(d.name, d.qualname)
    exceptions = closure(defs, BUILTIN_EXCEPTIONS, EXCEPTION_SUFFIXES)
    kept = {k: v for k, v in enums.items() if k not in clash and k in enum_names}
    return PackageClasses(kept, frozenset(exceptions))


def may_define(data: bytes) -> bool:
    """Cheap pre-filter: a module that defines a class."""
    return b"class " in data
