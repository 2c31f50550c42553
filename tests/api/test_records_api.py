"""Record reads: ETag, compact, CORS, problem details, size limits."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.unit  # besides the database backend, no service

SEED = "1760fbb64ae487e4"


def test_etag_and_conditional_get(seeded, client):
    first = client.get(f"/api/v1/records/{SEED}")
    etag = first.headers["ETag"]
    assert etag
    again = client.get(f"/api/v1/records/{SEED}", headers={"If-None-Match": etag})
    assert again.status_code == 304
    compact = client.get(f"/api/v1/records/{SEED}?compact=1")
    assert compact.headers["ETag"] != etag
    assert compact.get_json()["href"].endswith(f"/records/{SEED}")


def test_every_absolute_link_uses_the_public_url(seeded, client):
    seeded.config["ERRATA_PUBLIC_URL"] = "https://errata.example.org/"
    host = {"Host": "attacker.example"}  # a cached link must not carry the client's Host
    body = client.get(f"/api/v1/records/{SEED}", headers=host).get_json()
    assert body["href"] == f"https://errata.example.org/records/{SEED}"
    assert body["links"]["self"] == f"https://errata.example.org/api/v1/records/{SEED}"
    page = client.get("/api/v1/records?per_page=1", headers=host)
    first = '<https://errata.example.org/api/v1/records?per_page=1&page=1>; rel="first"'
    assert page.headers["Link"].startswith(first)
    assert "attacker.example" not in page.get_data(as_text=True)
    assert "attacker.example" not in page.headers["Link"]
    matched = client.post("/api/v1/match", json={"text": "x"}, headers=host)
    assert "attacker.example" not in matched.get_data(as_text=True)


def test_cors_for_extension_origins(seeded, client):
    origin = "chrome-extension://abcdefghijklmnop"
    response = client.get(f"/api/v1/records/{SEED}", headers={"Origin": origin})
    assert response.headers["Access-Control-Allow-Origin"] == origin
    preflight = client.options(
        "/api/v1/match",
        headers={
            "Origin": "vscode-webview://xyz",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "Content-Type",
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers["Access-Control-Allow-Origin"] == "vscode-webview://xyz"
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
    other = client.get(f"/api/v1/records/{SEED}", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers
    assert "Origin" in other.headers["Vary"]


def test_cors_lets_a_plugin_write_and_read_limits(seeded, client):
    preflight = client.options(
        "/api/v1/records/x",
        headers={
            "Origin": "chrome-extension://abc",
            "Access-Control-Request-Method": "PUT",
            "Access-Control-Request-Headers": "Authorization, Content-Type",
        },
    )
    assert "PUT" in preflight.headers["Access-Control-Allow-Methods"]
    assert "Authorization" in preflight.headers["Access-Control-Allow-Headers"]
    exposed = preflight.headers["Access-Control-Expose-Headers"]
    assert "Retry-After" in exposed and "X-RateLimit-Remaining" in exposed


def test_cors_compares_origins_after_parsing(seeded, app, client):
    app.config["ERRATA_CORS_ORIGINS"] = "https://ide.example.com"
    for origin in (
        "http://localhost:@evil.example",
        "http://localhost@evil.example",
        "http://localhost.evil.example",
        "http://127.0.0.1.evil.example:80",
        "https://ide.example.com.evil.example",
        "https://ide.example.com/path",
        "http://localhost:99999",
    ):
        response = client.get(f"/api/v1/records/{SEED}", headers={"Origin": origin})
        assert "Access-Control-Allow-Origin" not in response.headers, origin
    for origin in ("http://localhost:5173", "https://ide.example.com", "moz-extension://a1"):
        response = client.get(f"/api/v1/records/{SEED}", headers={"Origin": origin})
        assert response.headers["Access-Control-Allow-Origin"] == origin


def test_405_says_which_methods_are_allowed(seeded, client):
    response = client.delete(f"/api/v1/records/{SEED}")
    assert response.status_code == 405
    assert response.mimetype == "application/problem+json"
    assert set(response.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "PUT"}


def test_unknown_api_path_is_a_problem(seeded, client):
    response = client.get("/api/v1/nope")
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"


def test_unknown_page_is_html(seeded, client):
    response = client.get("/records/nope")
    assert response.status_code == 404
    assert b"No record with id" in response.data


def test_health_and_ready(app, client):
    assert client.get("/api/v1/health").get_json() == {"status": "ok"}
    assert client.get("/api/v1/ready").get_json() == {"status": "ready"}


def test_ready_reports_a_dead_database(tmp_path):
    from app import create_app

    broken = create_app(
        {"TESTING": True, "SQLALCHEMY_DATABASE_URI": "postgresql+psycopg://nobody@127.0.0.1:1/x"}
    )
    response = broken.test_client().get("/api/v1/ready")
    assert response.status_code == 503
    assert response.mimetype == "application/problem+json"
