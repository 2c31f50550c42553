"""Admin moderation: invalidate a run, retract a record (both kept in history)."""

from __future__ import annotations

from flask import Response, g, jsonify, request

from app.api import schemas, serialize
from app.audit import audit
from app.auth.decorators import require_scope
from app.corpus import catalog as match_index
from app.errors import problem
from app.extensions import db
from app.records.moderation import ModerationError, retract_record
from app.repro.moderation import invalidate_run


def _reason() -> str:
    data = request.get_json(silent=True) if request.is_json else None
    reason = data.get("reason") if isinstance(data, dict) else None
    return reason if isinstance(reason, str) else ""


def _failed(exc: ModerationError) -> Response:
    status = 404 if str(exc).startswith("no ") else 422
    return problem(status, "Not Found" if status == 404 else "Unprocessable Content", str(exc))


@require_scope("admin")
def invalidate(run_id: int) -> Response:
    """Mark a run invalid: kept in the history, left out of the verdicts."""
    try:
        run = invalidate_run(db.session, run_id, _reason())
    except ModerationError as exc:
        return _failed(exc)
    db.session.commit()
    match_index.forget()
    audit("run invalidated", g.api_token, f"run {run_id}", reason=run.invalid_reason)
    return jsonify(serialize.run_out(run).model_dump(mode="json"))


@require_scope("admin")
def retract(record_id: str) -> Response:
    """Retract a record: a tombstone (410) with its history kept."""
    try:
        row = retract_record(db.session, record_id, _reason())
    except ModerationError as exc:
        return _failed(exc)
    db.session.commit()
    match_index.forget()
    audit("record retracted", g.api_token, record_id, reason=row.retracted_reason)
    body = schemas.Retracted(
        id=row.id,
        retracted=True,
        retractedAt=row.retracted_at.isoformat() if row.retracted_at else None,
        reason=row.retracted_reason,
    )
    return jsonify(body.model_dump(mode="json"))
