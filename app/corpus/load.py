"""Load a built corpus into the store: drafts through the importer's own validation and
upsert, then per-release locations, code facts and exception classes.

A curated record (not a draft) attaches to the raise site it describes: same repo, a
location in its file, and a wording the curated message fits. Its text wins; the site's
locations and code facts are stored under the curated id, and no draft is imported for
that site, so one site gives one result. Loading the same corpus twice is a no-op.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import re2
from sqlalchemy import bindparam, delete, insert, select, text, update

from app.corpus.models import (
    CorpusState,
    ExceptionClassDef,
    RecordAlias,
    RecordLocation,
    RecordSite,
)
from app.db import DbSession
from app.matching.literals import required_runs
from app.records import services
from app.records.models import Record

BATCH = 2000
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False


class LoadError(ValueError):
    """The corpus file is unreadable or has lines the importer rejects."""


@dataclass(frozen=True, slots=True)
class LoadStats:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    attached: int = 0
    removed: int = 0
    skipped: bool = False
    renamed: int = 0


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    try:
        for raw in _raw_lines(path):
            yield json.loads(raw)
    except json.JSONDecodeError as exc:
        raise LoadError(f"{path}: unreadable corpus file: {exc}") from None


def _raw_lines(path: Path) -> Iterator[str]:
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            yield from fh
    except (OSError, EOFError) as exc:
        raise LoadError(f"{path}: unreadable corpus file: {exc}") from None


def _curated(session: DbSession) -> dict[str, list[tuple[str, str, str]]]:
    """Curated records by repo: (id, file path, message)."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    rows = session.execute(
        select(Record.id, Record.repo, Record.file_path, Record.error_message).where(
            Record.is_draft.is_(False)
        )
    )
    for rid, repo, path, message in rows:
        out.setdefault(repo, []).append((rid, path, message))
    return out


def _fits(pattern: str, message: str) -> bool:
    try:
        rx = re2.compile(pattern, _RE2_OPTIONS)
    except Exception:  # re2 raises its own error type for unsupported syntax
        return False
    return rx.fullmatch(message.strip()) is not None


# Literal characters a site's wording needs to take a curated record by fitting it (a
# wording that is all placeholder, `{name}`, fits any message).
MIN_CURATED_FIT = 8
_EXACT = 1 << 30


def curated_fit(
    line: dict[str, Any], curated: dict[str, list[tuple[str, str, str]]]
) -> tuple[str, int] | None:
    """The curated record describing this site and how closely: its very wording at one of
    the site's locations first, then the fitting wording with the most literal text."""
    best: tuple[str, int] | None = None
    for rid, path, message in curated.get(line["record"]["repo"], []):
        for loc in line["locations"]:
            if loc["path"] != path:
                continue
            if loc["message"] == message:
                score = _EXACT
            elif _fits(loc["pattern"], message):
                score = sum(map(len, required_runs(loc["pattern"]) or []))
                if score < MIN_CURATED_FIT:
                    continue
            else:
                continue
            if best is None or score > best[1]:
                best = (rid, score)
    return best


def _attachments(path: Path, curated: dict[str, list[tuple[str, str, str]]]) -> dict[str, str]:
    """Draft id -> the curated id that takes its site: each curated record takes the one
    site that fits it best (only lines naming a curated record's file are parsed)."""
    files = {f'"{p}"' for entries in curated.values() for _, p, _ in entries}
    best: dict[str, tuple[int, str]] = {}
    for raw in _raw_lines(path):
        if not any(f in raw for f in files):
            continue
        line = json.loads(raw)
        fit = curated_fit(line, curated)
        if fit is not None and (fit[0] not in best or fit[1] > best[fit[0]][0]):
            best[fit[0]] = (fit[1], line["record"]["id"])
    return {draft: rid for rid, (_, draft) in best.items()}


def current_digest(session: DbSession) -> str | None:
    state = session.get(CorpusState, 1)
    return state.digest if state is not None else None


