"""Enqueue reproducer jobs on the broker; the nightly batch; results posted by workers.

Each job has a row (``repro_runs`` with a ``job_id``) before its message is sent, so the
run is visible from the moment it is queued. Nightly job ids are deterministic
(``nightly-YYYYMMDD-<record>-<platform>``): enqueueing the same night twice sends nothing
new, and a later pass re-sends what could not be sent (catch-up).
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select

from app.db import DbSession, utcnow
from app.jobs.broker import celery_app
from app.repro import reports
from app.repro import services as repro
from app.repro.models import DONE, FAILED, INVALID, QUEUED, ReproRun
from repro.settings import TASK_NAME
from repro.vocabulary import Platform

ENQUEUE_FAILED = "ENQUEUE_FAILED"
GPU_PLATFORMS = {Platform.REAL.value}
FINISHED = {DONE, FAILED, INVALID}


class EnqueueError(RuntimeError):
    """The broker did not take the job."""


def queue_for(platform: str) -> str:
    """Simulated platforms run on CPU workers; ``real`` needs a GPU worker."""
    return "gpu" if platform in GPU_PLATFORMS else "cpu"


def job_message(session: DbSession, run: ReproRun, repeats: int) -> dict[str, Any]:
    return {
        "job_id": run.job_id,
        "secret": reports.new_job_secret(run),  # only this message's receiver can report
        "harness": run.harness,
        "env": run.env,
        "platform": run.platform,
        "payload": repro.payload_for(session, run, repeats),
        "timeout_s": 600,
    }


def send(message: dict[str, Any], queue: str, broker_url: str) -> None:
    """Publish one job on ``broker_url``; raises EnqueueError if the broker cannot take it."""
    try:
        with celery_app.connection_for_write(url=broker_url, connect_timeout=3) as conn:
            celery_app.send_task(
                TASK_NAME,
                args=[message],
                queue=queue,
                connection=conn,
                retry=True,
                retry_policy={"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5},
            )
    except Exception as exc:  # kombu raises several connection error types
        raise EnqueueError(
            f"the broker at {_safe(broker_url)} did not take the job: {exc}"
        ) from exc


def _safe(url: str) -> str:
    """The broker URL without a password."""
    return re.sub(r"//([^:/@]*):[^@]*@", r"//\1:***@", url)


def dispatch(session: DbSession, run: ReproRun, broker_url: str, repeats: int = 3) -> bool:
    """Send ``run`` to its queue; on failure the run says so and can be re-sent later."""
    try:
        send(job_message(session, run, repeats), queue_for(run.platform), broker_url)
    except EnqueueError as exc:
        run.status = FAILED
        run.run_outcome = ENQUEUE_FAILED
        run.message = str(exc)
        session.flush()
        return False
    run.status = QUEUED
    run.run_outcome = None
    run.message = None
    run.queued_at = utcnow()
    session.flush()
    return True


@dataclass
class NightlyBatch:
    night: str
    created: list[ReproRun] = field(default_factory=list)
    resent: list[ReproRun] = field(default_factory=list)
    skipped: int = 0


def nightly_job_id(night: dt.date, record_id: str, platform: str) -> str:
    return f"nightly-{night:%Y%m%d}-{record_id}-{platform}"


def plan_nightly(session: DbSession, night: dt.date, platforms: Sequence[str]) -> NightlyBatch:
    """Rows for tonight's jobs: one per harnessed record x configured platform.

    New jobs are created ``queued``; jobs that could not be sent earlier are marked to be
    re-sent; jobs already sent or finished are left alone. The caller commits, then calls
    :func:`dispatch` for ``created + resent``.
    """
    batch = NightlyBatch(night=f"{night:%Y-%m-%d}")
    for target in repro.harnessed_targets(session):
        for platform in platforms:
            if platform not in target.platforms:
                continue
            job_id = nightly_job_id(night, target.record_id, platform)
            run = session.scalar(select(ReproRun).where(ReproRun.job_id == job_id))
            if run is None:
                run = repro.create_run(
                    session, target.record_id, platform, origin="nightly", job_id=job_id
                )
                batch.created.append(run)
            elif run.run_outcome == ENQUEUE_FAILED:
                batch.resent.append(run)
            else:
                batch.skipped += 1
    session.flush()
    return batch


def enqueue(
    session: DbSession, record_id: str, platform: str, broker_url: str, origin: str = "api"
) -> tuple[ReproRun, bool]:
    """Queue a one-off job: its row is committed before the message is sent (so the run
    is visible from the start), then the outcome of sending is committed.

    Returns the run and whether the broker took it; raises ``ReproError`` when the record
    or its harness is missing (nothing is written then).
    """
    run = repro.create_run(session, record_id, platform, origin=origin, job_id=uuid.uuid4().hex)
    session.commit()
    sent = dispatch(session, run, broker_url)
    session.commit()
    return run, sent


def send_batch(session: DbSession, batch: NightlyBatch, broker_url: str, repeats: int = 3) -> int:
    """Dispatch a planned night, committing after each job; returns how many were sent."""
    sent = 0
    for run in batch.created + batch.resent:
        sent += dispatch(session, run, broker_url, repeats)
        session.commit()
    return sent


def start_job(session: DbSession, job_id: str, worker: str) -> ReproRun | None:
    """A worker took the job: mark it running (again, if redelivered)."""
    run = session.scalar(select(ReproRun).where(ReproRun.job_id == job_id))
    if run is None or run.status in FINISHED:
        return run
    repro.start(session, run, worker)
    return run


def finish_job(
    session: DbSession, job_id: str, worker: str, report: dict[str, Any]
) -> tuple[ReproRun | None, bool]:
    """Store a worker's report once: a second report for a finished job is ignored."""
    run = session.scalar(select(ReproRun).where(ReproRun.job_id == job_id).with_for_update())
    if run is None:
        return None, False
    if run.status in FINISHED:
        return run, False
    repro.record_report(session, run, report, worker)
    return run, True
