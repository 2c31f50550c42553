"""REST API v1 for IDE plugins: JSON, problem details, CORS for extension origins."""

from __future__ import annotations

from flask import Flask

from app.api import docs, health, jobs, match, moderation, records, runs, writes
from app.api.blueprint import bp

__all__ = [
    "bp",
    "docs",
    "health",
    "init_app",
    "jobs",
    "match",
    "moderation",
    "records",
    "runs",
    "writes",
]


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
