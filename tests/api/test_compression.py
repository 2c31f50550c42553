"""Responses are gzipped for clients that accept it, and only for them."""

from __future__ import annotations

import gzip
import json

import pytest

pytestmark = pytest.mark.unit  # besides the database backend, no service

SEED = "1760fbb64ae487e4"
GZIP = {"Accept-Encoding": "gzip, deflate"}


def test_a_large_json_body_is_gzipped_when_accepted(corpus_app, client):
    plain = client.get("/api/v1/records", query_string={"per_page": 100})
    zipped = client.get("/api/v1/records", query_string={"per_page": 100}, headers=GZIP)
    assert plain.status_code == zipped.status_code == 200
    assert "Content-Encoding" not in plain.headers
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert int(zipped.headers["Content-Length"]) == len(zipped.data) < len(plain.data)
    assert json.loads(gzip.decompress(zipped.data)) == plain.get_json()
    for response in (plain, zipped):
        assert "Accept-Encoding" in response.vary and "Origin" in response.vary


def test_pages_are_gzipped_too(corpus_app, client):
    zipped = client.get("/", headers=GZIP)
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert b"</html>" in gzip.decompress(zipped.data)


@pytest.mark.parametrize("accept", [None, "identity", "gzip;q=0", "br"])
def test_no_gzip_unless_accepted(corpus_app, client, accept):
    headers = {} if accept is None else {"Accept-Encoding": accept}
    response = client.get("/api/v1/records", query_string={"per_page": 100}, headers=headers)
    assert "Content-Encoding" not in response.headers
    assert response.get_json()["total"] >= 1


def test_small_bodies_are_sent_as_they_are(client):
    response = client.get("/api/v1/health", headers=GZIP)
    assert response.status_code == 200
    assert "Content-Encoding" not in response.headers
    assert response.get_json()


def test_gzipped_record_keeps_its_etag_and_304(seeded, client):
    plain = client.get(f"/api/v1/records/{SEED}")
    zipped = client.get(f"/api/v1/records/{SEED}", headers=GZIP)
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(zipped.data)) == plain.get_json()
    # The bytes differ, so the gzipped form's tag is weak; sent back, it still gives a 304.
    assert zipped.headers["ETag"] == "W/" + plain.headers["ETag"]
    again = client.get(
        f"/api/v1/records/{SEED}", headers={**GZIP, "If-None-Match": zipped.headers["ETag"]}
    )
    assert again.status_code == 304 and not again.data
