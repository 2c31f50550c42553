"""``/api/v1/records`` and ``/api/v1/search``."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, jsonify, redirect, request
from flask.typing import ResponseReturnValue

from app.answers import services as answers
from app.api import schemas, serialize
from app.api.paging import Paging, page_body, paged_response
from app.corpus.answers import site_fields
from app.errors import problem
from app.extensions import db, limiter
from app.links import record_page_url
from app.params import BadParameter, flag
from app.records import queries


def search_limit() -> str:
    return str(current_app.config["ERRATA_SEARCH_RATE_LIMIT"])


@limiter.limit(search_limit)
def list_records() -> Response:
    """Records, filtered by facets and an optional full-text ``q``, paged."""
    query = queries.parse_query(request.args)
    compact = flag(request.args, "compact")
    found = answers.find_records(
        db.session, query, with_facets=flag(request.args, "facets"), with_verdicts=not compact
    )
    items: list[schemas.RecordOut] | list[schemas.RecordCompact] = (
        [serialize.record_compact(r, _site(r.id)) for r in found.records]
        if compact
        else [
            serialize.record_out(r, found.verdicts.get(r.id), answers.site_view(db.session, r.id))
            for r in found.records
        ]
    )
    paging = Paging(query.page, query.per_page)
    body = page_body(paging, found.total, items)
    if found.result.facets:
        body["facets"] = {
            name: [schemas.FacetValue(value=v, count=n) for v, n in values]
            for name, values in found.result.facets.items()
        }
    return paged_response(schemas.RecordPage(**body), paging, found.total)


def get_record(record_id: str) -> ResponseReturnValue:
    """One record; answers 304 to a matching ``If-None-Match``."""
    compact = flag(request.args, "compact")
    detail = answers.get_record(db.session, record_id, with_verdicts=not compact)
    if detail is None:
        moved = answers.renamed(db.session, record_id)
        if moved is not None:
            # Its raise site was renamed by a corpus load: the same site under its new id.
            return redirect(_with_query(request.path.removesuffix(record_id) + moved), 301)
        return problem(404, "Not Found", f"No record with id {record_id!r}.")
    if detail.record.retracted_at is not None:
        reason = detail.record.retracted_reason
        return problem(410, "Gone", f"Record {record_id!r} was retracted: {reason}")
    model = (
        serialize.record_compact(detail.record, _site(detail.record.id))
        if compact
        else serialize.record_out(
            detail.record, detail.verdicts, answers.site_view(db.session, detail.record.id)
        )
    )
    response = jsonify(model.model_dump(mode="json", exclude_unset=True))
    response.set_etag(f"{detail.etag}-{int(compact)}")
    response.headers["Cache-Control"] = "public, max-age=60"
    return response.make_conditional(request)


@limiter.limit(search_limit)
def search_records() -> Response:
    """Full-text search: every word must appear (the last as a prefix), best first."""
    query = queries.parse_query(request.args)
    if not query.q.strip():
        raise BadParameter("q is required.")
    found = answers.find_records(db.session, query, with_verdicts=False, with_lists=False)
    catalog = answers.catalog(db.session, str(db.engine.url))
    items = [
        schemas.SearchHit(
            id=r.id,
            score=round(found.result.scores.get(r.id, 0.0), 4),
            errorClass=r.error_class,
            errorMessage=r.error_message,
            severity=r.severity,  # type: ignore[arg-type]
            repo=r.repo,
            filePath=r.file_path,
            href=record_page_url(r.id),
            **{k: v for k, v in site_fields(catalog, r.id).items() if k != "repo"},
        )
        for r in found.records
    ]
    paging = Paging(query.page, query.per_page)
    body = page_body(paging, found.total, items)
    return paged_response(schemas.SearchResponse(query=query.q, **body), paging, found.total)


def _site(record_id: str) -> dict[str, Any]:
    """The raise site's facts for a compact record (curated, repo, releases, at)."""
    return site_fields(answers.catalog(db.session, str(db.engine.url)), record_id)


def _with_query(path: str) -> str:
    query = request.query_string.decode("ascii", "replace")
    return f"{path}?{query}" if query else path
