"""Worker-side settings, read once when a worker starts (the web side uses ``app.config``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TASK_NAME = "errata.run_harness_job"  # the one task a harness worker runs
DEFAULT_BROKER_URL = "redis://127.0.0.1:6379/0"
DEFAULT_VISIBILITY_TIMEOUT_S = 3600


@dataclass(frozen=True)
class WorkerSettings:
    """What a worker needs: the broker, and the web service it reports to."""

    broker_url: str = DEFAULT_BROKER_URL
    api_url: str = ""
    worker_token: str = ""
    visibility_timeout_s: int = DEFAULT_VISIBILITY_TIMEOUT_S

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> WorkerSettings:
        return cls(
            broker_url=environ.get("ERRATA_BROKER_URL", DEFAULT_BROKER_URL),
            api_url=environ.get("ERRATA_API_URL", ""),
            worker_token=environ.get("ERRATA_WORKER_TOKEN", ""),
            visibility_timeout_s=int(
                environ.get("ERRATA_VISIBILITY_TIMEOUT", str(DEFAULT_VISIBILITY_TIMEOUT_S))
            ),
        )


def env_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where harness environments are built: ``ERRATA_ENV_DIR``, else ``~/.cache/errata/envs``.
    Read when asked (the runner, ``repro.envs.build``), not at import time."""
    configured = (os.environ if environ is None else environ).get("ERRATA_ENV_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "errata" / "envs"


def sweep_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The sweep's resumable cache (``python -m repro.explore``): ``sweep/`` under
    ``ERRATA_ENV_DIR`` when it is set, else ``~/.cache/errata/sweep``."""
    configured = (os.environ if environ is None else environ).get("ERRATA_ENV_DIR")
    return (Path(configured) if configured else Path.home() / ".cache" / "errata") / "sweep"


# Every environment variable the worker side reads (the README configuration table lists them).
ENV_VARS = (
    "ERRATA_BROKER_URL",
    "ERRATA_API_URL",
    "ERRATA_WORKER_TOKEN",
    "ERRATA_VISIBILITY_TIMEOUT",
    "ERRATA_ENV_DIR",
)


def celery_config(broker_url: str, visibility_timeout_s: int) -> dict[str, Any]:
    """The Celery settings shared by the web side's app and the GPU worker's."""
    return {
        "broker_url": broker_url,
        "broker_connection_retry_on_startup": True,
        "broker_transport_options": {"visibility_timeout": visibility_timeout_s},
        "task_default_queue": "cpu",
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "task_ignore_result": True,
        "worker_prefetch_multiplier": 1,
        "worker_hijack_root_logger": False,
        "timezone": "UTC",
    }
