"""``/api/v1/records/<id>/runs``: a record's reproducer runs."""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify, request

from app.api.blueprint import bp
from app.api.records import int_arg
from app.auth.decorators import is_admin_request
from app.errors import problem
from app.extensions import db
from app.records import services as record_services
from app.repro import services
from app.repro.disclosure import public_run
from app.repro.models import ReproRun


def run_payload(run: ReproRun) -> dict[str, Any]:
    """A run as the API shows it: everything to admins, no server details to others."""
    payload = _run_payload(run)
    return payload if is_admin_request() else public_run(payload)


def _run_payload(run: ReproRun) -> dict[str, Any]:
    return {
        "id": run.id,
        "jobId": run.job_id,
        "recordId": run.record_id,
        "harness": run.harness,
        "env": run.env,
        "platform": run.platform,
        "simulated": run.simulated,
        "origin": run.origin,
        "status": run.status,
        "runOutcome": run.run_outcome,
        "trigger": run.trigger,
        "triggerOutcome": run.trigger_outcome,
        "fixes": run.fixes,
        "drift": run.drift,
        "platformInfo": run.platform_info,
        "upstream": services.upstream_label(run),
        "regressions": run.regressions,
        "message": run.message,
        "worker": run.worker,
        "attempts": run.attempts,
        "durationS": run.duration_s,
        "queuedAt": run.queued_at.isoformat() if run.queued_at else None,
        "startedAt": run.started_at.isoformat() if run.started_at else None,
        "finishedAt": run.finished_at.isoformat() if run.finished_at else None,
        "invalid": run.invalidated_at is not None,
        "invalidReason": run.invalid_reason,
    }


@bp.get("/records/<record_id>/runs")
def record_runs(record_id: str) -> Response:
    """A record's reproducer runs, newest first."""
    if record_services.get_record(db.session, record_id) is None:
        return problem(404, "Not Found", f"No record with id {record_id!r}.")
    limit = int_arg(request.args, "limit", 20, 1, 200)
    offset = int_arg(request.args, "offset", 0, 0, 1_000_000)
    runs = services.runs_for(db.session, record_id, limit, offset)
    latest = services.latest_verdicts(db.session, [record_id]).get(record_id, {})
    return jsonify(
        {
            "recordId": record_id,
            "latest": latest,
            "items": [run_payload(r) for r in runs],
            "limit": limit,
            "offset": offset,
        }
    )
