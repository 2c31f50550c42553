"""Attribute reads of an object whose class the code names: `obj.is_single` in a function
taking `obj: GenerateReqInput`, where that class sets `is_single` only in a method the
caller may not have run (`normalize_batch_and_arguments`), or `obj.image_data` with
`obj: Union[GenerateReqInput, EmbeddingReqInput]`, where `EmbeddingReqInput` has none.

Each such read is where `AttributeError: 'C' object has no attribute 'x'` comes from. The
classes are read across the package first (`members`, then `resolve`): what each class
body binds (methods, class attributes, dataclass fields), what its `__init__` (or a
dataclass's `__post_init__`, and the methods they call on `self`) sets on every path, and
what other methods set. A read counts when the attribute is

- set only outside that setup (`late`): unless the reading function calls a method that
  sets it on the same object first, or sets it itself;
- never bound by the class or its bases (`missing`): only when every base is one of the
  package's classes (or `object`), the class has no dynamic attributes (`setattr`,
  `__dict__`, `__getattr__`), no decorator but `dataclass`, and no code of the package
  stores an attribute of that name on another object.

A read under a test that checks the object's type or attributes (`isinstance(obj, ...)`,
`hasattr(obj, "x")`), or of a name the function binds again, is left out.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from app.drafts.unset import (
    BLANK_BASES,
    DYNAMIC_NAMES,
    Sets,
    assigns,
    class_names,
    is_abstract,
    self_stores,
)
from app.drafts.unset import SELF_BINDER as _SELF_BINDER

# Methods whose `self` stores are the instance's setup.
_SETUP = frozenset({"__init__", "__post_init__", "__new__", "__attrs_post_init__"})
_DATACLASS = frozenset({"dataclass", "dataclasses.dataclass"})
_CHECKS = frozenset({"isinstance", "hasattr", "getattr", "type", "issubclass"})
MAX_READS_PER_FUNCTION = 32
MAX_SUBCLASSES = 12


@dataclass(frozen=True, slots=True)
class Members:
    """What one class statement gives its instances."""

    name: str
    bases: tuple[str, ...]  # last parts
    names: frozenset[str]  # bound by the class body
    setup: frozenset[str]  # set on every path of its setup
    later: Mapping[str, tuple[str, ...]]  # attribute -> the other methods that set it
    closed: bool  # no dynamic attributes, no decorator but `dataclass`, no metaclass
    abstract: bool  # never an instance itself


@dataclass(frozen=True, slots=True)
class Resolved:
    """A class with its bases folded in."""

    name: str
    names: frozenset[str]
    setup: frozenset[str]
    later: Mapping[str, tuple[str, ...]]
    whole: bool  # every base is known and every class of the chain is closed
    abstract: bool


@dataclass(frozen=True, slots=True)
class PackageMembers:
    """The package's classes by name (names defined once only), and the attribute names
    any of its code stores on an object other than `self`."""

    classes: Mapping[str, Resolved]
    stored: frozenset[str]
    # A class's subclasses in the package, all generations (an object annotated with a
    # base is one of them: the message names its own class).
    subclasses: Mapping[str, tuple[str, ...]]

    def concrete(self, name: str) -> tuple[Resolved, ...]:
        """The classes an object annotated `name` may be: it and its subclasses, the
        abstract ones left out; none when they are too many to list."""
        names = (name, *self.subclasses.get(name, ()))
        if len(names) > MAX_SUBCLASSES:
            return ()
        found = (self.classes.get(n) for n in names)
        return tuple(c for c in found if c is not None and not c.abstract)


@dataclass(frozen=True, slots=True)
class TypedRead:
    """An attribute an object's class may not have when a function reads it."""

    owner: str
    attr: str


def _decorator_name(node: ast.expr) -> str:
    return ast.unparse(node.func if isinstance(node, ast.Call) else node)


