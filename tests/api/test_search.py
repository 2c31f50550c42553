"""Search and listing through the HTTP API; the same order on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from tests.conftest import import_envelopes, make_envelope

pytestmark = pytest.mark.unit  # besides the database backend, no service

SEED = "1760fbb64ae487e4"

# The expected order is written down once and asserted on both backends.
A = "a0000000000000"
EXPECTED = {
    # Message hits outrank body hits; ties go by id.
    "mla": [SEED, A + "02", A + "06", A + "03", A + "04", A + "05"],
    "attention backend": [A + "05", A + "06", A + "04", SEED, A + "02", A + "03"],
    "cuda memory": [A + "03"],
    "flashinf": [A + "04", SEED, A + "02", A + "05", A + "06"],
    "MLA models": [SEED, A + "02", A + "06", A + "03", A + "04", A + "05"],
    "no such words here": [],
}


@pytest.mark.parametrize("query", list(EXPECTED))
def test_search_order_is_fixed(corpus_app, client, query):
    response = client.get("/api/v1/search", query_string={"q": query})
    assert response.status_code == 200
    ids = [item["id"] for item in response.get_json()["items"]]
    assert ids == EXPECTED[query]


def test_search_filters_and_facets(corpus_app, client):
    body = client.get(
        "/api/v1/records", query_string={"q": "attention", "tag": "mla", "facets": "1"}
    ).get_json()
    ids = {item["id"] for item in body["items"]}
    assert ids == {SEED, A + "02", A + "06"}
    repos = {f["value"]: f["count"] for f in body["facets"]["repo"]}
    assert repos == {"sgl-project/sglang": 2, "vllm-project/vllm": 1}

    body = client.get(
        "/api/v1/records", query_string=[("severity", "critical"), ("severity", "warning")]
    ).get_json()
    assert {i["id"] for i in body["items"]} == {"a000000000000003", "a000000000000004"}

    body = client.get("/api/v1/records", query_string={"exclude_drafts": "1"}).get_json()
    assert body["total"] == 5


def test_pagination_links(corpus_app, client):
    first = client.get("/api/v1/records", query_string={"per_page": 4}).get_json()
    assert len(first["items"]) == 4 and first["total"] == 6 and first["next"]
    second = client.get(first["next"]).get_json()
    assert len(second["items"]) == 2 and second["next"] is None
    seen = [i["id"] for i in first["items"] + second["items"]]
    assert len(set(seen)) == 6


def test_compact_records(corpus_app, client):
    body = client.get("/api/v1/records", query_string={"compact": "1"}).get_json()
    item = body["items"][0]
    assert set(item) == {
        "id",
        "errorClass",
        "errorMessage",
        "severity",
        "solutions",
        "href",
        "curated",
        "repo",
        "releases",
        "at",
    }


@pytest.mark.parametrize(
    "params",
    [
        {"page": "0"},
        {"per_page": "1000"},
        {"per_page": "x"},
        {"compact": "maybe"},
        {"q": "x" * 600},
        {"severity": "e" * 600},
    ],
)
def test_bad_parameters_are_problems(corpus_app, client, params):
    response = client.get("/api/v1/records", query_string=params)
    assert response.status_code == 400
    assert response.mimetype == "application/problem+json"


@pytest.mark.parametrize(
    "query",
    [
        "' OR 1=1 --",
        '"; DROP TABLE records; --',
        "mla*",
        "NEAR(a b)",
        "a AND OR NOT",
        "%_\\",
        "\x00",
    ],
)
def test_hostile_queries_are_plain_text(corpus_app, client, query):
    response = client.get("/api/v1/search", query_string={"q": query})
    assert response.status_code in (200, 400)
    page = client.get("/", query_string={"q": query, "repo": query})
    assert page.status_code in (200, 400)
    assert client.get("/api/v1/records").get_json()["total"] == 6


def test_search_requires_q(corpus_app, client):
    response = client.get("/api/v1/search")
    assert response.status_code == 400


def test_order_is_total_past_hundreds_of_matches(app, runner, client, tmp_path, seed_envelope):
    """Many matches: the same full order on both backends, every page reachable."""
    envelopes = []
    for i in range(620):
        # Every third record has the word in its message, the rest only in a solution.
        message = f"zeta failure number {i}" if i % 3 == 0 else f"unrelated failure {i}"
        envelopes.append(
            make_envelope(
                seed_envelope,
                f"z{i:015d}",
                errorMessage=message,
                messagePattern=f"unique pattern {i}",
                solutions=["check the zeta setting"],
                tags=[],
            )
        )
    import_envelopes(runner, tmp_path / "many.jsonl", envelopes)
    expected = sorted(
        (e["record"]["id"] for e in envelopes),
        key=lambda rid: (int(rid[1:]) % 3 != 0, rid),
    )
    seen: list[str] = []
    page = 1
    while True:
        body = client.get(
            "/api/v1/records", query_string={"q": "zeta", "per_page": 100, "page": page}
        ).get_json()
        seen += [item["id"] for item in body["items"]]
        if not body["next"]:
            break
        page += 1
    assert body["total"] == 620
    assert seen == expected
