"""Catalog site facts: filters, the location at a release, exception class ancestry."""

from __future__ import annotations

import pytest

from app.corpus.catalog import Catalog, SiteFacts
from app.corpus.history import Location
from app.matching import MatchIndex

pytestmark = pytest.mark.unit

CATALOG = Catalog(
    MatchIndex([]),
    {},
    sites={
        "draft": SiteFacts(
            "sgl-project/sglang",
            False,
            (
                Location("0.4.6", "python/sglang/a.py", 10, "f"),
                Location("0.5.5", "python/sglang/b.py", 20, "f"),
            ),
        ),
        "curated": SiteFacts("sgl-project/sglang", True, ()),
    },
    classes={"KVTransferError": ("Exception",), "MooncakeError": ("conn.KVTransferError",)},
)


def test_filters_by_repo_release_and_curated():
    assert CATALOG.allowed("draft", repo="SGL-project/sglang", version="0.5.0")
    assert not CATALOG.allowed("draft", version="0.5.23")  # gone after 0.5.5
    assert not CATALOG.allowed("draft", version="0.3.0")
    assert not CATALOG.allowed("draft", curated=True)
    assert CATALOG.allowed("curated", curated=True, version="0.3.0")  # no release data: kept
    assert not CATALOG.allowed("unknown", curated=True)


def test_location_at_the_users_release():
    facts = CATALOG.sites["draft"]
    assert facts.releases == ("0.4.6", "0.5.5")
    assert facts.at("0.5.1").file_path == "python/sglang/a.py"
    assert facts.at("0.5.10").line_number == 20
    assert facts.at(None).release == "0.5.5"


def test_exception_class_ancestry_for_class_agreement():
    assert CATALOG.ancestors("mooncake.conn.MooncakeError") == (
        "conn.KVTransferError",
        "Exception",
    )
    assert CATALOG.ancestors("ValueError") == ()
