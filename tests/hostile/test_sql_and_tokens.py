"""SQL and FTS metacharacters in every query parameter of every GET endpoint and page
(200 or 400, data unchanged), and API tokens never echoed, listed or logged."""

from __future__ import annotations

import json
import logging
from urllib.parse import quote

import pytest

from tests.hostile.conftest import make_token, snapshot

pytestmark = pytest.mark.unit  # besides the database backend, no service

META = [
    "'",
    '"',
    ";",
    "--",
    "/*",
    "*/",
    "%",
    "_",
    "\\",
    "' OR '1'='1",
    "'; DROP TABLE records; --",
    "NEAR",
    "NEAR(a b)",
    "*",
    "a OR b",
    "a AND NOT b",
    "col:term",
    "errorMessage:mla",
    "^mla",
    '"mla',
    "mla*",
    "(",
    ")",
    "{}",
    "$1",
    ":param",
    "ｍｌａ",
    "日本語 エラー",
    "\u202e",
    "\ufeff",
    "%00",
    "\x00",
    "a" * 5000,
]
PARAMS = {
    "/api/v1/records": [
        "q",
        "repo",
        "errorType",
        "errorClass",
        "severity",
        "tag",
        "repro",
        "page",
        "per_page",
        "compact",
        "facets",
        "exclude_drafts",
    ],
    "/api/v1/search": ["q", "repo", "tag", "severity", "page", "per_page"],
    "/api/v1/records/1760fbb64ae487e4": ["compact"],
    "/api/v1/records/1760fbb64ae487e4/runs": ["limit", "offset"],
    "/api/v1/runs": ["status", "platform", "record", "limit", "offset"],
    "/api/v1/regressions": ["x"],
    "/": ["q", "repo", "errorType", "errorClass", "severity", "tag", "page", "per_page"],
    "/runs": ["status"],
    "/runs/matrix": ["nights"],
    "/match": ["text"],
    "/api/v1/docs": ["x"],
}


@pytest.mark.parametrize("path", PARAMS)
def test_metacharacters_in_every_parameter(corpus_app, client, path: str) -> None:
    before = snapshot(corpus_app)
    for name in PARAMS[path]:
        for value in META:
            response = client.get(
                path,
                query_string={name: value, "q": "mla"}
                if path.endswith("/search") and name != "q"
                else {name: value},
            )
            assert response.status_code in (200, 400), (path, name, value, response.status_code)
            if path.startswith("/api/") and response.status_code == 400:
                assert response.mimetype == "application/problem+json"
            assert b"Traceback" not in response.get_data()
    for value in META:
        response = client.get(f"/api/v1/records/{quote(value, safe='')}")
        assert response.status_code in (308, 400, 404), (value, response.status_code)
        response = client.get(f"/records/{quote(value, safe='')}")
        assert response.status_code in (308, 400, 404), (value, response.status_code)
    assert snapshot(corpus_app) == before


def test_nul_in_path_is_400_not_500(corpus_app, client) -> None:
    for path in (
        "/api/v1/records/%00",
        "/records/%00",
        "/api/v1/records/a%00/runs",
        "/api/v1/runs?record=%00",
        "/api/v1/runs?platform=%00",
        "/runs?status=%00",
    ):
        response = client.get(path)
        assert response.status_code == 400, (path, response.status_code)


def test_matrix_nights_unicode_digit(corpus_app, client) -> None:
    for nights in ("²", "٣", "１", "-1", "99999999999999999999", ""):
        assert client.get("/runs/matrix", query_string={"nights": nights}).status_code == 200


def test_token_not_echoed_on_errors(app, client, runner, seed) -> None:
    token = make_token(runner, "write")
    headers = {"Authorization": f"Bearer {token}"}
    bodies = [b"{", b"[]", json.dumps({"record": {}}).encode(), b"[" * 100_000]
    for body in bodies:
        for method, path in (
            ("post", "/api/v1/records"),
            ("put", "/api/v1/records/x"),
            ("post", "/api/v1/jobs/x/start"),
            ("post", "/api/v1/records/x/runs"),
        ):
            response = getattr(client, method)(
                path, data=body, content_type="application/json", headers=headers
            )
            assert 400 <= response.status_code < 500
            assert token.encode() not in response.get_data()
            assert token not in str(response.headers)
    listed = runner.invoke(args=["tokens", "list"])
    assert listed.exit_code == 0 and token not in listed.output
    assert token[:13] in listed.output  # the prefix, to recognise it


def test_token_not_logged_during_write(app, client, runner, seed, caplog) -> None:
    token = make_token(runner, "write")
    headers = {"Authorization": f"Bearer {token}"}
    with caplog.at_level(logging.DEBUG):
        created = client.post(
            "/api/v1/records",
            data=json.dumps(seed),
            content_type="application/json",
            headers=headers,
        )
        assert created.status_code == 201
        client.put(
            f"/api/v1/records/{seed['record']['id']}",
            data=b"{",
            content_type="application/json",
            headers=headers,
        )
    assert caplog.records, "the write should be logged"
    assert token not in caplog.text
    assert token.removeprefix("errata_") not in caplog.text