def _called_on_self(method: ast.AST) -> Iterator[str]:
    for n in ast.walk(method):
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name)
            and n.func.value.id == "self"
        ):
            yield n.func.attr


def _class_members(cls: ast.ClassDef) -> Members:
    methods = {s.name: s for s in cls.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)}
    names = class_names(cls)
    sets = Sets(set(), {})
    # The setup and the methods it calls on `self`, transitively.
    todo, seen = [m for m in _SETUP if m in methods], set()
    setup: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        setup |= assigns(methods[name].body, sets, None, _SELF_BINDER)
        todo.extend(m for m in _called_on_self(methods[name]) if m in methods)
    later: dict[str, list[str]] = {}
    for name, method in methods.items():
        if name in seen:
            continue
        assigns(method.body, sets, None, _SELF_BINDER)
        for attr in self_stores(method):
            later.setdefault(attr, []).append(name)
    stores = {m: set(self_stores(methods[m])) for m in seen}
    for attr in sets.sometimes:
        if attr not in setup and attr not in later:
            later[attr] = [m for m in seen if attr in stores[m]]
    # A method that calls a setter on `self` sets the attribute too (`normalize()` calling
    # `_determine_batch_size()`).
    callers = {m: set(_called_on_self(node)) & set(methods) for m, node in methods.items()}
    for setters in later.values():
        grown = set(setters)
        while True:
            more = {m for m, called in callers.items() if m not in grown and called & grown}
            if not more:
                break
            grown |= more
        setters[:] = sorted(grown - seen)
    decorators = {_decorator_name(d) for d in cls.decorator_list}
    closed = (
        not sets.dynamic
        and not (names & DYNAMIC_NAMES)
        and "__slots__" not in names
        and decorators <= _DATACLASS
        and not cls.keywords
    )
    return Members(
        cls.name,
        tuple(ast.unparse(b).split("[", 1)[0].rsplit(".", 1)[-1] for b in cls.bases),
        frozenset(names),
        frozenset(setup),
        {a: tuple(ms) for a, ms in later.items() if a not in setup},
        closed,
        is_abstract(cls),
    )


def members(tree: ast.AST) -> list[Members]:
    """The module's top-level classes."""
    return [_class_members(s) for s in getattr(tree, "body", []) if isinstance(s, ast.ClassDef)]


# `obj.attr = ...` (or `+=`) on anything but `self`, read from the bytes of a module.
_STORED = re.compile(rb"(?<![\w.])(?!self\.)[A-Za-z_][\w.]*\.([A-Za-z_]\w*)\s*(?:[-+*/|]?=)(?!=)")


def stored_attributes(data: bytes) -> set[str]:
    """Attribute names a module stores on objects other than `self` (`obj.rid = ...`)."""
    return {m.decode() for m in _STORED.findall(data)}


def resolve(found: Iterable[Members], stored: Iterable[str] = ()) -> PackageMembers:
    """Fold each class's bases in; a name two classes share is dropped (a read could not
    tell which)."""
    by_name: dict[str, Members] = {}
    clash: set[str] = set()
    for m in found:
        if m.name in by_name:
            clash.add(m.name)
        by_name[m.name] = m
    for name in clash:
        del by_name[name]
    out: dict[str, Resolved] = {}
    for m in by_name.values():
        chain, whole, todo = [m], m.closed, list(m.bases)
        while todo:
            base = todo.pop()
            found_base = by_name.get(base)
            if found_base is not None and found_base not in chain:
                chain.append(found_base)
                whole = whole and found_base.closed
                todo.extend(found_base.bases)
            elif found_base is None and base not in BLANK_BASES:
                whole = False
        names = frozenset().union(*(c.names for c in chain))
        setup = frozenset().union(*(c.setup for c in chain))
        later: dict[str, tuple[str, ...]] = {}
        for c in chain:
            for attr, setters in c.later.items():
                if attr not in setup and attr not in names:
                    later[attr] = later.get(attr, ()) + setters
        out[m.name] = Resolved(m.name, names, setup, later, whole, m.abstract)
    children: dict[str, set[str]] = {}
    for m in by_name.values():
        for base in m.bases:
            if base in by_name:
                children.setdefault(base, set()).add(m.name)
    subclasses: dict[str, tuple[str, ...]] = {}
    for name in children:
        todo, found_all = [name], set()
        while todo:
            for child in children.get(todo.pop(), ()):
                if child not in found_all:
                    found_all.add(child)
                    todo.append(child)
        found_all.discard(name)
        subclasses[name] = tuple(sorted(found_all))
    return PackageMembers(out, frozenset(stored), subclasses)


