"""Helpers shared by the tests: one way to need a service, a free port, a polling wait."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any

import pytest

# A probe returns None when the service is there, or the reason it is not.
Probe = Callable[[], str | None]


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def require_service(name: str, probe: Probe) -> None:
    """Skip the test (with the reason) when ``name`` is missing; under ``CI=true`` fail it:
    a green CI run means every service-backed test ran."""
    reason = probe()
    if reason is None:
        return
    message = f"{name} is not available: {reason}"
    if in_ci():
        pytest.fail(f"{message} (CI=true: this test must run)", pytrace=False)
    pytest.skip(message)


def redis_probe(url: str) -> Probe:
    def probe() -> str | None:
        import redis

        try:
            redis.Redis.from_url(url, socket_connect_timeout=2).ping()
        except redis.RedisError as exc:
            return f"{url}: {exc}"
        return None

    return probe


def executable_probe(path: str) -> Probe:
    return lambda: None if shutil.which(path) or os.path.exists(path) else f"{path} not found"


def root_probe() -> str | None:
    return None if os.geteuid() == 0 else "needs root"


def mount_probe() -> str | None:
    """``mount`` of a tmpfs works here (root, and a kernel/container that allows it)."""
    if (reason := root_probe()) is not None:
        return reason
    if shutil.which("mount") is None:
        return "mount(8) not installed"
    with tempfile.TemporaryDirectory() as target:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", target],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            return f"mount refused: {done.stderr.strip()}"
        subprocess.run(["umount", target], check=False)
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(check: Callable[[], Any], timeout_s: float, what: str, every_s: float = 0.5) -> Any:
    """Poll ``check`` until it returns something truthy; fail saying what never happened."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every_s)
    raise AssertionError(f"timed out after {timeout_s:.0f}s waiting for {what}")


def post_match_page(client: Any, text: str) -> Any:
    """Paste ``text`` into the match page as a browser does: open the form (which sets the
    session's CSRF token), then post it with that token."""
    client.get("/match")
    with client.session_transaction() as session:
        token = session["csrf_token"]
    return client.post("/match", data={"text": text, "csrf_token": token})


def store_finished_run(app: Any, record_id: str, platform: str, **fields: Any) -> int:
    """A finished run stored as the queue stores one (its latest on ``platform``); ``fields``
    are the run's columns (an outcome, fixes, whatever a test plants). Returns its id."""
    import datetime as dt

    from app.extensions import db
    from app.repro.models import DONE, ReproLatest, ReproRun

    with app.app_context():
        run = ReproRun(
            record_id=record_id,
            platform=platform,
            status=DONE,
            finished_at=dt.datetime.now(dt.UTC),
            **fields,
        )
        db.session.add(run)
        db.session.flush()
        db.session.merge(
            ReproLatest(
                record_id=record_id,
                platform=platform,
                run_id=run.id,
                trigger_outcome=run.trigger_outcome,
            )
        )
        db.session.commit()
        run_id = int(run.id)
        db.session.remove()
    return run_id
