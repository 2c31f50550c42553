"""REST API v1 for IDE plugins: JSON, problem details, CORS for extension origins."""

from __future__ import annotations

from flask import Flask

from app.api.blueprint import bp
from app.api.docs import openapi_document
from app.api.routes import ROUTES

__all__ = ["ROUTES", "bp", "init_app"]


def init_app(app: Flask) -> None:
    """Register the blueprint (its rules come from the table) and the document made from
    the same table."""
    app.register_blueprint(bp)
    app.extensions["errata.openapi"] = openapi_document()
