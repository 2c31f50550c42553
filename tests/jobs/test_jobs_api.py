"""Tokens, job endpoints, enqueueing with the broker up and down, nightly catch-up."""

from __future__ import annotations

import base64
import json

import pytest
import redis

from tests.helpers import redis_probe, require_service
from tests.jobs.conftest import REDIS_URL

pytestmark = pytest.mark.integration  # Redis (the broker), and PostgreSQL on that backend

SEED = "1760fbb64ae487e4"
DEAD_BROKER = "redis://127.0.0.1:1/0"


def make_token(runner, scope: str) -> str:
    result = runner.invoke(args=["tokens", "create", "--name", f"t-{scope}", "--scope", scope])
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def linked(seeded, runner):
    assert runner.invoke(args=["repro", "links"]).exit_code == 0
    return seeded


@pytest.fixture
def broker():
    url = REDIS_URL.rsplit("/", 1)[0] + "/12"
    require_service("Redis", redis_probe(url))
    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    client.flushdb()
    yield client, url
    client.flushdb()


def test_tokens_are_shown_once_and_can_be_revoked(linked, runner, client):
    token = make_token(runner, "worker")
    assert token.startswith("errata_")
    listing = runner.invoke(args=["tokens", "list"]).output
    assert "worker" in listing and token not in listing
    ok = client.post("/api/v1/jobs/nope/start", json={"worker": "w"}, headers=auth(token))
    assert ok.status_code == 404  # authorised; the job does not exist
    token_id = listing.split("\t", 1)[0]
    assert runner.invoke(args=["tokens", "revoke", token_id]).exit_code == 0
    revoked = client.post("/api/v1/jobs/nope/start", json={"worker": "w"}, headers=auth(token))
    assert revoked.status_code == 403


def test_bad_token_commands(linked, runner):
    result = runner.invoke(args=["tokens", "create", "--name", "x", "--scope", "root"])
    assert result.exit_code == 2
    result = runner.invoke(args=["tokens", "revoke", "999"])
    assert result.exit_code == 1 and "no token with id 999" in result.output


@pytest.mark.parametrize(
    ("headers", "status"),
    [({}, 401), ({"Authorization": "Basic abc"}, 401), ({"Authorization": "Bearer nope"}, 403)],
)
def test_job_endpoints_need_a_worker_token(linked, client, headers, status):
    response = client.post("/api/v1/jobs/x/result", json={"worker": "w"}, headers=headers)
    assert response.status_code == status
    assert response.mimetype == "application/problem+json"


def test_scopes_are_enforced(linked, runner, client):
    write = make_token(runner, "write")
    response = client.post("/api/v1/jobs/x/start", json={"worker": "w"}, headers=auth(write))
    assert response.status_code == 403
    admin = make_token(runner, "admin")
    response = client.post("/api/v1/jobs/x/start", json={"worker": "w"}, headers=auth(admin))
    assert response.status_code == 404


def test_trigger_run_with_the_broker_down_is_a_clear_503(linked, runner, client):
    linked.config["ERRATA_BROKER_URL"] = DEAD_BROKER
    write = make_token(runner, "write")
    response = client.post(
        f"/api/v1/records/{SEED}/runs", json={"platform": "hopper"}, headers=auth(write)
    )
    assert response.status_code == 503
    body = response.get_json()
    assert "did not take the job" in body["detail"]
    run = client.get("/api/v1/runs").get_json()["items"][0]
    assert run["status"] == "failed" and run["runOutcome"] == "ENQUEUE_FAILED"


def test_trigger_run_queues_a_job(linked, runner, client, broker):
    redis_client, url = broker
    linked.config["ERRATA_BROKER_URL"] = url
    write = make_token(runner, "write")
    response = client.post(
        f"/api/v1/records/{SEED}/runs", json={"platform": "real"}, headers=auth(write)
    )
    assert response.status_code == 202
    assert response.get_json()["status"] == "queued"
    assert redis_client.llen("gpu") == 1  # real hardware goes to the GPU queue


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"platform": "mars"}, 400),
        ({"platform": "blackwell"}, None),
    ],
)
def test_trigger_run_validation(linked, runner, client, body, status):
    linked.config["ERRATA_BROKER_URL"] = DEAD_BROKER
    write = make_token(runner, "write")
    response = client.post(f"/api/v1/records/{SEED}/runs", json=body, headers=auth(write))
    assert response.status_code == (status or 503)
    missing = client.post("/api/v1/records/nope/runs", json={}, headers=auth(write))
    assert missing.status_code == 404


