"""Pattern cost is bounded whoever writes the record.

* every shape from issue 12 is refused at import and through the API;
* a fuzzer over pattern shapes: whatever the vetting accepts runs in Python's backtracking
  ``re`` on pumped inputs without blowing up (a hang detector, not a benchmark), and the
  vetting itself never crashes;
* a costly pattern already in the store (written before the checks) cannot stall a match:
  the answer comes, and says when the verification budget ran out.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap

import pytest
from sqlalchemy import update

from app.corpus import catalog as match_index
from app.extensions import db
from app.records import services
from app.records.models import Record
from app.records.regex_safety import PatternRejected, check_pattern
from tests.helpers import post_match_page
from tests.hostile.conftest import assert_problem, row_counts, write_lines

pytestmark = pytest.mark.unit

ISSUE_SHAPES = [
    r"(?:a?a)+$",
    r"(?:[a-z]+\s?){1,15}!",
    r"(?:ab?|b)*$",
    r"(?:a{1,15}){1,15}$",
    r"(?:a+){2}$",
    r".{1,1000}.{1,1000}x",
]


def _envelope(seed, pattern: str, record_id: str = "c000000000000001"):
    envelope = json.loads(json.dumps(seed))
    envelope["record"]["id"] = record_id
    envelope["record"]["messagePattern"] = pattern
    return envelope


@pytest.mark.parametrize("pattern", ISSUE_SHAPES)
def test_issue_shapes_are_refused_everywhere(
    app, runner, client, write_token, seed, tmp_path, pattern
):
    path = write_lines(tmp_path / "in.jsonl", [json.dumps(_envelope(seed, pattern)).encode()])
    result = runner.invoke(args=["records", "import", str(path)])
    assert result.exit_code == 1, result.output
    assert f"{path}:1: record.messagePattern: " in result.output
    response = client.post(
        "/api/v1/records",
        data=json.dumps(_envelope(seed, pattern)),
        content_type="application/json",
        headers={"Authorization": f"Bearer {write_token}"},
    )
    problem = assert_problem(response, 422)
    assert [e["field"] for e in problem["errors"]] == ["record.messagePattern"]
    assert row_counts(app)["records"] == 0


# --- fuzzer over pattern shapes --------------------------------------------------------

ATOMS = ["a", "b", "ab", "[ab]", "[a-z]", r"\s", ".", r"\d", "x", "a b"]
QUANTIFIERS = ["", "", "?", "*", "+", "{2}", "{1,3}", "{0,15}", "{1,}", "*?", "+?"]


def _shape(rng: random.Random, depth: int = 0) -> str:
    """A random pattern made of groups, alternations, repeats and sequences."""
    kind = rng.random()
    if depth >= 3 or kind < 0.35:
        body = rng.choice(ATOMS)
    elif kind < 0.6:
        body = "(?:" + "|".join(_shape(rng, depth + 1) for _ in range(rng.randint(2, 3))) + ")"
    else:
        body = "(?:" + "".join(_shape(rng, depth + 1) for _ in range(rng.randint(1, 3))) + ")"
    return body + rng.choice(QUANTIFIERS)


def fuzz_patterns(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [_shape(rng) + rng.choice(["", "$", "!", "c"]) for _ in range(count)]


# Runs in a child: each accepted pattern, in `re`, on pumped inputs that make
# exponential shapes explode (~2^28 steps); prints each pattern before trying it, so a
# hang names its pattern.
CHILD = textwrap.dedent(
    """
    import json, re, sys
    for pattern in json.load(sys.stdin):
        print(pattern, flush=True)
        rx = re.compile(pattern)
        for text in ("a" * 28 + "!", "ab" * 14 + "!", "a " * 14 + "!", "b" * 28 + "!",
                     "x" * 28 + "!", "1" * 28 + "!", "aab" * 9 + "!"):
            rx.search(text)
            rx.fullmatch(text)
    print("DONE", flush=True)
    """
)


def _run_in_re(patterns: list[str], timeout_s: float) -> tuple[bool, str]:
    """(finished, last pattern tried) for the patterns in a child interpreter."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD],
            input=json.dumps(patterns),
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
        lines = done.stdout.splitlines()
        return bool(lines) and lines[-1] == "DONE", lines[-1] if lines else ""
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        lines = out.splitlines()
        return False, lines[-1] if lines else ""


