"""``/api/v1/records`` and ``/api/v1/search``."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, jsonify, request, url_for
from flask.typing import ResponseReturnValue
from werkzeug.datastructures import MultiDict

from app.api.blueprint import bp
from app.errors import problem
from app.extensions import db, limiter
from app.records import queries, services
from app.records.models import Record
from app.repro.services import latest_verdicts

MAX_PER_PAGE = 100
MAX_QUERY_LENGTH = 500


class BadParameter(ValueError):
    pass


def record_href(record_id: str) -> str:
    """Stable public URL of a record page (``ERRATA_PUBLIC_URL`` if set)."""
    base = current_app.config.get("ERRATA_PUBLIC_URL", "").rstrip("/")
    if base:
        return f"{base}/records/{record_id}"
    return url_for("records.record_page", record_id=record_id, _external=True)


def record_payload(
    row: Record, compact: bool = False, repro: dict[str, Any] | None = None
) -> dict[str, Any]:
    if compact:
        return {
            "id": row.id,
            "errorClass": row.error_class,
            "errorMessage": row.error_message,
            "severity": row.severity,
            "solutions": [s.text for s in row.solutions],
            "href": record_href(row.id),
        }
    body = services.record_to_dict(row)
    body["datasetVersion"] = row.dataset_version
    body["draft"] = row.is_draft
    body["links"] = {
        "self": url_for("api.get_record", record_id=row.id, _external=True),
        "html": record_href(row.id),
        "github": row.github_url,
    }
    body["repro"] = repro or None
    return body


def flag(args: MultiDict[str, str], name: str) -> bool:
    value = args.get(name, "0").strip().lower()
    if value in {"1", "true", "yes"}:
        return True
    if value in {"0", "false", "no", ""}:
        return False
    raise BadParameter(f"{name} must be 1 or 0.")


def int_arg(args: MultiDict[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = args.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadParameter(f"{name} must be an integer.") from None
    if not low <= value <= high:
        raise BadParameter(f"{name} must be between {low} and {high}.")
    return value


def parse_query(args: MultiDict[str, str]) -> queries.RecordQuery:
    q = args.get("q", "")
    if len(q) > MAX_QUERY_LENGTH:
        raise BadParameter(f"q is longer than {MAX_QUERY_LENGTH} characters.")
    filters = {name: args.getlist(name) for name in queries.FACETS if name in args}
    for values in filters.values():
        if any(len(v) > 500 for v in values):
            raise BadParameter("a filter value is longer than 500 characters.")
    if "\x00" in q or any("\x00" in v for values in filters.values() for v in values):
        raise BadParameter("parameters must not contain NUL characters.")
    return queries.RecordQuery(
        q=q,
        filters=filters,
        include_drafts=not flag(args, "exclude_drafts"),
        page=int_arg(args, "page", 1, 1, 10_000),
        per_page=int_arg(args, "per_page", 20, 1, MAX_PER_PAGE),
    )


@bp.errorhandler(BadParameter)
def _bad_parameter(exc: BadParameter) -> Response:
    return problem(400, "Bad Request", str(exc))


def search_limit() -> str:
    return str(current_app.config["ERRATA_SEARCH_RATE_LIMIT"])


@bp.get("/records")
@limiter.limit(search_limit)
def list_records() -> Response:
    """Records, filtered by facets and an optional full-text ``q``, paged."""
    query = parse_query(request.args)
    compact = flag(request.args, "compact")
    result = queries.find(db.session, query, with_facets=flag(request.args, "facets"))
    verdicts = {} if compact else latest_verdicts(db.session, [r.id for r in result.records])
    body: dict[str, Any] = {
        "items": [record_payload(r, compact, verdicts.get(r.id)) for r in result.records],
        "page": query.page,
        "perPage": query.per_page,
        "total": result.total,
        "next": None,
    }
    if query.page * query.per_page < result.total:
        args: dict[str, Any] = request.args.to_dict(flat=False)
        args["page"] = [str(query.page + 1)]
        body["next"] = url_for("api.list_records", _external=True, **args)
    if result.facets:
        body["facets"] = {
            name: [{"value": v, "count": n} for v, n in values]
            for name, values in result.facets.items()
        }
    return jsonify(body)


@bp.get("/records/<record_id>")
def get_record(record_id: str) -> ResponseReturnValue:
    """One record; answers 304 to a matching ``If-None-Match``."""
    row = services.get_record(db.session, record_id)
    if row is None:
        return problem(404, "Not Found", f"No record with id {record_id!r}.")
    if row.retracted_at is not None:
        return problem(410, "Gone", f"Record {record_id!r} was retracted: {row.retracted_reason}")
    compact = flag(request.args, "compact")
    verdicts = {} if compact else latest_verdicts(db.session, [row.id]).get(row.id, {})
    response = jsonify(record_payload(row, compact, verdicts))
    runs = ".".join(str(v["runId"]) for _, v in sorted(verdicts.items()))
    response.set_etag(f"{row.content_hash[:20]}-{row.version}-{int(compact)}-{runs}")
    response.headers["Cache-Control"] = "public, max-age=60"
    return response.make_conditional(request)


@bp.get("/search")
@limiter.limit(search_limit)
def search_records() -> Response:
    """Full-text search: every word must appear (the last as a prefix), best first."""
    query = parse_query(request.args)
    if not query.q.strip():
        raise BadParameter("q is required.")
    result = queries.find(db.session, query, with_lists=False)
    items = [
        {
            "id": r.id,
            "score": round(result.scores.get(r.id, 0.0), 4),
            "errorClass": r.error_class,
            "errorMessage": r.error_message,
            "severity": r.severity,
            "repo": r.repo,
            "filePath": r.file_path,
            "href": record_href(r.id),
        }
        for r in result.records
    ]
    return jsonify({"query": query.q, "total": result.total, "items": items})