def annotated_classes(annotation: ast.expr | None) -> tuple[str, ...]:
    """Class names an annotation allows: `C`, `mod.C`, `"C"`, `Optional[C]`, `C | None`,
    `Union[A, B]` (containers such as `List[C]` give none)."""
    if annotation is None:
        return ()
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            parsed = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return ()
        return annotated_classes(parsed)
    if isinstance(annotation, ast.Name):
        return (annotation.id,)
    if isinstance(annotation, ast.Attribute):
        return (annotation.attr,)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return annotated_classes(annotation.left) + annotated_classes(annotation.right)
    if isinstance(annotation, ast.Subscript):
        outer = ast.unparse(annotation.value).rsplit(".", 1)[-1]
        if outer in ("Optional", "Union"):
            inner = annotation.slice
            items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            return tuple(c for item in items for c in annotated_classes(item))
    return ()


def params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.arg]:
    a = node.args
    yield from (*a.posonlyargs, *a.args, *a.kwonlyargs)


def rebound(node: ast.AST) -> set[str]:
    """Names a function's own body binds (assignments, loops, `with ... as`, `del`)."""
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
            out.add(n.id)
    return out


def typed_params(
    node: ast.FunctionDef | ast.AsyncFunctionDef, known: PackageMembers, names: set[str]
) -> dict[str, tuple[Resolved, ...]]:
    """The function's parameters annotated with classes of the package (`names`: the ones
    the module defines or imports from the package), not bound again in its body: each
    with the classes its object may be."""
    out: dict[str, tuple[Resolved, ...]] = {}
    for arg in params(node):
        if arg.arg in ("self", "cls"):
            continue
        classes = tuple(
            c
            for name in annotated_classes(arg.annotation)
            if name in names and name in known.classes
            for c in known.concrete(name)
        )
        if classes:
            out[arg.arg] = classes
    if out:
        bound = rebound(node)  # walked only for a function with such a parameter
        out = {k: v for k, v in out.items() if k not in bound}
    return out


def checks(test: ast.expr) -> set[str]:
    """Names a test checks the type or attributes of (`isinstance(obj, C)`)."""
    out: set[str] = set()
    for n in ast.walk(test):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _CHECKS:
            if n.args and isinstance(n.args[0], ast.Name):
                out.add(n.args[0].id)
    return out


def sets_on(node: ast.AST, name: str) -> tuple[set[str], set[str]]:
    """Methods a function calls on `name`, and attributes it stores on `name`."""
    calls: set[str] = set()
    stores: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name:
            if isinstance(n.ctx, ast.Store):
                stores.add(n.attr)
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name)
            and n.func.value.id == name
        ):
            calls.add(n.func.attr)
    return calls, stores


def read_of(
    cls: Resolved, attr: str, stored: frozenset[str], calls: set[str], stores: set[str]
) -> TypedRead | None:
    """What reading `attr` of a `cls` may find missing, if anything."""
    if attr.startswith("__") and attr.endswith("__"):
        return None
    if attr in cls.names or attr in cls.setup or attr in stores:
        return None
    setters = cls.later.get(attr)
    if setters is not None:
        return None if set(setters) & calls else TypedRead(cls.name, attr)
    if cls.whole and attr not in stored:
        return TypedRead(cls.name, attr)
    return None
