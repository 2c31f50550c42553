"""Attribute reads an instance may lack: `self.x` read in a method of a class that sets `x`
only under a condition (`if is_multimodal: self.executor = ...`), or never, nor do its
bases in the module (`self.start_layer` in a host pool that no `__init__` gives one).

Each read is where `AttributeError: 'C' object has no attribute 'x'` comes from: a
statement site whose message the interpreter words. Read from the module's syntax only:
a class whose bases lie elsewhere may get `x` from them, so a never-set attribute counts
only when every base is in the module (or is `object`), and not in an abstract class,
whose subclasses set what it reads; one set under a condition counts whatever the bases,
since the class sets it itself.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

# Bases that give an instance no attributes a subclass reads as its own.
# (`nn.Module` is not one: it gives `self.training`, `self.named_parameters`, ...).
BLANK_BASES = frozenset({"object", "ABC", "abc.ABC", "Generic"})
DYNAMIC_NAMES = frozenset({"__getattr__", "__getattribute__"})
MAX_READS_PER_CLASS = 64
# (negated, test): the read fails when `test` holds (negated: when it fails), as the
# drafter's conditions read; None: no test known.
Guard = tuple[bool, ast.expr] | None


@dataclass(frozen=True, slots=True)
class UnsetRead:
    """The first statement of a method that reads `self.<attr>` which may be unset."""

    owner: str  # the class, as the message names it
    method: str  # the method's qualified name (`Class.method`)
    node: ast.FunctionDef | ast.AsyncFunctionDef
    stmt: ast.stmt
    attr: str
    # When the attribute is unset: the test the class sets it under, as a condition
    # (None: never set, or set in a loop with no test).
    unset_when: Guard


@dataclass
class Sets:
    """What a class's methods assign to `self`: always (on every path of some method) or
    under a condition (the first one seen, kept for the reader's why)."""

    always: set[str]
    sometimes: dict[str, Guard]
    dynamic: bool = False


def self_stores(node: ast.AST) -> Iterator[str]:
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and _is_self(n.value):
            yield n.attr


def _is_dynamic(stmt: ast.stmt) -> bool:
    """`setattr(self, ...)`, `self.__dict__.update(...)`, `vars(self)`: names unknown."""
    for n in ast.walk(stmt):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            if n.func.id in ("setattr", "vars") and n.args and _is_self(n.args[0]):
                return True
        if isinstance(n, ast.Attribute) and n.attr == "__dict__" and _is_self(n.value):
            return True
    return False


def _is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


class Binder:
    """What a statement binds, for `assigns`: here, attributes of `self`."""

    def target(self, node: ast.AST) -> Iterator[str]:
        """Names an assignment's target binds."""
        return self_stores(node)

    def statement(self, stmt: ast.stmt) -> Iterator[str]:
        """Names any other simple statement binds (an import, a `def`)."""
        return iter(())

    def dynamic(self, stmt: ast.stmt, nested: bool = False) -> bool:
        """The statement binds names no reader can list. `nested`: it is in the body of a
        statement asked about before, whose walk saw its nodes already."""
        if nested or isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            return False
        return _is_dynamic(stmt)


def assigns(
    stmts: list[ast.stmt], sets: Sets, guard: Guard, binder: Binder, nested: bool = False
) -> set[str]:
    """What a block binds on every path through it; the rest goes to `sets.sometimes` with
    the test it sits under (`guard` for a block with none). `nested`: the block is in the
    body of a statement `binder.dynamic` was asked about."""
    done: set[str] = set()

    def sometimes(names: set[str], when: Guard) -> None:
        for name in names - done:
            sets.sometimes.setdefault(name, when)

    for pos, stmt in enumerate(stmts):
        if not sets.dynamic and binder.dynamic(stmt, nested):
            sets.dynamic = True
        if isinstance(stmt, ast.Assign | ast.AugAssign) or (
            isinstance(stmt, ast.AnnAssign) and stmt.value is not None
        ):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            done.update(name for target in targets for name in binder.target(target))
        elif isinstance(stmt, ast.If):
            body = assigns(stmt.body, sets, (False, stmt.test), binder, True)
            orelse = assigns(stmt.orelse, sets, (True, stmt.test), binder, True)
            done |= body & orelse
            sometimes(body, (True, stmt.test))  # unset when the test fails
            sometimes(orelse, (False, stmt.test))  # unset when it holds
            if stmt.body and isinstance(stmt.body[-1], ast.Return) and not stmt.orelse:
                # `if not enabled: return`: what follows is set only when the test fails.
                after = assigns(stmts[pos + 1 :], sets, (False, stmt.test), binder, nested)
                sometimes(after, (False, stmt.test))
                return done
        elif isinstance(stmt, ast.Try):
            body = assigns([*stmt.body, *stmt.orelse], sets, guard, binder, True)
            handled = [assigns(h.body, sets, guard, binder, True) for h in stmt.handlers]
            always = body.intersection(*handled) if handled else body
            sometimes(body.union(*handled) - always, guard)
            done |= always | assigns(stmt.finalbody, sets, guard, binder, True)
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            for item in stmt.items:
                if item.optional_vars is not None:
                    done.update(binder.target(item.optional_vars))
            done |= assigns(stmt.body, sets, guard, binder, True)
        elif isinstance(stmt, ast.For | ast.AsyncFor | ast.While):
            inner = (True, stmt.test) if isinstance(stmt, ast.While) else guard
            sometimes(assigns([*stmt.body, *stmt.orelse], sets, inner, binder, True), inner)
            if not isinstance(stmt, ast.While):
                sometimes(set(binder.target(stmt.target)), guard)
        elif isinstance(stmt, ast.Match):
            for case in stmt.cases:
                sometimes(assigns(case.body, sets, guard, binder, True), guard)
        else:
            done.update(binder.statement(stmt))
    return done


SELF_BINDER = Binder()


def class_names(cls: ast.ClassDef) -> set[str]:
    """Names the class body binds: methods, class attributes, annotated fields."""
    names: set[str] = set()
    for stmt in cls.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            names.update(n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            names.add(stmt.target.id)
    return names


def _chain(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> tuple[list[ast.ClassDef], bool]:
    """The class and its bases defined in the module; and whether every base is known."""
    chain, known, todo = [cls], True, list(cls.bases)
    while todo:
        base = todo.pop()
        name = ast.unparse(base).split("[", 1)[0]
        found = classes.get(name)
        if found is not None and found not in chain:
            chain.append(found)
            todo.extend(found.bases)
        elif found is None and name not in BLANK_BASES:
            known = False
    return chain, known


def is_abstract(cls: ast.ClassDef) -> bool:
    """`class C(ABC)`, `metaclass=ABCMeta`, or an `@abstractmethod`: made to be subclassed."""
    if any(ast.unparse(b) in ("ABC", "abc.ABC") for b in cls.bases):
        return True
    if any(k.arg == "metaclass" and "ABCMeta" in ast.unparse(k.value) for k in cls.keywords):
        return True
    return any(
        isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
        and any("abstractmethod" in ast.unparse(d) for d in stmt.decorator_list)
        for stmt in cls.body
    )


def own_nodes(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The expressions of a statement itself, not of the statements nested in it."""
    for _, value in ast.iter_fields(stmt):
        values = value if isinstance(value, list) else [value]
        for v in values:
            if isinstance(v, ast.stmt | ast.excepthandler | ast.match_case):
                continue
            if isinstance(v, ast.AST):
                yield from ast.walk(v)


def _guarded(method: ast.AST) -> set[str]:
    """Attributes the method checks before reading: `hasattr(self, "x")`, `getattr(self,
    "x", ...)`."""
    out: set[str] = set()
    for n in ast.walk(method):
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)
            and n.func.id in ("hasattr", "getattr")
            and len(n.args) >= 2
            and _is_self(n.args[0])
            and isinstance(n.args[1], ast.Constant)
            and isinstance(n.args[1].value, str)
        ):
            out.add(n.args[1].value)
    return out


def unset_reads(tree: ast.AST) -> list[UnsetRead]:
    """Each method's first read of each attribute its class may lack (module classes)."""
    body = getattr(tree, "body", [])
    classes = {s.name: s for s in body if isinstance(s, ast.ClassDef)}
    subclassed = {ast.unparse(b) for c in classes.values() for b in c.bases}
    found: list[UnsetRead] = []
    for cls in classes.values():
        chain, known = _chain(cls, classes)
        names: set[str] = set()
        sets = Sets(set(), {})
        for member in chain:
            names |= class_names(member)
            for stmt in member.body:
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                    sets.always |= assigns(stmt.body, sets, None, SELF_BINDER)
        if sets.dynamic or names & DYNAMIC_NAMES:
            continue
        # A never-set attribute needs a class whose whole setup is in view: no base from
        # elsewhere, an `__init__` of its own (a mixin reads its host's), no subclass here,
        # and not abstract itself (its subclasses, maybe in other modules, set what it reads).
        whole = (
            known and "__init__" in names and cls.name not in subclassed and not is_abstract(cls)
        )
        reads = 0
        for stmt in cls.body:
            if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            guarded = _guarded(stmt)
            seen: set[str] = set()
            inner = sorted(
                (s for s in ast.walk(stmt) if isinstance(s, ast.stmt) and s is not stmt),
                key=lambda s: s.lineno,
            )
            for s in inner:
                for n in own_nodes(s):
                    if not (
                        isinstance(n, ast.Attribute)
                        and isinstance(n.ctx, ast.Load)
                        and _is_self(n.value)
                    ):
                        continue
                    attr = n.attr
                    if attr in seen or attr in names or attr in sets.always or attr in guarded:
                        continue
                    if attr.startswith("__") and attr.endswith("__"):
                        continue
                    if attr in sets.sometimes:
                        unset_when = sets.sometimes[attr]
                    elif whole:
                        unset_when = None
                    else:
                        continue
                    seen.add(attr)
                    reads += 1
                    if reads > MAX_READS_PER_CLASS:
                        break
                    found.append(
                        UnsetRead(cls.name, f"{cls.name}.{stmt.name}", stmt, s, attr, unset_when)
                    )
    return found
