"""The OpenAPI 3.1 document (built from the pydantic schemas) and its docs page."""

from __future__ import annotations

from functools import cache
from typing import Any

from flask import Response, jsonify, render_template
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from app.api import schemas
from app.api.blueprint import bp

API_VERSION = "1.0.0"
_MODELS: tuple[type[BaseModel], ...] = (
    schemas.RecordOut,
    schemas.RecordCompact,
    schemas.RecordPage,
    schemas.SearchResponse,
    schemas.MatchRequest,
    schemas.MatchResponse,
    schemas.Problem,
    schemas.RecordWrite,
    schemas.RecordWritten,
    schemas.RunList,
    schemas.RecordRuns,
    schemas.RegressionList,
    schemas.RunRequest,
    schemas.RunOut,
    schemas.JobStart,
    schemas.JobResult,
    schemas.JobState,
    schemas.ModerationRequest,
    schemas.Retracted,
)


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(name: str, description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ref(name)}}}


def _problem(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/problem+json": {"schema": _ref("Problem")}},
    }


def _param(name: str, description: str, schema: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": name, "in": "query", "description": description, "schema": schema, **extra}


_FLAG = {"type": "string", "enum": ["0", "1", "true", "false"]}
# A NUL anywhere in the URL is answered 400 (app.security.reject_nul).
_NO_NUL = "^[^\\x00]*$"
_FILTER = {
    "type": "array",
    "items": {"type": "string", "maxLength": 500, "pattern": _NO_NUL},
    "maxItems": 20,
}
_LIST_PARAMS = [
    _param(
        "q",
        "Full-text query: every word must appear, the last as a prefix",
        {"type": "string", "maxLength": 500, "pattern": _NO_NUL},
    ),
    *(
        _param(name, f"Filter on {name} (repeatable)", _FILTER, style="form", explode=True)
        for name in ("repo", "errorType", "errorClass", "severity", "tag", "repro")
    ),
    _param("exclude_drafts", "Leave out draft records", _FLAG),
    _param("page", "Page number, from 1", {"type": "integer", "minimum": 1, "maximum": 10000}),
    _param("per_page", "Items per page", {"type": "integer", "minimum": 1, "maximum": 100}),
    _param("compact", "Return the compact form of each record", _FLAG),
    _param("facets", "Include facet counts", _FLAG),
]

_SEARCH_Q = _param(
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

_BEARER: list[dict[str, list[str]]] = [{"bearerAuth": []}]
_RECORD_ID = {
    "name": "record_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "maxLength": 64, "pattern": _NO_NUL},
}
_JOB_ID = {
    "name": "job_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "maxLength": 64, "pattern": _NO_NUL},
}
_PAGE = [
    _param("limit", "Items per page", {"type": "integer", "minimum": 1, "maximum": 200}),
    _param("offset", "Items to skip", {"type": "integer", "minimum": 0, "maximum": 1_000_000}),
]


def _authed(responses: dict[str, Any]) -> dict[str, Any]:
    return {
        **responses,
        "401": _problem("No bearer token"),
        "403": _problem("Token unknown, revoked or without the scope"),
    }


def _body(name: str) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": _ref(name)}}}


def _write_paths() -> dict[str, Any]:
    """Endpoints that need a token (write: curators; worker: GPU/CPU workers)."""
    return {
        "/api/v1/records/{record_id}/runs": {
            "get": {
                "operationId": "listRecordRuns",
                "summary": "A record's reproducer runs, newest first, and its latest verdicts",
                "parameters": [_RECORD_ID, *_PAGE],
                "responses": {
                    "200": _json("RecordRuns", "Runs"),
                    "400": _problem("Bad"),
                    "404": _problem("No such record"),
                },
            },
            "post": {
                "operationId": "triggerRun",
                "summary": "Queue a reproducer run (scope: write)",
                "security": _BEARER,
                "parameters": [_RECORD_ID],
                "requestBody": _body("RunRequest"),
                "responses": _authed(
                    {
                        "202": _json("RunOut", "Queued"),
                        "400": _problem("Bad platform"),
                        "404": _problem("No such record"),
                        "422": _problem("No harness"),
                        "503": _problem("The broker did not take the job"),
                    }
                ),
            },
        },
        "/api/v1/runs": {
            "get": {
                "operationId": "listRuns",
                "summary": "All runs (jobs), newest first",
                "parameters": [
                    *_PAGE,
                    _param(
                        "status",
                        "Filter by status",
                        {
                            "type": "string",
                            "enum": ["queued", "running", "done", "failed", "invalid"],
                        },
                    ),
                    _param(
                        "platform", "Filter by platform", {"type": "string", "pattern": _NO_NUL}
                    ),
                    _param("record", "Filter by record id", {"type": "string", "pattern": _NO_NUL}),
                ],
                "responses": {"200": _json("RunList", "Runs"), "400": _problem("Bad")},
            }
        },
        "/api/v1/regressions": {
            "get": {
                "operationId": "listRegressions",
                "summary": "Records that stopped reproducing, or whose fix stopped fixing",
                "responses": {"200": _json("RegressionList", "Regressions")},
            }
        },
        "/api/v1/jobs/{job_id}/start": {
            "post": {
                "operationId": "startJob",
                "summary": "A worker took a job (scope: worker)",
                "security": _BEARER,
                "parameters": [_JOB_ID],
                "requestBody": _body("JobStart"),
                "responses": _authed(
                    {
                        "200": _json("JobState", "State"),
                        "400": _problem("Bad body"),
                        "404": _problem("No such job"),
                        "422": _problem("Not a valid JobStart (the job's secret is required)"),
                    }
                ),
            }
        },
        "/api/v1/jobs/{job_id}/result": {
            "post": {
                "operationId": "finishJob",
                "summary": "A worker's report; stored once per job (scope: worker)",
                "security": _BEARER,
                "parameters": [_JOB_ID],
                "requestBody": _body("JobResult"),
                "responses": _authed(
                    {
                        "200": _json("JobState", "Stored or ignored"),
                        "400": _problem("Bad body"),
                        "404": _problem("No such job"),
                        "422": _problem("Not a valid report, or not this job's platform"),
                    }
                ),
            }
        },
        "/api/v1/runs/{run_id}/invalidate": {
            "post": {
                "operationId": "invalidateRun",
                "summary": "Mark a run invalid: kept in history, out of verdicts (scope: admin)",
                "security": _BEARER,
                "parameters": [
                    {
                        "name": "run_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "integer"},
                    }
                ],
                "requestBody": _body("ModerationRequest"),
                "responses": _authed(
                    {
                        "200": _json("RunOut", "The invalidated run"),
                        "404": _problem("No such run"),
                        "422": _problem("No reason given"),
                    }
                ),
            }
        },
        "/api/v1/records/{record_id}/retract": {
            "post": {
                "operationId": "retractRecord",
                "summary": "Retract a record: a tombstone, history kept (scope: admin)",
                "security": _BEARER,
                "parameters": [_RECORD_ID],
                "requestBody": _body("ModerationRequest"),
                "responses": _authed(
                    {
                        "200": _json("Retracted", "The tombstone"),
                        "404": _problem("No such record"),
                        "422": _problem("No reason given"),
                    }
                ),
            }
        },
        "/api/v1/health": {
            "get": {
                "operationId": "health",
                "summary": "Liveness",
                "responses": {"200": {"description": "Alive"}},
            }
        },
        "/api/v1/ready": {
            "get": {
                "operationId": "ready",
                "summary": "Readiness: the database answers",
                "responses": {
                    "200": {"description": "Ready"},
                    "503": _problem("Database unreachable"),
                },
            }
        },
    }


def _record_write_ops() -> tuple[dict[str, Any], dict[str, Any]]:
    """POST /api/v1/records and PUT /api/v1/records/{record_id}."""
    invalid = _problem("Not valid for the dataset schema")
    ops = {
        "post": {
            "operationId": "createRecord",
            "summary": "Create a record (scope: write); validated as the importer does",
            "security": _BEARER,
            "requestBody": _body("RecordWrite"),
            "responses": _authed(
                {
                    "201": _json("RecordWritten", "Created"),
                    "409": _problem("Exists"),
                    "415": _problem("Not JSON"),
                    "422": invalid,
                }
            ),
        },
        "put": {
            "operationId": "putRecord",
            "summary": "Create or update a record (scope: write); history is kept",
            "security": _BEARER,
            "parameters": [_RECORD_ID],
            "requestBody": _body("RecordWrite"),
            "responses": _authed(
                {
                    "200": _json("RecordWritten", "Updated or unchanged"),
                    "201": _json("RecordWritten", "Created"),
                    "415": _problem("Not JSON"),
                    "422": invalid,
                }
            ),
        },
    }
    return ops["post"], ops["put"]


@cache
def openapi_document() -> dict[str, Any]:
    _, defs = models_json_schema(
        [(m, "serialization") for m in _MODELS],
        ref_template="#/components/schemas/{model}",
    )
    components = defs.get("$defs", {})
    bad_request = _problem("Invalid parameter")
    doc: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": "Errata API",
            "version": API_VERSION,
            "description": "Error records for ML inference stacks: match an error, read its "
            "record, search. Errors are RFC 9457 problem details.",
        },
        "servers": [{"url": "/"}],
        "paths": {
            "/api/v1/records": {
                "get": {
                    "operationId": "listRecords",
                    "summary": "List and filter records",
                    "parameters": _LIST_PARAMS,
                    "responses": {"200": _json("RecordPage", "A page"), "400": bad_request},
                }
            },
            "/api/v1/records/{record_id}": {
                "get": {
                    "operationId": "getRecord",
                    "summary": "One record (ETag; 304 on If-None-Match)",
                    "parameters": [
                        {
                            "name": "record_id",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "string", "maxLength": 64, "pattern": _NO_NUL},
                        },
                        _param("compact", "Return the compact form", _FLAG),
                    ],
                    "responses": {
                        "200": {
                            "description": "The record",
                            "content": {
                                "application/json": {
                                    "schema": {"oneOf": [_ref("RecordOut"), _ref("RecordCompact")]}
                                }
                            },
                        },
                        "304": {"description": "Not modified"},
                        "400": bad_request,
                        "404": _problem("No such record"),
                    },
                }
            },
            "/api/v1/search": {
                "get": {
                    "operationId": "search",
                    "summary": "Full-text search, best first",
                    "parameters": [
                        _SEARCH_Q,
                        *(p for p in _LIST_PARAMS if p["name"] not in {"q", "compact", "facets"}),
                    ],
                    "responses": {"200": _json("SearchResponse", "Hits"), "400": bad_request},
                }
            },
            "/api/v1/match": {
                "post": {
                    "operationId": "match",
                    "summary": "Match a pasted error or traceback to records, with the why",
                    "parameters": [_param("compact", "Leave out the explanation", _FLAG)],
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": _ref("MatchRequest")}},
                    },
                    "responses": {
                        "200": _json("MatchResponse", "Matches, best first"),
                        "400": bad_request,
                        "413": _problem("Body too large"),
                        "415": _problem("Not JSON"),
                        "422": _problem("Body does not follow MatchRequest"),
                    },
                }
            },
        },
        "components": {
            "schemas": components,
            "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}},
        },
    }
    doc["paths"].update(_write_paths())
    post, put = _record_write_ops()
    doc["paths"]["/api/v1/records"]["post"] = post
    doc["paths"]["/api/v1/records/{record_id}"]["put"] = put
    return doc


@bp.get("/openapi.json")
def openapi_json() -> Response:
    return jsonify(openapi_document())


@bp.get("/docs")
def api_docs() -> str:
    return render_template("api_docs.html", spec=openapi_document())
