"""Heavy requests wait for a slot; light ones (health, record reads) never do."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration


def test_heavy_requests_queue_while_health_answers(app, client):
    app.config["ERRATA_HEAVY_WAIT_S"] = 0.05
    gate = app.extensions["errata_heavy_gate"]
    held = [gate.acquire(timeout=1) for _ in range(2)]  # every slot busy (default: 2)
    assert all(held)
    try:
        busy = client.post("/api/v1/match", json={"text": "ValueError: x"})
        assert busy.status_code == 503 and busy.headers["Retry-After"] == "5"
        assert busy.mimetype == "application/problem+json"
        assert client.get("/api/v1/search?q=cuda").status_code == 503
        assert client.get("/api/v1/health").status_code == 200
        assert client.get("/api/v1/openapi.json").status_code == 200
    finally:
        for _ in held:
            gate.release()
    assert client.post("/api/v1/match", json={"text": "ValueError: x"}).status_code == 200
    assert client.get("/api/v1/search?q=cuda").status_code == 200
