"""Walk a module's tree for raise sites and asserts, with the code context of each.

Statement sites, when asked for, are statements whose error the interpreter raises and
words itself: a bare `assert cond` (the site's message is the statement, as pytest and
users quote it; Python prints none), a `from X import a, b` of another package
(`cannot import name 'a' from 'X'`, `No module named 'X'`) and a lookup in a mapping
named `*dict` by a variable key (`params_dict[name]`: KeyError, the key as its message).
They are found through a traceback's frame on that very statement.

Every `raise` and `assert` is classified by the form of its message (see `FORMS`); the
sites whose message keeps literal text become records. Each site carries its enclosing
function, the condition under which it fires (as source), the function's docstring and the
attributes the condition reads (for server flags), all derived from the code alone.
A function that builds and returns an exception (`return RuntimeError(f"...")`, raised by
its caller as `raise _scheduler_died_error(i, proc)`) has a raise site at that `return`; a
call of an Enum class of the package by a value (`LoadFormat(load_format)`) is a statement
site of the `ValueError` Python words (`'x' is not a valid LoadFormat`).
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache

from app.drafts.classes import ClassMessage
from app.drafts.defined import BUILTIN_EXCEPTIONS, PackageClasses, class_defs, resolve
from app.drafts.extract import (
    EXCEPTION_SUFFIXES,
    Part,
    Placeholder,
    RaiseSite,
    _exception_class,
    _name,
    has_literal_text,
    is_status,
    message_arg,
    message_parts,
    normalise,
)
from app.drafts.helpers import RaisingHelper, import_nodes, own_imports
from app.drafts.records import escape_literal
from app.drafts.typed import MAX_READS_PER_FUNCTION as MAX_TYPED_READS
from app.drafts.typed import (
    PackageMembers,
    Resolved,
    checks,
    params,
    read_of,
    sets_on,
    stored_attributes,
    typed_params,
)
from app.drafts.typed import members as module_members
from app.drafts.typed import resolve as resolve_members
from app.drafts.unbound import unbound_reads
from app.drafts.unset import own_nodes, unset_reads

FORM_LITERAL = "literal"
FORM_FSTRING = "f-string"
FORM_PERCENT = "%"
FORM_FORMAT = ".format()"
FORM_CONCAT = "+"
FORM_IMPLICIT = "implicit concatenation"
FORM_VARIABLE = "variable"
FORM_ASSERT = "assert"
FORM_NO_MESSAGE = "no message"
FORM_OTHER = "other expression"
FORM_RERAISE = "re-raise"
FORM_CLASS = "class message"  # the exception class words it (classes.py)
FORM_HELPER = "helper call"  # a message passed to a function that raises it (helpers.py)
FORM_RETURNED = "returned exception"  # `return RuntimeError(...)`: its caller raises it
# Statement sites: the interpreter raises, and words the message, for a plain statement.
FORM_BARE_ASSERT = "bare assert"  # `assert cond`: AssertionError with no message
FORM_IMPORT = "import"  # `from X import a`, `import X`: ImportError / ModuleNotFoundError
FORM_LOOKUP = "lookup"  # `params_dict[name]`: KeyError with the key as the message
FORM_CALL = "call"  # `gemm(a, b_bias=x)` of a kernel package: TypeError on its signature
FORM_ENUM = "enum value"  # `LoadFormat(value)` of the package's Enum: ValueError
FORM_KEYWORDS = "keyword twice"  # `f(level=x, **kw)`: TypeError when kw has `level` too
# `cls(**kwargs)` with `kwargs["k"] = ...` in the function: TypeError when the callee lacks `k`
FORM_SPREAD = "keywords from a mapping"
# `raise NotImplementedError()`, `raise ValueError(describe(x))`: a raise whose message the
# drafter cannot read (none, or not static), so no draft: found through a frame on it.
FORM_UNWORDED = "unworded raise"
# `self.x` read in a method of a class that sets `x` only under a condition, or never
# (unset.py): AttributeError `'Cls' object has no attribute 'x'`.
FORM_UNSET = "attribute maybe unset"
# A module name bound only under a condition (`if _is_cuda: from sgl_kernel import f`),
# read in a function (unbound.py): NameError `name 'f' is not defined`.
FORM_UNBOUND = "name maybe unbound"
STATEMENT_FORMS = (
    FORM_BARE_ASSERT,
    FORM_IMPORT,
    FORM_LOOKUP,
    FORM_CALL,
    FORM_ENUM,
    FORM_KEYWORDS,
    FORM_SPREAD,
    FORM_UNWORDED,
    FORM_UNSET,
    FORM_UNBOUND,
)
# A message the server reports to the client instead of raising it (an abort, an error
# response, an `error_msg` it returns): what the client's error body carries.
FORM_REPORTED = "reported"
# A message the package writes to its log at warning level or above (`logger.error(...)`,
# `logger.exception`, `logger.critical`, `logger.warning`): what a user pastes from the
# server's log when no exception line follows it (`Rank 0 scheduler is dead.`, `Received
# sigquit from a child process.`), or the warning that came before a crash (`Number of
# tokens in multimodal embedding does not match those in the input text. ...`).
FORM_LOGGED = "logged"
DRAFTED_WITH_STATEMENTS = (*STATEMENT_FORMS, FORM_REPORTED, FORM_LOGGED)
# The class a logged record carries: the logging level it was written at, not an exception.
LOGGED_CLASSES = {
    "warning": "logging.WARNING",
    "warn": "logging.WARNING",
    "warning_once": "logging.WARNING",
    "error": "logging.ERROR",
    "exception": "logging.ERROR",
    "critical": "logging.CRITICAL",
    "fatal": "logging.CRITICAL",
}
_LOGGER_NAME = re.compile(r"(?:\w+\.)*_?(?:logger|logging|log)")
# A logged message that ends with the caught exception's traceback (`f"Scheduler hit an
# exception: {traceback}"`) comes before that traceback, whose own site is the answer.
_WRAPPED_TRACEBACK = re.compile(
    r"(?:str|repr)?\(?(?:\w+\.)?(?:tb|\w*traceback\w*|\w*format_exc)(?:\(\))?\)?"
)
REPORTED_CLASS = "BadRequestError"  # what sglang's OpenAI server calls an aborted request
_REPORTERS = frozenset(
    {
        "set_finish_with_abort",
        "create_error_response",
        "create_streaming_error_response",
        "FINISH_ABORT",
        "abort_request",
        "ErrorResponse",
    }
)
_MESSAGE_KEYWORDS = frozenset({"message", "msg", "error_msg", "err_msg", "error_message"})
_MESSAGE_VARIABLE = re.compile(r"(?:error|err)_?(?:msg|message)")
_BODY_KEYS = frozenset({"error", "message", "detail"})  # an error body's message keys
MIN_REPORTED_CHARS = 12  # literal characters a reported message needs to be a record
FORMS = (
    FORM_LITERAL,
    FORM_FSTRING,
    FORM_PERCENT,
    FORM_FORMAT,
    FORM_CONCAT,
    FORM_IMPLICIT,
    FORM_VARIABLE,
    FORM_ASSERT,
    FORM_NO_MESSAGE,
    FORM_OTHER,
    FORM_RERAISE,
    FORM_CLASS,
    FORM_HELPER,
    FORM_RETURNED,
)
MAX_CONDITION = 300
_STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}
# What follows the module in the message: the path of the module that lacks the name.
_IMPORT_TAIL = r"(?: \(.+\))?"
MIN_MISSING_PARTS = 3  # `from a.b.c import x`: a missing `a.b.c` (or `a.b`) is a site
_KEY_PATTERN = ".+"  # the key's repr; frame only (see PatternEntry.frame_only)
# Packages whose functions' signatures change under sglang between releases (kernels,
# transformers): a call of one of their functions from another release's build fails with
# a TypeError the interpreter words (`gemm() got an unexpected keyword argument 'b_bias'`).
KERNEL_PACKAGES = frozenset(
    {
        "sgl_kernel",
        "flashinfer",
        "vllm",
        "aiter",
        "deep_gemm",
        "flash_attn",
        "flash_mla",
        "transformers",
        "xgrammar",
        "outlines",
        "torchao",
        "triton_kernels",
        "sgl_kernel_npu",
    }
)
# The interpreter names a callee by its module and qualified name (`a.b.Cls()`, in 3.9+).
_QUALIFIED = "(?:[A-Za-z_][A-Za-z0-9_.<>]*[.])?"
_SIGNATURE = (
    "missing [0-9]+ required (?:positional |keyword-only )?arguments?: .+"
    "|takes (?:from [0-9]+ to )?[0-9]+ positional arguments? but [0-9]+ (?:was|were) given"
    "|got multiple values for argument '.+'"
)
MAX_DOCSTRING = 600
_RETURNED_SUFFIXES = ("Error", "Exception")  # a returned `...Warning` goes to warnings.warn


@dataclass(frozen=True, slots=True)
class ExceptionClass:
    """A class the package defines whose bases make it an exception."""

    name: str
    bases: tuple[str, ...]
    line: int


_Cond = tuple[bool, ast.expr]  # (negated, test): rendered only for sites that use it


@dataclass(slots=True)
class _Function:
    name: str
    node: ast.AST | None
    assigns: dict[str, list[tuple[int, ast.expr, bool]]] = field(default_factory=dict)
    keys: dict[str, list[str]] = field(default_factory=dict)  # a mapping's literal keys
    # Parameters (its own, or an enclosing function's) annotated with a package class
    # (typed.py), the attributes read of them so far, and what it calls and stores on each.
    typed: dict[str, tuple[Resolved, ...]] = field(default_factory=dict)
    typed_seen: set[tuple[str, str]] = field(default_factory=set)
    typed_uses: dict[str, tuple[set[str], set[str]]] = field(default_factory=dict)


MAX_SELF_READS = 128
MAX_MODULE_READS = 64


def import_aliases(tree: ast.AST) -> dict[str, str]:
    """What each name an absolute import binds stands for: `import a.b as m` -> `a.b`,
    `import a.b` -> `a`, `from a import b as c` -> `a.b` (b a module or not)."""
    found: dict[str, str] = {}
    for node in import_nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    found.setdefault(alias.asname, alias.name)
                else:
                    top = alias.name.split(".", 1)[0]
                    found.setdefault(top, top)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                if alias.name != "*":
                    found.setdefault(alias.asname or alias.name, f"{node.module}.{alias.name}")
    return found


def _dotted(node: ast.Attribute, modules: Mapping[str, str]) -> str | None:
    """`ops.silu_and_mul` as `vllm._custom_ops.silu_and_mul` when `ops` is an import's
    name; None for any other chain."""
    names = [node.attr]
    inner = node.value
    while isinstance(inner, ast.Attribute):
        names.append(inner.attr)
        inner = inner.value
    if not isinstance(inner, ast.Name) or inner.id not in modules:
        return None
    return ".".join([modules[inner.id], *reversed(names)])


def self_reads(node: ast.AST, modules: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """What a function reads, sorted: of its instance, `self.x` as "x" and `self.x.y` as
    "x.y" (what an `AttributeError` on `self` or on `self.x` names); of a module an import
    bound, its dotted path (`ops.silu_and_mul` as "vllm._custom_ops.silu_and_mul", what
    `module 'vllm._custom_ops' has no attribute 'silu_and_mul'` names)."""
    found: set[str] = set()
    dotted: set[str] = set()
    for sub in ast.walk(node):
        if not isinstance(sub, ast.Attribute) or not isinstance(sub.ctx, ast.Load):
            continue
        inner = sub.value
        if isinstance(inner, ast.Name) and inner.id == "self":
            found.add(sub.attr)
        elif (
            isinstance(inner, ast.Attribute)
            and isinstance(inner.value, ast.Name)
            and inner.value.id == "self"
        ):
            found.add(f"{inner.attr}.{sub.attr}")
        elif modules:
            path = _dotted(sub, modules)
            if path is not None:
                dotted.add(path)
    return tuple(sorted(found)[:MAX_SELF_READS] + sorted(dotted)[:MAX_MODULE_READS])


def _mapping_keys(func: _Function, name: str) -> list[str]:
    """The literal keys the function writes into the mapping `name`: `name = {"k": v}`,
    `name = dict(k=v)`, `name["k"] = v`, `name.update(...)`, `name.setdefault("k", v)`."""
    if func.node is None:
        return []
    found = func.keys.get(name)
    if found is not None:
        return found
    keys: dict[str, None] = {}

    def literal(node: ast.expr | None) -> None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value.isidentifier():
                keys[node.value] = None

    def mapping(node: ast.expr) -> None:
        if isinstance(node, ast.Dict):
            for key in node.keys:
                literal(key)
        elif isinstance(node, ast.Call) and _name(node.func) == "dict":
            keys.update({k.arg: None for k in node.keywords if k.arg})

    for node in ast.walk(func.node):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id == name and node.value:
                    mapping(node.value)
                elif (
                    isinstance(target, ast.Subscript)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == name
                ):
                    literal(target.slice)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == name
        ):
            if node.func.attr == "update":
                for arg in node.args:
                    mapping(arg)
                keys.update({k.arg: None for k in node.keywords if k.arg})
            elif node.func.attr == "setdefault" and node.args:
                literal(node.args[0])
    func.keys[name] = found = list(keys)
    return found


def _message_form(node: ast.expr, source: str | None) -> str:
    if isinstance(node, ast.Constant):
        return _implicit(node, source) or FORM_LITERAL
    if isinstance(node, ast.JoinedStr):
        return _implicit(node, source) or FORM_FSTRING
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return FORM_PERCENT
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return FORM_CONCAT
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "format":
            return FORM_FORMAT
    return FORM_OTHER


# A line and its end as Python counts lines (`\r\n`, `\r` or `\n`; not a form feed).
_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+\Z")


@lru_cache(maxsize=8)
def _lines(source: str) -> tuple[str, ...]:
    return tuple(_LINE.findall(source))


def source_segment(source: str, node: ast.AST) -> str | None:
    """`ast.get_source_segment(source, node)` with the module's lines split once, not at
    every call (which made drafting a large module quadratic)."""
    lineno, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
    col, end_col = getattr(node, "col_offset", None), getattr(node, "end_col_offset", None)
    if lineno is None or end is None or col is None or end_col is None:
        return None
    lines = _lines(source)
    if end == lineno:
        return lines[lineno - 1].encode()[col:end_col].decode()
    first = lines[lineno - 1].encode()[col:].decode()
    last = lines[end - 1].encode()[:end_col].decode()
    return "".join((first, *lines[lineno : end - 1], last))


def _implicit(node: ast.expr, source: str | None) -> str | None:
    """Adjacent string literals over several lines (not one triple-quoted string)."""
    if source is None or node.end_lineno is None or node.end_lineno == node.lineno:
        return None
    segment = source_segment(source, node) or ""
    head = segment.lstrip("rRbBuUfF")
    if head.startswith(('"""', "'''")) and head.rstrip().endswith(head[:3]):
        if head.count(head[:3]) == 2:
            return None
    return FORM_IMPLICIT


