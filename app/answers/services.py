"""Answers as dataclasses: pages render them, the API serializes them through its schemas."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.db import DbSession
from app.matching import match_error
from app.matching.parse import ParsedError
from app.matching.services import Explanation
from app.records import queries
from app.records import services as records
from app.records.match_index import get_catalog
from app.records.models import Record
from app.repro import queries as runs
from app.repro.services import latest_verdicts

MAX_TEXT_BYTES = 256 * 1024

# record id -> platform -> verdict summary (``app.repro.services.summary``)
Verdicts = dict[str, dict[str, Any]]


class TextTooLarge(ValueError):
    """A pasted text over ``MAX_TEXT_BYTES``."""


@dataclass(frozen=True)
class MatchedRecord:
    record_id: str
    kind: str
    score: float
    error_message: str
    error_class: str
    solutions: list[str]
    why: Explanation
    repro: dict[str, Any] | None


@dataclass(frozen=True)
class MatchAnswer:
    matches: list[MatchedRecord]
    fallback: bool
    parsed: ParsedError


def text_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def match(session: DbSession, catalog_key: str, text: str, limit: int) -> MatchAnswer:
    """The records ``text`` is, best first, each with the why and its verdicts."""
    if text_size(text) > MAX_TEXT_BYTES:
        raise TextTooLarge(f"text is over {MAX_TEXT_BYTES} bytes.")
    catalog = get_catalog(session, catalog_key, runs.records_with_verdicts)
    result = match_error(text, catalog.index, limit=limit)
    ids = [m.record_id for m in result.matches if m.record_id in catalog.with_verdicts]
    verdicts = latest_verdicts(session, ids)
    matches = []
    for m in result.matches:
        entry = catalog.index.get(m.record_id)
        if entry is None:
            continue
        matches.append(
            MatchedRecord(
                record_id=entry.record_id,
                kind=m.why.kind,
                score=round(m.score, 4),
                error_message=entry.error_message or "",
                error_class=entry.error_class or "",
                solutions=catalog.solutions.get(entry.record_id, []),
                why=m.why,
                repro=verdicts.get(entry.record_id) or None,
            )
        )
    return MatchAnswer(matches, result.fallback, result.parsed)


@dataclass
class RecordList:
    """One page of records for a query, with their verdicts (unless asked without)."""

    query: queries.RecordQuery
    result: queries.QueryResult
    verdicts: dict[str, Verdicts]

    @property
    def records(self) -> list[Record]:
        return self.result.records

    @property
    def total(self) -> int:
        return self.result.total

    @property
    def has_next(self) -> bool:
        return self.query.page * self.query.per_page < self.result.total


def find_records(
    session: DbSession,
    query: queries.RecordQuery,
    with_facets: bool = False,
    with_verdicts: bool = True,
    with_lists: bool = True,
) -> RecordList:
    result = queries.find(session, query, with_facets=with_facets, with_lists=with_lists)
    ids = [r.id for r in result.records]
    return RecordList(query, result, latest_verdicts(session, ids) if with_verdicts else {})


@dataclass
class RecordDetail:
    record: Record
    verdicts: Verdicts

    @property
    def etag(self) -> str:
        """Changes when the record or any of its latest verdicts does."""
        runs = ".".join(str(v["runId"]) for _, v in sorted(self.verdicts.items()))
        return f"{self.record.content_hash[:20]}-{self.record.version}-{runs}"


def get_record(
    session: DbSession, record_id: str, with_verdicts: bool = True
) -> RecordDetail | None:
    row = records.get_record(session, record_id)
    if row is None:
        return None
    verdicts = latest_verdicts(session, [row.id]).get(row.id, {}) if with_verdicts else {}
    return RecordDetail(row, verdicts)
