"""Errors as RFC 9457 problem details on the API, as pages in the browser."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from sqlalchemy.exc import InterfaceError, OperationalError
from werkzeug.exceptions import HTTPException, InternalServerError

from app.extensions import db

PROBLEM_JSON = "application/problem+json"


def problem(status: int, title: str, detail: str | None = None, **extra: Any) -> Response:
    body: dict[str, Any] = {"type": "about:blank", "title": title, "status": status}
    if detail:
        body["detail"] = detail
    body.update(extra)
    response = jsonify(body)
    response.status_code = status
    response.mimetype = PROBLEM_JSON
    return response


def _wants_problem() -> bool:
    return request.path.startswith("/api/")


DB_UNAVAILABLE = "The database is unavailable or cannot be written right now; try again shortly."


def init_app(app: Flask) -> None:
    @app.errorhandler(OperationalError)
    @app.errorhandler(InterfaceError)
    def handle_database_down(exc: Exception) -> Response | tuple[str, int, dict[str, str]]:
        """A lost connection, a restarting server, a read-only or full disk: 503, not 500."""
        db.session.rollback()
        app.logger.warning(
            "database error on %s %s: %s",
            request.method,
            request.path,
            str(exc).splitlines()[0][:300],
        )
        if _wants_problem():
            response = problem(503, "Service Unavailable", DB_UNAVAILABLE)
            response.headers["Retry-After"] = "5"
            return response
        page = render_template(
            "error.html", status=503, title="Service Unavailable", detail=DB_UNAVAILABLE
        )
        return page, 503, {"Retry-After": "5"}

    @app.errorhandler(HTTPException)
    def handle_http(exc: HTTPException) -> Response | tuple[str, int]:
        status = exc.code or 500
        if _wants_problem():
            response = problem(status, exc.name, exc.description)
            for name, value in exc.get_headers():
                if name.lower() in {"allow", "retry-after", "www-authenticate"}:
                    response.headers[name] = value
            return response
        return render_template(
            "error.html", status=status, title=exc.name, detail=exc.description
        ), status

    @app.errorhandler(Exception)
    def handle_unexpected(exc: Exception) -> Response | tuple[str, int]:
        app.logger.exception("unhandled error on %s %s", request.method, request.path)
        error = InternalServerError()
        if _wants_problem():
            return problem(500, error.name, "An unexpected error occurred; it has been logged.")
        return render_template(
            "error.html",
            status=500,
            title=error.name,
            detail="An unexpected error occurred; it has been logged.",
        ), 500
