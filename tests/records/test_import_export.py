"""The importer and exporter through the real CLI (``flask records ...``)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskCliRunner
from sqlalchemy import func, select

from app.extensions import db
from app.records.models import Record, RecordVersion

pytestmark = pytest.mark.unit  # besides the database backend, no service


def write_jsonl(path: Path, envelopes: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in envelopes), encoding="utf-8")
    return path


def variant(seed: dict[str, Any], record_id: str, **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(seed)
    out["record"]["id"] = record_id
    out["record"].update(changes)
    return out


def count(app: Flask, model: type) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(model)) or 0


def export(runner: FlaskCliRunner) -> list[dict[str, Any]]:
    result = runner.invoke(args=["records", "export"])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def test_round_trip_is_lossless(app, runner, tmp_path, seed_envelope):
    list_scenarios = variant(
        seed_envelope,
        "aaaaaaaaaaaaaaa1",
        triggerScenarios=["first", "second", "third"],
        tags=["z-last", "a-first", "m-middle"],
        solutions=["3", "1", "2"],
        httpStatus=503,
        errorCode="E42",
        tryCatchPattern="try:\n    x()\nexcept ValueError:\n    pass",
        sourceCode=None,
        sourceCodeStart=None,
        sourceCodeEnd=None,
        documentation="Unicode: ünïcödé — 中文 ✓",
    )
    draft = {**variant(seed_envelope, "aaaaaaaaaaaaaaa2", triggerScenarios=None), "draft": True}
    source = write_jsonl(tmp_path / "in.jsonl", [seed_envelope, list_scenarios, draft])
    result = runner.invoke(args=["records", "import", str(source)])
    assert result.exit_code == 0, result.output

    exported = export(runner)
    by_id = {e["record"]["id"]: e for e in exported}
    originals = [seed_envelope, list_scenarios, draft]
    assert len(exported) == 3
    for original in originals:
        assert by_id[original["record"]["id"]] == original
    # Field order follows the schema (the seed's own order).
    assert list(by_id[seed_envelope["record"]["id"]]["record"]) == list(seed_envelope["record"])


def test_reimport_changes_nothing(app, runner, tmp_path, seed_envelope):
    source = write_jsonl(tmp_path / "in.jsonl", [seed_envelope])
    first = runner.invoke(args=["records", "import", str(source)])
    second = runner.invoke(args=["records", "import", str(source)])
    assert first.exit_code == 0 and second.exit_code == 0
    assert "1 created" in first.output
    assert "0 created, 0 updated, 1 unchanged" in second.output
    assert count(app, Record) == 1
    assert count(app, RecordVersion) == 1


def test_changed_record_is_updated_and_history_kept(app, runner, tmp_path, seed_envelope):
    runner.invoke(
        args=["records", "import", str(write_jsonl(tmp_path / "a.jsonl", [seed_envelope]))]
    )
    changed = copy.deepcopy(seed_envelope)
    changed["record"]["solutions"] = ["A brand new first solution"] + changed["record"]["solutions"]
    changed["record"]["lineNumber"] = 97
    changed["datasetVersion"] = "2026-12-01T00:00:00.000Z"
    result = runner.invoke(
        args=["records", "import", str(write_jsonl(tmp_path / "b.jsonl", [changed]))]
    )
    assert result.exit_code == 0, result.output
    assert "1 updated" in result.output

    assert export(runner) == [changed]
    with app.app_context():
        versions = db.session.scalars(select(RecordVersion).order_by(RecordVersion.version)).all()
        assert [v.version for v in versions] == [1, 2]
        assert versions[0].content == seed_envelope["record"]
        assert versions[0].dataset_version == seed_envelope["datasetVersion"]
        assert versions[1].content == changed["record"]
        row = db.session.get(Record, seed_envelope["record"]["id"])
        assert row is not None and row.version == 2


def _bad_lines(seed: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(line text, field expected in the report, words expected in the reason)."""

    def line(**changes: Any) -> str:
        rec = copy.deepcopy(seed)
        for key, value in changes.items():
            if value is ...:
                del rec["record"][key]
            else:
                rec["record"][key] = value
        return json.dumps(rec)

    return [
        ('{"record": {"id": ', "(line)", "invalid JSON"),
        (line(errorMessage=...), "record.errorMessage", "Field required"),
        (line(lineNumber="75"), "record.lineNumber", "valid integer"),
        (line(tags="mla"), "record.tags", "valid list"),
        (line(severity="catastrophic"), "record.severity", "'critical'"),
        (line(messagePattern="trtllm_mla (backend"), "record.messagePattern", "does not compile"),
        (line(messagePattern="(a+)+$"), "record.messagePattern", "catastrophically"),
        (line(messagePattern="(x|xy)*(a*)*z"), "record.messagePattern", "catastrophically"),
        (line(messagePattern="(?<=a)b"), "record.messagePattern", "linear-time engine"),
        (line(documentation="before\u0000after"), "record.documentation", "NUL"),
        (line(sourceCode="x" * (10 * 1024 * 1024)), "record.sourceCode", "at most"),
        (line(unknownField=1), "record.unknownField", "Extra inputs"),
        ("[1, 2, 3]", "(line)", "JSON object"),
        ("[" * 100_000 + "]" * 100_000, "(line)", "JSON"),
    ]


