"""Admin moderation: invalidate a run, retract a record (both kept in history)."""

from __future__ import annotations

from flask import Response, g, jsonify, request

from app.api.blueprint import bp
from app.api.runs import run_payload
from app.auth.audit import audit
from app.auth.decorators import require_scope
from app.errors import problem
from app.extensions import db
from app.records import match_index
from app.records.moderation import ModerationError, retract_record
from app.repro.moderation import invalidate_run


def _reason() -> str:
    data = request.get_json(silent=True) if request.is_json else None
    reason = data.get("reason") if isinstance(data, dict) else None
    return reason if isinstance(reason, str) else ""


def _failed(exc: ModerationError) -> Response:
    status = 404 if str(exc).startswith("no ") else 422
    return problem(status, "Not Found" if status == 404 else "Unprocessable Content", str(exc))


@bp.post("/runs/<int:run_id>/invalidate")
@require_scope("admin")
def invalidate(run_id: int) -> Response:
    try:
        run = invalidate_run(db.session, run_id, _reason())
    except ModerationError as exc:
        return _failed(exc)
    db.session.commit()
    match_index.forget()
    audit("run invalidated", g.api_token, f"run {run_id}", reason=run.invalid_reason)
    return jsonify(run_payload(run))


@bp.post("/records/<record_id>/retract")
@require_scope("admin")
def retract(record_id: str) -> Response:
    try:
        row = retract_record(db.session, record_id, _reason())
    except ModerationError as exc:
        return _failed(exc)
    db.session.commit()
    match_index.forget()
    audit("record retracted", g.api_token, record_id, reason=row.retracted_reason)
    return jsonify(
        {
            "id": row.id,
            "retracted": True,
            "retractedAt": row.retracted_at.isoformat() if row.retracted_at else None,
            "reason": row.retracted_reason,
        }
    )
