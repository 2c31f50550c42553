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
_FILTER = {"type": "array", "items": {"type": "string", "maxLength": 500}, "maxItems": 20}
_LIST_PARAMS = [
    _param(
        "q",
        "Full-text query: every word must appear, the last as a prefix",
        {"type": "string", "maxLength": 500},
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


@cache
def openapi_document() -> dict[str, Any]:
    _, defs = models_json_schema(
        [(m, "serialization") for m in _MODELS],
        ref_template="#/components/schemas/{model}",
    )
    components = defs.get("$defs", {})
    bad_request = _problem("Invalid parameter")
    return {
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
                            "schema": {"type": "string", "maxLength": 64},
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
                        p for p in _LIST_PARAMS if p["name"] not in {"compact", "facets"}
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
        "components": {"schemas": components},
    }


@bp.get("/openapi.json")
def openapi_json() -> Response:
    return jsonify(openapi_document())


@bp.get("/docs")
def api_docs() -> str:
    return render_template("api_docs.html", spec=openapi_document())
