"""Service dataclasses -> the API's pydantic response models (the OpenAPI document's)."""

from __future__ import annotations

from typing import Any

from app.answers.services import MatchAnswer, Verdicts
from app.api import schemas
from app.auth.decorators import is_admin_request
from app.links import link, record_page_url
from app.records import services as records
from app.records.models import Record
from app.repro.disclosure import public_run
from app.repro.models import ReproRun
from app.repro.queries import Regression
from app.repro.reports import safe_fixes
from app.repro.services import upstream_label


def record_out(
    row: Record, verdicts: Verdicts | None, site: dict[str, Any] | None = None
) -> schemas.RecordOut:
    """The full record; built without re-validating what the importer validated."""
    return schemas.RecordOut.model_construct(
        **records.record_to_dict(row),
        datasetVersion=row.dataset_version,
        draft=row.is_draft,
        href=record_page_url(row.id),
        links=schemas.Links(
            self=link("api.get_record", external=True, record_id=row.id),
            github=row.github_url,
        ),
        repro=verdicts or None,
        site=site,
    )


def record_compact(row: Record, site: dict[str, Any] | None = None) -> schemas.RecordCompact:
    return schemas.RecordCompact(
        **(site or {}),
        id=row.id,
        errorClass=row.error_class,
        errorMessage=row.error_message,
        severity=row.severity,  # type: ignore[arg-type]
        solutions=[s.text for s in row.solutions],
        href=record_page_url(row.id),
    )


def match_response(answer: MatchAnswer, compact: bool) -> dict[str, Any]:
    """The JSON body of a match answer, as ``schemas.MatchResponse`` describes it. Built as
    plain data, not through the model: re-validating what the service built cost more than
    the rest of the serialisation (tests validate every real paste's answer against it)."""
    items = []
    for m in answer.matches:
        item: dict[str, Any] = {
            "id": m.record_id,
            "kind": m.kind,
            "score": m.score,
            "count": m.count,
            "sameSite": list(m.same_site[:20]),
            "errorMessage": m.error_message,
            "errorClass": m.error_class,
            "solutions": m.solutions,
            "href": record_page_url(m.record_id),
            "repro": m.repro,
            "sweep": m.sweep,
            **m.site,
        }
        if not compact:
            item["why"] = m.why.to_dict()
        items.append(item)
    body: dict[str, Any] = {
        "matches": items,
        "fallback": answer.fallback,
        "notes": answer.notes,
        "answer": answer.answer or None,
    }
    if answer.incomplete:
        body["incomplete"] = "the verification budget ran out; some patterns were not tried"
    if answer.evidence is not None:
        body["evidence"] = answer.evidence
    if not compact:
        body["parsed"] = answer.parsed.to_dict()
    return body


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def run_out(run: ReproRun, expected_mismatch: Any = None) -> schemas.RunOut:
    """A run as the API shows it: everything to admins, no server details to others."""
    payload = {
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
        "fixes": safe_fixes(run.fixes),
        "drift": run.drift,
        "platformInfo": run.platform_info,
        "upstream": upstream_label(run),
        "regressions": run.regressions,
        "message": run.message,
        "logTail": run.log_tail,
        "expectedMismatch": expected_mismatch,
        "worker": run.worker,
        "attempts": run.attempts,
        "durationS": run.duration_s,
        "queuedAt": _iso(run.queued_at),
        "startedAt": _iso(run.started_at),
        "finishedAt": _iso(run.finished_at),
        "invalid": run.invalidated_at is not None,
        "invalidReason": run.invalid_reason,
    }
    if not is_admin_request():
        payload = public_run(payload)
    return schemas.RunOut.model_validate(payload)


def regression_out(regression: Regression) -> schemas.Regression:
    return schemas.Regression(
        recordId=regression.record_id,
        platform=regression.platform,  # type: ignore[arg-type]
        regressions=regression.regressions,
        run=run_out(regression.run),
    )
