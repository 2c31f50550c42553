"""Full-text search over records: SQLite FTS5 or PostgreSQL tsvector, behind one interface.

Both backends index the same normalized words (see ``text``), retrieve candidates that
contain every query word (the last one as a prefix), and hand them to one portable ranking,
so the same corpus gives the same order on both.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, text

from app.db import DbSession
from app.search.text import FIELD_WEIGHTS, PHRASE_BONUS, SearchDocument, query_terms

FIELDS = ("message", "klass", "tags", "path", "body")


@dataclass(frozen=True)
class Hit:
    record_id: str
    score: float


@dataclass
class SearchResult:
    hits: list[Hit] = field(default_factory=list)
    total: int = 0


def _dialect(session: DbSession) -> str:
    return str(session.get_bind().dialect.name)


def index_documents(session: DbSession, documents: Iterable[SearchDocument]) -> None:
    """(Re)write the search rows of ``documents``; call after their records are flushed."""
    docs = list(documents)
    if not docs:
        return
    ids = [d.record_id for d in docs]
    table = "record_search_fts" if _dialect(session) == "sqlite" else "record_search"
    session.execute(
        text(f"DELETE FROM {table} WHERE record_id IN :ids").bindparams(
            bindparam("ids", expanding=True)
        ),
        {"ids": ids},
    )
    values = [{"record_id": d.record_id, **d.fields()} for d in docs]
    if table == "record_search_fts":
        session.execute(
            text(
                "INSERT INTO record_search_fts (record_id, message, klass, tags, path, body) "
                "VALUES (:record_id, :message, :klass, :tags, :path, :body)"
            ),
            values,
        )
    else:
        session.execute(
            text(
                "INSERT INTO record_search (record_id, message, klass, tags, path, body, document)"
                " VALUES (:record_id, :message, :klass, :tags, :path, :body,"
                " setweight(to_tsvector('simple', :message), 'A')"
                " || setweight(to_tsvector('simple', :klass || ' ' || :tags), 'B')"
                " || setweight(to_tsvector('simple', :path), 'C')"
                " || setweight(to_tsvector('simple', :body), 'D'))"
            ),
            values,
        )


def _match_sql(dialect: str, terms: Sequence[str]) -> tuple[str, str, dict[str, Any]]:
    """(FROM clause, WHERE clause, params) selecting rows that contain every term."""
    if dialect == "sqlite":
        # Each term is made only of letters and digits, quoted anyway; the last is a prefix.
        expr = " AND ".join(f'"{t}"' for t in terms[:-1])
        last = f'"{terms[-1]}"*'
        expr = f"{expr} AND {last}" if expr else last
        return (
            "record_search_fts s",
            "record_search_fts MATCH :match",
            {"match": expr},
        )
    tsquery = " & ".join(list(terms[:-1]) + [f"{terms[-1]}:*"])
    return (
        "record_search s",
        "s.document @@ to_tsquery('simple', :match)",
        {"match": tsquery},
    )


def _score_sql(terms: list[str]) -> tuple[str, dict[str, Any]]:
    """The relevance score as SQL that SQLite and PostgreSQL evaluate identically.

    For each query word and field: the field's weight if the word is one of the field's
    words (the last query word as a prefix), plus a bonus when the whole query appears as a
    phrase in the message. Fields hold lower-case words separated by single spaces, and
    query words are letters and digits only, so plain ``LIKE`` decides it exactly.
    """
    parts: list[str] = []
    params: dict[str, Any] = {}
    for index, term in enumerate(terms):
        is_prefix = index == len(terms) - 1
        key = f"t{index}"
        params[key] = f"% {term}%" if is_prefix else f"% {term} %"
        for column, weight in FIELD_WEIGHTS.items():
            haystack = f"(' ' || s.{column})" if is_prefix else f"(' ' || s.{column} || ' ')"
            parts.append(f"CASE WHEN {haystack} LIKE :{key} THEN {weight} ELSE 0 END")
    if len(terms) > 1:
        params["phrase"] = "% " + " ".join(terms) + "%"
        parts.append(f"CASE WHEN (' ' || s.message) LIKE :phrase THEN {PHRASE_BONUS} ELSE 0 END")
    return " + ".join(parts), params


def search(
    session: DbSession,
    query: str,
    where_sql: str = "",
    params: dict[str, Any] | None = None,
    limit: int = 50,
    offset: int = 0,
) -> SearchResult:
    """Records matching every word of ``query`` (and ``where_sql`` on records ``r``),
    best first, the same order on both backends."""
    terms = query_terms(query)
    if not terms:
        return SearchResult()
    dialect = _dialect(session)
    from_sql, match_sql, match_params = _match_sql(dialect, terms)
    score_sql, score_params = _score_sql(terms)
    bound = {**(params or {}), **match_params, **score_params}
    # Every search row belongs to a record (a foreign key on PostgreSQL; on SQLite, rows are
    # written with their record and records are never deleted), so the join is only needed
    # to filter; without it SQLite counts from the full-text index alone (~100x faster).
    if where_sql:
        join = f"{from_sql} JOIN records r ON r.id = s.record_id"
        base = f"FROM {join} WHERE {match_sql} AND {where_sql}"
    else:
        base = f"FROM {from_sql} WHERE {match_sql}"
    # One pass finds, scores, counts (window) and pages; only a page past the end needs a
    # separate count.
    rows = session.execute(
        text(
            f"SELECT s.record_id, {score_sql} AS score, count(*) OVER () AS total {base} "
            "ORDER BY score DESC, s.record_id LIMIT :limit OFFSET :offset"
        ),
        {**bound, "limit": limit, "offset": offset},
    ).all()
    if rows:
        total = int(rows[0][2])
    else:
        total = int(session.execute(text(f"SELECT count(*) {base}"), bound).scalar_one())
    return SearchResult(hits=[Hit(row[0], float(row[1])) for row in rows], total=total)


def match_subquery(session: DbSession, query: str) -> tuple[str, dict[str, Any]] | None:
    """SQL (``r.id IN (...)``) restricting records to those matching ``query``."""
    terms = query_terms(query)
    if not terms:
        return None
    from_sql, match_sql, params = _match_sql(_dialect(session), terms)
    return f"r.id IN (SELECT s.record_id FROM {from_sql} WHERE {match_sql})", params
