"""The v1 blueprint and its CORS policy for extension origins."""

from __future__ import annotations

import fnmatch

from flask import Blueprint, Response, current_app, request

bp = Blueprint("api", __name__, url_prefix="/api/v1")

DEFAULT_CORS_ORIGINS = (
    "chrome-extension://*",
    "moz-extension://*",
    "safari-web-extension://*",
    "vscode-webview://*",
    "vscode-file://*",
    "http://localhost:*",
    "http://127.0.0.1:*",
)


def _origin_allowed(origin: str) -> bool:
    extra = [o.strip() for o in current_app.config.get("ERRATA_CORS_ORIGINS", "").split(",")]
    allowed = [*DEFAULT_CORS_ORIGINS, *(o for o in extra if o)]
    return any(fnmatch.fnmatchcase(origin, pattern) for pattern in allowed)


@bp.after_request
def _cors(response: Response) -> Response:
    origin = request.headers.get("Origin")
    if origin and _origin_allowed(origin):
        response.headers["Access-Control-Allow-Origin"] = origin
        response.headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
        response.headers["Access-Control-Allow-Headers"] = "Content-Type, If-None-Match"
        response.headers["Access-Control-Expose-Headers"] = "ETag"
        response.headers["Access-Control-Max-Age"] = "600"
        response.vary.add("Origin")
    return response
