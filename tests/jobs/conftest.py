"""A real stack on loopback: PostgreSQL, Redis, the web app, and Celery worker processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
from werkzeug.serving import make_server

from app import create_app
from tests.conftest import SEED_FILE, make_database, migrate_up
from tests.helpers import redis_probe, require_service, wait_for

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = os.environ.get("ERRATA_TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
VISIBILITY_TIMEOUT_S = 8


def _redis_or_skip() -> redis.Redis:
    require_service("Redis", redis_probe(REDIS_URL))
    return redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)


@dataclass
class Stack:
    base_url: str
    database_url: str
    worker_token: str
    write_token: str
    env: dict[str, str]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.base_url + path, timeout=10) as response:
            return json.loads(response.read())

    def post(self, path: str, body: dict[str, Any], token: str) -> Any:
        request = urllib.request.Request(
            self.base_url + path,
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())

    def flask(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "flask", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def start_worker(self, name: str, log: Path) -> subprocess.Popen[bytes]:
        """``celery -A app.jobs.worker worker -Q cpu`` as production runs it (one slot)."""
        with log.open("wb") as handle:
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "app.jobs.worker",
                    "worker",
                    "-Q",
                    "cpu",
                    "-c",
                    "1",
                    "-n",
                    f"{name}@%h",
                    "--without-mingle",
                    "--without-gossip",
                    "--loglevel",
                    "INFO",
                ],
                cwd=ROOT,
                env=self.env,
                stdout=handle,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.workers.append(proc)
        return proc

    def kill(self, proc: subprocess.Popen[bytes]) -> None:
        """SIGKILL the worker's whole process group (main process and pool children)."""
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)

    def wait_for(self, check: Callable[[], Any], timeout_s: float, what: str) -> Any:
        return wait_for(check, timeout_s, what)


@pytest.fixture
def stack(tmp_path: Path, sglang_env: str) -> Iterator[Stack]:
    """PostgreSQL database (throwaway), seed imported and linked, tokens, web server."""
    broker = _redis_or_skip()
    broker.flushdb()
    url, pg = make_database("postgresql", tmp_path)
    try:
        migrate_up(url)
        app = create_app({"SQLALCHEMY_DATABASE_URI": url, "ERRATA_BROKER_URL": REDIS_URL})
        cli = app.test_cli_runner()
        assert cli.invoke(args=["records", "import", str(SEED_FILE)]).exit_code == 0
        assert cli.invoke(args=["repro", "links"]).exit_code == 0
        worker_token = cli.invoke(args=["tokens", "create", "--name", "w", "--scope", "worker"])
        write_token = cli.invoke(args=["tokens", "create", "--name", "c", "--scope", "write"])
        server = make_server("127.0.0.1", 0, app, threaded=True)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        base = f"http://127.0.0.1:{server.server_port}"
        env = {
            **os.environ,
            "FLASK_APP": "app:create_app",
            "DATABASE_URL": url,
            "ERRATA_BROKER_URL": REDIS_URL,
            "ERRATA_API_URL": base,
            "ERRATA_WORKER_TOKEN": worker_token.stdout.strip(),
            "ERRATA_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT_S),
            "PYTHONUNBUFFERED": "1",
        }
        stack = Stack(base, url, worker_token.stdout.strip(), write_token.stdout.strip(), env)
        try:
            yield stack
        finally:
            for proc in stack.workers:
                stack.kill(proc)
            server.shutdown()
            server.server_close()
            with app.app_context():
                from app.extensions import db

                db.engine.dispose()
            broker.flushdb()
    finally:
        broker.close()
        if pg is not None:
            pg.drop()