def load_digest(session: DbSession, corpus_digest: str) -> str:
    """The corpus digest combined with the curated record ids (a newly imported curated
    record must attach to its site, so the corpus is loaded again)."""
    ids = sorted(session.scalars(select(Record.id).where(Record.is_draft.is_(False))))
    return hashlib.sha256("\n".join([corpus_digest, *ids]).encode()).hexdigest()


def load_corpus(
    session: DbSession,
    path: Path,
    meta: dict[str, Any],
    digest: str,
    *,
    force: bool = False,
    progress: Callable[[int], None] | None = None,
) -> LoadStats:
    """Import the corpus at `path` (built for `digest`); flushes, the caller commits."""
    if not force and current_digest(session) == digest:
        return LoadStats(skipped=True)
    curated = _curated(session)
    attach = _attachments(path, curated) if curated else {}
    previous = set(session.scalars(select(RecordSite.record_id)))
    # Where each earlier site was, per release: a new id at one of those places is its
    # rename (an older release now names it, or a curated record took it).
    was_at = _places(session) if previous else {}
    renamed: dict[str, str] = {}
    kept: set[str] = set()
    created = updated = unchanged = attached = 0
    batch: list[dict[str, Any]] = []

    def flush() -> None:
        nonlocal created, updated, unchanged
        parsed, errors = [], []
        for n, line in enumerate(batch):
            envelope = {k: line[k] for k in ("record", "datasetVersion", "draft")}
            raw = json.dumps(envelope, ensure_ascii=False).encode("utf-8")
            result = services.parse_line(str(path), n + 1, raw)
            if isinstance(result, list):
                errors.extend(result)
            else:
                parsed.append(result)
        if errors:
            raise LoadError("; ".join(str(e) for e in errors[:5]))
        stats = services.upsert(session, [p for p in parsed if p.envelope.draft])
        created += stats.created
        updated += stats.updated
        unchanged += stats.unchanged
        _write_sites(session, batch, digest)
        if progress is not None:
            progress(len(batch))
        batch.clear()

    for line in _lines(path):
        rid = attach.get(line["record"]["id"])
        if rid is not None:
            line = {**line, "record": {**line["record"], "id": rid}, "draft": False}
            attached += 1
        new_id = line["record"]["id"]
        kept.add(new_id)
        if was_at and new_id not in previous:
            for loc in line["locations"]:
                old = was_at.get(_place(loc["release"], loc["path"], loc["line"], loc["message"]))
                if old is not None and old != new_id:
                    renamed.setdefault(old, new_id)
        batch.append(line)
        if len(batch) >= BATCH:
            flush()
    if batch:
        flush()
    stale = previous - kept
    moved = {old: new for old, new in renamed.items() if old in stale}
    _write_aliases(session, moved, kept, previous, stale)
    removed = _remove_stale(session, stale)
    _write_classes(session, meta.get("classes", []))
    state = session.get(CorpusState, 1)
    summary = {"records": len(kept), "releases": meta.get("releases", [])}
    if state is None:
        session.add(CorpusState(id=1, digest=digest, summary=summary))
    else:
        state.digest, state.summary = digest, summary
    services.bump_catalog(session)
    session.flush()
    return LoadStats(created, updated, unchanged, attached, removed, renamed=len(moved))


