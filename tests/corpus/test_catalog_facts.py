"""Catalog site facts: filters, the location at a release, exception class ancestry."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.corpus.answers import MatchFilters, user_release, worded_releases, wording_note
from app.corpus.catalog import Catalog, Memo, SiteFacts
from app.corpus.evidence import Evidence
from app.corpus.history import Location
from app.matching import Explanation, MatchIndex, PatternEntry

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
    wordings={
        "draft": (
            (r"Initial test run failed: .+", ("0.4.6", "0.4.9")),
            (r"Warmup failed.*", ("0.4.3",)),
        )
    },
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


def _why(pattern: str, message: str, kind: str = "pattern") -> Explanation:
    return Explanation(
        kind, pattern, None, None, True, "plain", None, message, "unknown", None, None, 0, None
    )


def test_a_paste_in_an_older_wording_says_which_releases_worded_it_so():
    entry = PatternEntry("draft", r"Warmup failed: .+")
    old = r"Initial test run failed: .+"
    old_at = ("0.4.6", "0.4.9")
    assert worded_releases(CATALOG, entry, _why(old, "Initial test run failed: 111")) == old_at
    # The current wording fits the message too (an older, looser pattern matched first).
    loose = r"Warmup failed.*"
    assert worded_releases(CATALOG, entry, _why(loose, "Warmup failed: refused")) == ()
    # A cut-off message matched by its start says nothing of the release.
    assert worded_releases(CATALOG, entry, _why(old, "Initial test run", "prefix")) == ()
    assert worded_releases(CATALOG, entry, _why(entry.pattern, "Warmup failed: 1")) == ()
    call = PatternEntry("draft", r"f\(\) got an unexpected .+", "TypeError", statement="f(x=1)")
    assert worded_releases(CATALOG, call, _why(old, "Initial test run failed: 1")) == ()
    imported = replace(call, error_class="ImportError", statement="from m import a")
    assert worded_releases(CATALOG, imported, _why(old, "Initial test run failed: 1")) == old_at


def test_the_users_release_by_filter_frames_and_wording():
    entry = PatternEntry("draft", "New words")
    none = MatchFilters()
    old = ("0.4.6", "0.4.9")

    def frames(*releases: str) -> Evidence:
        return Evidence({"sgl-project/sglang": releases}, None, ())

    assert user_release(CATALOG, entry, MatchFilters(version="0.5.1"), frames("0.5.5")) == "0.5.1"
    assert user_release(CATALOG, entry, none, None) is None  # the latest
    assert user_release(CATALOG, entry, none, None, old) == "0.4.9"
    assert user_release(CATALOG, entry, none, frames("0.4.6", "0.5.5")) == "0.5.5"
    # Frames that fit several releases, a wording only some had: where both agree.
    assert user_release(CATALOG, entry, none, frames("0.4.6", "0.5.5"), old) == "0.4.6"
    # They disagree: the frames (a traceback's lines) say more than a reworded message.
    assert user_release(CATALOG, entry, none, frames("0.5.5"), old) == "0.5.5"
    assert wording_note(CATALOG, "draft", old) == (
        "the message is worded as sgl-project/sglang 0.4.6 – 0.4.9 words it (of the pinned "
        "releases); the releases after 0.4.9 word it otherwise"
    )
    assert wording_note(CATALOG, "draft", ()) is None


def test_exception_class_ancestry_for_class_agreement():
    assert CATALOG.ancestors("mooncake.conn.MooncakeError") == (
        "conn.KVTransferError",
        "Exception",
    )
    assert CATALOG.ancestors("ValueError") == ()


def test_the_answer_memo_keeps_the_most_recent_within_its_bounds():
    memo = Memo(entries=3, size=9, max_text=6)
    for key in "abc":
        memo.put(key, 2, key.upper())
    assert memo.get("a") == "A"  # now the most recently used
    memo.put("d", 2, "D")  # over three entries: the least recently used ("b") goes
    assert (memo.get("b"), memo.get("a"), memo.get("d")) == (None, "A", "D")
    memo.put("long", 7, "L")  # a paste over max_text is not kept
    assert memo.get("long") is None and len(memo) == 3
    memo.put("e", 6, "E")  # 2 + 2 + 6 > 9 characters: the oldest go until it fits
    assert memo.get("e") == "E" and memo.get("c") is None and len(memo) == 2
    memo.put("e", 1, "E2")  # a key put again replaces its value and its size
    assert memo.get("e") == "E2" and len(memo) == 2
    # What is added to an entry later counts too: d (2) + e (1) + 7 > 9, the oldest goes.
    assert memo.charge("e", 7) and memo.get("d") is None and memo.get("e") == "E2"
    assert not memo.charge("e", 20) and memo.get("e") is None  # alone over: not kept
    assert not memo.charge("gone", 1)
    off = Memo(entries=0)  # a memo of no entries keeps nothing
    off.put("x", 1, "X")
    assert off.get("x") is None and len(off) == 0
