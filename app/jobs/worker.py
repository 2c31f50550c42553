"""Celery entry point for CPU workers and the scheduler (beat).

    celery -A app.jobs.worker worker -Q cpu
    celery -A app.jobs.worker beat

The web side's Celery app with the harness task (shared by ``repro.worker``), the
database-side tasks and the beat schedule. Nothing here builds the Flask app; tasks do,
on first use.
"""

from __future__ import annotations

from typing import Any

from celery import Celery

from app.config import schedule_settings
from app.jobs import tasks
from app.jobs.broker import celery_app
from app.jobs.schedule import beat_schedule
from repro.worker import run_harness_job

__all__ = ["celery_app", "run_harness_job", "tasks"]


@celery_app.on_configure.connect
def _schedule(sender: Celery, **_: Any) -> None:
    sender.conf.beat_schedule = beat_schedule(schedule_settings())
