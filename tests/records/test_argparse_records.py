"""The curated records of argparse's command-line errors (`data/records/python-argparse.jsonl`):
a server flag the installed sglang release does not have, or a value it does not accept.

These are printed by argparse (CPython's standard library, not drafted), as
`launch_server.py: error: ...` after the usage, often quoted in prose or an issue title.
"""

from __future__ import annotations

import pytest

from tests.records.conftest import RECORDS, import_curated, top_match

pytestmark = pytest.mark.integration

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
    import_curated(runner, ARGPARSE_RECORDS)
    return app


@pytest.mark.parametrize("name", sorted(PASTES))
def test_each_paste_finds_its_curated_argparse_record(argparse_records, client, name):
    text, slug = PASTES[name]
    top, record = top_match(client, text)
    assert record["slug"] == slug
    assert (top["curated"], top["repo"]) == (True, "python/cpython")
    assert any("--help" in s for s in top["solutions"])
    assert top["at"] == {
        "release": None,
        "filePath": "Lib/argparse.py",
        "lineNumber": record["lineNumber"],
    }