def _negate(test: ast.expr) -> str:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _source(test.operand)
    if isinstance(test, ast.Name | ast.Attribute | ast.Call | ast.Subscript | ast.Constant):
        return f"not {_source(test)}"
    return f"not ({_source(test)})"


_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
_VALUE_ERRORS = frozenset({"ValueError", "Exception", "BaseException"})


def _catches(stmt: ast.stmt, errors: frozenset[str]) -> bool:
    """Whether a handler of a `try` catches one of `errors` (a bare `except:` does)."""
    if not isinstance(stmt, ast.Try | ast.TryStar):
        return False
    for handler in stmt.handlers:
        if handler.type is None:
            return True
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        if any(_name(t).rsplit(".", 1)[-1] in errors for t in types):
            return True
    return False


def _condition(conds: list[_Cond]) -> str | None:
    texts = [_negate(test) if negated else _source(test) for negated, test in conds]
    return " and ".join(f"({t})" if len(texts) > 1 else t for t in texts) or None


def _source(node: ast.expr) -> str:
    try:
        text = " ".join(ast.unparse(node).split())
    except (ValueError, RecursionError):  # pragma: no cover - malformed synthetic trees
        return "?"
    return text if len(text) <= MAX_CONDITION else text[: MAX_CONDITION - 3] + "..."


