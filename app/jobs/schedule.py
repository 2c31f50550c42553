"""The periodic schedule, in code beside the jobs (Celery beat)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from celery.schedules import crontab


def beat_schedule(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Tonight's batch at ``ERRATA_NIGHTLY_HOUR`` (UTC); a catch-up pass every
    ``ERRATA_CATCH_UP_MINUTES`` re-sends what the broker did not take and closes overdue
    runs (it enqueues nothing before the hour). ``settings``: ``app.config.schedule_settings``."""
    hour = settings["ERRATA_NIGHTLY_HOUR"]
    every = settings["ERRATA_CATCH_UP_MINUTES"]
    return {
        "nightly-repro": {
            "task": "errata.nightly",
            "schedule": crontab(hour=str(hour), minute="0"),
            "options": {"queue": "cpu"},
        },
        "nightly-catch-up": {
            "task": "errata.nightly",
            "schedule": crontab(minute=f"*/{every}"),
            "kwargs": {"catch_up": True},
            "options": {"queue": "cpu"},
        },
    }
