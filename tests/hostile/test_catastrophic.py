"""Catastrophic-backtracking patterns are refused at import and through the API, and the
matcher answers adversarial text (it runs RE2, linear-time)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import post_match_page
from tests.hostile.conftest import assert_problem, row_counts, write_lines

pytestmark = pytest.mark.unit  # besides the database backend, no service

CATASTROPHIC = [
    r"(a+)+$",
    r"(a*)*b",
    r"(x|xy)*z",
    r"(a|a)+$",
    r"(a|aa)+$",
    r"(?:\d|\d\d)+",
    r"(a+)*",
    r"(a*)+",
    r"((a+)+)+",
    r"(a{1,}){2,}",
    r"(\w+\s?)+$",
    r"^(([a-z])+.)+[A-Z]([a-z])+$",
    r"(.*)*x",
    r"(a+|b+)*c",
    r"([a-z]+)*=",
    r"(?:a+){5,}",
    r"(?:[ab]+)+c",
    r"(\s*,?\s*)*$",
    r"(a(b|bc)*)*",
]
LOOKAROUND = [r"(?=a)a", r"(?!a)b", r"(?<=a)b", r"(a)\1"]


def _envelope(seed, pattern: str, record_id: str = "c000000000000001"):
    envelope = json.loads(json.dumps(seed))
    envelope["record"]["id"] = record_id
    envelope["record"]["messagePattern"] = pattern
    return envelope


@pytest.mark.parametrize("pattern", CATASTROPHIC + LOOKAROUND)
def test_import_rejects_dangerous_pattern(app, runner, seed, tmp_path: Path, pattern) -> None:
    path = write_lines(tmp_path / "in.jsonl", [json.dumps(_envelope(seed, pattern)).encode()])
    result = runner.invoke(args=["records", "import", str(path)])
    assert result.exit_code == 1, result.output
    assert f"{path}:1: record.messagePattern: " in result.output
    assert "Traceback" not in result.output
    assert row_counts(app)["records"] == 0


@pytest.mark.parametrize("pattern", CATASTROPHIC + LOOKAROUND)
def test_api_rejects_dangerous_pattern(app, client, write_token, seed, pattern) -> None:
    body = json.dumps(_envelope(seed, pattern))
    headers = {"Authorization": f"Bearer {write_token}"}
    for method, path in (("post", "/api/v1/records"), ("put", "/api/v1/records/c000000000000001")):
        response = getattr(client, method)(
            path, data=body, content_type="application/json", headers=headers
        )
        problem = assert_problem(response, 422)
        assert [e["field"] for e in problem["errors"]] == ["record.messagePattern"]
    assert row_counts(app)["records"] == 0


ADVERSARIAL = [
    "a" * 200_000 + "!",
    "ValueError: " + "a" * 200_000 + "!",
    "x" * 100_000 + "y" * 100_000,
    "Traceback (most recent call last):\n"
    + '  File "a.py", line 1, in f\n' * 5000
    + "E: "
    + "a" * 50_000,
    "CUDA out of memory. Tried to allocate " + "9." * 100_000,
    " ".join(["attention backend mla"] * 10_000),
    # A traceback flattened into one line, frames with their sources, over and over; and
    # frame starts that never close their quote.
    'File "a.py", line 1, in f x = d[k] ' * 1_800 + "KeyError: 'k'",
    'File "' + "a" * 1_990 + ' File "' * 100,
    # Every rank logging the same failure quoting an error, thousands of times, cut off; and
    # a frame whose source is a raise with an unclosed literal.
    "".join(
        f"[2025-11-05 16:39:09 TP{r}] Decode transfer failed for request rank={r} with "
        f"exception KVTransferError(bootstrap_room={r}): Aborted by AbortReq.\n"
        for r in range(4_000)
    )
    + "[2025-11-05 16:39:09 TP9] Decode tra",
    'Traceback (most recent call last):\n  File "a.py", line 1, in f\n    raise E("' + "(" * 5_000,
]


@pytest.mark.parametrize("text", ADVERSARIAL, ids=range(len(ADVERSARIAL)))
def test_match_answers_adversarial_text(corpus_app, client, text: str) -> None:
    body = json.dumps({"text": text[: 256 * 1024]})
    response = client.post("/api/v1/match", data=body, content_type="application/json")
    assert response.status_code == 200, response.get_data()[:300]
    assert isinstance(response.get_json()["matches"], list)


def test_match_page_answers_adversarial_text(corpus_app, client) -> None:
    response = post_match_page(client, "a" * 200_000 + "!")
    assert response.status_code == 200
