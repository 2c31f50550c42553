"""nginx in front of gunicorn: slow clients do not starve the few sync workers."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.docker

SLOW_CLIENTS = 200  # 100x gunicorn's workers (WEB_CONCURRENCY=2)
PROBES = 40
P95_LIMIT_S = 0.100


def _slow_client(host: str, port: int, stop: threading.Event, body: bool) -> None:
    """Send a request a few bytes at a time: unfinished headers, or a body that dribbles."""
    try:
        sock = socket.create_connection((host, port), timeout=10)
    except OSError:
        return
    with sock:
        if body:
            head = b"POST /api/v1/match HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            head += b"Content-Length: 100000\r\n\r\n{"
        else:
            head = b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n"
        try:
            sock.sendall(head)
            while not stop.wait(1.0):
                sock.sendall(b" " if body else b"X-a: b\r\n")
        except OSError:
            return


def _probe(url: str) -> float:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200
        response.read()
    return time.perf_counter() - started


def test_health_stays_fast_during_a_slow_loris_attack(stack):
    parts = urlsplit(stack.base_url)
    host, port = parts.hostname or "127.0.0.1", int(parts.port or 80)
    url = stack.base_url + "/api/v1/health"
    _probe(url)  # warm connection paths

    stop = threading.Event()
    attackers = [
        threading.Thread(target=_slow_client, args=(host, port, stop, i % 2 == 1), daemon=True)
        for i in range(SLOW_CLIENTS)
    ]
    for thread in attackers:
        thread.start()
    try:
        time.sleep(2)  # every slow client connected and sending
        timings = sorted(_probe(url) for _ in range(PROBES))
    finally:
        stop.set()
        for thread in attackers:
            thread.join(timeout=15)
    p95 = timings[int(0.95 * len(timings)) - 1]
    assert p95 < P95_LIMIT_S, f"health p95 {p95 * 1000:.0f} ms under attack: {timings}"
