"""Liveness and readiness probes (compose healthchecks, load balancers, the HTTP bench)."""

from __future__ import annotations

from flask import Response, jsonify
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from app.errors import problem
from app.extensions import db


def health() -> Response:
    """The process answers; touches nothing else."""
    return jsonify({"status": "ok"})


def ready() -> Response:
    """The database answers."""
    try:
        db.session.execute(text("SELECT 1"))
    except SQLAlchemyError:
        db.session.rollback()
        return problem(503, "Service Unavailable", "The database is not reachable.")
    return jsonify({"status": "ready"})
