"""Turn a raise site into a schema v2 draft record (documentation fields left empty)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from app.drafts.extract import Part, Placeholder, RaiseSite

SCHEMA_VERSION = 2
CONTEXT_LINES = 18
SLUG_LENGTH = 50
WILDCARD = ".+?"
_META = frozenset(".^$*+?{}[]\\|()")
_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\f": "\\f", "\v": "\\v"}
_KNOWN_PREFIXES = {"sgl-project/sglang": "python/"}
_ERROR_TYPES: Sequence[tuple[str, str]] = (
    ("NotImplementedError", "unsupported"),
    ("ValueError", "validation"),
    ("TypeError", "validation"),
    ("AssertionError", "validation"),
    ("KeyError", "lookup"),
    ("IndexError", "lookup"),
    ("LookupError", "lookup"),
    ("FileNotFoundError", "io"),
    ("PermissionError", "permission"),
    ("IsADirectoryError", "io"),
    ("OSError", "io"),
    ("IOError", "io"),
    ("ModuleNotFoundError", "dependency"),
    ("ImportError", "dependency"),
    ("TimeoutError", "timeout"),
    ("ConnectionError", "network"),
    ("OutOfMemoryError", "resource"),
    ("MemoryError", "resource"),
    ("AttributeError", "runtime"),
    ("RuntimeError", "runtime"),
)


def default_path_prefix(repo: str) -> str:
    """Where the package sits in the repository (sglang keeps it under `python/`)."""
    return _KNOWN_PREFIXES.get(repo.lower(), "")


def error_type(error_class: str) -> str:
    """Heuristic errorType from the exception class name."""
    last = error_class.rsplit(".", 1)[-1]
    for name, kind in _ERROR_TYPES:
        if last == name:
            return kind
    lowered = last.lower()
    for hint, kind in (
        ("config", "configuration"),
        ("valid", "validation"),
        ("timeout", "timeout"),
        ("notfound", "lookup"),
        ("unsupported", "unsupported"),
        ("memory", "resource"),
    ):
        if hint in lowered:
            return kind
    return "runtime"


def escape_literal(text: str) -> str:
    """Escape for both Python `re` and RE2, leaving spaces and punctuation readable."""
    out = []
    for ch in text:
        if ch in _META:
            out.append("\\" + ch)
        elif ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


def render_message(parts: Sequence[Part]) -> str:
    """The message with placeholders written as `{name}`."""
    return "".join(p if isinstance(p, str) else "{" + p.name + "}" for p in parts)


def message_pattern(parts: Sequence[Part], error_class: str = "") -> str:
    """Regex matching every instantiation: escaped literals, `.+?` per placeholder.

    The ends are stripped of whitespace because tracebacks print messages trimmed.
    KeyError prints repr(message), so its pattern allows the surrounding quotes.
    """
    pieces: list[str] = []
    for i, part in enumerate(parts):
        if isinstance(part, Placeholder):
            pieces.append(WILDCARD)
            continue
        text = part
        if i == 0:
            text = text.lstrip()
        if i == len(parts) - 1:
            text = text.rstrip()
        # Trailing spaces before a newline are often lost when logs are copied.
        lines = text.split("\n")
        pieces.append(
            "[ \\t]*\\n".join(
                escape_literal(line.rstrip(" \t") if n < len(lines) - 1 else line)
                for n, line in enumerate(lines)
            )
        )
    pattern = "".join(pieces)
    if error_class.rsplit(".", 1)[-1] == "KeyError":
        pattern = "['\"]?" + pattern + "['\"]?"
    return pattern


def instantiate(parts: Sequence[Part], values: Mapping[str, str] | None = None) -> str:
    """A concrete message, placeholders filled from `values` (default: `x`)."""
    values = values or {}
    return "".join(p if isinstance(p, str) else values.get(p.name, "x") for p in parts)


def slugify(message: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", message.lower()).strip("-")
    return slug[:SLUG_LENGTH].strip("-") or "error"


def record_id(repo: str, path: str, line: int, message: str) -> str:
    digest = hashlib.sha256(f"{repo}\n{path}\n{line}\n{message}".encode()).hexdigest()
    return digest[:16]


def build_record(
    site: RaiseSite,
    *,
    repo: str,
    sha: str,
    path: str,
    source_lines: Sequence[str],
    analyzed_at: str,
    ref: str | None = None,
    link_path: str | None = None,
) -> dict[str, Any]:
    """A schema v2 record with every key of the seed, in the seed's order.

    `ref` (a tag such as `v0.5.23`) names the source in the GitHub link; default `sha`.
    `link_path` is the file's path in the repository when it differs from `path`.
    """
    message = render_message(site.parts)
    start = max(1, site.line - CONTEXT_LINES)
    end = max(start, min(len(source_lines), site.end_line + CONTEXT_LINES))
    snippet = "\n".join(source_lines[start - 1 : end])
    return {
        "id": record_id(repo, path, site.line, message),
        "repo": repo,
        "slug": slugify(message),
        "errorCode": None,
        "errorMessage": message,
        "messagePattern": site.pattern or message_pattern(site.parts, site.error_class),
        "errorType": error_type(site.error_class),
        "errorClass": site.error_class,
        "httpStatus": None,
        "severity": "error",
        "filePath": path,
        "lineNumber": site.line,
        "sourceCode": snippet,
        "sourceCodeStart": start,
        "sourceCodeEnd": end,
        "githubUrl": f"https://github.com/{repo}/blob/{ref or sha}/{link_path or path}"
        f"#L{start}-L{end}",
        "documentation": "",
        "triggerScenarios": "",
        "commonSituations": "",
        "solutions": [],
        "exampleFix": "",
        "handlingStrategy": "",
        "validationCode": "",
        "typeGuard": "",
        "tryCatchPattern": None,
        "preventionTips": [],
        "tags": [],
        "backgroundTag": "",
        "analyzedSha": sha,
        "analyzedAt": analyzed_at,
        "schemaVersion": SCHEMA_VERSION,
    }
