"""Invalidate a run: it stays in the history, marked invalid, and leaves the verdicts."""

from __future__ import annotations

from sqlalchemy import select

from app.db import DbSession, utcnow
from app.records.moderation import ModerationError, _reason
from app.repro.models import DONE, INVALID, ReproLatest, ReproRun

MAX_ID = 2**31 - 1  # an INTEGER primary key; larger ids exist nowhere


def invalidate_run(session: DbSession, run_id: int, reason: str) -> ReproRun:
    """Mark ``run_id`` invalid; the platform's verdict falls back to the newest valid run."""
    reason = _reason(reason)
    run = session.get(ReproRun, run_id) if 0 < run_id <= MAX_ID else None
    if run is None:
        raise ModerationError(f"no run with id {run_id}")
    if run.invalidated_at is None:
        run.status = INVALID
        run.invalidated_at = utcnow()
        run.invalid_reason = reason
        session.flush()
        _recompute_latest(session, run.record_id, run.platform)
    return run


def _recompute_latest(session: DbSession, record_id: str, platform: str) -> None:
    latest = session.get(ReproLatest, (record_id, platform))
    previous = session.scalar(
        select(ReproRun)
        .where(
            ReproRun.record_id == record_id,
            ReproRun.platform == platform,
            ReproRun.status == DONE,
            ReproRun.invalidated_at.is_(None),
        )
        .order_by(ReproRun.finished_at.desc(), ReproRun.id.desc())
        .limit(1)
    )
    if previous is None:
        if latest is not None:
            session.delete(latest)
        session.flush()
        return
    if latest is None:
        latest = ReproLatest(record_id=record_id, platform=platform)
        session.add(latest)
    latest.run_id = previous.id
    latest.trigger_outcome = previous.trigger_outcome or "UNKNOWN"
    latest.fix_outcomes = {
        f["scenario"]: str(f.get("outcome"))
        for f in previous.fixes or []
        if isinstance(f, dict) and isinstance(f.get("scenario"), str)
    }
    latest.regressed = bool(previous.regressions)
    session.flush()
