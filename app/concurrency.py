"""At most a few CPU-heavy requests (match, search, lists) run at once per process.

gunicorn threads share one interpreter lock: with 32 threads matching at once, a health
check waits for its turn behind all of them. Heavy requests wait here instead (without the
lock), so light ones (health, ready, record reads) stay fast; a heavy request that waits
longer than ``ERRATA_HEAVY_WAIT_S`` is answered 503 with ``Retry-After``.
"""

from __future__ import annotations

import threading

from flask import Flask, Response, current_app, g, request

from app.errors import problem

HEAVY_ENDPOINTS = frozenset(
    {"api.match", "api.search_records", "api.list_records", "records.index", "records.match_page"}
)


def _gate() -> Response | None:
    if request.endpoint not in HEAVY_ENDPOINTS or request.method not in ("GET", "POST"):
        return None
    if request.endpoint == "records.match_page" and request.method != "POST":
        return None
    gate: threading.BoundedSemaphore = current_app.extensions["errata_heavy_gate"]
    if not gate.acquire(timeout=float(current_app.config.get("ERRATA_HEAVY_WAIT_S", 15.0))):
        response = problem(503, "Service Unavailable", "Busy; try again in a few seconds.")
        response.headers["Retry-After"] = "5"
        return response
    g._heavy_gate = gate
    return None


def _release(_exc: BaseException | None) -> None:
    gate = g.pop("_heavy_gate", None)
    if gate is not None:
        gate.release()


def init_app(app: Flask) -> None:
    slots = int(app.config.get("ERRATA_HEAVY_CONCURRENCY", 2))
    app.extensions["errata_heavy_gate"] = threading.BoundedSemaphore(max(1, slots))
    app.before_request(_gate)
    app.teardown_request(_release)
