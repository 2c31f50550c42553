"""The first page and the record read API."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.unit  # besides the database backend, no service

SEED_ID = "1760fbb64ae487e4"


def test_index_lists_records(seeded, client):
    response = client.get("/")
    assert response.status_code == 200
    assert b"trtllm_mla backend can only be used with MLA models." in response.data


def test_record_api_returns_every_seed_field(seeded, client, seed_envelope):
    response = client.get(f"/api/v1/records/{SEED_ID}")
    assert response.status_code == 200
    body = response.get_json()
    for key, value in seed_envelope["record"].items():
        assert body[key] == value, key
    assert body["links"]["github"] == seed_envelope["record"]["githubUrl"]
    assert body["href"].endswith(f"/records/{SEED_ID}")


def test_unknown_record_is_a_problem_document(seeded, client):
    response = client.get("/api/v1/records/does-not-exist")
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["status"] == 404


def test_record_page_escapes_record_text(app, runner, tmp_path, seed_envelope, client):
    hostile = json.loads(json.dumps(seed_envelope))
    hostile["record"]["errorMessage"] = "<script>alert(1)</script>"
    hostile["record"]["documentation"] = '<img src=x onerror="alert(2)">'
    source = tmp_path / "x.jsonl"
    source.write_text(json.dumps(hostile) + "\n", encoding="utf-8")
    assert runner.invoke(args=["records", "import", str(source)]).exit_code == 0
    for path in ("/", f"/records/{SEED_ID}"):
        page = client.get(path).get_data(as_text=True)
        assert "<script>alert(1)" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert "<img src=x" not in page


def test_list_rejects_bad_paging(seeded, client):
    response = client.get("/api/v1/records?per_page=abc")
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