def test_every_kind_of_bad_line_is_reported_and_nothing_written(
    app, runner, tmp_path, seed_envelope
):
    cases = _bad_lines(seed_envelope)
    good = [json.dumps(variant(seed_envelope, f"good{i:012d}")) for i in range(2)]
    lines = [good[0]] + [c[0] for c in cases] + [good[1]]
    source = tmp_path / "mixed.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")

    result = runner.invoke(args=["records", "import", str(source)])
    assert result.exit_code != 0
    for offset, (_, field, reason) in enumerate(cases, start=2):
        expected_prefix = f"{source}:{offset}: {field}: "
        reported = [ln for ln in result.output.splitlines() if ln.startswith(expected_prefix)]
        assert reported, f"no report for line {offset} ({field}):\n{result.output[:3000]}"
        assert any(reason in ln for ln in reported), reported
    assert "nothing was imported" in result.output
    assert count(app, Record) == 0
    assert count(app, RecordVersion) == 0


def test_invalid_utf8_is_reported(app, runner, tmp_path):
    source = tmp_path / "bad.jsonl"
    source.write_bytes(b'{"record": "\xff\xfe"}\n')
    result = runner.invoke(args=["records", "import", str(source)])
    assert result.exit_code != 0
    assert f"{source}:1: (line): invalid UTF-8" in result.output


def test_skip_invalid_imports_good_lines_and_reports_bad(app, runner, tmp_path, seed_envelope):
    source = tmp_path / "mixed.jsonl"
    bad = variant(seed_envelope, "bad0000000000000", severity="loud")
    source.write_text(
        "\n".join([json.dumps(seed_envelope), json.dumps(bad)]) + "\n", encoding="utf-8"
    )
    result = runner.invoke(args=["records", "import", "--skip-invalid", str(source)])
    assert result.exit_code == 1
    assert f"{source}:2: record.severity:" in result.output
    assert "1 created" in result.output and "1 invalid" in result.output
    assert count(app, Record) == 1


def test_duplicate_ids_in_one_input_are_reported(app, runner, tmp_path, seed_envelope):
    source = write_jsonl(tmp_path / "dup.jsonl", [seed_envelope, seed_envelope])
    result = runner.invoke(args=["records", "import", str(source)])
    assert result.exit_code != 0
    assert f"{source}:2: record.id: duplicate id" in result.output
    assert count(app, Record) == 0


def test_import_from_stdin(app, runner, seed_envelope):
    result = runner.invoke(args=["records", "import", "-"], input=json.dumps(seed_envelope) + "\n")
    assert result.exit_code == 0, result.output
    assert count(app, Record) == 1


def test_missing_file_is_a_clear_error(app, runner, tmp_path):
    result = runner.invoke(args=["records", "import", str(tmp_path / "nope.jsonl")])
    assert result.exit_code != 0
    assert "cannot read" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("blank", ["", "\n\n", "   \n"])
def test_blank_input_imports_nothing(app, runner, tmp_path, blank):
    source = tmp_path / "blank.jsonl"
    source.write_text(blank, encoding="utf-8")
    result = runner.invoke(args=["records", "import", str(source)])
    assert result.exit_code == 0
    assert "0 created" in result.output


def test_export_to_an_unwritable_path_is_a_clear_error(app, runner, tmp_path):
    result = runner.invoke(args=["records", "export", "-o", str(tmp_path / "no" / "x.jsonl")])
    assert result.exit_code == 1
    assert "cannot write" in result.output and "Traceback" not in result.output


def test_duplicate_ids_across_files_are_reported(app, runner, tmp_path, seed_envelope):
    first = write_jsonl(tmp_path / "a.jsonl", [seed_envelope])
    second = write_jsonl(tmp_path / "b.jsonl", [seed_envelope])
    result = runner.invoke(args=["records", "import", str(first), str(second)])
    assert result.exit_code != 0
    assert f"{second}:1: record.id: duplicate id '1760fbb64ae487e4' (first at {first}:1)" in (
        result.output
    )
    assert count(app, Record) == 0
