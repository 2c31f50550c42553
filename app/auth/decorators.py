"""``@require_scope("worker")`` for API views: a Bearer token with that scope, or 401/403."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from flask import g, request

from app.auth import services
from app.errors import problem
from app.extensions import db

F = TypeVar("F", bound=Callable[..., Any])


def require_scope(scope: str) -> Callable[[F], F]:
    def decorate(view: F) -> F:
        @functools.wraps(view)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            header = request.headers.get("Authorization", "")
            kind, _, plain = header.partition(" ")
            if kind.lower() != "bearer" or not plain.strip():
                response = problem(401, "Unauthorized", "Send 'Authorization: Bearer <token>'.")
                response.headers["WWW-Authenticate"] = 'Bearer realm="errata"'
                return response
            token = services.verify(db.session, plain.strip(), scope)
            if token is None:
                return problem(
                    403, "Forbidden", f"The token is unknown, revoked, or lacks the {scope} scope."
                )
            g.api_token = token
            db.session.commit()  # last_used_at, whatever the view goes on to do
            return view(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def is_admin_request() -> bool:
    """Whether this request carries a live admin token (checked once per request)."""
    cached = g.get("_is_admin")
    if cached is None:
        kind, _, plain = request.headers.get("Authorization", "").partition(" ")
        token = None
        if kind.lower() == "bearer" and plain.strip():
            token = services.verify(db.session, plain.strip(), "admin")
            if token is not None:
                db.session.commit()  # last_used_at
        cached = g._is_admin = token is not None and token.scope == "admin"
    return bool(cached)
