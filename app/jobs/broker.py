"""The web side's Celery app: the web service sends with it, CPU workers and beat run it.

Configured from the environment when Celery configures it (``repro.settings``, the same
settings a GPU worker uses), never at import time. The harness task is registered by
``app.jobs.worker``; the web service only sends it by name.
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery

from repro.settings import WorkerSettings, celery_config

celery_app = Celery("errata")


@celery_app.on_configure.connect
def _configure(sender: Celery, **_: Any) -> None:
    settings = WorkerSettings.from_env(os.environ)
    sender.conf.update(celery_config(settings.broker_url, settings.visibility_timeout_s))
