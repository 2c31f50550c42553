"""The OpenAPI document (built once by ``app.api.init_app``) and its docs page."""

from __future__ import annotations

from flask import Response, current_app, jsonify, render_template


def openapi_json() -> Response:
    return jsonify(current_app.extensions["errata.openapi"])


def api_docs() -> str:
    return render_template("api_docs.html", spec=current_app.extensions["errata.openapi"])
