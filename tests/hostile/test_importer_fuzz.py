"""The importer under hostile input: ``parse_line`` and ``flask records import``.

Every bad line is reported as ``file:line: field: reason``; nothing raises, nothing is
written in the default mode, and ``--skip-invalid`` writes exactly the good lines.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.records import services
from app.records.schemas import RECORD_FIELDS
from tests.hostile.conftest import HOSTILE, row_counts, write_lines
from tests.hostile.strategies import deep, dumps, json_values

pytestmark = pytest.mark.unit  # besides the database backend, no service

REPORTED = re.compile(r"^(?P<src>[^\n]+):(?P<line>\d+): (?P<field>[^\n]+): (?P<reason>.+)$")
FIELDS = [*RECORD_FIELDS, "__envelope.datasetVersion", "__envelope.draft", "__envelope.extra"]


def _check_result(result: Any, lineno: int = 7) -> None:
    """``parse_line`` returned a line or well-formed errors (and the line is storable)."""
    if isinstance(result, services.ParsedLine):
        # A line that validates must also hash and serialise: no surrogate slips through.
        services.content_hash(result.envelope)
        return
    assert isinstance(result, list) and result, result
    for err in result:
        assert isinstance(err, services.LineError)
        assert err.line == lineno and err.field and err.reason
        assert REPORTED.match(str(err)), str(err)


def _mutated(seed: dict[str, Any], name: str, value: Any) -> dict[str, Any]:
    envelope = json.loads(json.dumps(seed))
    if name.startswith("__envelope."):
        envelope[name.removeprefix("__envelope.")] = value
    else:
        envelope["record"][name] = value
    return envelope


@pytest.mark.unit
@HOSTILE
@given(raw=st.binary(max_size=300))
def test_parse_line_arbitrary_bytes(raw: bytes) -> None:
    _check_result(services.parse_line("in.jsonl", 7, raw))


@pytest.mark.unit
@HOSTILE
@given(value=json_values)
def test_parse_line_arbitrary_json(value: Any) -> None:
    _check_result(services.parse_line("in.jsonl", 7, dumps(value)))


@pytest.mark.unit
@HOSTILE
@given(name=st.sampled_from(FIELDS), value=json_values)
def test_parse_line_random_value_in_every_field(seed, name: str, value: Any) -> None:
    _check_result(services.parse_line("in.jsonl", 7, dumps(_mutated(seed, name, value))))


HOSTILE_LINES = {
    "invalid-utf8": b'{"record": "\xff\xfe"}',
    "overlong-utf8": b'{"a": "\xc0\xaf"}',
    "encoded-surrogate": b'{"a": "\xed\xa0\x80"}',
    "bom": b"\xef\xbb\xbf{}",
    "nan": b'{"record": NaN, "datasetVersion": Infinity}',
    "huge-int": b'{"record": ' + b"9" * 5000 + b"}",
    "huge-negative-int": b'{"a": -' + b"1" * 4400 + b"}",
    "huge-float": b'{"a": 1e999999}',
    "deep-list": deep(100_000),
    "deep-object": deep(5_000, "object"),
    "just-past-depth-limit": deep(40),
    "scalar": b"42",
    "string": b'"record"',
    "null": b"null",
    "array": b"[]",
    "trailing-garbage": b"{} {}",
    "nul-byte": b'{"a": "\x00"}',
    "nul-escape": b'{"a": "\\u0000"}',
    "lone-surrogate-escape": b'{"record": {"id": "\\ud800"}}',
    "duplicate-keys": b'{"record": 1, "record": 2}',
}


@pytest.mark.unit
@pytest.mark.parametrize("raw", HOSTILE_LINES.values(), ids=HOSTILE_LINES.keys())
def test_parse_line_hostile_corpus(raw: bytes) -> None:
    result = services.parse_line("in.jsonl", 7, raw)
    assert isinstance(result, list), result
    _check_result(result)


BAD_FIELDS: list[tuple[str, Any]] = [
    ("lineNumber", int("9" * 4000)),
    ("lineNumber", 2**31),
    ("sourceCodeStart", 2**63),
    ("sourceCodeEnd", -1),
    ("documentation", "x" * 100_001),
    ("documentation", "a\x00b"),
    ("documentation", "a\ud800b"),
    ("tags", ["ok", "a\ud800"]),
    ("tags", ["two words"]),
    ("solutions", ["x"] * 201),
    ("solutions", "not a list"),
    ("triggerScenarios", [1, 2]),
    ("githubUrl", "javascript:alert(1)"),
    ("githubUrl", "http://github.com/x"),
    ("githubUrl", "https://github.com.evil.example/x"),
    ("githubUrl", "https://github.com/x\ny"),
    ("filePath", "/etc/passwd"),
    ("errorClass", "<script>"),
    ("severity", "CRITICAL"),
    ("lineNumber", "75"),
    ("lineNumber", 75.0),
    ("lineNumber", True),
    ("httpStatus", 10**30),
    ("analyzedAt", "yesterday"),
    ("messagePattern", "(a+)+$"),
    ("id", "../../x"),
]


@pytest.mark.unit
@pytest.mark.parametrize(
    ("name", "value"), BAD_FIELDS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(BAD_FIELDS)]
)
def test_parse_line_rejects_each_bad_field(seed, name: str, value: Any) -> None:
    result = services.parse_line("in.jsonl", 7, dumps(_mutated(seed, name, value)))
    assert isinstance(result, list), f"{name}={value!r:.60} was accepted"
    _check_result(result)
    assert any(name in e.field for e in result), [str(e) for e in result]


def _import(runner, *args: str):
    result = runner.invoke(args=["records", "import", *args])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def _assert_reported(output: str, path: Path) -> None:
    lines = [ln for ln in output.splitlines() if ln.startswith(str(path))]
    assert lines, output
    for line in lines:
        assert REPORTED.match(line), line


@HOSTILE
@given(name=st.sampled_from(FIELDS), value=json_values)
def test_cli_import_fuzzed_line_is_all_or_nothing(
    app, runner, seed, tmp_path: Path, name: str, value: Any
) -> None:
    """A good line beside a fuzzed one: either both import, or nothing is written."""
    bad = _mutated(seed, name, value)
    good = _mutated(seed, "id", "f000000000000001")
    path = write_lines(tmp_path / "in.jsonl", [json.dumps(good).encode(), dumps(bad)])
    before = row_counts(app)
    result = _import(runner, str(path))
    if result.exit_code == 0:
        return  # the fuzzed value happened to be valid: both lines were imported
    assert result.exit_code == 1, result.output
    assert "nothing was imported" in result.output
    _assert_reported(result.output, path)
    assert row_counts(app) == before


@HOSTILE
@given(raw=st.binary(min_size=1, max_size=200).filter(lambda b: b.strip()))
def test_cli_import_arbitrary_bytes(app, runner, tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(raw)
    before = row_counts(app)
    result = _import(runner, str(path))
    assert result.exit_code == 1, result.output
    _assert_reported(result.output, path)
    assert row_counts(app) == before


def test_cli_import_hostile_corpus_writes_nothing(app, runner, seed, tmp_path: Path) -> None:
    path = write_lines(tmp_path / "in.jsonl", [json.dumps(seed).encode(), *HOSTILE_LINES.values()])
    before = row_counts(app)
    result = _import(runner, str(path))
    assert result.exit_code == 1
    assert f"{len(HOSTILE_LINES)} invalid line(s); nothing was imported" in result.output
    _assert_reported(result.output, path)
    assert row_counts(app) == before


def test_cli_skip_invalid_writes_only_good_lines(app, runner, seed, tmp_path: Path) -> None:
    path = write_lines(tmp_path / "in.jsonl", [*HOSTILE_LINES.values(), json.dumps(seed).encode()])
    result = _import(runner, "--skip-invalid", str(path))
    assert result.exit_code == 1
    assert f"imported: 1 created, 0 updated, 0 unchanged, {len(HOSTILE_LINES)} invalid" in (
        result.output
    )
    assert row_counts(app)["records"] == 1


def test_cli_import_from_stdin_with_garbage(app, runner, tmp_path: Path) -> None:
    before = row_counts(app)
    result = runner.invoke(
        args=["records", "import", "-"], input=b"\xff\xfe\x00garbage\n" + deep(50_000)
    )
    assert "Traceback" not in result.output
    assert result.exit_code == 1
    assert "<stdin>:1: (line): invalid UTF-8 at byte 0" in result.output
    assert "<stdin>:2: (line): invalid JSON: nested too deeply" in result.output
    assert row_counts(app) == before
