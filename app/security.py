"""Security headers on every response, CSRF for browser forms, proxy awareness."""

from __future__ import annotations

import hmac
import io
import json
import secrets
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask, Response, abort, request, session
from flask.json.provider import DefaultJSONProvider
from werkzeug.middleware.proxy_fix import ProxyFix

from app import concurrency
from app.audit import init_audit_log

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
CSRF_FIELD = "csrf_token"


def csrf_token() -> str:
    """The session's CSRF token (made on first use); templates put it in every form."""
    token = session.get(CSRF_FIELD)
    if not isinstance(token, str):
        token = secrets.token_urlsafe(32)
        session[CSRF_FIELD] = token
    return token


def verify_csrf() -> None:
    """Reject a browser form POST whose token does not match the session's."""
    expected = session.get(CSRF_FIELD)
    sent = request.form.get(CSRF_FIELD, "")
    if not isinstance(expected, str) or not hmac.compare_digest(expected, sent):
        abort(400, description="The form expired or did not come from this site; reload it.")


class JSONProvider(DefaultJSONProvider):
    """Flask's JSON, keys in insertion order; a body nested past the parser's recursion
    limit is invalid JSON (``get_json`` answers it as such) rather than a crash."""

    sort_keys = False

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        try:
            return super().loads(s, **kwargs)
        except RecursionError:
            raise ValueError("JSON nested too deeply") from None


def reject_nul() -> None:
    """A NUL in the path or the query string is never meaningful, and PostgreSQL cannot
    even compare text with one: answer 400 before any view runs."""
    if "\x00" in request.path or any(
        "\x00" in key or "\x00" in value for key, value in request.args.items(multi=True)
    ):
        abort(400, description="The URL must not contain NUL characters.")


class BoundedChunkedBody:
    """WSGI middleware: a body without Content-Length (chunked) is read up to the limit
    here; one over it gets 413, one under it reaches the app with its length set."""

    def __init__(self, app: Callable[..., Any], limit: int) -> None:
        self.app = app
        self.limit = limit

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        if environ.get("CONTENT_LENGTH") or not (chunked or environ.get("wsgi.input_terminated")):
            return self.app(environ, start_response)
        stream = environ["wsgi.input"]
        body = b""
        while len(body) <= self.limit:
            chunk = stream.read(min(65536, self.limit + 1 - len(body)))
            if not chunk:
                break
            body += chunk
        if len(body) > self.limit:
            return _too_large(start_response, self.limit)
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        environ.pop("wsgi.input_terminated", None)
        environ.pop("HTTP_TRANSFER_ENCODING", None)  # the body is now plain, with a length
        return self.app(environ, start_response)


def _too_large(start_response: Callable[..., Any], limit: int) -> Iterable[bytes]:
    body = json.dumps(
        {
            "type": "about:blank",
            "title": "Content Too Large",
            "status": 413,
            "detail": f"The body is over {limit} bytes.",
        }
    ).encode()
    start_response(
        "413 Content Too Large",
        [
            ("Content-Type", "application/problem+json"),
            ("Content-Length", str(len(body))),
            ("Connection", "close"),
            ("Content-Security-Policy", CSP),
            ("X-Content-Type-Options", "nosniff"),
        ],
    )
    return [body]


def _headers(response: Response) -> Response:
    headers = response.headers
    headers.setdefault("Content-Security-Policy", CSP)
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("Referrer-Policy", "strict-origin-when-cross-origin")
    headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
    return response


def init_app(app: Flask) -> None:
    hops = int(app.config.get("ERRATA_PROXY_HOPS", 0))
    if hops:
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops
        )
    limit = app.config.get("MAX_CONTENT_LENGTH")
    if limit:
        app.wsgi_app = BoundedChunkedBody(app.wsgi_app, int(limit))  # type: ignore[method-assign]
    init_audit_log()
    app.before_request(reject_nul)
    concurrency.init_app(app)
    app.after_request(_headers)
    app.jinja_env.globals["csrf_token"] = csrf_token
