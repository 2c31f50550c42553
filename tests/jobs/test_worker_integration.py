"""Nightly jobs through a real broker and real worker processes, results in PostgreSQL."""

from __future__ import annotations

import time
import urllib.error

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.sglang]

SEED = "1760fbb64ae487e4"


def _runs(stack, **params):
    query = "&".join(f"{k}={v}" for k, v in {"record": SEED, **params}.items())
    return stack.get(f"/api/v1/runs?{query}")["items"]


def test_nightly_jobs_run_on_a_worker_and_show_tonights_verdicts(stack, tmp_path):
    enqueued = stack.flask(
        "repro", "nightly", "--platform", "blackwell", "--platform", "hopper", "--repeats", "1"
    )
    assert enqueued.returncode == 0, enqueued.stdout + enqueued.stderr
    assert "2 new job(s)" in enqueued.stdout
    assert {r["status"] for r in _runs(stack)} == {"queued"}

    # Enqueueing the same night again sends nothing new.
    again = stack.flask("repro", "nightly", "--platform", "blackwell", "--platform", "hopper")
    assert "0 new job(s)" in again.stdout

    stack.start_worker("cpu1", tmp_path / "worker.log")
    runs = stack.wait_for(
        lambda: (r := _runs(stack)) and all(x["status"] == "done" for x in r) and r,
        240,
        "both nightly jobs to finish",
    )
    assert len(runs) == 2
    assert all(r["origin"] == "nightly" and r["worker"] is None for r in runs)  # public view
    repro = stack.get(f"/api/v1/records/{SEED}")["repro"]
    assert repro["blackwell"]["trigger"] == "REPRODUCED"
    assert repro["hopper"]["trigger"] == "DIFFERENT_ERROR"
    assert stack.get("/api/v1/regressions")["total"] == 0


def test_worker_killed_mid_job_ends_with_one_result(stack, tmp_path):
    run = stack.post(f"/api/v1/records/{SEED}/runs", {"platform": "blackwell"}, stack.write_token)
    job_id = run["jobId"]
    assert run["status"] == "queued"

    first = stack.start_worker("doomed", tmp_path / "doomed.log")
    stack.wait_for(lambda: _runs(stack)[0]["status"] == "running", 120, "the job to start")
    time.sleep(2)  # mid-job: the harness is importing sglang
    stack.kill(first)
    assert _runs(stack)[0]["status"] == "running"

    stack.start_worker("rescuer", tmp_path / "rescuer.log")
    done = stack.wait_for(
        lambda: (r := _runs(stack)[0])["status"] == "done" and r,
        240,
        "the redelivered job to finish",
    )
    runs = _runs(stack)
    assert [r["jobId"] for r in runs] == [job_id]  # one row, one result
    assert done["attempts"] == 2
    assert done["worker"] is None  # the public view; the run records the worker's token
    assert done["triggerOutcome"] == "REPRODUCED"

    # A late report without the job's secret is refused, and nothing changes.
    with pytest.raises(urllib.error.HTTPError) as late:
        stack.post(
            f"/api/v1/jobs/{job_id}/result",
            {"secret": "x" * 43, "report": {"outcome": "TIMEOUT"}},
            stack.worker_token,
        )
    with late.value:  # the error holds the response's socket
        assert late.value.code == 403
    assert _runs(stack)[0]["triggerOutcome"] == "REPRODUCED"
