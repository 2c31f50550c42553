"""Forged and malformed worker reports; runs and records an admin takes back.

A job is created the way the API dispatches it (``jobs.job_message`` makes the secret the
worker receives); everything else goes through HTTP and the CLI.
"""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

import pytest
from sqlalchemy import select

from app.auth.models import ApiToken
from app.extensions import db
from app.jobs import services as jobs
from app.records.models import RecordVersion
from app.repro import services as repro_services
from app.repro.models import ReproRun
from tests.helpers import store_finished_run
from tests.hostile.conftest import assert_problem, make_token

pytestmark = pytest.mark.unit

SEED = "1760fbb64ae487e4"
HOST = "gpu-box-17.internal.example"


@pytest.fixture
def linked(app, runner):
    from tests.conftest import SEED_FILE

    assert runner.invoke(args=["records", "import", str(SEED_FILE)]).exit_code == 0
    assert runner.invoke(args=["repro", "links"]).exit_code == 0
    return app


def dispatched(app, platform: str = "hopper") -> tuple[str, str]:
    """(job id, secret) of a job as its worker receives it."""
    with app.app_context():
        # The row as enqueue() writes it; the message as the broker would deliver it.
        run = repro_services.create_run(
            db.session, SEED, platform, origin="api", job_id=uuid.uuid4().hex
        )
        message = jobs.job_message(db.session, run, repeats=1)
        db.session.commit()
        db.session.remove()
    return str(message["job_id"]), str(message["secret"])


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def report(platform: str = "hopper", simulated: bool = True, **trigger: Any) -> dict[str, Any]:
    return {
        "outcome": "COMPLETED",
        "duration_s": 1.5,
        "result": {
            "harness": "sglang_attention_backend",
            "sglang_version": "0.5.23",
            "platform": {
                "name": platform,
                "simulated": simulated,
                "python": "3.11.7",
                "torch": "2.14.1",
                "cuda": "13.0",
                "host": HOST,
                "packages": {"sglang": "0.5.23", "torch": "2.14.1"},
            },
            "trigger": {
                "scenario": "trigger",
                "outcome": "REPRODUCED",
                "error": {
                    "class": "ValueError",
                    "message": "raised in /opt/errata/envs/x/lib/python3.11/site-packages/"
                    "sglang/srt/a.py",
                    "file": "/opt/errata/envs/x/lib/python3.11/site-packages/sglang/srt/a.py",
                    "line": 97,
                },
                **trigger,
            },
            "fixes": [{"scenario": "fix-triton", "backend": "triton", "outcome": "FIXED"}],
        },
    }


def post(client, job_id: str, what: str, token: str, body: dict[str, Any]):
    return client.post(f"/api/v1/jobs/{job_id}/{what}", json=body, headers=auth(token))


def test_a_job_is_started_and_finished_only_with_its_secret(linked, runner, client):
    job_id, secret = dispatched(linked)
    worker, other = make_token(runner, "worker", "w1"), make_token(runner, "worker", "w2")
    assert_problem(post(client, job_id, "start", worker, {"worker": "w"}), 422)  # no secret
    wrong = {"secret": "x" * 43}
    assert_problem(post(client, job_id, "start", worker, wrong), 403)
    assert_problem(post(client, job_id, "result", worker, wrong | {"report": report()}), 403)
    assert post(client, job_id, "start", worker, {"secret": secret}).status_code == 200
    # The secret leaked to another worker token: it still cannot finish this job.
    stolen = post(client, job_id, "result", other, {"secret": secret, "report": report()})
    assert_problem(stolen, 403)
    genuine = post(client, job_id, "result", worker, {"secret": secret, "report": report()})
    assert genuine.status_code == 200 and genuine.get_json()["stored"] is True
    run = client.get("/api/v1/runs").get_json()["items"][0]
    assert run["triggerOutcome"] == "REPRODUCED"
    with linked.app_context():
        stored = db.session.scalar(select(ReproRun).where(ReproRun.job_id == job_id))
        token = db.session.scalar(select(ApiToken).where(ApiToken.name == "w1"))
        assert stored is not None and token is not None
        assert stored.worker == f"w1 (token {token.id})"  # from the token, not free text
        assert stored.worker_token_id == token.id
        db.session.remove()


