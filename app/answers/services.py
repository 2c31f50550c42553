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
    worded_releases,
    wording_note,
)
from app.corpus.catalog import Catalog, get_catalog
from app.corpus.evidence import Evidence
from app.corpus.load import alias_of
from app.db import DbSession
from app.matching import match_error
from app.matching.parse import ParsedError
from app.matching.services import Explanation, Match, MatchResult
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


# The bodies kept with a ranking (by limit, filters, link host and how it was asked for):
# few per paste; past them a body is made anew each time.
MAX_BODIES_PER_RANKING = 4


@dataclass
class _Ranked:
    """A paste's ranking and frames' evidence (a function of the paste and the catalog,
    kept in the catalog's memo), and the bodies sent for it. A body depends also on the
    records' verdicts and the explorer's results: one is sent again only when no match
    has a verdict and the explorer's results are the very ones it was made from."""

    result: MatchResult
    evidence: Evidence | None
    bodies: dict[Hashable, tuple[object, bytes]] = field(default_factory=dict)

    def body(self, key: Hashable, swept: object) -> bytes | None:
        found = self.bodies.get(key)
        return found[1] if found is not None and found[0] is swept else None

    def keep(self, key: Hashable, swept: object, body: bytes) -> bool:
        if len(self.bodies) >= MAX_BODIES_PER_RANKING:
            return False
        self.bodies[key] = (swept, body)
        return True


@dataclass(frozen=True)
class _Asked:
    """What an answer is built from: the ranking, its matches past the filters, their
    verdicts and the explorer's results."""

    catalog: Catalog
    ranked: _Ranked
    memo_key: Hashable | None  # None: the ranking was not kept (cut short by the budget)
    found: list[Match]
    verdicts: Verdicts
    swept: list[dict[str, Any]]


def catalog(session: DbSession, catalog_key: str) -> Catalog:
    """The in-memory catalog (pattern index, site facts) for the database ``catalog_key``."""
    return get_catalog(session, catalog_key, runs.records_with_verdicts)


def site_view(session: DbSession, record_id: str) -> dict[str, Any] | None:
    """A record's raise site across releases (locations, history, why it fired)."""
    site = corpus_services.site_view(session, record_id)
    return None if site is None else site.to_dict()


def text_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _asked(
    session: DbSession, catalog_key: str, text: str, limit: int, filters: MatchFilters
) -> _Asked:
    if text_size(text) > MAX_TEXT_BYTES:
        raise TextTooLarge(f"text is over {MAX_TEXT_BYTES} bytes.")
    catalog = get_catalog(session, catalog_key, runs.records_with_verdicts)
    fetch = max(limit, FILTER_OVERFETCH) if filters.any() else limit
    # The ranking and the frames' evidence depend on the paste and the catalog alone (but
    # for a ranking the verification budget cut short: that one is not kept).
    memo_key: Hashable | None = (text, fetch)
    ranked: _Ranked | None = catalog.memo.get(memo_key)
    if ranked is None:
        result = match_error(text, catalog.index, limit=fetch, readers=catalog.readers(session))
        ranked = _Ranked(result, traceback_evidence(catalog, result.parsed))
        if result.incomplete:
            memo_key = None
        else:
            catalog.memo.put(memo_key, len(text), ranked)
    result = ranked.result
    allowed = set(keep(catalog, [m.record_id for m in result.matches], filters))
    found = [m for m in result.matches if m.record_id in allowed][:limit]
    ids = [m.record_id for m in found if m.record_id in catalog.with_verdicts]
    verdicts = latest_verdicts(session, ids)
    swept = explorer.sweeps() if found else _NOTHING_SWEPT  # once per answer, not per match
    return _Asked(catalog, ranked, memo_key, found, verdicts, swept)


def _answer(asked: _Asked, filters: MatchFilters, href: Callable[[str], str]) -> MatchAnswer:
    catalog, result, evidence = asked.catalog, asked.ranked.result, asked.ranked.evidence
    matches: list[MatchedRecord] = []
    first_worded: tuple[str, ...] = ()  # the wording's releases, for the first match
    for m in asked.found:
        entry = catalog.index.get(m.record_id)
        if entry is None:
            continue
        worded = worded_releases(catalog, entry, m.why)
        if not matches:
            first_worded = worded
        matches.append(
            MatchedRecord(
                record_id=entry.record_id,
                kind=m.why.kind,
                score=round(m.score, 4),
                error_message=entry.error_message or "",
                error_class=entry.error_class or "",
                solutions=catalog.solutions.get(entry.record_id, []),
                why=m.why,
                repro=asked.verdicts.get(entry.record_id) or None,
                sweep=explorer.proven(
                    entry.repo,
                    entry.file_path,
                    entry.pattern,
                    entry.error_message or "",
                    asked.swept,
                ),
                site=site_fields(
                    catalog,
                    entry.record_id,
                    user_release(catalog, entry, filters, evidence, worded),
                ),
                same_site=m.same_site,
            )
        )
    extra = evidence_fields(catalog, evidence, href, bool(matches) and not result.fallback)
    note = wording_note(catalog, matches[0].record_id, first_worded) if matches else None
    if note is not None:
        extra["notes"].append(note)
    return MatchAnswer(
        matches,
        result.fallback,
        result.parsed,
        extra.get("evidence"),
        extra["notes"],
        result.answer,
        result.incomplete,
    )


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
    filters = filters or MatchFilters()
    return _answer(_asked(session, catalog_key, text, limit, filters), filters, href)


def match_body(
    session: DbSession,
    catalog_key: str,
    text: str,
    limit: int,
    href: Callable[[str], str],
    filters: MatchFilters,
    render: Callable[[MatchAnswer], bytes],
    variant: Hashable = None,
) -> bytes:
    """What ``render`` makes of ``match``'s answer (``variant``: how it renders). A paste
    answered again, nothing its answer depends on changed (no match has a verdict, the same
    explorer results, links to the same host), gets the body made before: kept with its
    ranking, its bytes counted in the catalog's memo."""
    asked = _asked(session, catalog_key, text, limit, filters)
    # The links in a body name the host it was asked on: ``href`` of any id says which.
    key = (limit, filters, href(_LINK_PROBE), variant)
    if not asked.verdicts:
        body = asked.ranked.body(key, asked.swept)
        if body is not None:
            return body
    body = render(_answer(asked, filters, href))
    if not asked.verdicts and asked.memo_key is not None:
        if asked.ranked.keep(key, asked.swept, body):
            asked.catalog.memo.charge(asked.memo_key, len(body))
    return body


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


def renamed(session: DbSession, record_id: str) -> str | None:
    """The id a record has now, when a corpus load renamed its raise site."""
    return alias_of(session, record_id)


def get_record(
    session: DbSession, record_id: str, with_verdicts: bool = True
) -> RecordDetail | None:
    row = records.get_record(session, record_id)
    if row is None:
        return None
    verdicts = latest_verdicts(session, [row.id]).get(row.id, {}) if with_verdicts else {}
    return RecordDetail(row, verdicts)
