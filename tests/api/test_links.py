"""Record page links: built once per request and filled in per record, the same URL that
``url_for`` gives for every id, plain or not, on the request's host or the public URL."""

from __future__ import annotations

import pytest

from app.links import link, record_page_url

pytestmark = pytest.mark.unit

IDS = ["1760fbb64ae487e4", "a.b_c~d-e", "has space", "ünï", "a/b", "%41", "0errata0slot0x"]


@pytest.mark.parametrize("public", [None, "https://errata.example.org/base/"])
def test_a_record_link_is_what_url_for_gives(app, public):
    app.config["ERRATA_PUBLIC_URL"] = public
    with app.test_request_context("/api/v1/match", base_url="http://errata.test"):
        for rid in IDS:
            expected = link("records.record_page", external=True, record_id=rid)
            assert record_page_url(rid) == expected, rid
        assert record_page_url(IDS[0]).startswith(public or "http://errata.test/")


def test_a_record_link_follows_each_request_host(app):
    for host in ("http://one.test", "http://two.test:8080"):
        with app.test_request_context("/", base_url=host):
            assert record_page_url("abc") == f"{host}/records/abc"


def test_a_record_link_follows_the_public_url_when_it_changes(app):
    with app.test_request_context("/", base_url="http://one.test"):
        assert record_page_url("abc") == "http://one.test/records/abc"
        app.config["ERRATA_PUBLIC_URL"] = "https://errata.example.org"
        assert record_page_url("abc") == "https://errata.example.org/records/abc"


def test_many_hosts_do_not_grow_the_link_cache_without_bound(app):
    for n in range(200):
        with app.test_request_context("/", base_url=f"http://h{n}.test"):
            assert record_page_url("abc") == f"http://h{n}.test/records/abc"
    assert len(app.extensions["errata_record_urls"]) <= 64
