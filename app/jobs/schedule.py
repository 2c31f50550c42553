"""The periodic schedule, in code beside the jobs (Celery beat)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from celery.schedules import crontab

CATCH_UP_EVERY_MINUTES = 15


def nightly_hour(environ: Mapping[str, str]) -> int:
    hour = int(environ.get("ERRATA_NIGHTLY_HOUR", "2"))
    if not 0 <= hour <= 23:
        raise ValueError("ERRATA_NIGHTLY_HOUR must be 0-23 (UTC)")
    return hour


def nightly_platforms(environ: Mapping[str, str]) -> list[str]:
    raw = environ.get("ERRATA_NIGHTLY_PLATFORMS", "blackwell,hopper")
    return [p.strip() for p in raw.split(",") if p.strip()]


def catch_up_minutes(environ: Mapping[str, str]) -> int:
    minutes = int(environ.get("ERRATA_CATCH_UP_MINUTES", str(CATCH_UP_EVERY_MINUTES)))
    if not 1 <= minutes <= 59:
        raise ValueError("ERRATA_CATCH_UP_MINUTES must be 1-59")
    return minutes


def beat_schedule(environ: Mapping[str, str]) -> dict[str, Any]:
    """Tonight's batch at the configured hour (UTC); a catch-up pass every
    ``ERRATA_CATCH_UP_MINUTES`` (15) re-sends what the broker did not take and closes
    overdue runs (it enqueues nothing before the hour)."""
    hour = nightly_hour(environ)
    every = catch_up_minutes(environ)
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
