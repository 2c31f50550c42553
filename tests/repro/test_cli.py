"""The worker CLI: report JSON on stdout, documented exit codes."""

from __future__ import annotations

import json

import pytest

from repro.__main__ import load_record, main

pytestmark = pytest.mark.unit


def test_env_missing_exits_3_with_the_build_command(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ERRATA_ENV_DIR", str(tmp_path))
    code = main(["run", "--record", "data/records/sglang.jsonl", "--platform", "cpu"])
    out, err = capsys.readouterr()
    assert code == 3
    assert json.loads(out)["outcome"] == "ENV_MISSING"
    assert "python -m repro.envs.build sglang-0.5.23" in err


def test_record_without_harness_exits_2(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"record": {"id": "x", "repo": "a/b", "filePath": "c.py"}}))
    assert main(["run", "--record", str(path)]) == 2


def test_envelope_and_jsonl_records_load(tmp_path, seed_record):
    envelope = tmp_path / "seed.json"
    envelope.write_text(json.dumps({"record": seed_record, "datasetVersion": "v"}))
    assert load_record(str(envelope))["id"] == seed_record["id"]
    assert load_record("data/records/sglang.jsonl", "1760fbb64ae487e4") == seed_record
