"""The v1 blueprint and its CORS policy for extension origins."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, Response, current_app, request

bp = Blueprint("api", __name__, url_prefix="/api/v1")

# Any host under these schemes (an extension's origin is its id), and local dev servers.
EXTENSION_SCHEMES = frozenset(
    {"chrome-extension", "moz-extension", "safari-web-extension", "vscode-webview", "vscode-file"}
)
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1"})
ALLOW_METHODS = "GET, POST, PUT, OPTIONS"
ALLOW_HEADERS = "Authorization, Content-Type, If-None-Match"
EXPOSE_HEADERS = (
    "ETag, Link, Location, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset"
)


def _parse(origin: str) -> tuple[str, str, int | None] | None:
    """``(scheme, host, port)`` of a serialized origin; None for anything else (a path,
    user info, a query: ``http://localhost:@evil.example`` is not a localhost origin)."""
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if (
        not parts.scheme
        or not host
        or "@" in parts.netloc
        or parts.path
        or parts.query
        or parts.fragment
        or origin != origin.strip()
    ):
        return None
    return parts.scheme.lower(), host.lower(), port


def origin_allowed(origin: str, configured: str = "") -> bool:
    """Extension schemes, ``http://localhost`` or ``127.0.0.1`` on any port, and each
    origin in ``ERRATA_CORS_ORIGINS`` (exact, after parsing; ``scheme://*`` for any host)."""
    parsed = _parse(origin)
    if parsed is None:
        return False
    scheme, host, port = parsed
    if scheme in EXTENSION_SCHEMES or (scheme == "http" and host in LOCAL_HOSTS):
        return True
    for entry in (e.strip() for e in configured.split(",")):
        if entry.endswith("://*") and entry[:-4].lower() == scheme:
            return True
        if entry and _parse(entry) == parsed:
            return True
    return False


@bp.after_request
def _cors(response: Response) -> Response:
    response.vary.add("Origin")
    origin = request.headers.get("Origin")
    if origin and origin_allowed(origin, current_app.config.get("ERRATA_CORS_ORIGINS", "")):
        response.headers["Access-Control-Allow-Origin"] = origin
        response.headers["Access-Control-Allow-Methods"] = ALLOW_METHODS
        response.headers["Access-Control-Allow-Headers"] = ALLOW_HEADERS
        response.headers["Access-Control-Expose-Headers"] = EXPOSE_HEADERS
        response.headers["Access-Control-Max-Age"] = "600"
    return response
