"""Who wrote each record version, and retraction (a tombstone; the history is kept)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.db import DbSession, utcnow
from app.records.models import Record, RecordVersion
from app.records.services import bump_catalog


class ModerationError(ValueError):
    """Unknown record or run, or a missing reason."""


def stamp_version(session: DbSession, record_id: str, token: Any) -> None:
    """Record the writing token on the record's current version."""
    row = session.get(Record, record_id)
    if row is None or token is None:
        return
    version = session.scalar(
        select(RecordVersion).where(
            RecordVersion.record_id == record_id, RecordVersion.version == row.version
        )
    )
    if version is not None:
        version.token_id = token.id
        session.flush()


def _reason(reason: str) -> str:
    if not reason or len(reason) > 2000 or "\x00" in reason:
        raise ModerationError("give a reason of 1 to 2000 characters, without NUL")
    return reason.strip() or reason


def retract_record(session: DbSession, record_id: str, reason: str) -> Record:
    """Hide a record from matching, search and lists; its page answers 410 Gone."""
    reason = _reason(reason)
    row = session.get(Record, record_id)
    if row is None:
        raise ModerationError(f"no record with id {record_id!r}")
    if row.retracted_at is None:
        row.retracted_at = utcnow()
        row.retracted_reason = reason
        bump_catalog(session)
    session.flush()
    return row
