"""Where the record's error is raised in the installed source, next to what the record says.

Finds ``raise`` statements in the installed copy of the record's file whose string
literals match the record's message pattern (or contain its message), with ``ast``.
"""

from __future__ import annotations

import ast
import difflib
import re
from pathlib import Path
from typing import Any

from repro.harnesses._pattern import search


def installed_file(package_dir: Path, record_path: str) -> Path | None:
    """The installed file for a repo path like ``python/sglang/srt/x.py``."""
    parts = Path(record_path).parts
    name = package_dir.name
    if name not in parts:
        return None
    rel = Path(*parts[parts.index(name) + 1 :])
    path = package_dir / rel
    return path if path.is_file() else None


def _literal_text(node: ast.AST) -> str:
    return "".join(
        n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    )


def _enclosing_function(tree: ast.AST, line: int) -> str | None:
    best: tuple[int, str] | None = None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            end = node.end_lineno or node.lineno
            if node.lineno <= line <= end and (best is None or node.lineno > best[0]):
                best = (node.lineno, node.name)
    return best[1] if best else None


def locate_raises(path: Path, record: dict[str, Any]) -> list[dict[str, Any]]:
    """Every raise in ``path`` whose literal text matches the record's error."""
    source = path.read_text()
    tree = ast.parse(source)
    lines = source.splitlines()
    pattern = record.get("messagePattern")
    message = str(record.get("errorMessage") or "")
    error_class = record.get("errorClass")
    hits = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Raise) or node.exc is None:
            continue
        text = _literal_text(node.exc)
        if not ((pattern and search(pattern, text)) or (message and message in text)):
            continue
        exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        raised_class = exc.id if isinstance(exc, ast.Name) else None
        end = node.end_lineno or node.lineno
        hits.append(
            {
                "file": str(path),
                "line": node.lineno,
                "function": _enclosing_function(tree, node.lineno),
                "class": raised_class,
                "class_matches": raised_class in (None, error_class),
                "snippet": "\n".join(lines[node.lineno - 1 : end]),
            }
        )
    hits.sort(key=lambda h: (not h["class_matches"], h["line"]))
    return hits


UNCHANGED, MOVED, MESSAGE_CHANGED, GONE = "unchanged", "moved", "message_changed", "gone"
MAX_PACKAGE_FILES = 5000


def record_function(record: dict[str, Any]) -> str | None:
    """The function the record's raise sits in, read from its own source snippet."""
    code = record.get("sourceCode")
    start, line = record.get("sourceCodeStart"), record.get("lineNumber")
    if not code or not isinstance(start, int) or not isinstance(line, int):
        return None
    best = None
    for offset, text in enumerate(str(code).splitlines()):
        match = re.match(r"\s*(?:async\s+)?def\s+([A-Za-z_]\w*)", text)
        if match and start + offset <= line:
            best = match.group(1)
    return best


def _probe(record: dict[str, Any]) -> str:
    """A literal piece of the message to grep files for before parsing them."""
    message = str(record.get("errorMessage") or "")
    pieces = [p for p in re.split(r"\{[^{}]*\}", message) if p.strip()]
    return max(pieces, key=len).strip()[:60] if pieces else ""


def _package_hits(package_dir: Path, record: dict[str, Any], skip: Path | None) -> list[dict]:
    probe = _probe(record)
    if not probe:
        return []
    hits: list[dict[str, Any]] = []
    for count, path in enumerate(sorted(package_dir.rglob("*.py"))):
        if count >= MAX_PACKAGE_FILES:
            break
        if path == skip:
            continue
        try:
            if probe not in path.read_text(errors="replace"):
                continue
            hits.extend(locate_raises(path, record))
        except (OSError, SyntaxError, ValueError):
            continue
    return hits


def _function_raises(path: Path, function: str, error_class: str | None) -> list[dict]:
    """Raises of ``error_class`` inside ``function`` in ``path`` (message may differ)."""
    source = path.read_text()
    tree = ast.parse(source)
    lines = source.splitlines()
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.name != function:
            continue
        for inner in ast.walk(node):
            if not isinstance(inner, ast.Raise) or inner.exc is None:
                continue
            exc = inner.exc.func if isinstance(inner.exc, ast.Call) else inner.exc
            name = exc.id if isinstance(exc, ast.Name) else None
            if error_class and name and name != error_class.rsplit(".", 1)[-1]:
                continue
            end = inner.end_lineno or inner.lineno
            out.append(
                {
                    "file": str(path),
                    "line": inner.lineno,
                    "function": function,
                    "class": name,
                    "message": _literal_text(inner.exc),
                    "snippet": "\n".join(lines[inner.lineno - 1 : end]),
                }
            )
    return out


def drift_report(
    package_dir: Path, record: dict[str, Any], observed: dict[str, Any] | None
) -> dict[str, Any]:
    """Re-locate the record's raise site in the installed package, by message and function.

    ``status`` is ``unchanged`` (same file and line), ``moved`` (found by its message at
    another line or file), ``message_changed`` (the function still raises the record's
    class, with another message) or ``gone``. Nothing in the record is changed.
    """
    record_loc = {
        "file": record.get("filePath"),
        "line": record.get("lineNumber"),
        "function": record_function(record),
    }
    report: dict[str, Any] = {"record": record_loc, "installed": None, "observed": observed}
    path = installed_file(package_dir, str(record.get("filePath") or ""))
    hits = locate_raises(path, record) if path is not None else []
    same_file = bool(hits)
    if not hits:
        hits = _package_hits(package_dir, record, path)
    if hits:
        function = record_loc["function"]
        hits.sort(key=lambda h: (not h["class_matches"], h["function"] != function, h["line"]))
        report["installed"] = hits[0]
        if len(hits) > 1:
            report["other_sites"] = [
                {"file": h["file"], "line": h["line"], "function": h["function"]} for h in hits[1:]
            ]
        moved = not same_file or hits[0]["line"] != record.get("lineNumber")
        report["status"] = MOVED if moved else UNCHANGED
        report["moved"] = moved
        if not same_file:
            report["note"] = "found by its message in another file"
        return report
    report["moved"] = True
    function = record_loc["function"]
    candidates = [path] if path is not None else []
    for candidate in candidates:
        if function:
            changed = _function_raises(candidate, function, record.get("errorClass"))
            message = str(record.get("errorMessage") or "")
            changed.sort(
                key=lambda h: -difflib.SequenceMatcher(None, h["message"], message).ratio()
            )
            if changed:
                report["installed"] = changed[0]
                report["status"] = MESSAGE_CHANGED
                report["note"] = (
                    f"{function} still raises {changed[0]['class']}, with another message"
                )
                return report
    report["status"] = GONE
    report["note"] = "no raise with the record's message in the installed package" + (
        "" if path is not None else "; the record's file does not exist"
    )
    return report
