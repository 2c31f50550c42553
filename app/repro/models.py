"""Reproducer runs, harness links, and the latest verdict per record and platform."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, RecordId, Timestamp, utcnow
from repro.vocabulary import RunStatus

# Run status (the job's life) and run outcome (what the harness process did) are kept
# apart from the trigger outcome (what the upstream code did), as in SWE-bench.
QUEUED = RunStatus.QUEUED.value
RUNNING = RunStatus.RUNNING.value
DONE = RunStatus.DONE.value
FAILED = RunStatus.FAILED.value
INVALID = RunStatus.INVALID.value


class HarnessLink(Base):
    """A record attached to a harness (loaded from ``data/harnesses.json``)."""

    __tablename__ = "harness_links"

    record_id: Mapped[RecordId] = mapped_column(
        ForeignKey("records.id", ondelete="CASCADE"), primary_key=True
    )
    harness: Mapped[str] = mapped_column(String(100))
    env: Mapped[str] = mapped_column(String(100))
    platforms: Mapped[list[str]] = mapped_column(JSON)
    expected: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    updated_at: Mapped[Timestamp]


class ReproRun(Base):
    """One harness run of one record on one platform."""

    __tablename__ = "repro_runs"
    __table_args__ = (Index("ix_repro_runs_record_platform", "record_id", "platform", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    job_id: Mapped[str | None] = mapped_column(String(64), unique=True)
    record_id: Mapped[RecordId] = mapped_column(ForeignKey("records.id", ondelete="CASCADE"))
    harness: Mapped[str] = mapped_column(String(100))
    env: Mapped[str] = mapped_column(String(100))
    platform: Mapped[str] = mapped_column(String(32))
    origin: Mapped[str] = mapped_column(String(16), default="cli")
    status: Mapped[str] = mapped_column(String(16), default=QUEUED, index=True)
    run_outcome: Mapped[str | None] = mapped_column(String(32))
    trigger_outcome: Mapped[str | None] = mapped_column(String(32), index=True)
    simulated: Mapped[bool | None] = mapped_column(Boolean)
    upstream_version: Mapped[str | None] = mapped_column(String(64))
    fixes: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    drift: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    platform_info: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    trigger: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    message: Mapped[str | None] = mapped_column(Text)
    log_tail: Mapped[str | None] = mapped_column(Text)
    duration_s: Mapped[float | None] = mapped_column(Float)
    worker: Mapped[str | None] = mapped_column(String(200))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    regressions: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    queued_at: Mapped[Timestamp]
    started_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    # Hostile workers (app/repro/reports.py): the job's own secret (hash), the token that
    # reported it, and an admin's invalidation (kept in history, out of verdicts).
    secret_hash: Mapped[str | None] = mapped_column(String(64))
    worker_token_id: Mapped[int | None] = mapped_column(Integer)
    invalidated_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    invalid_reason: Mapped[str | None] = mapped_column(Text)


class ReproLatest(Base):
    """The newest finished verdict per (record, platform): facets, badges, regressions."""

    __tablename__ = "repro_latest"

    record_id: Mapped[RecordId] = mapped_column(
        ForeignKey("records.id", ondelete="CASCADE"), primary_key=True
    )
    platform: Mapped[str] = mapped_column(String(32), primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("repro_runs.id", ondelete="CASCADE"))
    trigger_outcome: Mapped[str] = mapped_column(String(32), index=True)
    fix_outcomes: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)
    regressed: Mapped[bool] = mapped_column(Boolean, default=False, index=True)
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )
