"""The curated records of argparse's command-line errors (`data/records/python-argparse.jsonl`):
a server flag the installed sglang release does not have, or a value it does not accept.

These are printed by argparse (CPython's standard library, not drafted), as
`launch_server.py: error: ...` after the usage, often quoted in prose or an issue title.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

RECORDS = Path(__file__).resolve().parents[2] / "data" / "records"
ARGPARSE_RECORDS = RECORDS / "python-argparse.jsonl"

PASTES = {
    "invalid-choice-in-backticks": (
        "`launch_server.py: error: argument --tool-call-parser: invalid choice: 'llama4' "
        "(choose from 'qwen25', 'mistral', 'llama3', 'deepseekv3', 'pythonic')`",
        "argparse-invalid-choice",
    ),
    "unrecognized-after-usage": (
        "usage: launch_server.py [-h] --model-path MODEL_PATH [--port PORT]\n"
        "launch_server.py: error: unrecognized arguments: --enable-dp-lm-head",
        "argparse-unrecognized-arguments",
    ),
    "required-title": (
        "[Bug] launch_server.py: error: the following arguments are required: --model-path",
        "argparse-required-arguments",
    ),
    "invalid-int": (
        "launch_server.py: error: argument --context-length: invalid int value: '32k'",
        "argparse-invalid-type-value",
    ),
}


@pytest.fixture
def argparse_records(app, runner):
    result = runner.invoke(args=["records", "import", str(ARGPARSE_RECORDS)])
    assert result.exit_code == 0, result.output
    lines = ARGPARSE_RECORDS.read_text(encoding="utf-8").splitlines()
    assert f"{len(lines)} created" in result.output and " 0 invalid" in result.output
    from app.corpus.catalog import forget

    forget()
    return app


@pytest.mark.parametrize("name", sorted(PASTES))
def test_each_paste_finds_its_curated_argparse_record(argparse_records, client, name):
    text, slug = PASTES[name]
    resp = client.post("/api/v1/match", json={"text": text, "limit": 3})
    assert resp.status_code == 200
    (top, *_) = resp.get_json()["matches"]
    record = client.get(f"/api/v1/records/{top['id']}").get_json()
    assert record["slug"] == slug
    assert (top["curated"], top["repo"]) == (True, "python/cpython")
    assert any("--help" in s for s in top["solutions"])
    assert top["at"] == {
        "release": None,
        "filePath": "Lib/argparse.py",
        "lineNumber": record["lineNumber"],
    }
