"""Rate limits counted across web workers (docs/security.md).

``ERRATA_RATELIMIT_STORAGE`` set: that storage. Unset under gunicorn (which exports
``ERRATA_WEB_WORKERS``): the broker's Redis when it answers, so every worker shares one
count. No Redis: each worker counts in memory with the limits divided by the worker
count, so the service as a whole never allows more than configured.
"""

from __future__ import annotations

import math
import re
from typing import Any

LIMIT_KEYS = ("ERRATA_MATCH_RATE_LIMIT", "ERRATA_SEARCH_RATE_LIMIT")
_ONE = re.compile(r"^\s*(\d+)\s*(/|per)\s*(.+?)\s*$")


def scale_limits(spec: str, workers: int) -> str:
    """``"120/minute;20/second"`` for ``workers`` processes: each gets a share (at least 1)."""
    if workers <= 1:
        return spec
    out = []
    for part in re.split(r"[;,]", spec):
        m = _ONE.match(part)
        if m is None:
            out.append(part.strip())
            continue
        share = max(1, math.floor(int(m.group(1)) / workers))
        out.append(f"{share}{m.group(2)}{m.group(3)}")
    return ";".join(p for p in out if p)


def _redis_answers(url: str) -> bool:
    try:
        import redis

        client = redis.Redis.from_url(url, socket_connect_timeout=0.3, socket_timeout=0.3)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # any failure means: not available
        return False


def configure_limits(config: dict[str, Any]) -> None:
    """Choose the storage and per-process limits before the limiter is bound."""
    workers = int(config.get("ERRATA_WEB_WORKERS") or 0)
    if workers < 1 or config.get("ERRATA_RATELIMIT_STORAGE_CHOSEN"):
        return
    if str(config.get("RATELIMIT_STORAGE_URI", "memory://")) != "memory://":
        return
    broker = str(config.get("ERRATA_BROKER_URL") or "")
    if broker.startswith(("redis://", "rediss://")) and _redis_answers(broker):
        config["RATELIMIT_STORAGE_URI"] = broker
        return
    for key in LIMIT_KEYS:
        if key in config:
            config[key] = scale_limits(str(config[key]), workers)
