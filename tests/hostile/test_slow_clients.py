"""The default server under slow-loris clients, oversize chunked bodies and shared limits.

Each test runs real gunicorn with the repository's ``gunicorn.conf.py`` (what ``make serve``
starts). Latency figures are printed, not asserted (bench/slow_clients.py measures them);
the assertions are what a user notices: health answers, slow clients are cut off, limits
hold for the whole service.
"""

from __future__ import annotations

import gzip
import http.client
import json
import os
import threading
import urllib.parse
from pathlib import Path

import pytest
import redis

from tests.helpers import redis_probe, require_service
from tests.hostile.server import gunicorn, p95, prepare_db, probe, trickle

pytestmark = pytest.mark.integration


@pytest.fixture
def redis_url() -> str:
    """An emptied Redis database for shared rate-limit counters."""
    url = os.environ.get("ERRATA_TEST_REDIS_URL", "redis://127.0.0.1:6379/13")
    require_service("Redis", redis_probe(url))
    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    try:
        client.flushdb()
    finally:
        client.close()
    return url


@pytest.fixture(scope="module")
def db_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    return prepare_db(tmp_path_factory.mktemp("served") / "errata.db", {})


def test_slow_loris_clients_cannot_starve_health(db_url: str, tmp_path: Path) -> None:
    with gunicorn(db_url, tmp_path, ERRATA_READ_DEADLINE_S="3") as base:
        port = urllib.parse.urlsplit(base).port
        assert port is not None
        lived: list[float] = []
        attack = threading.Thread(target=lambda: lived.extend(trickle(port, 24, 12.0)))
        attack.start()
        latencies = probe(base + "/api/v1/health", 80)
        attack.join()
    print(f"health during 24 slow-loris clients: p95 {p95(latencies) * 1000:.1f} ms")
    # Health answers 200 within 2 s (at least 95% of the probes, on a loaded CI machine).
    assert latencies.count(None) <= len(latencies) // 20, latencies
    # The read deadline closes every trickling connection (3 s here), not after 12 s.
    assert len(lived) == 24 and max(lived) < 10.0, lived


def _chunked(port: int, size: int) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    body = json.dumps({"text": "x" * size}).encode()
    chunks = (body[i : i + 65536] for i in range(0, len(body), 65536))
    try:
        conn.request(
            "POST",
            "/api/v1/match",
            body=chunks,
            headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
            encode_chunked=True,
        )
        return conn.getresponse().status
    except (ConnectionError, OSError):
        return -1  # the server closed while we were still sending: it refused the body
    finally:
        conn.close()


def test_oversize_chunked_bodies_get_413(db_url: str, tmp_path: Path) -> None:
    with gunicorn(db_url, tmp_path) as base:
        port = urllib.parse.urlsplit(base).port
        assert port is not None
        assert _chunked(port, 2 * 1024 * 1024) in (413, -1)
        assert _chunked(port, 5 * 1024 * 1024) in (413, -1)
        assert _chunked(port, 1000) == 200  # a small chunked body is served


def _post_match(base: str) -> int:
    conn = http.client.HTTPConnection(urllib.parse.urlsplit(base).netloc, timeout=10)
    try:
        conn.request(
            "POST",
            "/api/v1/match",
            body=json.dumps({"text": "ValueError: nothing"}),
            headers={"Content-Type": "application/json", "Connection": "close"},
        )
        return conn.getresponse().status
    finally:
        conn.close()


@pytest.mark.parametrize("storage", ["redis", "memory"])
def test_rate_limits_hold_across_workers(db_url, tmp_path, redis_url, storage) -> None:
    env = {"WEB_CONCURRENCY": "2", "ERRATA_MATCH_RATE_LIMIT": "10/minute"}
    if storage == "redis":
        env["ERRATA_BROKER_URL"] = redis_url  # the broker's Redis counts for every worker
    with gunicorn(db_url, tmp_path, **env) as base:
        statuses = [_post_match(base) for _ in range(30)]
    allowed = statuses.count(200)
    assert set(statuses) <= {200, 429}, statuses
    if storage == "redis":
        assert allowed == 10, statuses
    else:
        assert 1 <= allowed <= 10, statuses  # each of 2 workers gets 5: never 20


def test_one_connection_serves_several_gzipped_answers(db_url: str, tmp_path: Path) -> None:
    """Keep-alive and gzip on the default server, as an HTTP client sees them."""
    with gunicorn(db_url, tmp_path) as base:
        conn = http.client.HTTPConnection(urllib.parse.urlsplit(base).netloc, timeout=10)
        try:
            bodies, sockets = [], []
            for _ in range(3):
                conn.request(
                    "GET", "/api/v1/records?per_page=100", headers={"Accept-Encoding": "gzip"}
                )
                response = conn.getresponse()
                assert response.status == 200
                assert response.getheader("Content-Encoding") == "gzip"
                assert "Accept-Encoding" in (response.getheader("Vary") or "")
                bodies.append(json.loads(gzip.decompress(response.read())))
                sockets.append(conn.sock)
        finally:
            conn.close()
    assert sockets[0] is not None and sockets.count(sockets[0]) == 3  # never reconnected
    assert bodies[0]["total"] >= 1 and bodies[0] == bodies[-1]
