"""Record writes for curators: ``POST /api/v1/records`` and ``PUT /api/v1/records/<id>``.

The body is one dataset line (``{"record": {...}, "datasetVersion": "..."}``), validated by
the importer's own code; an update keeps the previous version in the history.
"""

from __future__ import annotations

from flask import Response, g, request, url_for
from flask.typing import ResponseReturnValue

from app.api import serialize
from app.api.schemas import RecordWritten
from app.audit import audit
from app.auth.decorators import require_scope
from app.corpus import catalog as match_index
from app.errors import problem
from app.extensions import db
from app.records import services
from app.records.moderation import stamp_version


def _parse_body() -> services.ParsedLine | Response:
    if not request.is_json:
        return problem(415, "Unsupported Media Type", "Send the record as application/json.")
    raw = request.get_data(cache=False)
    parsed = services.parse_line("request", 1, raw)
    if isinstance(parsed, list):
        return problem(
            422,
            "Unprocessable Content",
            "The record does not follow the dataset schema.",
            errors=[{"field": e.field, "reason": e.reason} for e in parsed],
        )
    return parsed


def _stored(record_id: str, status: int, outcome: str) -> ResponseReturnValue:
    row = services.get_record(db.session, record_id)
    assert row is not None
    out = serialize.record_out(row, None)
    body = RecordWritten.model_construct(**dict(out), result=outcome)
    location = url_for("api.get_record", record_id=record_id)
    return body.model_dump(mode="json", exclude_unset=True), status, {"Location": location}


@require_scope("write")
def create_record() -> ResponseReturnValue:
    parsed = _parse_body()
    if isinstance(parsed, Response):
        return parsed
    record_id = parsed.envelope.record.id
    if services.get_record(db.session, record_id) is not None:
        return problem(409, "Conflict", f"Record {record_id!r} exists; PUT to update it.")
    services.upsert(db.session, [parsed])
    stamp_version(db.session, record_id, g.api_token)
    db.session.commit()
    match_index.forget()
    audit("record created", g.api_token, record_id)
    return _stored(record_id, 201, "created")


@require_scope("write")
def put_record(record_id: str) -> ResponseReturnValue:
    parsed = _parse_body()
    if isinstance(parsed, Response):
        return parsed
    if parsed.envelope.record.id != record_id:
        return problem(
            422,
            "Unprocessable Content",
            "record.id must equal the id in the URL.",
            errors=[{"field": "record.id", "reason": f"expected {record_id!r}"}],
        )
    stats = services.upsert(db.session, [parsed])
    if stats.written:
        stamp_version(db.session, record_id, g.api_token)
    db.session.commit()
    if stats.written:
        match_index.forget()
    outcome = "created" if stats.created else "updated" if stats.updated else "unchanged"
    audit(f"record {outcome}", g.api_token, record_id)
    return _stored(record_id, 201 if stats.created else 200, outcome)
