"""Pages: runs (regressions first) and the records x platforms x nights matrix."""

from __future__ import annotations

import datetime as dt
from typing import Any

from flask import Blueprint, render_template, request
from sqlalchemy import select

from app.extensions import db
from app.records.models import Record
from app.repro import queries, services, sweep
from app.repro.models import ReproRun
from repro.vocabulary import STATUSES, Platform

bp = Blueprint("repro", __name__)

MAX_NIGHTS = 60


@bp.get("/runs")
def runs_page() -> str:
    status = request.args.get("status")
    query = queries.RunQuery(status=status if status in STATUSES else None, per_page=100)
    return render_template(
        "runs.html",
        runs=queries.find_runs(db.session, query).runs,
        regressions=queries.regressions(db.session),
        status=query.status,
        statuses=STATUSES,
        upstream=services.upstream_label,
    )


@bp.get("/runs/matrix")
def matrix_page() -> str:
    raw = request.args.get("nights", "7")
    nights = int(raw) if raw.isascii() and raw.isdigit() and 1 <= int(raw) <= MAX_NIGHTS else 7
    today = dt.datetime.now(dt.UTC).date()
    days = [today - dt.timedelta(days=n) for n in range(nights)]
    since = dt.datetime.combine(days[-1], dt.time.min, tzinfo=dt.UTC)
    runs = db.session.scalars(
        select(ReproRun).where(ReproRun.queued_at >= since).order_by(ReproRun.id)
    ).all()
    cells: dict[tuple[str, str, dt.date], ReproRun] = {}
    platforms: set[str] = set()
    record_ids: set[str] = {t.record_id for t in services.harnessed_targets(db.session)}
    for run in runs:
        day = run.queued_at.date()
        cells[(run.record_id, run.platform, day)] = run  # newest of the night wins
        platforms.add(run.platform)
        record_ids.add(run.record_id)
    for target in services.harnessed_targets(db.session):
        platforms.update(p for p in target.platforms if p != Platform.REAL)
    records = db.session.scalars(
        select(Record).where(Record.id.in_(record_ids)).order_by(Record.id)
    ).all()

    def cell(record_id: str, platform: str, day: dt.date) -> dict[str, Any] | None:
        run = cells.get((record_id, platform, day))
        if run is None:
            return None
        label = run.trigger_outcome or run.status
        return {"run": run, "label": label, "css": label.lower()}

    return render_template(
        "matrix.html",
        records=records,
        platforms=sorted(platforms),
        days=days,
        cell=cell,
        nights=nights,
        sweep_coverage=sweep.coverage(),
    )
