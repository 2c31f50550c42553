"""Jobs that need the database (run on CPU workers): the nightly batch."""

from __future__ import annotations

import datetime as dt
from typing import Any

from flask import Flask

from app.jobs import services
from app.jobs.broker import celery_app
from app.repro import services as repro_services

_flask_app: Flask | None = None


def flask_app() -> Flask:
    """The app, built on first use inside a worker process (never at import time)."""
    global _flask_app
    if _flask_app is None:
        from app import create_app

        _flask_app = create_app()
    return _flask_app


def run_nightly(
    now: dt.datetime, platforms: list[str], catch_up: bool, hour: int
) -> dict[str, Any]:
    """Plan tonight's batch and send it; returns counts for the task result and logs."""
    from app.extensions import db

    app = flask_app()
    with app.app_context():
        # Every pass (each 15 minutes): no run stays "running" for ever.
        overdue = repro_services.sweep_overdue(db.session, now)
        db.session.commit()
        if catch_up and now.hour < hour:
            return {
                "night": f"{now:%Y-%m-%d}",
                "skipped": "before the nightly hour",
                "overdue_closed": len(overdue),
            }
        batch = services.plan_nightly(db.session, now.date(), platforms)
        db.session.commit()
        sent = services.send_batch(db.session, batch, app.config["ERRATA_BROKER_URL"])
        return {
            "night": batch.night,
            "created": len(batch.created),
            "resent": len(batch.resent),
            "sent": sent,
            "unchanged": batch.skipped,
        }


@celery_app.task(
    name="errata.nightly",
    acks_late=True,
    time_limit=300,
    soft_time_limit=240,
    max_retries=3,
    default_retry_delay=60,
    autoretry_for=(OSError,),
)
def nightly(catch_up: bool = False) -> dict[str, Any]:
    config = flask_app().config
    return run_nightly(
        dt.datetime.now(dt.UTC),
        config["ERRATA_NIGHTLY_PLATFORMS"],
        catch_up,
        config["ERRATA_NIGHTLY_HOUR"],
    )
