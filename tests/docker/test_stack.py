"""The compose stack end to end: seed imported and linked, matched, run on the workers."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.docker.conftest import SEED, finished_run, runs_of

pytestmark = pytest.mark.docker

PASTE = """Traceback (most recent call last):
  File "/usr/local/lib/python3.11/site-packages/sglang/launch_server.py", line 14, in <module>
    server_args = prepare_server_args(sys.argv[1:])
ValueError: trtllm_mla backend can only be used with MLA models.
"""
RUN_TIMEOUT_S = 600


def test_health_and_readiness_through_the_proxy(stack):
    assert stack.get("/api/v1/health") == {"status": "ok"}
    assert stack.get("/api/v1/ready") == {"status": "ready"}


def test_migrate_imported_and_linked_the_seed(stack):
    record = stack.get(f"/api/v1/records/{SEED}")
    assert record["id"] == SEED
    assert record["errorClass"] == "ValueError"
    logs = stack.compose("logs --no-color migrate")
    assert "linked 1 record(s) to harnesses" in logs, logs


def test_a_pasted_traceback_matches_the_seed(stack):
    status, body = stack.request("POST", "/api/v1/match", {"text": PASTE})
    assert status == 200, body
    assert body["matches"], body
    assert body["matches"][0]["id"] == SEED
    assert body["matches"][0]["kind"] == "pattern"


def test_enqueueing_needs_a_write_token(stack):
    status, body = stack.request("POST", f"/api/v1/records/{SEED}/runs", {"platform": "cpu"})
    assert status == 401, body


def test_a_queued_run_is_taken_by_the_worker_and_its_result_is_visible(
    stack, write_token, admin_token
):
    status, queued = stack.request(
        "POST", f"/api/v1/records/{SEED}/runs", {"platform": "blackwell"}, write_token
    )
    assert status == 202, queued
    assert queued["status"] == "queued"
    job_id = queued["jobId"]

    run = stack.wait_for(finished_run(stack, job_id, admin_token), RUN_TIMEOUT_S, f"job {job_id}")
    summary = {k: run[k] for k in ("status", "worker", "runOutcome", "message", "attempts")}
    assert run["status"] == "done", summary
    # The stored worker is the reporting token's name (a worker cannot claim another name).
    assert run["worker"].startswith("compose-worker (token "), run
    assert run["triggerOutcome"] == "REPRODUCED", run
    assert run["attempts"] == 1

    listed = stack.get(f"/api/v1/runs?record={SEED}&platform=blackwell")["items"]
    assert job_id in {r["jobId"] for r in listed}


def test_flask_repro_nightly_sends_through_the_broker_to_the_cpu_worker(stack, admin_token):
    output = stack.compose("exec -T web flask repro nightly --platform hopper --repeats 1")
    job_id = f"nightly-{dt.datetime.now(dt.UTC):%Y%m%d}-{SEED}-hopper"
    assert f"{job_id}: queued" in output, output

    run = stack.wait_for(
        finished_run(stack, job_id, admin_token), RUN_TIMEOUT_S, f"nightly job {job_id}"
    )
    summary = {k: run[k] for k in ("status", "worker", "runOutcome", "message", "attempts")}
    assert run["status"] == "done", summary
    assert run["worker"].startswith("compose-worker (token "), run
    assert run["origin"] == "nightly", run
    assert run["triggerOutcome"] == "DIFFERENT_ERROR", run
    assert len(runs_of(stack, job_id)) == 1


def test_the_scheduler_sent_tonights_batch(stack):
    """Beat's catch-up (ERRATA_NIGHTLY_HOUR=0, platforms `cpu`) planned on the CPU worker."""
    job_id = f"nightly-{dt.datetime.now(dt.UTC):%Y%m%d}-{SEED}-cpu"
    run = stack.wait_for(lambda: runs_of(stack, job_id), 300, f"the scheduler's {job_id}")[0]
    assert run["origin"] == "nightly", run


def test_a_real_platform_job_is_taken_by_the_gpu_worker_image(stack, write_token, admin_token):
    """The gpu-worker image (CPU variant) takes the `gpu` queue, runs the harness in its
    env and reports with the GPU worker token `migrate` registered (`--gpu`); with no CUDA
    device the harness refuses, and that is what is stored."""
    status, queued = stack.request(
        "POST", f"/api/v1/records/{SEED}/runs", {"platform": "real"}, write_token
    )
    assert status == 202, queued
    run = stack.wait_for(
        finished_run(stack, queued["jobId"], admin_token), RUN_TIMEOUT_S, "the real job"
    )
    summary = {k: run[k] for k in ("status", "worker", "runOutcome", "message", "attempts")}
    assert run["worker"].startswith("compose-gpu-worker (token "), summary
    assert run["status"] == "failed", summary
    assert "needs a CUDA device" in (run["message"] or ""), summary