def _reads(nodes: list[ast.expr]) -> tuple[str, ...]:
    """`base.attr` reads in the conditions, as `base.attr` text (for server flags)."""
    out: list[str] = []
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Load):
                text = _source(sub)
                if text not in out and len(out) < 20:
                    out.append(text)
    return tuple(out)


def _docstring(node: ast.AST | None) -> str | None:
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    doc = ast.get_docstring(node)
    if not doc:
        return None
    doc = doc.strip()
    return doc if len(doc) <= MAX_DOCSTRING else doc[: MAX_DOCSTRING - 3] + "..."


class _Scanner:
    """One pass over a module: sites in source order and exception class definitions."""

    def __init__(
        self,
        source: str | None,
        own: str | None = None,
        classes: Mapping[str, ClassMessage] | None = None,
        helpers: Mapping[str, RaisingHelper] | None = None,
        package: str | None = None,
        defined: PackageClasses | None = None,
        members: PackageMembers | None = None,
    ) -> None:
        self.source = source
        # The package's classes and what they give their instances (default: the module's),
        # and the class names the module defines or imports from the package.
        self._members = members
        self._class_scope: set[str] = set()
        # Exception classes of the package that word their own message, by name.
        self.worded = classes or {}
        # Functions of the package that raise a message passed in, by name; `package` is
        # the top-level name whose imports make a call resolve to one.
        self.helpers = helpers or {}
        self._package = package or own
        self._own_names: frozenset[str] = frozenset()
        self._own_modules: frozenset[str] = frozenset()
        # The package's Enum and exception classes (default: this module's), and the names of
        # this module's own top-level classes.
        self._defined = defined
        self._enums: Mapping[str, str] = {}
        self._exceptions: frozenset[str] = frozenset()
        self._local_classes: frozenset[str] = frozenset()
        # Names and module aliases bound by imports of a kernel package (call sites).
        self._kernel_names: frozenset[str] = frozenset()
        self._kernel_modules: frozenset[str] = frozenset()
        self.sites: list[RaiseSite] = []
        self.classes: list[ExceptionClass] = []
        # Statement sites are drafted when `own` (the package's top-level name) is given.
        self.own = own
        self.statements: list[RaiseSite] = []
        self._guarded = 0  # inside a `try:` whose handlers catch a failed import
        self._value_guarded = 0  # inside a `try:` whose handlers catch a ValueError
        self._lines = (source or "").splitlines()
        # Reported messages kept in a variable, and the variables raise sites use.
        self._pending: list[tuple[str, str, int]] = []
        self._raised: set[tuple[str, str]] = set()
        # Functions by qualified name, and what each reads of `self` and of imported
        # modules (computed on need).
        self._functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self._reads_of: dict[str, tuple[str, ...]] = {}
        self._aliases: dict[str, str] = {}
        # The nodes of the statement value being scanned: six checks walk each one.
        self._walked_of: ast.AST | None = None
        self._walked: list[ast.AST] = []

    def run(self, tree: ast.AST) -> None:
        body = getattr(tree, "body", [])
        if self.helpers or self.own is not None:
            names, modules = own_imports(tree, self._package or "")
            local = {s.name for s in body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)}
            self._own_names, self._own_modules = names | local, modules
        defined = self._defined or resolve(class_defs(tree))
        self._enums, self._exceptions = defined.enums, defined.exceptions
        self._local_classes = frozenset(s.name for s in body if isinstance(s, ast.ClassDef))
        if self.own is not None:
            self._kernel_names, self._kernel_modules = _kernel_imports(tree)
            if self._members is None:
                stored = stored_attributes((self.source or "").encode())
                self._members = resolve_members(module_members(tree), stored)
            self._class_scope = set(self._own_names | self._local_classes)
        self._body(getattr(tree, "body", []), [], _Function("<module>", None), [])
        if self.own is not None:
            self._unset(tree)
        drop = {i for name, var, i in self._pending if (name, var) in self._raised}
        if drop:
            self.statements = [s for i, s in enumerate(self.statements) if i not in drop]
        if self.own is not None and self._functions:
            self._aliases = import_aliases(tree)
            self.sites = [self._with_reads(s) for s in self.sites]
            self.statements = [self._with_reads(s) for s in self.statements]

    def _walk(self, node: ast.AST) -> list[ast.AST]:
        """`ast.walk(node)` as a list, kept for the node last asked for."""
        if self._walked_of is not node:
            self._walked_of, self._walked = node, list(ast.walk(node))
        return self._walked

    def _with_reads(self, site: RaiseSite) -> RaiseSite:
        node = self._functions.get(site.function)
        if node is None:
            return site
        reads = self._reads_of.get(site.function)
        if reads is None:
            reads = self._reads_of[site.function] = self_reads(node, self._aliases)
        return replace(site, self_reads=reads) if reads else site

    def _body(
        self, stmts: list[ast.stmt], scope: list[str], func: _Function, conds: list[_Cond]
    ) -> None:
        for stmt in stmts:
            self._stmt(stmt, scope, func, conds)

    def _stmt(self, stmt: ast.stmt, scope: list[str], func: _Function, conds: list[_Cond]) -> None:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            inner = _Function(".".join([*scope, stmt.name]), stmt)
            if self._members is not None:
                inner.typed = self._typed(stmt, func)
            self._functions.setdefault(inner.name, stmt)
            self._body(stmt.body, [*scope, stmt.name], inner, [])
            return
        if isinstance(stmt, ast.ClassDef):
            bases = tuple(_name(b) for b in stmt.bases)
            if any(b.rsplit(".", 1)[-1].endswith(EXCEPTION_SUFFIXES) for b in bases):
                self.classes.append(ExceptionClass(stmt.name, bases, stmt.lineno))
            self._body(stmt.body, [*scope, stmt.name], func, conds)
            return
        if isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
            self._assign(stmt, func)
        if func.typed:
            self._typed_reads(stmt, func, conds)
        if self.worded and isinstance(
            stmt, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Expr | ast.Return
        ):
            self._constructed(stmt, func, conds)
        if self.helpers and isinstance(
            stmt, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Expr | ast.Return
        ):
            self._helper_calls(stmt, func, conds)
        if self.own is not None:
            if isinstance(stmt, ast.ImportFrom):
                self._import(stmt, func, conds)
            elif isinstance(stmt, ast.Import) and not self._guarded:
                self._module_import(stmt, func, conds)
            elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Expr):
                self._lookup(stmt, func, conds)
                self._reported(stmt, func, conds)
                self._logged(stmt, func, conds)
                self._calls(stmt, func, conds)
                self._enum_lookups(stmt, func, conds)
            elif isinstance(stmt, ast.Return):
                self._reported(stmt, func, conds)
                self._calls(stmt, func, conds)
                self._enum_lookups(stmt, func, conds)
        if isinstance(stmt, ast.Return):
            self._returned(stmt, func, conds)
        if isinstance(stmt, ast.If):
            self._body(stmt.body, scope, func, [*conds, (False, stmt.test)])
            self._body(stmt.orelse, scope, func, [*conds, (True, stmt.test)])
            return
        if isinstance(stmt, ast.Raise):
            self._raise(stmt, func, conds)
            return
        if isinstance(stmt, ast.Assert):
            self._assert(stmt, func, conds)
            return
        guarded, value_guarded = _catches(stmt, _IMPORT_ERRORS), _catches(stmt, _VALUE_ERRORS)
        self._guarded += guarded
        self._value_guarded += value_guarded
        self._body(getattr(stmt, "body", []) or [], scope, func, conds)
        self._guarded -= guarded
        self._value_guarded -= value_guarded
        for name in ("orelse", "finalbody"):
            self._body(getattr(stmt, name, []) or [], scope, func, conds)
        for handler in getattr(stmt, "handlers", []) or []:
            self._body(handler.body, scope, func, conds)
        for case in getattr(stmt, "cases", []) or []:
            self._body(case.body, scope, func, conds)

    def _assign(self, stmt: ast.Assign | ast.AnnAssign | ast.AugAssign, func: _Function) -> None:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        value = stmt.value
        if value is None or len(targets) != 1 or not isinstance(targets[0], ast.Name):
            return
        appended = isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add)
        if isinstance(stmt, ast.AugAssign) and not appended:
            return
        func.assigns.setdefault(targets[0].id, []).append((stmt.lineno, value, appended))

    def _variable(self, name: str, line: int, func: _Function) -> list[Part] | None:
        """The message built in `name` before `line` in this function (`=`, then `+=`)."""
        steps = [s for s in func.assigns.get(name, []) if s[0] < line]
        start = max((i for i, s in enumerate(steps) if not s[2]), default=None)
        if start is None:
            return None
        parts: list[Part] = []
        for _line, value, _appended in steps[start:]:
            found = message_parts(value)
            parts.extend(found if found is not None else [Placeholder(_name(value))])
        return parts

    def _site(
        self,
        stmt: ast.stmt,
        cls: str,
        raw: list[Part] | None,
        form: str,
        func: _Function,
        conds: list[_Cond],
        chained: bool = False,
    ) -> None:
        parts = normalise(raw) if raw else ()
        if parts and not has_literal_text(parts):
            parts = ()
        self.sites.append(
            RaiseSite(
                cls,
                parts,
                stmt.lineno,
                stmt.end_lineno or stmt.lineno,
                form=form,
                function=func.name,
                condition=_condition(conds) if parts else None,
                docstring=_docstring(func.node) if parts else None,
                reads=_reads([node for _, node in conds]) if parts else (),
                chained=chained,
            )
        )

    def _raise(self, stmt: ast.Raise, func: _Function, conds: list[_Cond]) -> None:
        if stmt.exc is None:
            self._site(stmt, "", None, FORM_RERAISE, func, conds)
            return
        self._raise_site(stmt, func, conds)
        site = self.sites[-1]
        if self.own is not None and not site.parts and site.error_class[:1].isupper():
            # No draft: the raise statement itself is the site a frame on it names.
            message = f"raise {self._segment(stmt.exc)}"[:MAX_CONDITION]
            self._statement(stmt, site.error_class, (message,), FORM_UNWORDED, func, conds)

    def _raise_site(self, stmt: ast.Raise, func: _Function, conds: list[_Cond]) -> None:
        assert stmt.exc is not None
        found = _exception_class(stmt.exc)
        if found is None:
            bare = _name(stmt.exc) if isinstance(stmt.exc, ast.Name | ast.Attribute) else ""
            form = FORM_NO_MESSAGE if bare[:1].isupper() else FORM_OTHER
            self._site(stmt, bare, None, form, func, conds, stmt.cause is not None)
            return
        cls, call = found
        worded = self.worded.get(cls.rsplit(".", 1)[-1])
        if worded is not None:
            parts = list(worded.construct(call))
            self._site(stmt, cls, parts, FORM_CLASS, func, conds, stmt.cause is not None)
            return
        arg = message_arg(call)
        if arg is None:
            self._site(stmt, cls, None, FORM_NO_MESSAGE, func, conds, stmt.cause is not None)
            return
        raw, form = self._message(arg, stmt.lineno, func)
        self._site(stmt, cls, raw, form, func, conds, stmt.cause is not None)

    def _returned(self, stmt: ast.Return, func: _Function, conds: list[_Cond]) -> None:
        """`return RuntimeError(f"...")`: an exception a function builds for its caller to
        raise, drafted as a `raise` of it would be (a class that words its own message is
        drafted by `_constructed`)."""
        found = _exception_class(stmt.value) if stmt.value is not None else None
        if found is None:
            return
        cls, call = found
        last = cls.rsplit(".", 1)[-1]
        if last in self.worded:
            return
        if not (
            last in BUILTIN_EXCEPTIONS
            or last in self._exceptions
            or last.endswith(_RETURNED_SUFFIXES)
        ):
            return
        arg = message_arg(call)
        if arg is None:
            self._site(stmt, cls, None, FORM_NO_MESSAGE, func, conds)
            return
        raw, _form = self._message(arg, stmt.lineno, func)
        self._site(stmt, cls, raw, FORM_RETURNED, func, conds)

    def _message(self, arg: ast.expr, line: int, func: _Function) -> tuple[list[Part] | None, str]:
        if isinstance(arg, ast.Name):
            self._raised.add((func.name, arg.id))
            return self._variable(arg.id, line, func), FORM_VARIABLE
        form = _message_form(arg, self.source)
        return message_parts(self._inline(arg, line, func)), form

    def _inline(self, node: ast.expr, line: int, func: _Function) -> ast.expr:
        """`fmt % args` / `fmt.format(...)` with `fmt` a variable holding one literal."""
        if isinstance(node, ast.BinOp) and isinstance(node.left, ast.Name):
            literal = self._literal(node.left.id, line, func)
            if literal is not None:
                return ast.BinOp(ast.Constant(literal), node.op, node.right)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"
            and isinstance(node.func.value, ast.Name)
        ):
            literal = self._literal(node.func.value.id, line, func)
            if literal is not None:
                func_node = ast.Attribute(ast.Constant(literal), "format", ast.Load())
                return ast.Call(func_node, node.args, node.keywords)
        return node

    def _literal(self, name: str, line: int, func: _Function) -> str | None:
        parts = self._variable(name, line, func)
        if parts is not None and len(parts) == 1 and isinstance(parts[0], str):
            return parts[0]
        return None

    def _assert(self, stmt: ast.Assert, func: _Function, conds: list[_Cond]) -> None:
        raw = None if stmt.msg is None else self._message(stmt.msg, stmt.lineno, func)[0]
        guard = (True, stmt.test)
        self._site(stmt, "AssertionError", raw, FORM_ASSERT, func, [*conds, guard])
        if stmt.msg is None and self.own is not None:
            test = self._segment(stmt.test)
            message = f"assert {test}"
            self._statement(
                stmt, "AssertionError", (message,), FORM_BARE_ASSERT, func, [*conds, guard]
            )

    def _segment(self, node: ast.expr) -> str:
        """The node's source as written, on one line (ast.unparse if unavailable)."""
        text = source_segment(self.source, node) if self.source else None
        return " ".join((text or _source(node)).split())

    def _unset(self, tree: ast.AST) -> None:
        """Reads of `self.x` that a class may not have set (unset.py), and of module names
        the module may not have bound (unbound.py)."""
        for read in unset_reads(tree):
            message = f"'{read.owner}' object has no attribute '{read.attr}'"
            conds = [] if read.unset_when is None else [read.unset_when]
            func = _Function(read.method, read.node)
            self._statement(read.stmt, "AttributeError", (message,), FORM_UNSET, func, conds)
        for unbound in unbound_reads(tree):
            message = f"name '{unbound.name}' is not defined"
            conds = [] if unbound.unbound_when is None else [unbound.unbound_when]
            func = _Function(unbound.function, unbound.node)
            self._statement(unbound.stmt, "NameError", (message,), FORM_UNBOUND, func, conds)

    def _typed(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, outer: _Function
    ) -> dict[str, tuple[Resolved, ...]]:
        """A function's parameters of a package class, and those of the functions it is
        nested in that it does not bind again."""
        assert self._members is not None
        own = typed_params(node, self._members, self._class_scope)
        shadowed = {a.arg for a in params(node)}
        kept = {k: v for k, v in outer.typed.items() if k not in shadowed}
        return {**kept, **own} if kept else own

    def _typed_reads(self, stmt: ast.stmt, func: _Function, conds: list[_Cond]) -> None:
        """Reads of a typed parameter's attribute its class may lack (typed.py)."""
        assert self._members is not None
        for n in own_nodes(stmt):
            if not (
                isinstance(n, ast.Attribute)
                and isinstance(n.ctx, ast.Load)
                and isinstance(n.value, ast.Name)
                and n.value.id in func.typed
            ):
                continue
            name, attr = n.value.id, n.attr
            if (name, attr) in func.typed_seen or len(func.typed_seen) >= MAX_TYPED_READS:
                continue
            func.typed_seen.add((name, attr))
            if any(name in checks(test) for _, test in conds):
                continue
            uses = func.typed_uses.get(name)
            if uses is None:
                uses = func.typed_uses[name] = sets_on(func.node or stmt, name)
            for cls in func.typed[name]:
                read = read_of(cls, attr, self._members.stored, *uses)
                if read is not None:
                    message = f"'{read.owner}' object has no attribute '{read.attr}'"
                    self._statement(stmt, "AttributeError", (message,), FORM_UNSET, func, conds)

    def _first_line(self, stmt: ast.stmt | ast.expr) -> str:
        if 0 < stmt.lineno <= len(self._lines):
            return " ".join(self._lines[stmt.lineno - 1].split())
        return ""

    def _statement(
        self,
        stmt: ast.stmt | ast.expr,
        cls: str,
        parts: tuple[Part, ...],
        form: str,
        func: _Function,
        conds: list[_Cond],
        pattern: str | None = None,
        on_line: bool = True,
    ) -> None:
        """A site drafted only for the package's own releases; `on_line` keeps the
        statement's first line (what a frame on it shows)."""
        self.statements.append(
            RaiseSite(
                cls,
                parts,
                stmt.lineno,
                stmt.end_lineno or stmt.lineno,
                form=form,
                function=func.name,
                condition=_condition(conds),
                docstring=_docstring(func.node),
                reads=_reads([node for _, node in conds]),
                statement=self._first_line(stmt) if on_line else None,
                pattern=pattern,
            )
        )

    def _import(self, stmt: ast.ImportFrom, func: _Function, conds: list[_Cond]) -> None:
        """`from X import a, b` of another package (not the standard library, not
        relative): one site per name, `cannot import name 'a' from 'X' (path)`."""
        module = stmt.module or ""
        top = module.split(".", 1)[0]
        if stmt.level or not top or top == self.own or top in _STDLIB:
            return
        for alias in stmt.names:
            if alias.name == "*":
                continue
            message = f"cannot import name '{alias.name}' from '{module}'"
            pattern = escape_literal(message) + _IMPORT_TAIL
            self._statement(stmt, "ImportError", (message,), FORM_IMPORT, func, conds, pattern)
        parts = module.split(".")
        if len(parts) >= MIN_MISSING_PARTS and not self._guarded:
            # A submodule an older (or newer) release of the package lacks:
            # `No module named 'transformers.models.glm4v_moe'`. One site per statement;
            # the message names the first missing part, at least two parts deep (a missing
            # top-level package has thousands of imports alike: `import X`'s sites).
            message = f"No module named '{module}'"
            pattern = "No module named '" + "\\.".join(escape_literal(p) for p in parts[:2])
            pattern += "".join(f"(?:\\.{escape_literal(p)}" for p in parts[2:])
            pattern += ")?" * (len(parts) - 2) + "'"
            self._statement(
                stmt, "ModuleNotFoundError", (message,), FORM_IMPORT, func, conds, pattern
            )

    def _module_import(self, stmt: ast.Import, func: _Function, conds: list[_Cond]) -> None:
        """`import X.Y` of another package, outside a `try:` that catches the failure: one
        site per module, `No module named 'X'` (or `'X.Y'`, whichever part is missing)."""
        for alias in stmt.names:
            parts = alias.name.split(".")
            if not parts[0] or parts[0] == self.own or parts[0] in _STDLIB:
                continue
            message = f"No module named '{alias.name}'"
            pattern = "No module named '" + escape_literal(parts[0])
            pattern += "".join(f"(?:\\.{escape_literal(p)}" for p in parts[1:])
            pattern += ")?" * (len(parts) - 1) + "'"
            self._statement(
                stmt, "ModuleNotFoundError", (message,), FORM_IMPORT, func, conds, pattern
            )

    def _constructed(self, stmt: ast.stmt, func: _Function, conds: list[_Cond]) -> None:
        """`raise_(OutOfResources(...))`, `err = MyError(...)`: a worded class constructed
        outside a `raise` statement is a raise site too."""
        value = getattr(stmt, "value", None)
        if value is None:
            return
        for node in self._walk(value):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
                name = _name(node.func)
                worded = self.worded.get(name.rsplit(".", 1)[-1])
                if worded is not None:
                    parts = list(worded.construct(node))
                    self._site(stmt, name, parts, FORM_CLASS, func, conds)

    def _helper(self, call: ast.Call) -> RaisingHelper | None:
        """The raising helper a call names, if the module's imports make it that one."""
        target = call.func
        if isinstance(target, ast.Name):
            helper = self.helpers.get(target.id)
            if helper is not None and not helper.method and target.id in self._own_names:
                return helper
        elif isinstance(target, ast.Attribute):
            helper = self.helpers.get(target.attr)
            if helper is None:
                return None
            if helper.any_receiver:
                return helper  # a recorder: `self.kv_mgr.record_failure(...)`
            if not isinstance(target.value, ast.Name):
                return None
            if target.value.id in ("self", "cls"):
                return helper if helper.method else None
            if not helper.method and target.value.id in self._own_modules:
                return helper
        return None

    def _helper_calls(self, stmt: ast.stmt, func: _Function, conds: list[_Cond]) -> None:
        """`raise_error_or_warn(self, strict, "count", msg)`: the message a helper raises,
        located at the helper's `raise`, with the caller's condition and docstring."""
        value = getattr(stmt, "value", None)
        if value is None:
            return
        line = stmt.lineno

        def resolve(arg: ast.expr) -> list[Part] | None:
            if isinstance(arg, ast.Name):
                self._raised.add((func.name, arg.id))  # raised, so not a reported message
                return self._variable(arg.id, line, func)
            return message_parts(self._inline(arg, line, func))

        for node in self._walk(value):
            if not isinstance(node, ast.Call):
                continue
            helper = self._helper(node)
            if helper is None:
                continue
            for raised, parts in helper.construct(node, resolve):
                if not has_literal_text(parts):
                    continue
                self.sites.append(
                    RaiseSite(
                        raised.cls,
                        parts,
                        raised.line,
                        raised.end_line or raised.line,
                        form=FORM_HELPER,
                        function=raised.function or helper.function,
                        condition=_condition(conds),
                        docstring=_docstring(func.node),
                        reads=_reads([node for _, node in conds]),
                        path=raised.path or helper.path or None,
                    )
                )

    def _worded(self, arg: ast.expr, stmt: ast.stmt, func: _Function) -> tuple[Part, ...] | None:
        """A reported or logged message's parts, or None without enough literal text."""
        raw = message_parts(self._inline(arg, stmt.lineno, func))
        parts = normalise(raw) if raw else ()
        literal = sum(len(p.strip()) for p in parts if isinstance(p, str))
        if not has_literal_text(parts) or literal < MIN_REPORTED_CHARS:
            return None
        return parts

    def _reported(self, stmt: ast.stmt, func: _Function, conds: list[_Cond]) -> None:
        """`error_msg = f"..."`, or a message passed to an abort or error response."""
        value = getattr(stmt, "value", None)
        if value is None:
            return
        found: list[ast.expr] = []
        variable = None
        targets = getattr(stmt, "targets", None) or [getattr(stmt, "target", None)]
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and len(targets) == 1:
            target = targets[0]
            if isinstance(target, ast.Name) and _MESSAGE_VARIABLE.fullmatch(target.id.lower()):
                found.append(value)
                variable = target.id
        for node in self._walk(value):
            if not isinstance(node, ast.Call):
                continue
            if _error_response(node):
                found.extend(_body_messages(node))
                continue
            if _name(node.func).rsplit(".", 1)[-1] not in _REPORTERS:
                continue
            args = [k.value for k in node.keywords if k.arg in _MESSAGE_KEYWORDS]
            status_first = bool(node.args) and is_status(node.args[0])
            positional = node.args[:2] if status_first else node.args[:1]
            # A status passed first (`create_error_response(HTTPStatus.BAD_REQUEST, "...")`,
            # arguments swapped in some releases): the text is the body's `type`, the
            # status its `message`; the client's body carries both.
            found.extend(args or positional[-1:])
        for arg in found:
            if isinstance(arg, ast.Name):
                continue  # a message variable: its assignment is the site
            parts = self._worded(arg, stmt, func)
            if parts is None:
                continue
            if arg is value and variable is not None:
                # Raised later (`raise X(error_msg)`) it is a raise site, not a report.
                self._pending.append((func.name, variable, len(self.statements)))
            self._statement(stmt, REPORTED_CLASS, parts, FORM_REPORTED, func, conds, on_line=False)

    def _logged(self, stmt: ast.stmt, func: _Function, conds: list[_Cond]) -> None:
        """`logger.error("msg %s", x)`, `logging.exception(f"...")`, `logger.warning(...)`: a
        message written to the log at warning level or above, with its lazy `%` arguments."""
        node = stmt.value if isinstance(stmt, ast.Expr) else None
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            return
        cls = LOGGED_CLASSES.get(node.func.attr)
        if cls is None or not node.args or not _LOGGER_NAME.fullmatch(_name(node.func.value)):
            return
        arg = node.args[0]
        if isinstance(arg, ast.Name):
            return  # a message variable: its assignment is the site (_reported)
        if len(node.args) > 1 and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            # The logging module formats `msg % args` when the record is written.
            arg = ast.BinOp(arg, ast.Mod(), ast.Tuple(list(node.args[1:]), ast.Load()))
        parts = self._worded(arg, stmt, func)
        if parts is None:
            return
        if isinstance(parts[-1], Placeholder) and _WRAPPED_TRACEBACK.fullmatch(parts[-1].name):
            return
        # One that ends with the caught exception's words (`f"Tool call parsing error: {e}"`)
        # is what the log shows when nothing is raised: the line a user pastes, often alone.
        self._statement(stmt, cls, parts, FORM_LOGGED, func, conds, on_line=False)

    def _calls(self, stmt: ast.stmt, func: _Function, conds: list[_Cond]) -> None:
        """Calls whose arguments the interpreter checks against the callee: a kernel
        package's function called with keywords (the TypeError a build with another
        signature raises), and any call that passes a keyword beside `**mapping` (the
        TypeError when the mapping holds that key too)."""
        value = getattr(stmt, "value", None)
        for node in self._walk(value) if value is not None else ():
            if not isinstance(node, ast.Call):
                continue
            spread = [k.value for k in node.keywords if k.arg is None]
            if spread:
                self._spread_keywords(node, spread, func, conds)
            if not any(k.arg for k in node.keywords):
                continue
            callee = self._kernel_callee(node.func)
            if callee is not None:
                # Any keyword: the one a user's build lacks may be in a release between pins.
                pattern = (
                    f"{_QUALIFIED}{escape_literal(callee)}(?:[.]__init__)?[(][)] "
                    f"(?:got an unexpected keyword argument '[^']+'|{_SIGNATURE})"
                )
                head = f"{callee}() got an unexpected keyword argument '"
                parts = (head, Placeholder("keyword"), "'")
                # The call's own line: what a frame shows when a call spans a statement's lines.
                self._statement(node, "TypeError", parts, FORM_CALL, func, conds, pattern)
            elif any(k.arg is None for k in node.keywords):
                self._keyword_twice(node, func, conds)

    def _kernel_callee(self, target: ast.expr) -> str | None:
        """The kernel package's function a call's target names, if it names one."""
        if isinstance(target, ast.Name) and target.id in self._kernel_names:
            return target.id
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id in self._kernel_modules
        ):
            return target.attr
        return None

    def _keyword_twice(self, call: ast.Call, func: _Function, conds: list[_Cond]) -> None:
        """`ServerArgs(*args, log_level=level, **kwargs)`: Python raises `TypeError:
        mod.ServerArgs() got multiple values for keyword argument 'log_level'` when
        `kwargs` holds one of the keywords the call also names."""
        if isinstance(call.func, ast.Name):
            callee = call.func.id
        elif isinstance(call.func, ast.Attribute):
            callee = call.func.attr
        else:
            return  # `factory()(**kw)`: the interpreter names a callee the code does not
        named = list(dict.fromkeys(k.arg for k in call.keywords if k.arg))
        keywords = "|".join(escape_literal(k) for k in named)
        pattern = (
            f"{_QUALIFIED}{escape_literal(callee)}(?:[.]__init__)?[(][)] "
            f"got multiple values for keyword argument '(?:{keywords})'"
        )
        parts = (
            f"{callee}() got multiple values for keyword argument '",
            Placeholder("keyword"),
            "'",
        )
        self._statement(call, "TypeError", parts, FORM_KEYWORDS, func, conds, pattern)

    def _spread_keywords(
        self, call: ast.Call, spread: list[ast.expr], func: _Function, conds: list[_Cond]
    ) -> None:
        """`self.detector = detector_class(**kwargs)` where the function writes the keys
        (`kwargs = {"a": x}`, `kwargs["b"] = y`, `kwargs.update(c=z)`): Python raises
        `TypeError: Glm45Detector.__init__() got an unexpected keyword argument 'b'` when
        the callee (often chosen at run time, or another release's) lacks one. The message
        names the class or function called, which the code may not: any callee matches."""
        if not isinstance(call.func, ast.Name | ast.Attribute):
            return  # `kernel[grid](**kw)`, `factory()(**kw)`: not worded so
        keys: dict[str, None] = {k.arg: None for k in call.keywords if k.arg}
        for value in spread:
            if isinstance(value, ast.Name):
                keys.update(dict.fromkeys(_mapping_keys(func, value.id)))
        if not keys or not any(isinstance(v, ast.Name) for v in spread):
            return
        alternatives = "|".join(escape_literal(k) for k in keys)
        pattern = (
            f"{_QUALIFIED}[A-Za-z_][A-Za-z0-9_]*(?:[.]__init__)?[(][)] "
            f"got an unexpected keyword argument '(?:{alternatives})'"
        )
        parts = (
            Placeholder("callee"),
            "() got an unexpected keyword argument '",
            Placeholder("keyword"),
            "'",
        )
        self._statement(call, "TypeError", parts, FORM_SPREAD, func, conds, pattern)

    def _enum_class(self, call: ast.Call) -> str | None:
        """The qualified name of the package's Enum class a call looks a value up in, when
        the call passes one non-literal value (`LoadFormat(load_format)`)."""
        if len(call.args) != 1 or call.keywords:
            return None
        arg = call.args[0]
        if isinstance(arg, ast.UnaryOp):
            arg = arg.operand
        if isinstance(arg, ast.Constant | ast.Starred):
            return None
        target = call.func
        if isinstance(target, ast.Name):
            if target.id in self._local_classes or target.id in self._own_names:
                return self._enums.get(target.id)
        elif (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id in self._own_modules
        ):
            return self._enums.get(target.attr)
        return None

    def _enum_lookups(self, stmt: ast.stmt, func: _Function, conds: list[_Cond]) -> None:
        """`LoadFormat(load_format)` outside a `try:` that catches a ValueError: Python
        raises `ValueError: 'x' is not a valid LoadFormat` (the value's repr)."""
        value = getattr(stmt, "value", None)
        if value is None or not self._enums or self._value_guarded:
            return
        for node in self._walk(value):
            if not isinstance(node, ast.Call):
                continue
            qualname = self._enum_class(node)
            if qualname is None:
                continue
            tail = f" is not a valid {qualname}"
            parts = ("'", Placeholder(_name(node.args[0])), "'" + tail)
            pattern = ".+" + escape_literal(tail)
            self._statement(node, "ValueError", parts, FORM_ENUM, func, conds, pattern)

    def _lookup(self, stmt: ast.stmt, func: _Function, conds: list[_Cond]) -> None:
        """A subscript of a mapping named `*dict` by a variable key: KeyError(key)."""
        value = getattr(stmt, "value", None)
        if value is None:
            return
        for node in self._walk(value):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Name | ast.Attribute)
                and _name(node.value).lower().endswith("dict")
                and isinstance(node.slice, ast.Name | ast.Attribute)
            ):
                key = Placeholder(_name(node.slice))
                self._statement(stmt, "KeyError", (key,), FORM_LOOKUP, func, conds, _KEY_PATTERN)
                return


