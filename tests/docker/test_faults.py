"""Faults against the running stack: a killed worker, a restarted database, a rotated
worker token across a restart of the web container."""

from __future__ import annotations

import json
import secrets
import threading
import time
from typing import Any

import pytest

from tests.docker.conftest import ROOT, SEED, ComposeStack, finished_run, runs_of

pytestmark = pytest.mark.docker

RUN_TIMEOUT_S = 600
TOKEN_FILE = "/var/lib/errata/secrets/worker-token"


def enqueue(stack: ComposeStack, token: str, platform: str = "blackwell") -> str:
    status, body = stack.request(
        "POST", f"/api/v1/records/{SEED}/runs", {"platform": platform}, token
    )
    assert status == 202, body
    return str(body["jobId"])


def wait_ready(stack: ComposeStack) -> None:
    def ready() -> bool:
        try:
            return stack.request("GET", "/api/v1/ready")[0] == 200
        except OSError:
            return False

    stack.wait_for(ready, 180, "web to be ready again")


def test_a_worker_killed_mid_job_leads_to_redelivery_and_one_result(stack, write_token):
    job_id = enqueue(stack, write_token)

    def running() -> Any:
        mine = runs_of(stack, job_id)
        return mine and mine[0]["status"] == "running" and mine[0]

    started = stack.wait_for(running, RUN_TIMEOUT_S, f"job {job_id} to start")
    stack.compose("kill -s SIGKILL worker")
    stack.compose("up --detach --no-deps worker")

    run = stack.wait_for(finished_run(stack, job_id), RUN_TIMEOUT_S, f"job {job_id} again")
    assert run["status"] == "done", run
    assert run["attempts"] >= 2, (started, run)
    assert len(runs_of(stack, job_id)) == 1, runs_of(stack, job_id)


def _new_record_body() -> tuple[str, dict[str, Any]]:
    line = json.loads((ROOT / "data" / "records" / "sglang.jsonl").read_text().splitlines()[0])
    record_id = secrets.token_hex(8)
    line["record"]["id"] = record_id
    line["record"]["slug"] = f"{line['record']['slug']}-{record_id}"
    # Its own message, so these records never outrank the seed in /match.
    line["record"]["errorMessage"] = f"docker write test {record_id}"
    line["record"]["messagePattern"] = f"docker write test {record_id}"
    return record_id, line


def test_restarting_the_database_under_traffic_loses_no_acknowledged_write(stack, write_token):
    acknowledged: list[str] = []
    refused: list[int] = []
    stop = threading.Event()

    def traffic() -> None:
        while not stop.is_set():
            record_id, body = _new_record_body()
            try:
                status, _ = stack.request("POST", "/api/v1/records", body, write_token)
            except OSError:
                status = 0
            if status == 201:
                acknowledged.append(record_id)
            else:
                refused.append(status)
                time.sleep(0.2)

    thread = threading.Thread(target=traffic, daemon=True)
    thread.start()
    try:
        time.sleep(3)
        before = len(acknowledged)
        stack.compose("restart db")
        stack.wait_for(lambda: len(acknowledged) > before + 5, 120, "writes after the restart")
    finally:
        stop.set()
        thread.join(timeout=60)

    assert before > 0, refused
    missing = [
        rid for rid in acknowledged if stack.request("GET", f"/api/v1/records/{rid}")[0] != 200
    ]
    assert not missing, f"{len(missing)} of {len(acknowledged)} acknowledged writes lost"


def test_worker_token_rotation_works_across_a_web_restart(stack, write_token):
    old = stack.compose(f"exec -T worker cat {TOKEN_FILE}").strip()
    assert old.startswith("errata_"), old

    stack.compose("restart web")
    wait_ready(stack)
    run = stack.wait_for(finished_run(stack, enqueue(stack, write_token)), RUN_TIMEOUT_S, "a job")
    assert run["status"] == "done", run

    listing = stack.compose("exec -T web flask tokens list")
    worker_ids = [
        line.split("\t")[0]
        for line in listing.splitlines()
        if "\tworker\t" in line and "\tactive\t" in line and old[:13] in line
    ]
    assert len(worker_ids) == 1, listing
    stack.compose(f"exec -T web flask tokens revoke {worker_ids[0]}")

    rotated = stack.compose("run --rm migrate")
    assert "creating a new one" in rotated, rotated
    stack.compose("restart web worker gpu-worker-cpu")
    wait_ready(stack)
    new = stack.compose(f"exec -T worker cat {TOKEN_FILE}").strip()
    assert new.startswith("errata_") and new != old

    run = stack.wait_for(finished_run(stack, enqueue(stack, write_token)), RUN_TIMEOUT_S, "a job")
    assert run["status"] == "done", run