def queued_secret(redis_client, queue: str = "cpu") -> str:
    """The secret inside the newest job message on ``queue`` (what the worker receives)."""
    raw = json.loads(redis_client.lindex(queue, 0))
    args = json.loads(base64.b64decode(raw["body"]))[0]
    return str(args[0]["secret"])


def test_worker_reports_are_validated_and_stored_once(linked, runner, client, broker):
    linked.config["ERRATA_BROKER_URL"] = broker[1]
    write, worker = make_token(runner, "write"), make_token(runner, "worker")
    job_id = client.post(
        f"/api/v1/records/{SEED}/runs", json={"platform": "hopper"}, headers=auth(write)
    ).get_json()["jobId"]
    secret = queued_secret(broker[0])
    for bad in (
        {},
        {"secret": secret, "worker": ""},
        {"secret": secret, "report": "x"},
        {"secret": secret, "report": {"outcome": "GREAT"}},
    ):
        response = client.post(f"/api/v1/jobs/{job_id}/result", json=bad, headers=auth(worker))
        assert response.status_code == 422, bad
    started = client.post(
        f"/api/v1/jobs/{job_id}/start", json={"secret": secret}, headers=auth(worker)
    ).get_json()
    assert started["status"] == "running" and started["finished"] is False
    report = {"outcome": "TIMEOUT", "message": "harness did not finish within 600s"}
    first = client.post(
        f"/api/v1/jobs/{job_id}/result",
        json={"secret": secret, "report": report},
        headers=auth(worker),
    ).get_json()
    second = client.post(
        f"/api/v1/jobs/{job_id}/result",
        json={"secret": secret, "report": report},
        headers=auth(worker),
    ).get_json()
    assert first["stored"] is True and second["stored"] is False
    run = client.get("/api/v1/runs").get_json()["items"][0]
    assert run["status"] == "failed" and run["triggerOutcome"] == "TIMEOUT"
    assert run["worker"] is None  # the public does not see who ran it; admins do
    admin = make_token(runner, "admin")
    run = client.get("/api/v1/runs", headers=auth(admin)).get_json()["items"][0]
    assert run["worker"].startswith("t-worker (token ")
    # A redelivered job that already has its result is not run again.
    again = client.post(
        f"/api/v1/jobs/{job_id}/start", json={"secret": secret}, headers=auth(worker)
    ).get_json()
    assert again["finished"] is True


def test_nightly_catches_up_after_the_broker_was_down(linked, runner, client, broker):
    _, url = broker
    linked.config["ERRATA_BROKER_URL"] = DEAD_BROKER
    down = runner.invoke(
        args=["repro", "nightly", "--platform", "blackwell", "--platform", "hopper"]
    )
    assert down.exit_code == 1 and "NOT SENT" in down.output
    statuses = {r["status"] for r in client.get("/api/v1/runs").get_json()["items"]}
    assert statuses == {"failed"}

    linked.config["ERRATA_BROKER_URL"] = url
    up = runner.invoke(args=["repro", "nightly", "--platform", "blackwell", "--platform", "hopper"])
    assert up.exit_code == 0, up.output
    assert "0 new job(s), 2 to re-send" in up.output
    runs = client.get("/api/v1/runs").get_json()["items"]
    assert len(runs) == 2 and {r["status"] for r in runs} == {"queued"}


def test_nightly_without_platforms_uses_the_configured_ones(linked, runner, client, broker):
    _, url = broker
    linked.config["ERRATA_BROKER_URL"] = url
    linked.config["ERRATA_NIGHTLY_PLATFORMS"] = ["hopper"]  # as ERRATA_NIGHTLY_PLATFORMS=hopper
    result = runner.invoke(args=["repro", "nightly"])
    assert result.exit_code == 0, result.output
    assert "1 new job(s)" in result.output
    runs = client.get("/api/v1/runs").get_json()["items"]
    assert [r["platform"] for r in runs] == ["hopper"]


def test_runs_pages_render(linked, client):
    assert client.get("/runs").status_code == 200
    assert client.get("/runs?status=bogus").status_code == 200
    assert client.get("/runs/matrix?nights=999").status_code == 200
    assert client.get("/api/v1/runs?status=bogus").status_code == 400
