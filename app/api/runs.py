"""Runs: a record's runs, all runs (jobs), current regressions."""

from __future__ import annotations

from flask import Response, request

from app.api import schemas, serialize
from app.api.paging import Paging, page_body, paged_response
from app.errors import problem
from app.extensions import db
from app.params import choice_arg
from app.records import services as records
from app.repro import queries
from app.repro import services as repro_services
from app.repro.services import latest_verdicts
from repro.vocabulary import PLATFORMS, STATUSES

MAX_PER_PAGE = 200


def record_runs(record_id: str) -> Response:
    """A record's reproducer runs, newest first, and its latest verdicts."""
    paging = Paging.from_args(20, MAX_PER_PAGE, alias="limit")
    if records.get_record(db.session, record_id) is None:
        return problem(404, "Not Found", f"No record with id {record_id!r}.")
    found = queries.find_runs(
        db.session,
        queries.RunQuery(record_id=record_id, page=paging.page, per_page=paging.per_page),
    )
    mismatches = repro_services.expected_mismatches(db.session, found.runs)
    items = [serialize.run_out(r, mismatches.get(r.id)) for r in found.runs]
    body = page_body(paging, found.total, items)
    latest = latest_verdicts(db.session, [record_id]).get(record_id, {})
    sweep = repro_services.sweep_for_record(db.session, record_id)
    model = schemas.RecordRuns(recordId=record_id, latest=latest, sweep=sweep, **body)
    return paged_response(model, paging, found.total)


def list_runs() -> Response:
    """Runs and jobs, newest first; ``status``, ``platform`` and ``record`` filter."""
    paging = Paging.from_args(50, MAX_PER_PAGE, alias="limit")
    query = queries.RunQuery(
        status=choice_arg(request.args, "status", STATUSES),
        platform=choice_arg(request.args, "platform", PLATFORMS),
        record_id=(request.args.get("record") or "")[:64] or None,
        page=paging.page,
        per_page=paging.per_page,
    )
    found = queries.find_runs(db.session, query)
    body = page_body(paging, found.total, [serialize.run_out(r) for r in found.runs])
    return paged_response(schemas.RunList(**body), paging, found.total)


def list_regressions() -> Response:
    """Records whose latest run no longer reproduces, or whose fix no longer fixes."""
    paging = Paging.from_args(50, MAX_PER_PAGE)
    found = queries.regressions(db.session)
    start = (paging.page - 1) * paging.per_page
    items = [serialize.regression_out(r) for r in found[start : start + paging.per_page]]
    body = page_body(paging, len(found), items)
    return paged_response(schemas.RegressionList(**body), paging, len(found))
