"""The real held-out set and the paste guard, through the parser and ``POST /api/v1/match``.

The held-out figures (top-1/top-3 against a multi-release corpus) come from
``bench/heldout.py``; these tests hold what must be true of every real paste whatever the
corpus: it parses, and the answer says what is known and what is not, never a 500.
The guard files (``corpus/guard/``) pin expected ids and ``why.kind`` against the seed
corpus, in the snapshot style: one paste per file, its expectation on top.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.api.schemas import MatchResponse
from app.matching import parse_error
from app.matching.parse import ROLE_BODY
from tests.helpers import post_match_page
from tests.matching.heldout import (
    CPP_DIR,
    EIGHTH_DIR,
    ELEVENTH_DIR,
    FIFTEENTH_DIR,
    FIFTH_DIR,
    FOURTEENTH_DIR,
    FRESH_DIR,
    KINDS,
    NINTH_DIR,
    SEVENTH_DIR,
    SIXTEENTH_DIR,
    SIXTH_DIR,
    TENTH_DIR,
    THIRD_DIR,
    THIRTEENTH_DIR,
    TWELFTH_DIR,
    load_cases,
    parse_case,
)

pytestmark = pytest.mark.unit

HELDOUT = load_cases()
CASES = [
    *HELDOUT,
    *(
        c
        for d in (
            FRESH_DIR,
            THIRD_DIR,
            CPP_DIR,
            FIFTH_DIR,
            SIXTH_DIR,
            SEVENTH_DIR,
            EIGHTH_DIR,
            NINTH_DIR,
            TENTH_DIR,
            ELEVENTH_DIR,
            TWELFTH_DIR,
            THIRTEENTH_DIR,
            FOURTEENTH_DIR,
            FIFTEENTH_DIR,
            SIXTEENTH_DIR,
        )
        for c in load_cases(d)
    ),
]
GUARD_DIR = Path(__file__).parent / "corpus" / "guard"
GUARDS = sorted(GUARD_DIR.glob("*.txt"))


def post(client, text, **kw):
    return client.post("/api/v1/match", json={"text": text, **kw})


@pytest.mark.unit
def test_the_heldout_set_is_labelled():
    assert len(HELDOUT) >= 60  # issue 10: at least 60 real pastes
    assert {c.kind for c in HELDOUT} == KINDS
    assert len({c.source for c in CASES}) > len({c.source for c in HELDOUT})  # fresh ones
    assert all(c.source.startswith("https://github.com/") for c in CASES)
    assert len({c.text for c in CASES}) == len(CASES)


@pytest.mark.unit
def test_a_malformed_case_file_is_refused(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("source: https://github.com/x/y/issues/1\nkind: guess\n---\ntext\n")
    with pytest.raises(ValueError, match="bad.txt"):
        parse_case(bad)


@pytest.mark.unit
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_real_paste_parses_into_its_error(case):
    parsed = parse_error(case.text)
    assert parsed.exceptions
    first = parsed.exceptions[0]
    if re.search(r'File "[^"\n]+", line \d', case.text):
        # Headers lost, indentation lost, quoted: the frames are still read (a frame cut
        # off inside its path, with no line, is none).
        assert any(e.frames for e in parsed.exceptions), case.name
    if "'message'" in case.text or '"message"' in case.text:
        bodies = [e for e in parsed.exceptions if e.role == ROLE_BODY]
        assert bodies or "'message': ''" in case.text, case.name  # an empty body message
    # The exception line, not the surrounding prose, is what is matched first.
    assert not first.message.startswith(("[Bug]", "> ", '"')), case.name


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_real_paste_gets_an_answer_that_says_what_is_known(corpus_app, client, case):
    resp = post(client, case.text, limit=3)
    assert resp.status_code == 200
    answer = resp.get_json()["answer"]
    assert answer["known"] or answer["unknown"]
    if not resp.get_json()["matches"]:
        assert answer["unknown"], "an empty answer must say why"


def test_every_answer_is_the_documented_match_response(corpus_app, client):
    """The answer is built as plain data, not through its pydantic model: every real paste's
    answer, full and compact, must be exactly what the model would have produced."""
    texts = [c.text for c in CASES] + [_guard(p)[1] for p in GUARDS]
    for text in texts:
        for compact in ("false", "true"):
            resp = client.post(f"/api/v1/match?compact={compact}", json={"text": text})
            assert resp.status_code == 200
            body = resp.get_json()
            model = MatchResponse.model_validate(body)
            assert model.model_dump(mode="json", exclude_unset=True) == body
            assert ("parsed" in body) is (compact == "false")
            assert all(("why" in m) is (compact == "false") for m in body["matches"])


def _guard(path: Path) -> tuple[list[tuple[str, str]], str]:
    head, _, text = path.read_text(encoding="utf-8").partition("\n---\n")
    expected: list[tuple[str, str]] = []
    for line in head.splitlines():
        key, _, value = line.partition(":")
        assert key.strip() == "expect", f"{path.name}: unknown label {key!r}"
        if value.strip() != "none":
            record_id, kind = value.split()
            expected.append((record_id, kind))
    return expected, text


@pytest.mark.parametrize("path", GUARDS, ids=[p.stem for p in GUARDS])
def test_guard_pastes_give_their_expected_ids_and_kinds(corpus_app, client, path):
    expected, text = _guard(path)
    body = post(client, text, limit=5).get_json()
    got = [(m["id"], m["kind"]) for m in body["matches"]]
    assert got[: len(expected)] == expected
    if not expected:
        assert body["answer"]["unknown"]


def test_json_nested_a_thousand_deep_is_answered_not_a_500(corpus_app, client):
    deep = '{"msg": "a\\nb", "x": ' + "[" * 1000 + "]" * 1000 + "}"
    reported = "Decode transfer failed for request rank=0 with exception KVTransferError("
    for text in (
        deep,
        "[" * 100_000,
        json.dumps({"message": "x" * 10}) * 3,
        reported * 2_000,  # a reported line whose quoted error goes on and on
        "[Bug] " + "a .b " * 119 + "is not supported yet",  # stopless, 600 characters
    ):
        resp = post(client, text)
        assert resp.status_code == 200
        assert resp.get_json()["answer"]


def test_the_match_page_leads_with_what_is_known(corpus_app, client):
    cut = (GUARD_DIR / "cut-off.txt").read_text(encoding="utf-8").partition("\n---\n")[2]
    page = post_match_page(client, cut)
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert html.index("What we know") < html.index("Matches")
    assert "ends part-way" in html and "cut off" in html


def test_the_match_page_says_when_a_message_goes_on_differently(corpus_app, client):
    path = GUARD_DIR / "goes-on-differently.txt"
    text = path.read_text(encoding="utf-8").partition("\n---\n")[2]
    html = post_match_page(client, text).get_data(as_text=True)
    assert "then goes on differently" in html
    assert "ends part-way" not in html