def test_real_hardware_is_accepted_only_from_gpu_worker_tokens(linked, runner, client):
    plain = make_token(runner, "worker", "cpu-worker")
    result = runner.invoke(
        args=["tokens", "create", "--name", "gpu-1", "--scope", "worker", "--gpu"]
    )
    assert result.exit_code == 0, result.output
    gpu = result.stdout.strip()
    assert "worker+gpu" in runner.invoke(args=["tokens", "list"]).output
    refused = runner.invoke(args=["tokens", "create", "--name", "x", "--scope", "write", "--gpu"])
    assert refused.exit_code == 1

    job_id, secret = dispatched(linked)  # a simulated-Hopper job
    forged = report("hopper", simulated=False)
    assert_problem(post(client, job_id, "result", plain, {"secret": secret, "report": forged}), 403)
    mismatch = report("blackwell")
    body = assert_problem(
        post(client, job_id, "result", plain, {"secret": secret, "report": mismatch}), 422
    )
    assert body["errors"][0]["field"] == "report.result.platform.name"
    ok = post(client, job_id, "result", plain, {"secret": secret, "report": report()})
    assert ok.get_json()["stored"] is True

    real_job, real_secret = dispatched(linked, "real")
    real = report("real", simulated=False)
    assert_problem(
        post(client, real_job, "result", plain, {"secret": real_secret, "report": real}), 403
    )
    stored = post(client, real_job, "result", gpu, {"secret": real_secret, "report": real})
    assert stored.status_code == 200 and stored.get_json()["stored"] is True


def test_a_cpu_run_is_not_real_gpu_hardware_any_worker_may_report_it(linked, client, runner):
    plain = make_token(runner, "worker", "cpu-worker")
    job_id, secret = dispatched(linked, "cpu")
    ok = post(client, job_id, "result", plain, {"secret": secret, "report": report("cpu", False)})
    assert ok.status_code == 200 and ok.get_json()["stored"] is True


BAD_REPORTS = [
    {
        "outcome": "COMPLETED",
        "result": {"fixes": [{"scenario": "f", "backend": ["a"], "outcome": "FIXED"}]},
    },
    {"outcome": "COMPLETED", "result": {"fixes": "all of them"}},
    {"outcome": "COMPLETED", "result": {"trigger": {"outcome": 7}}},
    {"outcome": "COMPLETED", "result": {"platform": {"name": "hopper", "simulated": "yes"}}},
    {"outcome": "COMPLETED", "duration_s": "1.5"},
    {"outcome": "GREAT"},
    {"outcome": "COMPLETED", "message": "a\x00b"},
    {"outcome": "COMPLETED", "result": {"fixes": [{"scenario": "f", "outcome": "x" * 100}]}},
]


@pytest.mark.parametrize("bad", BAD_REPORTS, ids=range(len(BAD_REPORTS)))
def test_malformed_reports_are_refused_and_nothing_is_stored(linked, runner, client, bad):
    job_id, secret = dispatched(linked)
    worker = make_token(runner, "worker")
    response = post(client, job_id, "result", worker, {"secret": secret, "report": bad})
    assert_problem(response, 422)
    for path in ("/api/v1/runs", f"/records/{SEED}", f"/api/v1/records/{SEED}"):
        assert client.get(path).status_code == 200
    assert client.get("/api/v1/runs").get_json()["items"][0]["status"] == "queued"
    extra = {"secret": secret, "report": report(), "admin": True}
    assert_problem(post(client, job_id, "result", worker, extra), 422)  # unknown field