def _error_response(call: ast.Call) -> bool:
    """`JSONResponse(content=..., status_code=401)`, `ORJSONResponse(...)`: a response
    built with an error status (not a literal 1xx-3xx; a conditional one counts)."""
    if not _name(call.func).rsplit(".", 1)[-1].endswith("JSONResponse"):
        return False
    status = next((k.value for k in call.keywords if k.arg == "status_code"), None)
    if status is None and len(call.args) > 1:
        status = call.args[1]
    if status is None:
        return False
    if isinstance(status, ast.Constant):
        return isinstance(status.value, int) and status.value >= 400
    return True


def _body_messages(call: ast.Call) -> list[ast.expr]:
    """The messages an error response's JSON body carries: the string values of its
    `error`, `message` and `detail` keys, one level into a nested `{"error": {...}}`, and
    both branches of a conditional value (`"Unauthorized" if ... else "Forbidden"`)."""
    content = next((k.value for k in call.keywords if k.arg == "content"), None)
    if content is None and call.args:
        content = call.args[0]
    found: list[ast.expr] = []
    bodies = [content] if isinstance(content, ast.Dict) else []
    while bodies:
        body = bodies.pop()
        for key, value in zip(body.keys, body.values, strict=True):
            if not (isinstance(key, ast.Constant) and key.value in _BODY_KEYS):
                continue
            if isinstance(value, ast.Dict):
                bodies.append(value)
            elif isinstance(value, ast.IfExp):
                found.extend((value.body, value.orelse))
            else:
                found.append(value)
    return found


