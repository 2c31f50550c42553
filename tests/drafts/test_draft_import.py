"""``flask records draft`` end to end: drafts import, are marked draft, and match."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.unit  # besides the database backend, no service

SHA = "0132848349585cfe6aae51c4941cbae872505f8a"


def test_drafts_import_as_drafts_and_match(app, runner, client, package_dir, tmp_path):
    out = tmp_path / "drafts.jsonl"
    result = runner.invoke(
        args=[
            "records",
            "draft",
            "--from",
            str(package_dir),
            "--repo",
            "acme/minipkg",
            "--sha",
            SHA,
            "-o",
            str(out),
        ]
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines and all(doc["draft"] is True for doc in lines)

    imported = runner.invoke(args=["records", "import", str(out)])
    assert imported.exit_code == 0, imported.output
    assert f"{len(lines)} created" in imported.output

    listing = client.get("/api/v1/records", query_string={"per_page": 100}).get_json()
    assert listing["total"] == len(lines)
    assert all(item["draft"] for item in listing["items"])
    assert (
        client.get("/api/v1/records", query_string={"exclude_drafts": 1}).get_json()["total"] == 0
    )

    match = client.post(
        "/api/v1/match",
        json={"text": "NotImplementedError: Backend flash is not supported (got 8 heads)"},
    ).get_json()
    top = match["matches"][0]
    assert top["kind"] == "pattern"
    assert top["errorMessage"].startswith("Backend {name} is not supported")


def test_draft_rejects_bad_arguments(app, runner, tmp_path):
    result = runner.invoke(
        args=["records", "draft", "--from", str(tmp_path), "--repo", "acme/x", "--sha", "zzz"]
    )
    assert result.exit_code == 2 and "commit SHA" in result.output
    result = runner.invoke(
        args=[
            "records",
            "draft",
            "--from",
            str(tmp_path / "missing"),
            "--repo",
            "acme/x",
            "--sha",
            SHA,
        ]
    )
    assert result.exit_code == 2 and "does not exist" in result.output
