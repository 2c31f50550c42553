"""``POST /api/v1/match`` and record writes under hostile bodies: 2xx or a 4xx problem,
never a 500, and a rejected write leaves every table as it was."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.records.schemas import RECORD_FIELDS
from tests.hostile.conftest import HOSTILE, assert_problem, row_counts, snapshot
from tests.hostile.strategies import deep, dumps, json_values

pytestmark = pytest.mark.unit  # besides the database backend, no service

MATCH_BODIES = {
    "deep-list": deep(200_000),
    "deep-object": deep(20_000, "object"),
    "huge-int-limit": b'{"text": "x", "limit": ' + b"9" * 5000 + b"}",
    "huge-int-text": b'{"text": ' + b"9" * 5000 + b"}",
    "nan-limit": b'{"text": "x", "limit": NaN}',
    "invalid-utf8": b'{"text": "\xff"}',
    "surrogate": b'{"text": "ValueError: \\ud800"}',
    "empty": b"",
    "not-json": b"text=hello",
    "array": b"[]",
    "null": b"null",
    "string": b'"ValueError"',
    "extra-field": b'{"text": "x", "admin": true}',
    "wrong-types": b'{"text": ["x"], "limit": "5"}',
}


@pytest.mark.parametrize("body", MATCH_BODIES.values(), ids=MATCH_BODIES.keys())
def test_match_hostile_bodies(corpus_app, client, body: bytes) -> None:
    response = client.post("/api/v1/match", data=body, content_type="application/json")
    assert_problem(response, 400, 413, 422)


def test_match_needs_json_content_type(corpus_app, client) -> None:
    response = client.post("/api/v1/match", data=b'{"text": "x"}', content_type="text/plain")
    assert_problem(response, 415)


def test_match_oversized_body_is_413(corpus_app, client) -> None:
    body = json.dumps({"text": "a" * (2 * 1024 * 1024)})
    response = client.post("/api/v1/match", data=body, content_type="application/json")
    assert_problem(response, 413)


@HOSTILE
@given(
    text=st.one_of(
        st.text(min_size=1, max_size=2000),
        st.text(st.characters(codec=None), min_size=1, max_size=50),
        st.sampled_from(["\x00", "Traceback (most recent call last):\n" * 50, "\n" * 1000]),
    ),
    limit=st.one_of(st.integers(-5, 60), json_values),
    compact=st.sampled_from(["", "?compact=1", "?compact=banana"]),
)
def test_match_fuzzed(corpus_app, client, text: str, limit: Any, compact: str) -> None:
    body = dumps({"text": text, "limit": limit})
    response = client.post("/api/v1/match" + compact, data=body, content_type="application/json")
    if response.status_code == 200:
        data = response.get_json()
        assert isinstance(data["matches"], list) and isinstance(data["fallback"], bool)
        return
    assert_problem(response, 400, 413, 422)


@HOSTILE
@given(body=json_values)
def test_match_arbitrary_json(corpus_app, client, body: Any) -> None:
    response = client.post("/api/v1/match", data=dumps(body), content_type="application/json")
    if response.status_code != 200:
        assert_problem(response, 400, 413, 422)


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _mutated(seed: dict[str, Any], name: str, value: Any) -> dict[str, Any]:
    envelope = json.loads(json.dumps(seed))
    if name in RECORD_FIELDS:
        envelope["record"][name] = value
    else:
        envelope[name] = value
    return envelope


FIELDS = [*RECORD_FIELDS, "datasetVersion", "draft", "extra"]


@HOSTILE
@given(name=st.sampled_from(FIELDS), value=json_values, method=st.sampled_from(["post", "put"]))
def test_record_writes_fuzzed_field(
    app, client, write_token, seed, name: str, value: Any, method: str
) -> None:
    """One field of a valid line replaced by any JSON value: written whole, or not at all."""
    envelope = _mutated(seed, name, value)
    record_id = envelope["record"].get("id")
    path = "/api/v1/records"
    if method == "put":
        path += f"/{record_id if isinstance(record_id, str) and record_id else 'x'}"
    before, contents = row_counts(app), snapshot(app)
    response = getattr(client, method)(
        path, data=dumps(envelope), content_type="application/json", headers=_auth(write_token)
    )
    if response.status_code in (200, 201):
        assert response.get_json()["result"] in {"created", "updated", "unchanged"}
        return
    assert_problem(response, 400, 404, 405, 409, 413, 422)
    assert row_counts(app) == before
    assert snapshot(app) == contents


@HOSTILE
@given(body=st.one_of(json_values, st.binary(max_size=200)))
def test_record_writes_arbitrary_body(app, client, write_token, body: Any) -> None:
    raw = body if isinstance(body, bytes) else dumps(body)
    before = row_counts(app)
    for method, path in (("post", "/api/v1/records"), ("put", "/api/v1/records/abc")):
        response = getattr(client, method)(
            path, data=raw, content_type="application/json", headers=_auth(write_token)
        )
        assert_problem(response, 400, 413, 415, 422)
    assert row_counts(app) == before


WRITE_BODIES = {
    **MATCH_BODIES,
    "huge-line-number": None,
    "huge-string": None,
    "nul-in-text": None,
    "surrogate-in-tag": None,
}


@pytest.mark.parametrize("name", WRITE_BODIES.keys())
def test_record_writes_hostile_corpus(app, client, write_token, seed, name: str) -> None:
    body = WRITE_BODIES[name]
    if body is None:
        field, value = {
            "huge-line-number": ("lineNumber", int("9" * 4000)),
            "huge-string": ("documentation", "x" * 200_000),
            "nul-in-text": ("solutions", ["a\x00b"]),
            "surrogate-in-tag": ("tags", ["\udc00"]),
        }[name]
        body = dumps(_mutated(seed, field, value))
    before = row_counts(app)
    for method, path in (
        ("post", "/api/v1/records"),
        ("put", f"/api/v1/records/{seed['record']['id']}"),
    ):
        response = getattr(client, method)(
            path, data=body, content_type="application/json", headers=_auth(write_token)
        )
        assert_problem(response, 400, 413, 422)
    assert row_counts(app) == before


def test_record_write_wrong_content_type_and_no_token(app, client, seed) -> None:
    body = json.dumps(seed)
    assert_problem(client.post("/api/v1/records", data=body, content_type="application/json"), 401)
    bad = {"Authorization": "Bearer errata_" + "A" * 300}
    assert_problem(
        client.post("/api/v1/records", data=body, content_type="application/json", headers=bad), 403
    )
    assert row_counts(app)["records"] == 0


def test_put_id_mismatch_writes_nothing(app, client, write_token, seed) -> None:
    response = client.put(
        "/api/v1/records/someone-else",
        data=json.dumps(seed),
        content_type="application/json",
        headers=_auth(write_token),
    )
    assert_problem(response, 422)
    assert row_counts(app)["records"] == 0
