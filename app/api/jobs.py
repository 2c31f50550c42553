"""Job endpoints: workers report progress and results; curators queue runs."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, jsonify, request

from app.api import schemas, serialize
from app.auth.decorators import require_scope
from app.corpus import catalog as match_index
from app.errors import problem
from app.extensions import db
from app.jobs import services as jobs
from app.params import BadParameter
from app.repro import services as repro
from repro.vocabulary import DEFAULT_PLATFORM, PLATFORMS, RUN_OUTCOMES


def _json_body() -> dict[str, Any]:
    data = request.get_json(silent=True) if request.is_json else None
    if not isinstance(data, dict):
        raise BadParameter("send a JSON object")
    return data


def _has_nul(value: Any, depth: int = 0) -> bool:
    """NUL anywhere in a JSON value (PostgreSQL text cannot store it)."""
    if isinstance(value, str):
        return "\x00" in value
    if depth > 64:
        return False
    if isinstance(value, dict):
        return any(_has_nul(k, depth + 1) or _has_nul(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_nul(v, depth + 1) for v in value)
    return False


def _worker_name(data: dict[str, Any]) -> str:
    worker = data.get("worker")
    if not isinstance(worker, str) or not 0 < len(worker) <= 200 or "\x00" in worker:
        raise BadParameter("worker must be a string of 1 to 200 characters, without NUL")
    return worker


def _state(**fields: Any) -> Response:
    return jsonify(schemas.JobState(**fields).model_dump(mode="json", exclude_unset=True))


@require_scope("worker")
def start_job(job_id: str) -> Response:
    worker = _worker_name(_json_body())
    run = jobs.start_job(db.session, job_id, worker)
    if run is None:
        return problem(404, "Not Found", f"No job {job_id!r}.")
    db.session.commit()
    return _state(
        jobId=job_id, status=run.status, finished=run.status in jobs.FINISHED, attempts=run.attempts
    )


@require_scope("worker")
def finish_job(job_id: str) -> Response:
    data = _json_body()
    worker = _worker_name(data)
    report = data.get("report")
    if not isinstance(report, dict) or report.get("outcome") not in RUN_OUTCOMES:
        raise BadParameter(f"report must be a runner report with outcome in {list(RUN_OUTCOMES)}")
    if report.get("result") is not None and not isinstance(report["result"], dict):
        raise BadParameter("report.result must be an object")
    if _has_nul(report):
        raise BadParameter("report must not contain NUL characters")
    run, stored = jobs.finish_job(db.session, job_id, worker, report)
    if run is None:
        return problem(404, "Not Found", f"No job {job_id!r}.")
    db.session.commit()
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
    if not sent:
        return problem(
            503,
            "Service Unavailable",
            run.message or "the broker is down",
            runId=run.id,
            jobId=run.job_id,
        )
    return jsonify(serialize.run_out(run).model_dump(mode="json")), 202
