"""Job endpoints: workers report progress and results; curators queue runs."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, g, jsonify, request
from sqlalchemy import select

from app.api import schemas, serialize
from app.audit import audit
from app.auth.decorators import require_scope
from app.corpus import catalog as match_index
from app.errors import problem
from app.extensions import db
from app.jobs import services as jobs
from app.params import BadParameter
from app.repro import reports
from app.repro import services as repro
from app.repro.models import ReproRun
from repro.vocabulary import DEFAULT_PLATFORM, PLATFORMS


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


def _state(**fields: Any) -> Response:
    return jsonify(schemas.JobState(**fields).model_dump(mode="json", exclude_unset=True))


@require_scope("worker")
def start_job(job_id: str) -> Response:
    """A worker took a job: only with the job's own secret, under the worker's token."""
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
    return _state(
        jobId=job_id, status=run.status, finished=run.status in jobs.FINISHED, attempts=run.attempts
    )


@require_scope("worker")
def finish_job(job_id: str) -> Response:
    """A worker's report: validated, authorized by the job's secret, stored once."""
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
    return _state(
        jobId=job_id, stored=stored, status=run.status, triggerOutcome=run.trigger_outcome
    )


@require_scope("write")
def trigger_run(record_id: str) -> Response | tuple[Response, int]:
    """Queue a reproducer run of one record on one platform."""
    data = _json_body()
    platform = data.get("platform", DEFAULT_PLATFORM)
    if platform not in PLATFORMS:
        raise BadParameter(f"platform must be one of {', '.join(PLATFORMS)}")
    try:
        run, sent = jobs.enqueue(
            db.session, record_id, platform, current_app.config["ERRATA_BROKER_URL"], origin="api"
        )
    except repro.ReproError as exc:
        return problem(404 if "no record" in str(exc) else 422, "Cannot run", str(exc))
    audit("run queued", g.api_token, record_id, run=run.id, platform=platform)
    if not sent:
        return problem(
            503,
            "Service Unavailable",
            run.message or "the broker is down",
            runId=run.id,
            jobId=run.job_id,
        )
    return jsonify(serialize.run_out(run).model_dump(mode="json")), 202
