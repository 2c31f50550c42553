"""The in-process pattern index (and what a match answer shows) over the record store,
rebuilt when records change.

Each worker process keeps one :class:`MatchIndex`. At most every ``CHECK_INTERVAL``
seconds a request compares the catalog version (one primary-key read; bumped by every
import or write) with the one the index was built from, and rebuilds it if they differ.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, replace

from sqlalchemy import select

from app.db import DbSession
from app.matching import MatchIndex, PatternEntry
from app.records.models import Record, RecordSolution
from app.records.services import catalog_version
from app.repro.models import ReproLatest

CHECK_INTERVAL = 2.0


@dataclass(frozen=True)
class Catalog:
    """What a match answer needs, held in memory: the index and each record's solutions
    (message and class are in the index's entries)."""

    index: MatchIndex
    solutions: dict[str, list[str]]
    # Records with a reproducer verdict (few: the harnessed ones), refreshed with each
    # freshness check, so a match only queries verdicts when it can find some.
    with_verdicts: frozenset[str] = frozenset()


@dataclass
class _Cached:
    catalog: Catalog
    signature: int
    checked_at: float


_lock = threading.Lock()
_cache: dict[str, _Cached] = {}


def _signature(session: DbSession) -> int:
    return catalog_version(session)


def build_catalog(session: DbSession) -> Catalog:
    solutions: dict[str, list[str]] = {}
    for record_id, text in session.execute(
        select(RecordSolution.record_id, RecordSolution.text).order_by(
            RecordSolution.record_id, RecordSolution.position
        )
    ):
        solutions.setdefault(record_id, []).append(text)
    return Catalog(build_index(session), solutions)


def build_index(session: DbSession) -> MatchIndex:
    rows = session.execute(
        select(
            Record.id,
            Record.message_pattern,
            Record.error_class,
            Record.file_path,
            Record.line_number,
            Record.error_message,
        ).where(Record.retracted_at.is_(None))
    )
    return MatchIndex(PatternEntry(*row) for row in rows)


def get_catalog(session: DbSession, key: str) -> Catalog:
    """The catalog for the database ``key`` (its URL), fresh within ``CHECK_INTERVAL``."""
    now = time.monotonic()
    cached = _cache.get(key)
    if cached is not None and now - cached.checked_at < CHECK_INTERVAL:
        return cached.catalog
    with _lock:
        cached = _cache.get(key)
        signature = _signature(session)
        with_verdicts = frozenset(session.scalars(select(ReproLatest.record_id).distinct()))
        if cached is None or cached.signature != signature:
            catalog = replace(build_catalog(session), with_verdicts=with_verdicts)
            cached = _Cached(catalog, signature, now)
            _cache[key] = cached
        else:
            cached.catalog = replace(cached.catalog, with_verdicts=with_verdicts)
            cached.checked_at = now
        return cached.catalog


def forget() -> None:
    """Drop every cached index (tests, after a bulk change)."""
    with _lock:
        _cache.clear()