@pytest.mark.unit
def test_the_hang_detector_catches_an_exponential_pattern():
    finished, last = _run_in_re([r"(a+)+$"], timeout_s=3)
    assert not finished and last == r"(a+)+$"


@pytest.mark.unit
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fuzzed_patterns_the_vetting_accepts_never_blow_up_in_re(seed):
    accepted, rejected = [], 0
    for pattern in fuzz_patterns(1500, seed):
        try:
            check_pattern(pattern)
        except PatternRejected:
            rejected += 1
            continue
        accepted.append(pattern)
    assert accepted and rejected  # the fuzzer reaches both sides of the check
    finished, last = _run_in_re(accepted, timeout_s=120)
    assert finished, f"accepted pattern backtracks catastrophically: {last!r}"


@pytest.mark.unit
def test_vetting_never_crashes_on_odd_patterns():
    rng = random.Random(5)
    alphabet = "ab()[]{}|*+?.^$\\,-:0123456789"
    for _ in range(3000):
        pattern = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 24)))
        try:
            check_pattern(pattern)
        except PatternRejected:
            pass
    with pytest.raises(PatternRejected):
        check_pattern("(" * 5000 + "a" + ")" * 5000)
    with pytest.raises(PatternRejected):
        check_pattern("a" * 5000)


# --- a costly pattern already in the store ------------------------------------------

COSTLY = r"[ab]*a(?:[ab]{90}){9}c"  # passes the checks, no literal, slow for RE2's NFA


def _store_costly(app, seed, count: int) -> None:
    """Records whose patterns were written before the checks (straight into the table)."""
    with app.app_context():
        lines = []
        for i in range(count):
            envelope = _envelope(seed, "placeholder text", f"c{i:015d}")
            parsed = services.parse_line("test", i + 1, json.dumps(envelope).encode())
            assert not isinstance(parsed, list), parsed
            lines.append(parsed)
        services.upsert(db.session, lines)
        for i in range(count):
            # Distinct patterns: sites that share one pattern share its verification.
            costly = COSTLY.replace("{90}", f"{{{90 + i}}}")
            db.session.execute(
                update(Record).where(Record.id == f"c{i:015d}").values(message_pattern=costly)
            )
        db.session.execute(
            update(Record)
            .where(Record.id == "c000000000000000")
            .values(message_pattern=r".{1,1000}.{1,1000}x")  # the issue's pattern
        )
        services.bump_catalog(db.session)
        db.session.commit()
        db.session.remove()
    match_index.forget()


def test_a_stored_costly_pattern_cannot_stall_matching(app, client, seed):
    _store_costly(app, seed, 40)
    rng = random.Random(3)
    # The "c" every match of COSTLY needs is in the message (else the literal check rejects
    # them all before RE2), just not after the run of a and b that makes RE2 slow.
    paste = "ValueError: c " + "".join(rng.choice("ab") for _ in range(250_000))
    response = client.post("/api/v1/match", json={"text": paste[: 256 * 1024 - 100]})
    assert response.status_code == 200, response.get_data()[:300]
    body = response.get_json()
    # 40 costly patterns would take seconds; the budget stops verification and says so.
    assert "budget" in body["incomplete"]
    ok = client.post("/api/v1/match", json={"text": "ValueError: short"})
    assert ok.status_code == 200 and "incomplete" not in ok.get_json()
    page = post_match_page(client, paste[:200_000])
    assert page.status_code == 200 and "Not every pattern was tried" in page.get_data(as_text=True)


def test_the_harness_never_runs_a_pattern_in_re_on_long_text():
    from repro.harnesses import _pattern

    assert _pattern.search(r"\d+ items", "there are 12 items")
    assert not _pattern.search("(unclosed", "anything")
    # With RE2 missing, only a short head is searched: a costly pattern stays cheap.
    long_text = "a" * 100_000 + "!"
    assert _pattern.search(r"a{5}", long_text)
    if _pattern._re2 is None:
        assert not _pattern.search(r"!", long_text)