def _kernel_imports(tree: ast.AST) -> tuple[frozenset[str], frozenset[str]]:
    """Names a module imports from a kernel package, and its aliases of such modules."""
    names: set[str] = set()
    modules: set[str] = set()
    for node in import_nodes(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module.split(".", 1)[0] in KERNEL_PACKAGES:
                names.update(a.asname or a.name for a in node.names if a.name != "*")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".", 1)[0] in KERNEL_PACKAGES:
                    modules.add(alias.asname or alias.name.split(".", 1)[0])
    return frozenset(names), frozenset(modules)


def scan(
    tree: ast.AST,
    source: str | None = None,
    classes: Mapping[str, ClassMessage] | None = None,
    helpers: Mapping[str, RaisingHelper] | None = None,
    package: str | None = None,
    defined: PackageClasses | None = None,
) -> tuple[list[RaiseSite], list[ExceptionClass]]:
    """Every raise/assert site (with or without a usable message) and exception class;
    `classes` are the package's exception classes that word their own message, `helpers`
    its functions that raise a message passed in (calls resolved by `package`'s imports),
    `defined` its exception classes a function may return (default: the module's own)."""
    scanner = _Scanner(source, classes=classes, helpers=helpers, package=package, defined=defined)
    scanner.run(tree)
    return scanner.sites, scanner.classes


def scan_all(
    tree: ast.AST,
    source: str | None,
    own: str,
    classes: Mapping[str, ClassMessage] | None = None,
    helpers: Mapping[str, RaisingHelper] | None = None,
    defined: PackageClasses | None = None,
    members: PackageMembers | None = None,
) -> tuple[list[RaiseSite], list[ExceptionClass], list[RaiseSite]]:
    """As `scan`, plus the statement sites of a module of package `own`; `defined` are the
    package's Enum and exception classes, `members` its classes' attributes (default: the
    module's own)."""
    scanner = _Scanner(source, own, classes, helpers, defined=defined, members=members)
    scanner.run(tree)
    return scanner.sites, scanner.classes, scanner.statements


def raise_sites(tree: ast.AST, source: str | None = None) -> Iterator[RaiseSite]:
    """Sites whose message keeps literal text: the ones that become records."""
    yield from (site for site in scan(tree, source)[0] if site.parts)