def _store_bad_run(app) -> int:
    """A run stored before reports were validated: a list where a string belongs."""
    run_id = store_finished_run(
        app,
        SEED,
        "hopper",
        harness="sglang_attention_backend",
        env="sglang-0.5.23",
        trigger_outcome="REPRODUCED",
        fixes=[
            {"scenario": "fix", "backend": ["triton", "fa3"], "outcome": "FIXED"},
            "not an object",
            {"backend": {"x": 1}},
        ],
        trigger={"error": ["odd"], "outcome": ["REPRODUCED"]},
        drift={"status": ["moved"], "record": "x", "installed": 5},
        platform_info={"name": "hopper", "python": "3.11.7", "hostname": HOST},
        worker=f"{HOST}:4242",
        regressions=[],
    )
    from app.corpus import catalog as match_index

    match_index.forget()
    return run_id


def test_pages_and_apis_never_500_on_a_stored_bad_run(linked, client):
    _store_bad_run(linked)
    message = "trtllm_mla backend can only be used with MLA models."
    responses = {
        path: client.get(path)
        for path in (
            f"/records/{SEED}",
            f"/api/v1/records/{SEED}",
            "/api/v1/records",
            "/api/v1/records?facets=1",
            f"/api/v1/records/{SEED}/runs",
            "/api/v1/runs",
            "/api/v1/regressions",
            "/runs",
            "/runs/matrix",
            "/",
        )
    }
    responses["match"] = client.post("/api/v1/match", json={"text": f"ValueError: {message}"})
    for path, response in responses.items():
        assert response.status_code == 200, (path, response.get_data()[:300])
    assert HOST not in responses["/runs"].get_data(as_text=True)
    matches = responses["match"].get_json()["matches"]
    assert matches and matches[0]["id"] == SEED


def test_public_run_data_hides_server_details_admins_see_them(linked, runner, client):
    job_id, secret = dispatched(linked)
    worker = make_token(runner, "worker", HOST)
    assert (
        post(client, job_id, "result", worker, {"secret": secret, "report": report()}).status_code
        == 200
    )
    public = json.dumps(client.get("/api/v1/runs").get_json())
    for leak in (HOST, "/opt/errata", "3.11.7", "2.14.1", '"cuda"', "site-packages"):
        assert leak not in public, leak
    assert "sglang/srt/a.py" in public  # package-relative
    admin = make_token(runner, "admin")
    full = json.dumps(client.get("/api/v1/runs", headers=auth(admin)).get_json())
    # Paths are package-relative when stored (repro.paths), so admins see versions and
    # the worker's name, not an absolute path.
    assert "3.11.7" in full and HOST in full


def test_admin_invalidates_a_run_by_api_and_cli(linked, runner, client):
    first_job, first_secret = dispatched(linked)
    worker = make_token(runner, "worker")
    post(client, first_job, "result", worker, {"secret": first_secret, "report": report()})
    forged_job, forged_secret = dispatched(linked)
    bad = report(outcome="NOT_REPRODUCED")
    post(client, forged_job, "result", worker, {"secret": forged_secret, "report": bad})
    runs = client.get("/api/v1/runs").get_json()["items"]
    forged_id, first_id = runs[0]["id"], runs[1]["id"]
    verdict = client.get(f"/api/v1/records/{SEED}").get_json()["repro"]["hopper"]
    assert verdict["trigger"] == "NOT_REPRODUCED"

    write = make_token(runner, "write")
    assert_problem(
        client.post(
            f"/api/v1/runs/{forged_id}/invalidate", json={"reason": "x"}, headers=auth(write)
        ),
        403,
    )
    admin = make_token(runner, "admin")
    assert_problem(
        client.post(f"/api/v1/runs/{forged_id}/invalidate", json={}, headers=auth(admin)), 422
    )
    assert_problem(
        client.post("/api/v1/runs/99999/invalidate", json={"reason": "x"}, headers=auth(admin)), 404
    )
    done = client.post(
        f"/api/v1/runs/{forged_id}/invalidate", json={"reason": "forged"}, headers=auth(admin)
    )
    assert done.status_code == 200 and done.get_json()["invalid"] is True
    verdict = client.get(f"/api/v1/records/{SEED}").get_json()["repro"]["hopper"]
    assert verdict["trigger"] == "REPRODUCED" and verdict["runId"] == first_id
    history = client.get("/api/v1/runs").get_json()["items"]
    assert {r["id"] for r in history} == {forged_id, first_id}  # kept in history
    assert history[0]["status"] == "invalid" and history[0]["invalidReason"] == "forged"

    result = runner.invoke(args=["repro", "invalidate", str(first_id), "--reason", "bad box"])
    assert result.exit_code == 0, result.output
    assert "hopper" not in (client.get(f"/api/v1/records/{SEED}").get_json()["repro"] or {})
    assert runner.invoke(args=["repro", "invalidate", "424242", "--reason", "x"]).exit_code == 1


