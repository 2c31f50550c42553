"""The OpenAPI 3.1 document, built from the route table and the pydantic schemas."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from app.api import schemas

API_VERSION = "1.1.0"
MODELS: tuple[type[BaseModel], ...] = (
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
    schemas.Status,
    schemas.ModerationRequest,
    schemas.Retracted,
)
_RECORD_ID = {"type": "string", "maxLength": 64, "pattern": "^[^\\x00]*$"}
_ROW_ID = {"type": "integer", "minimum": 1, "maximum": 2**31 - 1}
_HEADER = {"schema": {"type": "string"}}
_RATE_HEADERS = {
    name: {"description": description, "schema": {"type": "integer"}}
    for name, description in (
        ("X-RateLimit-Limit", "Requests allowed in the current window"),
        ("X-RateLimit-Remaining", "Requests left in the current window"),
        ("X-RateLimit-Reset", "When the window resets (Unix time)"),
    )
}


@dataclass(frozen=True)
class Route:
    """One operation: its Flask rule (under /api/v1), view, and OpenAPI description."""

    method: str
    rule: str
    view: Callable[..., Any]
    summary: str
    tag: str
    query: tuple[dict[str, Any], ...] = ()
    body: str | None = None
    responses: dict[str, Any] = field(default_factory=dict)
    scope: str | None = None
    rate_limited: bool = False
    etag: bool = False

    @property
    def endpoint(self) -> str:
        return self.view.__name__

    @property
    def path(self) -> str:
        """The OpenAPI path: ``/api/v1/records/{record_id}``."""
        return "/api/v1" + re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", self.rule)

    @property
    def path_params(self) -> list[str]:
        return re.findall(r"<(?:[^:>]+:)?([^>]+)>", self.rule)

    @property
    def query_names(self) -> frozenset[str]:
        return frozenset(p["name"] for p in self.query)


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def json_response(name: str, description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ref(name)}}}


def one_of(names: Iterable[str], description: str) -> dict[str, Any]:
    schema = {"oneOf": [ref(n) for n in names]}
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def problem_response(description: str, **headers: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "description": description,
        "content": {"application/problem+json": {"schema": ref("Problem")}},
    }
    if headers:
        out["headers"] = headers
    return out


def operation(route: Route) -> dict[str, Any]:
    params: list[dict[str, Any]] = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": _ROW_ID if f"<int:{name}>" in route.rule else _RECORD_ID,
        }
        for name in route.path_params
    ]
    params += list(route.query)
    responses = dict(route.responses)
    responses.setdefault("400", problem_response("Unknown or invalid parameter"))
    responses.setdefault(
        "503",
        problem_response("The database is unavailable", **{"Retry-After": _HEADER}),
    )
    if route.rate_limited:
        responses["429"] = problem_response(
            "Too many requests", **{"Retry-After": _HEADER}, **_RATE_HEADERS
        )
    if route.etag:
        params.append(
            {
                "name": "If-None-Match",
                "in": "header",
                "required": False,
                "schema": {"type": "string"},
            }
        )
        ok = dict(responses["200"])
        ok["headers"] = {"ETag": _HEADER, "Cache-Control": _HEADER}
        responses["200"] = ok
    ok = responses.get("200", {})
    if "Page" in str(ok.get("content", {}).get("application/json", {}).get("schema", {})):
        responses["200"] = {**ok, "headers": {"Link": _HEADER}}
    if route.scope:
        responses["401"] = problem_response("No bearer token")
        responses["403"] = problem_response("Token unknown, revoked or without the scope")
    op: dict[str, Any] = {
        "operationId": route.endpoint,
        "summary": route.summary,
        "tags": [route.tag],
        "parameters": params,
        "responses": responses,
    }
    if route.body:
        op["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": ref(route.body)}},
        }
    if route.scope:
        op["security"] = [{"bearerAuth": []}]
    return op


def document(routes: Iterable[Route]) -> dict[str, Any]:
    _, defs = models_json_schema(
        [(m, "serialization") for m in MODELS], ref_template="#/components/schemas/{model}"
    )
    paths: dict[str, dict[str, Any]] = {}
    tags: dict[str, None] = {}
    for route in routes:
        paths.setdefault(route.path, {})[route.method.lower()] = operation(route)
        tags[route.tag] = None
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Errata API",
            "version": API_VERSION,
            "description": "Error records for ML inference stacks: match an error, read its "
            "record, search. Errors are RFC 9457 problem details. Lists are paged the same "
            "way (items, total, page, perPage, next) with RFC 8288 Link headers.",
        },
        "servers": [{"url": "/"}],
        "tags": [{"name": name} for name in tags],
        "paths": paths,
        "components": {
            "schemas": defs.get("$defs", {}),
            "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}},
        },
    }
