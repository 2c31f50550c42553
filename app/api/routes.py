"""The API's one route table: Flask rules and the OpenAPI paths are both made from it."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, jsonify, render_template, request

from app.api import health, jobs, match, moderation, records, runs, writes
from app.api.blueprint import bp
from app.api.openapi import Route, json_response, one_of, problem_response
from app.errors import problem
from app.params import BadParameter, reject_unknown
from app.records.queries import CHILD_FACETS, FACET_COLUMNS, MAX_PER_PAGE
from app.records.schemas import SEVERITIES
from repro.vocabulary import PLATFORMS, STATUSES, TRIGGER_OUTCOMES

_NO_NUL = "^[^\\x00]*$"


def param(name: str, description: str, schema: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": name, "in": "query", "description": description, "schema": schema, **extra}


def _enum_list(values: tuple[str, ...]) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string", "enum": list(values)}, "maxItems": 20}


FLAG = {"type": "boolean"}
_FILTER = {
    "type": "array",
    "items": {"type": "string", "maxLength": 500, "pattern": _NO_NUL},
    "maxItems": 20,
}
_CLOSED = {"severity": _enum_list(SEVERITIES), "repro": _enum_list(TRIGGER_OUTCOMES)}
PAGE = (
    param("page", "Page number, from 1", {"type": "integer", "minimum": 1, "maximum": 10000}),
    param("per_page", "Items per page", {"type": "integer", "minimum": 1, "maximum": 200}),
)
RECORD_PAGE = (
    PAGE[0],
    param("per_page", "Items per page", {"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE}),
)
RUN_PAGE = (
    *PAGE,
    param("limit", "Older name of per_page", {"type": "integer", "minimum": 1, "maximum": 200}),
)
FILTERS = tuple(
    param(name, f"Filter on {name} (repeatable)", _CLOSED.get(name, _FILTER), explode=True)
    for name in (*FACET_COLUMNS, *CHILD_FACETS)
)
LIST_PARAMS = (
    param(
        "q",
        "Full-text query: every word must appear, the last as a prefix",
        {"type": "string", "maxLength": 500, "pattern": _NO_NUL},
    ),
    *FILTERS,
    param("exclude_drafts", "Leave out draft records", FLAG),
    *RECORD_PAGE,
)
SEARCH_Q = param(
    "q",
    "Full-text query (required, not blank): every word must appear, the last as a prefix",
    {
        "type": "string",
        "minLength": 1,
        "maxLength": 500,
        "pattern": "^[^\\x00]*[^\\s\\x00][^\\x00]*$",
    },
    required=True,
)
COMPACT = param("compact", "The compact form", FLAG)


def openapi_json() -> Response:
    return jsonify(current_app.extensions["errata.openapi"])


def api_docs() -> str:
    return render_template("api_docs.html", spec=current_app.extensions["errata.openapi"])


J, P = json_response, problem_response

ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/records",
        records.list_records,
        "List and filter records",
        "records",
        query=(*LIST_PARAMS, COMPACT, param("facets", "Include facet counts", FLAG)),
        responses={"200": J("RecordPage", "A page")},
        rate_limited=True,
    ),
    Route(
        "POST",
        "/records",
        writes.create_record,
        "Create a record (scope: write); validated as the importer does",
        "records",
        body="RecordWrite",
        scope="write",
        responses={
            "201": J("RecordWritten", "Created"),
            "409": P("Exists"),
            "415": P("Not JSON"),
            "422": P("Not valid for the dataset schema"),
        },
    ),
    Route(
        "GET",
        "/records/<record_id>",
        records.get_record,
        "One record (ETag; 304 on If-None-Match)",
        "records",
        query=(COMPACT,),
        etag=True,
        responses={
            "200": one_of(("RecordOut", "RecordCompact"), "The record"),
            "301": {
                "description": "Renamed by a corpus load (an older release pinned, or a "
                "curated record took the site): Location is the same raise site's new id"
            },
            "304": {"description": "Not modified (If-None-Match)"},
            "404": P("No such record"),
            "410": P("Retracted (a tombstone; its history is kept)"),
        },
    ),
    Route(
        "PUT",
        "/records/<record_id>",
        writes.put_record,
        "Create or update a record (scope: write); history is kept",
        "records",
        body="RecordWrite",
        scope="write",
        responses={
            "200": J("RecordWritten", "Updated or unchanged"),
            "201": J("RecordWritten", "Created"),
            "415": P("Not JSON"),
            "422": P("Not valid for the dataset schema"),
        },
    ),
    Route(
        "GET",
        "/search",
        records.search_records,
        "Full-text search, best first",
        "records",
        query=(SEARCH_Q, *LIST_PARAMS[1:]),
        responses={"200": J("SearchResponse", "Hits")},
        rate_limited=True,
    ),
    Route(
        "POST",
        "/match",
        match.match,
        "Match a pasted error or traceback to records, with the why",
        "match",
        query=(param("compact", "Leave out the explanation and what was parsed", FLAG),),
        body="MatchRequest",
        rate_limited=True,
        responses={
            "200": J("MatchResponse", "Matches, best first"),
            "413": P("Body or text too large"),
            "415": P("Not JSON"),
            "422": P("Body does not follow MatchRequest (errors: each field)"),
        },
    ),
    Route(
        "GET",
        "/records/<record_id>/runs",
        runs.record_runs,
        "A record's reproducer runs, newest first, and its latest verdicts",
        "runs",
        query=RUN_PAGE,
        responses={"200": J("RecordRuns", "Runs"), "404": P("No such record")},
    ),
    Route(
        "POST",
        "/records/<record_id>/runs",
        jobs.trigger_run,
        "Queue a reproducer run (scope: write)",
        "runs",
        body="RunRequest",
        scope="write",
        responses={
            "202": J("RunOut", "Queued"),
            "404": P("No such record"),
            "422": P("No harness"),
            "503": P("The broker did not take the job (runId, jobId)"),
        },
    ),
    Route(
        "GET",
        "/runs",
        runs.list_runs,
        "All runs (jobs), newest first",
        "runs",
        query=(
            *RUN_PAGE,
            param("status", "Filter by status", {"type": "string", "enum": list(STATUSES)}),
            param("platform", "Filter by platform", {"type": "string", "enum": list(PLATFORMS)}),
            param("record", "Filter by record id", {"type": "string", "pattern": _NO_NUL}),
        ),
        responses={"200": J("RunList", "Runs")},
    ),
    Route(
        "GET",
        "/regressions",
        runs.list_regressions,
        "Records that stopped reproducing, or whose fix stopped fixing",
        "runs",
        query=PAGE,
        responses={"200": J("RegressionList", "Regressions")},
    ),
    Route(
        "POST",
        "/jobs/<job_id>/start",
        jobs.start_job,
        "A worker took a job (scope: worker)",
        "jobs",
        body="JobStart",
        scope="worker",
        responses={
            "200": J("JobState", "State"),
            "404": P("No such job"),
            "422": P("Not a valid JobStart (the job's secret is required)"),
        },
    ),
    Route(
        "POST",
        "/jobs/<job_id>/result",
        jobs.finish_job,
        "A worker's report; stored once per job (scope: worker)",
        "jobs",
        body="JobResult",
        scope="worker",
        responses={
            "200": J("JobState", "Stored or ignored"),
            "404": P("No such job"),
            "422": P("Not a valid JobResult (errors: each field)"),
        },
    ),
    Route(
        "POST",
        "/runs/<int:run_id>/invalidate",
        moderation.invalidate,
        "Invalidate a run: kept in the history, left out of the verdicts (scope: admin)",
        "runs",
        body="ModerationRequest",
        scope="admin",
        responses={
            "200": J("RunOut", "The run, marked invalid"),
            "404": P("No such run"),
            "422": P("No reason, or the run cannot be invalidated"),
        },
    ),
    Route(
        "POST",
        "/records/<record_id>/retract",
        moderation.retract,
        "Retract a record: a tombstone, its history kept (scope: admin)",
        "records",
        body="ModerationRequest",
        scope="admin",
        responses={
            "200": J("Retracted", "Retracted"),
            "404": P("No such record"),
            "422": P("No reason, or already retracted"),
        },
    ),
    Route(
        "GET",
        "/health",
        health.health,
        "Liveness",
        "meta",
        responses={"200": J("Status", "Alive")},
    ),
    Route(
        "GET",
        "/ready",
        health.ready,
        "Readiness: the database answers",
        "meta",
        responses={"200": J("Status", "Ready")},
    ),
    Route(
        "GET",
        "/openapi.json",
        openapi_json,
        "This document",
        "meta",
        responses={
            "200": {
                "description": "The OpenAPI 3.1 document",
                "content": {"application/json": {"schema": {"type": "object"}}},
            }
        },
    ),
    Route(
        "GET",
        "/docs",
        api_docs,
        "The API reference page",
        "meta",
        responses={
            "200": {"description": "HTML", "content": {"text/html": {"schema": {"type": "string"}}}}
        },
    ),
)

QUERY_NAMES = {route.endpoint: route.query_names for route in ROUTES}

for _route in ROUTES:
    bp.add_url_rule(
        _route.rule, endpoint=_route.endpoint, view_func=_route.view, methods=[_route.method]
    )


@bp.before_request
def _known_parameters() -> None:
    """A parameter the operation does not declare is a 400, not silently ignored."""
    if request.method != "OPTIONS" and request.endpoint:
        reject_unknown(request.args, QUERY_NAMES.get(request.endpoint.partition(".")[2], ()))


@bp.errorhandler(BadParameter)
def _bad_parameter(exc: BadParameter) -> Response:
    return problem(400, "Bad Request", str(exc))
