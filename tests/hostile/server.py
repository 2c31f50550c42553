"""The default server (``gunicorn`` with the repository's ``gunicorn.conf.py``, as ``make
serve`` runs it) on a throwaway SQLite database, for slow-client and load tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from tests.helpers import free_port, wait_for

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def prepare_db(path: Path, env: Mapping[str, str]) -> str:
    """Migrate and import the dataset into a fresh SQLite file; returns its URL."""
    url = f"sqlite:///{path}"
    full = {**env, "DATABASE_URL": url, "FLASK_APP": "app:create_app"}
    for args in (
        ["db", "upgrade"],
        ["records", "import", *map(str, ROOT.glob("data/records/*.jsonl"))],
    ):
        subprocess.run(
            [str(BIN / "flask"), *args], cwd=ROOT, env=full, check=True, capture_output=True
        )
    return url


@contextmanager
def gunicorn(db_url: str, tmp: Path, **env: str) -> Iterator[str]:
    """``gunicorn 'app:create_app()'`` from the repository root; yields its base URL."""
    port = free_port()
    log = (tmp / f"gunicorn-{port}.log").open("wb")
    full = {
        **os.environ,
        "DATABASE_URL": db_url,
        "ERRATA_BROKER_URL": "redis://127.0.0.1:9/0",
        "SECRET_KEY": "test",
        **env,
    }
    proc = subprocess.Popen(
        [str(BIN / "gunicorn"), "-b", f"127.0.0.1:{port}", "app:create_app()"],
        cwd=ROOT,
        env=full,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"

    def answers() -> bool:
        try:
            urllib.request.urlopen(base + "/api/v1/health", timeout=1).read()
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError((tmp / f"gunicorn-{port}.log").read_text()) from None
            return False
        return True

    try:
        wait_for(answers, 30, "gunicorn to answer health", every_s=0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def trickle(port: int, count: int, stop_after: float, interval: float = 0.5) -> list[float]:
    """``count`` slow-loris clients sending one header byte per ``interval``; returns how
    long each connection lived before the server closed it (``stop_after`` if never)."""
    started = time.monotonic()
    socks = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n")
        socks.append(s)
    lived = [stop_after] * count
    open_ = set(range(count))
    while open_ and time.monotonic() - started < stop_after:
        for i in list(open_):
            try:
                socks[i].sendall(b"X")
            except OSError:
                lived[i] = time.monotonic() - started
                open_.discard(i)
        time.sleep(interval)
    for s in socks:
        s.close()
    return lived


def probe(url: str, count: int, pause: float = 0.05) -> list[float | None]:
    """Latencies (s) of ``count`` sequential GETs; None for a failure or a 2 s timeout."""
    out: list[float | None] = []
    for _ in range(count):
        t = time.perf_counter()
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                response.read()
                ok = response.status == 200
        except OSError:
            ok = False
        out.append(time.perf_counter() - t if ok else None)
        time.sleep(pause)
    return out


def p95(values: list[float | None]) -> float:
    done = sorted(v for v in values if v is not None)
    return done[int(0.95 * (len(done) - 1))] if done else float("inf")