def test_admin_retracts_a_record_by_api_and_cli(linked, runner, client, seed):
    message = "ValueError: trtllm_mla backend can only be used with MLA models."
    assert client.post("/api/v1/match", json={"text": message}).get_json()["matches"]
    admin = make_token(runner, "admin")
    done = client.post(
        f"/api/v1/records/{SEED}/retract", json={"reason": "duplicate"}, headers=auth(admin)
    )
    assert done.status_code == 200 and done.get_json()["retracted"] is True
    assert_problem(client.get(f"/api/v1/records/{SEED}"), 410)
    assert client.get(f"/records/{SEED}").status_code == 410
    assert client.get("/api/v1/records").get_json()["total"] == 0
    assert client.get("/api/v1/search?q=trtllm").get_json()["total"] == 0
    assert all(
        m["id"] != SEED
        for m in client.post("/api/v1/match", json={"text": message}).get_json()["matches"]
    )
    exported = runner.invoke(args=["records", "export"]).output
    assert SEED in exported  # the history is kept
    with linked.app_context():
        versions = db.session.scalars(
            select(RecordVersion).where(RecordVersion.record_id == SEED)
        ).all()
        assert versions
        db.session.remove()
    assert runner.invoke(args=["records", "retract", "nope", "--reason", "x"]).exit_code == 1
    assert runner.invoke(args=["records", "retract", SEED, "--reason", "again"]).exit_code == 0


def test_every_write_is_audited_with_its_token(linked, runner, client, seed, caplog):
    write = make_token(runner, "write", "curator-7")
    envelope = json.loads(json.dumps(seed))
    envelope["record"]["documentation"] = "Changed by a curator."
    with caplog.at_level(logging.INFO, logger="errata.audit"):
        response = client.put(
            f"/api/v1/records/{SEED}",
            data=json.dumps(envelope),
            content_type="application/json",
            headers=auth(write),
        )
    assert response.status_code == 200, response.get_data()
    with linked.app_context():
        token = db.session.scalar(select(ApiToken).where(ApiToken.name == "curator-7"))
        assert token is not None
        line = f"record updated {SEED} by token {token.id} (curator-7)"
        assert any(line in r.getMessage() for r in caplog.records), caplog.text
        latest = db.session.scalars(
            select(RecordVersion)
            .where(RecordVersion.record_id == SEED)
            .order_by(RecordVersion.version.desc())
        ).first()
        assert latest is not None and latest.token_id == token.id
        db.session.remove()


def test_last_used_is_updated_on_every_authenticated_request(linked, runner, client):
    write = make_token(runner, "write", "lu")
    response = client.post(
        "/api/v1/records", data=b"{}", content_type="application/json", headers=auth(write)
    )
    assert_problem(response, 422)  # the write fails; the token was still used
    listing = runner.invoke(args=["tokens", "list"]).output
    assert "last used never" not in [line for line in listing.splitlines() if "\tlu\t" in line][0]
