"""The compose stack end to end: seed imported, matched, run on the CPU worker, stored."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.docker

SEED = "1760fbb64ae487e4"
PASTE = """Traceback (most recent call last):
  File "/usr/local/lib/python3.11/site-packages/sglang/launch_server.py", line 14, in <module>
    server_args = prepare_server_args(sys.argv[1:])
ValueError: trtllm_mla backend can only be used with MLA models.
"""
RUN_TIMEOUT_S = 600


def test_health_and_readiness(stack):
    assert stack.get("/api/v1/health") == {"status": "ok"}
    assert stack.get("/api/v1/ready") == {"status": "ready"}


def test_migrate_imported_and_linked_the_seed(stack):
    record = stack.get(f"/api/v1/records/{SEED}")
    assert record["id"] == SEED
    assert record["errorClass"] == "ValueError"


def test_a_pasted_traceback_matches_the_seed(stack):
    status, body = stack.request("POST", "/api/v1/match", {"text": PASTE})
    assert status == 200, body
    assert body["matches"], body
    assert body["matches"][0]["id"] == SEED
    assert body["matches"][0]["kind"] == "pattern"


def test_enqueueing_needs_a_write_token(stack):
    status, body = stack.request("POST", f"/api/v1/records/{SEED}/runs", {"platform": "cpu"})
    assert status == 401, body


def test_a_queued_run_is_taken_by_the_worker_and_its_result_is_visible(stack):
    token = stack.create_token("docker-test", "write")
    status, queued = stack.request(
        "POST", f"/api/v1/records/{SEED}/runs", {"platform": "blackwell"}, token
    )
    assert status == 202, queued
    assert queued["status"] == "queued"
    job_id = queued["jobId"]

    def finished():
        runs = stack.get(f"/api/v1/records/{SEED}/runs?limit=200")["items"]
        mine = [r for r in runs if r["jobId"] == job_id]
        return mine and mine[0]["status"] in {"done", "failed", "invalid"} and mine[0]

    run = stack.wait_for(finished, RUN_TIMEOUT_S, f"job {job_id} to finish on the worker")
    assert run["status"] == "done", run
    assert run["worker"].startswith("cpu@"), run
    assert run["triggerOutcome"] == "REPRODUCED", run
    assert run["attempts"] == 1

    listed = stack.get(f"/api/v1/runs?record={SEED}&platform=blackwell")["items"]
    assert job_id in {r["jobId"] for r in listed}
