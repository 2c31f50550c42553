"""The Celery side of repro: one task that runs a harness and posts the report back.

A worker needs no database: it takes the job (record and options, plain data) from the
broker, runs the harness in its environment, and posts the runner's report to the web
service with a ``worker``-scoped token. Start a GPU worker with::

    celery -A repro.worker worker -Q gpu -c 1

Settings come from the environment when the worker starts (``repro.settings``). The task
is a shared task: the web side's Celery app (``app.jobs.broker``, used by the web service,
the CPU workers and beat) registers it too, and never imports this module's app.
"""

from __future__ import annotations

import json
import os
import socket
import time
import urllib.error
import urllib.request
from typing import Any

from celery import Celery, shared_task

from repro.runner import run_harness
from repro.settings import TASK_NAME, WorkerSettings, celery_config

HARD_TIME_LIMIT_S = 1200
SOFT_TIME_LIMIT_S = 1100
DELIVERY_ATTEMPTS = 5

celery_app = Celery("errata")  # for ``celery -A repro.worker`` only; the web side has its own


@celery_app.on_configure.connect
def _configure(sender: Celery, **_: Any) -> None:
    settings = WorkerSettings.from_env(os.environ)
    sender.conf.update(celery_config(settings.broker_url, settings.visibility_timeout_s))


class DeliveryError(RuntimeError):
    """The web service could not be reached (worth a retry)."""


class RefusedError(DeliveryError):
    """The web service refused the request (4xx): retrying, or running again, cannot help."""


class ResultClient:
    """Posts job state to ``/api/v1/jobs/<id>/...`` with a worker token."""

    def __init__(self, api_url: str, token: str, timeout_s: float = 30.0) -> None:
        if not api_url or not token:
            raise DeliveryError("ERRATA_API_URL and ERRATA_WORKER_TOKEN must be set on workers")
        self.api_url = api_url.rstrip("/")
        self.token = token
        self.timeout_s = timeout_s

    @classmethod
    def from_env(cls) -> ResultClient:
        settings = WorkerSettings.from_env(os.environ)
        return cls(settings.api_url, settings.worker_token)

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            f"{self.api_url}/api/v1/jobs/{path}",
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.token}"},
        )
        last: Exception | None = None
        for attempt in range(DELIVERY_ATTEMPTS):
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                    return dict(json.loads(response.read() or b"{}"))
            except urllib.error.HTTPError as exc:
                with exc:  # it holds the response's socket
                    if exc.code < 500:
                        raise RefusedError(
                            f"{path}: HTTP {exc.code}: {exc.read()[:300]!r}"
                        ) from None
                    last = OSError(f"HTTP {exc.code}")
            except (urllib.error.URLError, OSError, ValueError) as exc:
                last = exc
            time.sleep(min(2**attempt, 30))
        raise DeliveryError(f"{path}: web service unreachable: {last}")

    def start(self, job_id: str, worker: str, secret: str) -> dict[str, Any]:
        return self._post(f"{job_id}/start", {"worker": worker, "secret": secret})

    def finish(
        self, job_id: str, worker: str, report: dict[str, Any], secret: str
    ) -> dict[str, Any]:
        body = {"worker": worker, "report": report, "secret": secret}
        return self._post(f"{job_id}/result", body)


@shared_task(
    name=TASK_NAME,
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    time_limit=HARD_TIME_LIMIT_S,
    soft_time_limit=SOFT_TIME_LIMIT_S,
    max_retries=3,
    default_retry_delay=60,
)
def run_harness_job(self: Any, job: dict[str, Any]) -> str:
    """Run one job; a redelivered job that already has a result is skipped."""
    worker = f"{self.request.hostname or socket.gethostname()}:{os.getpid()}"
    client = ResultClient.from_env()
    job_id = str(job["job_id"])
    secret = str(job.get("secret", ""))  # the job's own secret: only we can report it
    try:
        state = client.start(job_id, worker, secret)
        if state.get("finished"):
            return "already finished"
        report = run_harness(
            job["harness"], job["env"], job["payload"], timeout_s=float(job.get("timeout_s", 600))
        )
        stored = client.finish(job_id, worker, report, secret)
    except RefusedError as exc:
        # A refused start or report is final: a retry would run the harness again.
        return f"refused: {exc}"
    except DeliveryError as exc:
        raise self.retry(exc=exc) from exc
    return "stored" if stored.get("stored") else "duplicate"