def _write_sites(session: DbSession, lines: list[dict[str, Any]], digest: str) -> None:
    ids = [line["record"]["id"] for line in lines]
    session.execute(delete(RecordLocation).where(RecordLocation.record_id.in_(ids)))
    session.execute(delete(RecordSite).where(RecordSite.record_id.in_(ids)))
    sites, locations = [], []
    for line in lines:
        rid, site = line["record"]["id"], line["site"]
        sites.append(
            {
                "record_id": rid,
                "package": site["package"],
                "function": site["function"][:500],
                "condition": site["condition"],
                "docstring": site["docstring"],
                "cli_flags": site["flags"],
                "form": site["form"],
                "self_reads": site.get("selfReads") or None,
                "corpus_digest": digest,
            }
        )
        for pos, loc in enumerate(line["locations"]):
            locations.append(
                {
                    "record_id": rid,
                    "position": pos,
                    "release": loc["release"],
                    "file_path": loc["path"],
                    "line_number": loc["line"],
                    "github_url": loc["url"],
                    "function": loc["function"][:500],
                    "error_message": loc["message"],
                    "message_pattern": loc["pattern"],
                }
            )
    if sites:
        session.execute(insert(RecordSite), sites)
    if locations:
        session.execute(insert(RecordLocation), locations)


def _place(release: str, path: str, line: int, message: str) -> int:
    return hash((release, path, line, message))


def _places(session: DbSession) -> dict[int, str]:
    """(release, file, line, wording) of every stored location -> its record id (hashed:
    hundreds of thousands of rows)."""
    rows = session.execute(
        select(
            RecordLocation.release,
            RecordLocation.file_path,
            RecordLocation.line_number,
            RecordLocation.error_message,
            RecordLocation.record_id,
        )
    )
    return {_place(release, path, line, message): rid for release, path, line, message, rid in rows}


def _write_aliases(
    session: DbSession,
    renamed: dict[str, str],
    kept: set[str],
    previous: set[str],
    stale: set[str],
) -> None:
    """Store old id -> new id; an alias that pointed at a renamed id follows it, one that
    pointed at a removed site goes, and an id back in the corpus is no alias any more."""
    for old, new in renamed.items():
        session.execute(update(RecordAlias).where(RecordAlias.new_id == old).values(new_id=new))
        session.execute(delete(RecordAlias).where(RecordAlias.old_id == old))
        session.add(RecordAlias(old_id=old, new_id=new))
    # Only an id new to this load can be an alias's old id (it was removed by an earlier one).
    _delete_aliases(session, RecordAlias.old_id, list(kept - previous))
    _delete_aliases(session, RecordAlias.new_id, [i for i in stale if i not in renamed])
    session.flush()


def _delete_aliases(session: DbSession, column: Any, ids: list[str]) -> None:
    for start in range(0, len(ids), 500):
        session.execute(delete(RecordAlias).where(column.in_(ids[start : start + 500])))


def alias_of(session: DbSession, record_id: str) -> str | None:
    """The id a renamed record has now, if `record_id` was renamed by a corpus load."""
    alias = session.get(RecordAlias, record_id)
    return alias.new_id if alias is not None else None


def _remove_stale(session: DbSession, stale: set[str]) -> int:
    """Drop drafts an earlier corpus loaded that this one no longer has."""
    if not stale:
        return 0
    ids = list(stale)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        session.execute(delete(RecordLocation).where(RecordLocation.record_id.in_(chunk)))
        session.execute(delete(RecordSite).where(RecordSite.record_id.in_(chunk)))
        drafts = list(
            session.scalars(select(Record).where(Record.id.in_(chunk), Record.is_draft.is_(True)))
        )
        table = (
            "record_search_fts"
            if session.get_bind().dialect.name == "sqlite"
            else ("record_search")
        )
        session.execute(
            text(f"DELETE FROM {table} WHERE record_id IN :ids").bindparams(
                bindparam("ids", expanding=True)
            ),
            {"ids": [r.id for r in drafts] or [""]},
        )
        for row in drafts:
            session.delete(row)
    session.flush()
    return len(ids)


def _write_classes(session: DbSession, classes: list[dict[str, Any]]) -> None:
    session.execute(delete(ExceptionClassDef))
    rows = [
        {
            "package": c["package"],
            "name": c["name"][:500],
            "bases": c["bases"],
            "file_path": c["path"][:1000],
        }
        for c in classes
    ]
    if rows:
        session.execute(insert(ExceptionClassDef), rows)
