"""Generate draft error records from a package's raise sites."""

from __future__ import annotations

import ast
import hashlib
import warnings
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.drafts.extract import RaiseSite
from app.drafts.records import build_record, default_path_prefix
from app.drafts.scan import raise_sites
from app.drafts.sources import iter_python_files


def iso_now() -> str:
    """UTC time like the dataset's: 2026-08-28T05:10:05.995Z."""
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def parse_source(data: bytes) -> ast.AST | None:
    """Parse a file, or None if it is not valid Python for this interpreter."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes in third-party code
        try:
            return ast.parse(data)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None


def iter_sites(source: Path) -> Iterator[tuple[str, list[str], RaiseSite]]:
    """(package path, source lines, site) for every usable raise site, in file order."""
    for path, data in iter_python_files(source):
        tree = parse_source(data)
        if tree is None:
            continue
        text = data.decode("utf-8", errors="replace")
        lines = text.splitlines()
        for site in sorted(raise_sites(tree, text), key=lambda s: s.line):
            yield path, lines, site


def draft_records(
    source: Path,
    repo: str,
    sha: str,
    *,
    ref: str | None = None,
    path_prefix: str | None = None,
    analyzed_at: str | None = None,
) -> Iterator[dict[str, Any]]:
    """Schema v2 draft records for the raise sites of a package directory or wheel."""
    prefix = default_path_prefix(repo) if path_prefix is None else path_prefix
    if prefix and not prefix.endswith("/"):
        prefix += "/"
    stamp = analyzed_at or iso_now()
    for path, lines, site in iter_sites(source):
        yield build_record(
            site,
            repo=repo,
            sha=sha,
            ref=ref,
            path=prefix + path,
            source_lines=lines,
            analyzed_at=stamp,
        )


def source_digest(source: Path) -> str:
    """SHA-256 of a wheel file, or of a directory's Python files (paths and bytes)."""
    digest = hashlib.sha256()
    if source.is_file():
        digest.update(source.read_bytes())
        return digest.hexdigest()
    for path, data in iter_python_files(source):
        digest.update(path.encode() + b"\0" + data + b"\0")
    return digest.hexdigest()


def envelope(record: dict[str, Any], dataset_version: str) -> dict[str, Any]:
    """One JSONL line: the record, the dataset version and the draft flag."""
    return {"record": record, "datasetVersion": dataset_version, "draft": True}
