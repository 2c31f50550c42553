"""What a raise site is, read from the installed source with ``ast``: the statement
(``raise``/``assert``/an implicit error), its function, its message template, its area."""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path
from typing import Any

AREAS = (
    ("server args", ("sglang/srt/server_args.py", "sglang/srt/arg_groups/")),
    ("model config", ("sglang/srt/configs/model_config.py", "sglang/srt/utils/hf_transformers")),
    ("configs", ("sglang/srt/configs/",)),
    ("attention", ("sglang/srt/layers/attention/", "sglang/kernels/ops/attention/")),
)


def area_of(file: str) -> str:
    for name, prefixes in AREAS:
        if any(file.startswith(p) for p in prefixes):
            return name
    return "other"


@lru_cache(maxsize=512)
def _tree(path: str) -> ast.AST | None:
    try:
        return ast.parse(Path(path).read_text())
    except (OSError, SyntaxError, ValueError):
        return None


def _template(node: ast.AST | None) -> str:
    """String literals of a message, with ``{}`` for each formatted part."""
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.Call):
        parts = [_template(a) for a in node.args]
        return " ".join(p for p in parts if p)
    if isinstance(node, ast.BinOp):
        return _template(node.left) + _template(node.right)
    return ""


def describe(package_root: Path, file: str, line: int) -> dict[str, Any]:
    """``{"kind", "function", "template"}`` for the statement at ``file:line``."""
    tree = _tree(str(package_root / file))
    out: dict[str, Any] = {"kind": "implicit", "function": None, "template": ""}
    if tree is None:
        return out
    best_fn: tuple[int, str] | None = None
    for node in ast.walk(tree):
        start = int(getattr(node, "lineno", 0) or 0)
        end = int(getattr(node, "end_lineno", 0) or start)
        if not (start <= line <= end):
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if best_fn is None or node.lineno > best_fn[0]:
                best_fn = (node.lineno, node.name)
        elif isinstance(node, ast.Raise):
            out["kind"] = "raise"
            out["template"] = _template(node.exc)
        elif isinstance(node, ast.Assert) and out["kind"] != "raise":
            out["kind"] = "assert"
            out["template"] = _template(node.msg)
    out["function"] = best_fn[1] if best_fn else None
    return out
