"""Read runs: filtered and paged lists, a record's runs, current regressions.

One query each, used by the runs page and the API alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.sql import Select

from app.db import DbSession
from app.repro.models import ReproLatest, ReproRun


@dataclass(frozen=True)
class RunQuery:
    """Which runs, newest first: every filter is optional."""

    status: str | None = None
    platform: str | None = None
    record_id: str | None = None
    page: int = 1
    per_page: int = 50


@dataclass
class RunPage:
    runs: list[ReproRun]
    total: int
    query: RunQuery = field(default_factory=RunQuery)


@dataclass(frozen=True)
class Regression:
    """A record whose latest run on a platform no longer reproduces, or whose fix broke."""

    record_id: str
    platform: str
    run: ReproRun

    @property
    def regressions(self) -> list[dict[str, Any]]:
        return list(self.run.regressions)


def _filtered(query: RunQuery) -> Select[tuple[ReproRun]]:
    stmt = select(ReproRun)
    if query.status:
        stmt = stmt.where(ReproRun.status == query.status)
    if query.platform:
        stmt = stmt.where(ReproRun.platform == query.platform)
    if query.record_id:
        stmt = stmt.where(ReproRun.record_id == query.record_id)
    return stmt


def find_runs(session: DbSession, query: RunQuery) -> RunPage:
    stmt = _filtered(query)
    total = session.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    runs = session.scalars(
        stmt.order_by(ReproRun.id.desc())
        .limit(query.per_page)
        .offset((query.page - 1) * query.per_page)
    ).all()
    return RunPage(list(runs), int(total), query)


def regressions(session: DbSession) -> list[Regression]:
    """Current regressions, most recently found first."""
    rows = session.execute(
        select(ReproLatest.record_id, ReproLatest.platform, ReproRun)
        .join(ReproRun, ReproRun.id == ReproLatest.run_id)
        .where(ReproLatest.regressed.is_(True))
        .order_by(ReproRun.finished_at.desc(), ReproRun.id.desc())
    ).all()
    return [Regression(record_id, platform, run) for record_id, platform, run in rows]


def records_with_verdicts(session: DbSession) -> frozenset[str]:
    """Ids of records with at least one reproducer verdict (few: the harnessed ones)."""
    return frozenset(session.scalars(select(ReproLatest.record_id).distinct()))
