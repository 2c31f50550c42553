"""Answers as dataclasses: pages render them, the API serializes them through its schemas."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from app.corpus import services as corpus_services
from app.corpus.answers import (
    FILTER_OVERFETCH,
    MatchFilters,
    evidence_fields,
    keep,
    site_fields,
    traceback_evidence,
    user_release,
)
from app.corpus.catalog import Catalog, get_catalog
from app.corpus.evidence import Evidence
from app.db import DbSession
from app.matching import match_error
from app.matching.parse import ParsedError
from app.matching.services import Explanation, MatchResult
from app.records import queries
from app.records import services as records
from app.records.models import Record
from app.repro import queries as runs
from app.repro import sweep as explorer
from app.repro.services import latest_verdicts

MAX_TEXT_BYTES = 256 * 1024
_NOTHING_SWEPT: list[dict[str, Any]] = []  # an answer without matches reads no results
_LINK_PROBE = "r"  # a record id: its link says which host an answer's links name

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
    # the config-space explorer on this raise site: {reproduced, fixProven}, if it got there
    sweep: dict[str, bool] | None = None
    # curated, repo, releases {first, last}, at {release, filePath, lineNumber}
    site: dict[str, Any] = field(default_factory=dict)
    # the other records of the same raise site that matched (grouped into this one)
    same_site: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        return 1 + len(self.same_site)


@dataclass(frozen=True)
class MatchAnswer:
    matches: list[MatchedRecord]
    fallback: bool
    parsed: ParsedError
    # what the traceback frames say, and notes on what is known and what is not
    evidence: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    # the matcher's account: evidence, what is known, what is not
    answer: dict[str, Any] = field(default_factory=dict)
    # the per-request verification budget ran out before every candidate was tried
    incomplete: bool = False
    # this answer as a client got it (the API's serialized bodies, by how they were asked
    # for): an answer is given again while its inputs are the same (see `_Ranked`)
    rendered: dict[Hashable, bytes] = field(default_factory=dict, compare=False, repr=False)


# The built answers a ranking keeps (by limit, filters and link host): few per paste.
MAX_ANSWERS_PER_RANKING = 8


@dataclass
class _Ranked:
    """A paste's ranking and frames' evidence (a function of the paste and the catalog,
    kept in the catalog's memo), and the answers built from it. An answer depends also on
    the records' verdicts and the explorer's results: one is given again only when no
    match has a verdict and the explorer's results are the very ones it was built from."""

    result: MatchResult
    evidence: Evidence | None
    answers: dict[Hashable, tuple[object, MatchAnswer]] = field(default_factory=dict)

    def answer(self, key: Hashable, swept: object) -> MatchAnswer | None:
        found = self.answers.get(key)
        return found[1] if found is not None and found[0] is swept else None

    def keep(self, key: Hashable, swept: object, answer: MatchAnswer) -> None:
        if len(self.answers) >= MAX_ANSWERS_PER_RANKING:
            self.answers.clear()
        self.answers[key] = (swept, answer)


def catalog(session: DbSession, catalog_key: str) -> Catalog:
    """The in-memory catalog (pattern index, site facts) for the database ``catalog_key``."""
    return get_catalog(session, catalog_key, runs.records_with_verdicts)


def site_view(session: DbSession, record_id: str) -> dict[str, Any] | None:
    """A record's raise site across releases (locations, history, why it fired)."""
    site = corpus_services.site_view(session, record_id)
    return None if site is None else site.to_dict()


def text_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def match(
    session: DbSession,
    catalog_key: str,
    text: str,
    limit: int,
    href: Callable[[str], str],
    filters: MatchFilters | None = None,
) -> MatchAnswer:
    """The records ``text`` is, best first, each with the why, its raise site's facts and
    its verdicts; ``href`` names a record's page (used in the frame evidence)."""
    if text_size(text) > MAX_TEXT_BYTES:
        raise TextTooLarge(f"text is over {MAX_TEXT_BYTES} bytes.")
    filters = filters or MatchFilters()
    catalog = get_catalog(session, catalog_key, runs.records_with_verdicts)
    fetch = max(limit, FILTER_OVERFETCH) if filters.any() else limit
    # The ranking and the frames' evidence depend on the paste and the catalog alone (but
    # for a ranking the verification budget cut short: that one is not kept).
    ranked: _Ranked | None = catalog.memo.get((text, fetch))
    if ranked is None:
        result = match_error(text, catalog.index, limit=fetch, readers=catalog.readers(session))
        ranked = _Ranked(result, traceback_evidence(catalog, result.parsed))
        if not result.incomplete:
            catalog.memo.put((text, fetch), len(text), ranked)
    result, evidence = ranked.result, ranked.evidence
    allowed = set(keep(catalog, [m.record_id for m in result.matches], filters))
    found = [m for m in result.matches if m.record_id in allowed][:limit]
    ids = [m.record_id for m in found if m.record_id in catalog.with_verdicts]
    verdicts = latest_verdicts(session, ids)
    swept = explorer.sweeps() if found else _NOTHING_SWEPT  # once per answer, not per match
    # The links in an answer name the host it was asked on (record_page_url).
    key = (limit, filters, href(_LINK_PROBE))
    if not verdicts:
        kept = ranked.answer(key, swept)
        if kept is not None:
            return kept
    matches = []
    for m in found:
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
                sweep=explorer.proven(
                    entry.repo, entry.file_path, entry.pattern, entry.error_message or "", swept
                ),
                site=site_fields(
                    catalog, entry.record_id, user_release(catalog, entry, filters, evidence)
                ),
                same_site=m.same_site,
            )
        )
    extra = evidence_fields(catalog, evidence, href, bool(matches) and not result.fallback)
    answer = MatchAnswer(
        matches,
        result.fallback,
        result.parsed,
        extra.get("evidence"),
        extra["notes"],
        result.answer,
        result.incomplete,
    )
    if not verdicts:
        ranked.keep(key, swept, answer)
    return answer


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
