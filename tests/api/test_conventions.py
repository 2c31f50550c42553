"""API conventions a plugin author relies on: strict parameters, one page shape, links
that never turn query names into url_for options."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.unit

SEED = "1760fbb64ae487e4"
# Names url_for takes as its own options: once they reached it as query parameters (500).
RESERVED = {"_anchor": "x", "_method": "POST", "_scheme": "javascript", "_external": "1"}
RESERVED_AND_ENDPOINT = {**RESERVED, "endpoint": "api.health"}


def _concrete(rule) -> str:
    values = {"record_id": SEED, "job_id": "no-such-job"}
    return rule.rule.replace("<record_id>", values["record_id"]).replace(
        "<job_id>", values["job_id"]
    )


def test_reserved_query_names_never_break_a_route(seeded, client):
    checked = 0
    for rule in seeded.url_map.iter_rules():
        if "GET" not in (rule.methods or ()) or rule.endpoint == "static":
            continue
        path = _concrete(rule)
        response = client.get(path, query_string=RESERVED_AND_ENDPOINT)
        assert response.status_code < 500, (path, response.status_code)
        if path.startswith("/api/") and path not in {"/api/v1/health", "/api/v1/ready"}:
            assert response.status_code == 400, path  # unknown parameters
            assert response.mimetype == "application/problem+json"
        for link in response.headers.get_all("Link"):
            assert "javascript" not in link and "#x" not in link, path
        checked += 1
    assert checked >= 12


def test_pages_drop_unknown_parameters_from_their_links(seeded, client):
    html = client.get("/", query_string={**RESERVED_AND_ENDPOINT, "q": "mla"}).get_data(
        as_text=True
    )
    assert "_scheme" not in html and "javascript:" not in html


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/records?severty=error",
        "/api/v1/search?q=mla&sort=score",
        "/api/v1/runs?limt=5",
        "/api/v1/regressions?status=done",
        "/api/v1/records/1760fbb64ae487e4?full=1",
    ],
)
def test_unknown_parameter_is_a_400_problem(seeded, client, path):
    response = client.get(path)
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"
    assert "unknown parameter" in response.get_json()["detail"]


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/records?severity=fatal",
        "/api/v1/records?repro=MAYBE",
        "/api/v1/runs?status=paused",
        "/api/v1/runs?platform=tpu",
        "/api/v1/records?compact=maybe",
    ],
)
def test_invalid_enum_value_is_a_400_problem(seeded, client, path):
    response = client.get(path)
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/records",
        "/api/v1/search?q=mla",
        "/api/v1/runs",
        "/api/v1/regressions",
        f"/api/v1/records/{SEED}/runs",
    ],
)
def test_every_list_has_one_page_shape_and_link_headers(seeded, client, path):
    response = client.get(path)
    assert response.status_code == 200
    body = response.get_json()
    assert {"items", "total", "page", "perPage", "next"} <= set(body)
    assert body["page"] == 1 and body["total"] >= len(body["items"])
    links = response.headers["Link"]
    assert 'rel="first"' in links and 'rel="last"' in links
