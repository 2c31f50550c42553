"""Create, verify, list and revoke API tokens. No Flask here."""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import select

from app.auth.models import SCOPES, ApiToken
from app.db import DbSession, utcnow

TOKEN_PREFIX = "errata_"


class TokenError(ValueError):
    pass


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def create_token(
    session: DbSession, name: str, scope: str, gpu: bool = False
) -> tuple[ApiToken, str]:
    """A new token; the plain text is returned once and never stored.

    ``gpu`` registers a worker token as a GPU worker: only those may report real hardware.
    """
    if scope not in SCOPES:
        raise TokenError(f"unknown scope {scope!r}; one of {', '.join(SCOPES)}")
    if gpu and scope != "worker":
        raise TokenError("only a worker token can be registered as a GPU worker")
    if not name.strip() or len(name) > 100:
        raise TokenError("name must be 1 to 100 characters")
    plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken(
        name=name.strip(),
        scope=scope,
        token_hash=hash_token(plain),
        prefix=plain[: len(TOKEN_PREFIX) + 6],
        gpu=gpu,
    )
    session.add(token)
    session.flush()
    return token, plain


def verify(session: DbSession, plain: str, needed: str) -> ApiToken | None:
    """The live token for ``plain`` if its scope grants ``needed`` (admin grants all)."""
    if not plain.startswith(TOKEN_PREFIX) or len(plain) > 200:
        return None
    token = session.scalar(select(ApiToken).where(ApiToken.token_hash == hash_token(plain)))
    if token is None or token.revoked_at is not None:
        return None
    if token.scope != needed and token.scope != "admin":
        return None
    token.last_used_at = utcnow()
    return token


def list_tokens(session: DbSession) -> list[ApiToken]:
    return list(session.scalars(select(ApiToken).order_by(ApiToken.id)))


def revoke(session: DbSession, token_id: int) -> ApiToken:
    token = session.get(ApiToken, token_id)
    if token is None:
        raise TokenError(f"no token with id {token_id}")
    if token.revoked_at is None:
        token.revoked_at = utcnow()
    session.flush()
    return token
