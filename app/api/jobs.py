"""Job endpoints: workers report progress and results; anyone reads runs and regressions."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, g, jsonify, request
from sqlalchemy import select

from app.api.blueprint import bp
from app.api.records import BadParameter, int_arg
from app.api.runs import run_payload
from app.auth.audit import audit
from app.auth.decorators import require_scope
from app.errors import problem
from app.extensions import db
from app.jobs import services as jobs
from app.records import match_index
from app.repro import reports
from app.repro import services as repro
from app.repro.models import STATUSES, ReproLatest, ReproRun

PLATFORMS = ("blackwell", "hopper", "cpu", "real")


def _json_body() -> dict[str, Any]:
    data = request.get_json(silent=True) if request.is_json else None
    if not isinstance(data, dict):
        raise BadParameter("send a JSON object")
    return data


def _job_problem(exc: reports.ReportError | reports.Forbidden) -> Response:
    if isinstance(exc, reports.Forbidden):
        return problem(403, "Forbidden", str(exc))
    errors = [{"field": f, "reason": r} for f, r in exc.errors]
    return problem(
        422, "Unprocessable Content", "The body is not a valid job report.", errors=errors
    )


def _job_run(job_id: str) -> ReproRun | None:
    return db.session.scalar(select(ReproRun).where(ReproRun.job_id == job_id[:64]))


@bp.post("/jobs/<job_id>/start")
@require_scope("worker")
def start_job(job_id: str) -> Response:
    token = g.api_token
    run = _job_run(job_id)
    if run is None:
        return problem(404, "Not Found", f"No job {job_id!r}.")
    try:
        body = reports.parse_start(_json_body())
        reports.authorize(run, token, body.secret)
    except (reports.ReportError, reports.Forbidden) as exc:
        return _job_problem(exc)
    run = jobs.start_job(db.session, job_id, reports.worker_label(token))
    assert run is not None
    if run.status not in jobs.FINISHED:
        run.worker_token_id = token.id
    db.session.commit()
    audit("job started", token, job_id, attempts=run.attempts)
    return jsonify(
        {
            "jobId": job_id,
            "status": run.status,
            "finished": run.status in jobs.FINISHED,
            "attempts": run.attempts,
        }
    )


@bp.post("/jobs/<job_id>/result")
@require_scope("worker")
def finish_job(job_id: str) -> Response:
    token = g.api_token
    run = _job_run(job_id)
    if run is None:
        return problem(404, "Not Found", f"No job {job_id!r}.")
    try:
        body = reports.parse_result(_json_body())
        reports.authorize(run, token, body.secret)
        reports.check_claims(run, token, body.report)
    except (reports.ReportError, reports.Forbidden) as exc:
        return _job_problem(exc)
    run, stored = jobs.finish_job(
        db.session, job_id, reports.worker_label(token), reports.report_dict(body.report)
    )
    if run is None:
        return problem(404, "Not Found", f"No job {job_id!r}.")
    run.worker_token_id = token.id
    db.session.commit()
    audit("job reported", token, job_id, stored=stored, outcome=body.report.outcome)
    if stored:
        match_index.forget()  # this process shows the new verdict at once; others within 2 s
    return jsonify(
        {
            "jobId": job_id,
            "stored": stored,
            "status": run.status,
            "triggerOutcome": run.trigger_outcome,
        }
    )


@bp.post("/records/<record_id>/runs")
@require_scope("write")
def trigger_run(record_id: str) -> Response | tuple[Response, int]:
    """Queue a reproducer run of one record on one platform."""
    data = _json_body()
    platform = data.get("platform", "blackwell")
    if platform not in PLATFORMS:
        raise BadParameter(f"platform must be one of {', '.join(PLATFORMS)}")
    try:
        run = jobs.enqueue(db.session, record_id, platform, origin="api")
    except repro.ReproError as exc:
        return problem(404 if "no record" in str(exc) else 422, "Cannot run", str(exc))
    db.session.commit()
    audit("run queued", g.api_token, record_id, run=run.id, platform=platform)
    sent = jobs.dispatch(db.session, run, current_app.config["ERRATA_BROKER_URL"])
    db.session.commit()
    if not sent:
        return problem(
            503,
            "Service Unavailable",
            run.message or "the broker is down",
            runId=run.id,
            jobId=run.job_id,
        )
    return jsonify(run_payload(run)), 202


@bp.get("/runs")
def list_runs() -> Response:
    """Runs and jobs, newest first; ``status``, ``platform`` and ``record`` filter."""
    limit = int_arg(request.args, "limit", 50, 1, 500)
    offset = int_arg(request.args, "offset", 0, 0, 10_000_000)
    stmt = select(ReproRun).order_by(ReproRun.id.desc()).limit(limit).offset(offset)
    status = request.args.get("status")
    if status:
        if status not in STATUSES:
            raise BadParameter(f"status must be one of {', '.join(STATUSES)}")
        stmt = stmt.where(ReproRun.status == status)
    platform = request.args.get("platform")
    if platform:
        stmt = stmt.where(ReproRun.platform == platform[:32])
    record_id = request.args.get("record")
    if record_id:
        stmt = stmt.where(ReproRun.record_id == record_id[:64])
    runs = db.session.scalars(stmt).all()
    return jsonify({"items": [run_payload(r) for r in runs], "limit": limit, "offset": offset})


@bp.get("/regressions")
def list_regressions() -> Response:
    """Records whose latest run no longer reproduces, or whose fix no longer fixes."""
    rows = db.session.execute(
        select(ReproLatest, ReproRun)
        .join(ReproRun, ReproRun.id == ReproLatest.run_id)
        .where(ReproLatest.regressed.is_(True))
        .order_by(ReproRun.finished_at.desc())
    ).all()
    items = [
        {
            "recordId": latest.record_id,
            "platform": latest.platform,
            "regressions": run.regressions,
            "run": run_payload(run),
        }
        for latest, run in rows
    ]
    return jsonify({"items": items, "total": len(items)})
