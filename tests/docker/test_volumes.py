"""Named volumes keep the data across `down` and `up` (runs last: it restarts the stack)."""

from __future__ import annotations

import pytest

from tests.docker.conftest import SEED

pytestmark = pytest.mark.docker

TOKEN_FILE = "/var/lib/errata/secrets/worker-token"


def test_down_and_up_keep_records_runs_and_the_worker_token(stack, write_token):
    runs_before = {r["jobId"] for r in stack.get(f"/api/v1/runs?limit=200&record={SEED}")["items"]}
    assert runs_before, "an earlier test stores runs"
    token_before = stack.compose(f"exec -T worker cat {TOKEN_FILE}").strip()

    stack.compose("down")
    stack.compose("up --detach")

    def ready():
        try:
            return stack.request("GET", "/api/v1/ready")[0] == 200
        except OSError:
            return False

    stack.wait_for(ready, 300, "the stack to come back")
    runs_after = {r["jobId"] for r in stack.get(f"/api/v1/runs?limit=200&record={SEED}")["items"]}
    assert runs_before <= runs_after
    assert stack.compose(f"exec -T worker cat {TOKEN_FILE}").strip() == token_before
    assert "is active; kept" in stack.compose("logs --no-color migrate")
    status, body = stack.request(
        "POST", f"/api/v1/records/{SEED}/runs", {"platform": "cpu"}, write_token
    )
    assert status == 202, body
