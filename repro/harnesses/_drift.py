"""Where the record's error is raised in the installed source, next to what the record says.

Finds ``raise`` statements in the installed copy of the record's file whose string
literals match the record's message pattern (or contain its message), with ``ast``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any


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
        if not ((pattern and re.search(pattern, text)) or (message and message in text)):
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


def drift_report(
    package_dir: Path, record: dict[str, Any], observed: dict[str, Any] | None
) -> dict[str, Any]:
    """Record location vs installed location (static, by ast) vs observed (traceback)."""
    record_loc = {"file": record.get("filePath"), "line": record.get("lineNumber")}
    report: dict[str, Any] = {"record": record_loc, "installed": None, "observed": observed}
    path = installed_file(package_dir, str(record.get("filePath") or ""))
    if path is None:
        report["moved"] = True
        report["note"] = "the record's file does not exist in the installed package"
        return report
    hits = locate_raises(path, record)
    if not hits:
        report["moved"] = True
        report["note"] = "no raise matching the record's message in the installed file"
        return report
    report["installed"] = hits[0]
    if len(hits) > 1:
        report["other_sites"] = [{"line": h["line"], "function": h["function"]} for h in hits[1:]]
    report["moved"] = hits[0]["line"] != record.get("lineNumber")
    return report
