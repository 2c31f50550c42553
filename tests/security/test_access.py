"""Writes need a token; headers, CSRF and rate limits hold."""

from __future__ import annotations

import copy
import json
import logging

import pytest
from sqlalchemy import func, select

from app import create_app
from app.extensions import db, limiter
from app.records.models import Record, RecordVersion

pytestmark = pytest.mark.unit  # rate limits in memory; besides the database, no service

SEED = "1760fbb64ae487e4"


def token(runner, scope: str) -> str:
    result = runner.invoke(args=["tokens", "create", "--name", f"t-{scope}", "--scope", scope])
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def count(app, model) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(model)) or 0


def test_create_and_update_records_through_the_api(app, runner, client, seed_envelope, caplog):
    write = token(runner, "write")
    headers = {"Authorization": f"Bearer {write}"}
    caplog.set_level(logging.INFO)
    created = client.post("/api/v1/records", json=seed_envelope, headers=headers)
    assert created.status_code == 201, created.get_json()
    assert created.headers["Location"].endswith(f"/api/v1/records/{SEED}")
    assert created.get_json()["result"] == "created"
    assert client.post("/api/v1/records", json=seed_envelope, headers=headers).status_code == 409

    changed = copy.deepcopy(seed_envelope)
    changed["record"]["solutions"].append("Upgrade sglang")
    updated = client.put(f"/api/v1/records/{SEED}", json=changed, headers=headers)
    assert updated.status_code == 200 and updated.get_json()["result"] == "updated"
    same = client.put(f"/api/v1/records/{SEED}", json=changed, headers=headers)
    assert same.get_json()["result"] == "unchanged"
    assert count(app, RecordVersion) == 2
    assert client.get(f"/api/v1/records/{SEED}").get_json()["solutions"][-1] == "Upgrade sglang"
    assert write not in caplog.text


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda e: e["record"].update(severity="loud"), "record.severity"),
        (lambda e: e["record"].update(messagePattern="(a+)+$"), "record.messagePattern"),
        (lambda e: e["record"].pop("errorClass"), "record.errorClass"),
        (lambda e: e.pop("datasetVersion"), "datasetVersion"),
        (lambda e: e["record"].update(lineNumber="97"), "record.lineNumber"),
    ],
)
def test_writes_validate_like_the_importer(app, runner, client, seed_envelope, mutate, field):
    write = token(runner, "write")
    body = copy.deepcopy(seed_envelope)
    mutate(body)
    response = client.post(
        "/api/v1/records", json=body, headers={"Authorization": f"Bearer {write}"}
    )
    assert response.status_code == 422
    assert response.mimetype == "application/problem+json"
    assert field in [e["field"] for e in response.get_json()["errors"]]
    # The importer reports the same field for the same line.
    line = runner.invoke(args=["records", "import", "-"], input=json.dumps(body) + "\n")
    assert f"<stdin>:1: {field}:" in line.output
    assert count(app, Record) == 0


def test_writes_need_the_write_scope(app, runner, client, seed_envelope):
    assert client.post("/api/v1/records", json=seed_envelope).status_code == 401
    worker = token(runner, "worker")
    response = client.put(
        f"/api/v1/records/{SEED}", json=seed_envelope, headers={"Authorization": f"Bearer {worker}"}
    )
    assert response.status_code == 403
    assert worker not in response.get_data(as_text=True)
    assert count(app, Record) == 0


def test_put_id_must_match(app, runner, client, seed_envelope):
    write = token(runner, "write")
    response = client.put(
        "/api/v1/records/other", json=seed_envelope, headers={"Authorization": f"Bearer {write}"}
    )
    assert response.status_code == 422


def test_security_headers(seeded, client):
    for path in ("/", f"/records/{SEED}", "/api/v1/records", "/match"):
        headers = client.get(path).headers
        csp = headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp
        assert "frame-ancestors 'none'" in csp
        assert headers["X-Content-Type-Options"] == "nosniff"


def test_match_form_needs_its_csrf_token(seeded, client):
    response = client.post("/match", data={"text": "ValueError: x"})
    assert response.status_code == 400
    assert b"reload it" in response.data
    page = client.get("/match").get_data(as_text=True)
    token_value = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    ok = client.post("/match", data={"text": "ValueError: x", "csrf_token": token_value})
    assert ok.status_code == 200


@pytest.mark.committed  # a second app, with its own engine, reads the seeded rows
def test_rate_limit_answers_429_with_retry_after(seeded, database_url):
    limited_app = create_app(
        {
            "TESTING": True,
            "SQLALCHEMY_DATABASE_URI": database_url,
            "ERRATA_MATCH_RATE_LIMIT": "3/minute",
        }
    )
    limiter.reset()
    try:
        _exercise_limit(limited_app.test_client())
    finally:
        with limited_app.app_context():
            db.session.remove()
            db.engine.dispose()


def _exercise_limit(client) -> None:
    statuses = [
        client.post("/api/v1/match", json={"text": "ValueError: x"}).status_code for _ in range(5)
    ]
    assert statuses[:3] == [200, 200, 200] and statuses[3:] == [429, 429]
    limited = client.post("/api/v1/match", json={"text": "ValueError: x"})
    assert limited.mimetype == "application/problem+json"
    assert int(limited.headers["Retry-After"]) > 0
    # Reads of a record are not limited by the match budget.
    assert client.get(f"/api/v1/records/{SEED}").status_code == 200
