"""Draft one release: every raise site with its code context, exception classes and
counts by form. Results are plain data (JSON-ready), cached per wheel and drafter version."""

from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from app.corpus.pins import native_path
from app.drafts import defined, helpers, typed
from app.drafts.classes import ClassMessage, by_name, class_messages, may_define
from app.drafts.cxx import NATIVE_FORMS, NATIVE_SUFFIXES, NativeSite, native_sites
from app.drafts.extract import Placeholder, RaiseSite
from app.drafts.records import message_pattern, render_message
from app.drafts.scan import (
    DRAFTED_WITH_STATEMENTS,
    FORM_HELPER,
    FORM_VARIABLE,
    FORMS,
    scan,
    scan_all,
)
from app.drafts.services import parse_source
from app.drafts.sources import iter_python_files

SERVER_ARGS_FILE = "sglang/srt/server_args.py"
MAX_FILE_BYTES = 1024 * 1024
_ARGS_BASES = ("server_args", "args")


@dataclass
class ReleaseDraft:
    """One release's sites (usable ones only), exception classes and form counts."""

    sites: list[dict[str, Any]] = field(default_factory=list)
    classes: list[dict[str, Any]] = field(default_factory=list)
    forms: dict[str, int] = field(default_factory=dict)
    drafted: dict[str, int] = field(default_factory=dict)
    statements: dict[str, int] = field(default_factory=dict)  # statement sites by form

    def to_dict(self) -> dict[str, Any]:
        return {
            "sites": self.sites,
            "classes": self.classes,
            "forms": self.forms,
            "drafted": self.drafted,
            "statements": self.statements,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReleaseDraft:
        return cls(
            data["sites"],
            data["classes"],
            data["forms"],
            data["drafted"],
            data.get("statements", {}),
        )


def server_arg_fields(tree: ast.AST) -> frozenset[str]:
    """Field names of the `ServerArgs` dataclass (each is a `--flag`)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "ServerArgs":
            return frozenset(
                stmt.target.id
                for stmt in node.body
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
            )
    return frozenset()


def cli_flags(site: RaiseSite, fields: frozenset[str]) -> list[str]:
    """Server arguments the guarding condition reads, as `--cli-flags`."""
    flags: list[str] = []
    for read in site.reads:
        base, _, attr = read.rpartition(".")
        if attr not in fields:
            continue
        last = base.rsplit(".", 1)[-1]
        in_server_args = base == "self" and site.function.startswith("ServerArgs.")
        if last.endswith(_ARGS_BASES) or in_server_args:
            flag = "--" + attr.replace("_", "-")
            if flag not in flags:
                flags.append(flag)
    return flags


def _parts(site: RaiseSite | NativeSite) -> list[Any]:
    return [p if isinstance(p, str) else {"p": p.name} for p in site.parts]


def skeleton(parts: list[Any]) -> str:
    """The message with every placeholder as `{}` (identity survives renamed variables)."""
    return "".join(p if isinstance(p, str) else "{}" for p in parts)


def to_parts(data: list[Any]) -> tuple[str | Placeholder, ...]:
    return tuple(p if isinstance(p, str) else Placeholder(p["p"]) for p in data)


def _site_dict(site: RaiseSite, path: str, fields: frozenset[str]) -> dict[str, Any]:
    return {
        "path": path,
        "line": site.line,
        "end": site.end_line,
        "cls": site.error_class,
        "parts": _parts(site),
        "message": render_message(site.parts),
        "pattern": site.pattern or message_pattern(site.parts, site.error_class),
        "form": site.form,
        "function": site.function,
        "condition": site.condition,
        "docstring": site.docstring,
        "flags": cli_flags(site, fields),
        "chained": site.chained,
        "statement": site.statement,
        "selfReads": list(site.self_reads),
    }


def draft_release(
    source: Path,
    prefix: str = "",
    include: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
    statements: bool = False,
    native: tuple[tuple[str, str], ...] = (),
) -> ReleaseDraft:
    """Scan a wheel or package directory: paths under `include` (if given), not under
    `exclude`, not tests, and no file over `MAX_FILE_BYTES` (generated kernels). With
    `statements`, also the statement sites (imports, bare asserts, lookups: scan.py); with
    `native` ((wheel folder, repository folder) pairs), the C++ sources there (cxx.py)."""
    out = ReleaseDraft()
    forms: Counter[str] = Counter()
    drafted: Counter[str] = Counter()
    counted: Counter[str] = Counter()
    files = [
        (path, data)
        for path, data in iter_python_files(source)
        if (not include or path.startswith(include))
        and not (exclude and path.startswith(exclude))
        and "/tests/" not in f"/{path}"
        and len(data) <= MAX_FILE_BYTES
    ]
    fields: frozenset[str] = frozenset()
    found: list[ClassMessage] = []
    raisers: list[helpers.RaisingHelper] = []
    recorders: list[helpers.Recorder] = []
    stored: list[helpers.StoredRaise] = []
    class_defs: list[defined.ClassDef] = []
    class_members: list[typed.Members] = []
    stored_attrs: set[str] = set()
    for path, data in files:
        stored_attrs.update(typed.stored_attributes(data))
        tree = None
        if path == SERVER_ARGS_FILE:
            tree = parse_source(data)
            fields = server_arg_fields(tree) if tree is not None else frozenset()
        if may_define(data):
            tree = tree or parse_source(data)
            found.extend(class_messages(tree) if tree is not None else [])
        if helpers.may_define(data):
            tree = tree or parse_source(data)
            for helper in helpers.raising_helpers(tree) if tree is not None else []:
                raisers.append(replace(helper, path=prefix + path))
            kept, taken = (
                helpers.recorders_and_stored_raises(tree) if tree is not None else ([], [])
            )
            recorders.extend(replace(r, path=prefix + path) for r in kept)
            stored.extend(replace(r, path=prefix + path) for r in taken)
        if defined.may_define(data):
            tree = tree or parse_source(data)
            class_defs.extend(defined.class_defs(tree) if tree is not None else [])
            if statements and tree is not None:
                class_members.extend(typed.members(tree))
    worded = by_name(found)
    passed: set[tuple[str, int, str, str]] = set()  # helper-call sites drafted so far
    owned = defined.resolve(class_defs)
    known = typed.resolve(class_members, stored_attrs)
    raising = helpers.by_name(raisers)
    for path, data in files:
        tree = parse_source(data)
        if tree is None:
            continue
        text = data.decode("utf-8", errors="replace")
        package = path.split("/", 1)[0]
        recording = helpers.recording_helpers(recorders, stored, worded, prefix + path)
        calls = {**raising, **recording} if recording else raising
        if statements:
            sites, classes, stmts = scan_all(tree, text, package, worded, calls, owned, known)
        else:
            (sites, classes), stmts = scan(tree, text, worded, calls, package, owned), []
        for stmt in stmts:
            counted[stmt.form] += 1
            out.sites.append(_site_dict(stmt, prefix + path, fields))
        for exc in classes:
            out.classes.append({"name": exc.name, "bases": list(exc.bases), "path": prefix + path})
        for raised in stored:
            # `reason = self.kv_mgr.failure_records.pop(room, "<default>")`, then raised.
            parts = helpers.default_parts(raised, worded) if raised.path == prefix + path else None
            if parts is not None:
                sites.append(
                    RaiseSite(
                        raised.cls,
                        parts,
                        raised.line,
                        raised.end_line,
                        FORM_VARIABLE,
                        raised.function,
                    )
                )
        for site in sites:
            forms[site.form] += 1
            if not site.parts:
                continue
            at = site.path or prefix + path
            if site.form == FORM_HELPER:
                # Two callers passing the same text (`abort()` of the sender and of the
                # receiver) are one site at the helper's raise.
                key = (at, site.line, site.error_class, render_message(site.parts))
                if key in passed:
                    continue
                passed.add(key)
            drafted[site.form] += 1
            out.sites.append(_site_dict(site, at, fields))
    for path, data in _native_files(source, native):
        for found_site in native_sites(data.decode("utf-8", errors="replace")):
            forms[found_site.form] += 1
            drafted[found_site.form] += 1
            out.sites.append(_native_dict(found_site, path))
    out.forms = {f: forms[f] for f in (*FORMS, *NATIVE_FORMS) if forms[f]}
    out.drafted = {f: drafted[f] for f in (*FORMS, *NATIVE_FORMS) if drafted[f]}
    out.statements = {f: counted[f] for f in DRAFTED_WITH_STATEMENTS if counted[f]}
    return out


def _native_files(source: Path, native: tuple[tuple[str, str], ...]) -> list[tuple[str, bytes]]:
    """(repository path, bytes) of the C++ sources under the `native` wheel folders."""
    if not native:
        return []
    out = []
    for path, data in iter_python_files(source, NATIVE_SUFFIXES):
        repo_path = native_path(native, path)
        if repo_path is not None and len(data) <= MAX_FILE_BYTES:
            out.append((repo_path, data))
    return out


def _native_dict(site: NativeSite, path: str) -> dict[str, Any]:
    return {
        "path": path,
        "line": site.line,
        "end": site.end_line,
        "cls": site.error_class,
        "parts": _parts(site),
        "message": render_message(site.parts),
        "pattern": site.pattern,
        "form": site.form,
        "function": site.function,
        "condition": site.condition,
        "docstring": None,
        "flags": [],
        "chained": False,
        "statement": None,
        "selfReads": [],
    }
