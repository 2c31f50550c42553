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
