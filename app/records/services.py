"""Import, export and read records. No Flask here: callers pass a SQLAlchemy session.

Services flush; the caller (a CLI command or a request) commits once at its boundary.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from pydantic import ValidationError
from sqlalchemy import select

from app.db import DbSession
from app.records.models import (
    CatalogState,
    Record,
    RecordPreventionTip,
    RecordSolution,
    RecordTag,
    RecordTriggerScenario,
    RecordVersion,
)
from app.records.schemas import RECORD_FIELDS, Envelope
from app.search.services import index_documents
from app.search.text import SearchDocument

MAX_LINE_BYTES = 16 * 1024 * 1024
MAX_JSON_DEPTH = 32

# Scalar schema fields and the column that stores each.
SCALAR_COLUMNS: dict[str, str] = {
    "id": "id",
    "repo": "repo",
    "slug": "slug",
    "errorCode": "error_code",
    "errorMessage": "error_message",
    "messagePattern": "message_pattern",
    "errorType": "error_type",
    "errorClass": "error_class",
    "httpStatus": "http_status",
    "severity": "severity",
    "filePath": "file_path",
    "lineNumber": "line_number",
    "sourceCode": "source_code",
    "sourceCodeStart": "source_code_start",
    "sourceCodeEnd": "source_code_end",
    "githubUrl": "github_url",
    "documentation": "documentation",
    "commonSituations": "common_situations",
    "exampleFix": "example_fix",
    "handlingStrategy": "handling_strategy",
    "validationCode": "validation_code",
    "typeGuard": "type_guard",
    "tryCatchPattern": "try_catch_pattern",
    "backgroundTag": "background_tag",
    "analyzedSha": "analyzed_sha",
    "analyzedAt": "analyzed_at",
    "schemaVersion": "schema_version",
}
LIST_FIELDS = {"solutions", "preventionTips", "tags", "triggerScenarios"}
assert set(SCALAR_COLUMNS) | LIST_FIELDS == set(RECORD_FIELDS)


@dataclass(frozen=True)
class LineError:
    """A bad input line: where, which field, and why."""

    source: str
    line: int
    field: str
    reason: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {_one_line(self.field)}: {_one_line(self.reason)}"


def _one_line(text: str) -> str:
    """Escape control characters (an input's key may hold a newline or an ANSI escape), so
    one error is one report line and cannot forge another."""
    return text if text.isprintable() else text.encode("unicode_escape").decode("ascii")


@dataclass(frozen=True)
class ParsedLine:
    source: str
    line: int
    envelope: Envelope


@dataclass
class ImportStats:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    invalid: int = 0
    errors: list[LineError] = field(default_factory=list)

    @property
    def written(self) -> int:
        return self.created + self.updated


def _json_depth(value: Any, limit: int) -> int:
    """Depth of nested containers, stopping early once past ``limit``."""
    depth = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            depth = max(depth, level)
            if depth > limit:
                return depth
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return depth


def _field_name(loc: tuple[int | str, ...]) -> str:
    """``('record', 'tags', 2)`` -> ``record.tags[2]``; union branches are dropped."""
    parts: list[str] = []
    for part in loc:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        elif part in ("str", "list[str]", "function-after[_no_nul(), str]") or "[" in part:
            continue
        else:
            parts.append(("." if parts else "") + part)
    return "".join(parts) or "(line)"


def parse_line(source: str, lineno: int, raw: bytes) -> ParsedLine | list[LineError]:
    """Validate one JSONL line; return the parsed envelope or its errors."""

    def error(fieldname: str, reason: str) -> list[LineError]:
        return [LineError(source, lineno, fieldname, reason)]

    if len(raw) > MAX_LINE_BYTES:
        return error("(line)", f"line is {len(raw)} bytes, over the {MAX_LINE_BYTES} limit")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return error("(line)", f"invalid UTF-8 at byte {exc.start}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return error("(line)", f"invalid JSON: {exc.msg} at column {exc.colno}")
    except RecursionError:
        return error("(line)", "invalid JSON: nested too deeply")
    except ValueError as exc:  # e.g. an integer over Python's 4300-digit conversion limit
        return error("(line)", f"invalid JSON: {str(exc).split(';')[0]}")
    if not isinstance(data, dict):
        return error("(line)", f"expected a JSON object, got {type(data).__name__}")
    if _json_depth(data, MAX_JSON_DEPTH) > MAX_JSON_DEPTH:
        return error("(line)", f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        envelope = Envelope.model_validate(data)
    except ValidationError as exc:
        return [
            LineError(source, lineno, _field_name(err["loc"]), _reason(err))
            for err in exc.errors(include_url=False, include_input=False)
        ]
    return ParsedLine(source, lineno, envelope)


def _reason(err: Any) -> str:
    msg = str(err["msg"])
    return msg.removeprefix("Value error, ")


def read_lines(source: str, stream: BinaryIO) -> Iterator[tuple[int, bytes]]:
    """Yield ``(line number, bytes)`` for non-blank lines, without a line-length blow-up."""
    for lineno, raw in enumerate(stream, start=1):
        stripped = raw.strip()
        if stripped:
            yield lineno, stripped


def parse_stream(
    source: str,
    lines: Iterable[tuple[int, bytes]],
    first_seen: dict[str, tuple[str, int]] | None = None,
) -> tuple[list[ParsedLine], list[LineError]]:
    """Validate every line; a repeated id is an error too. Pass one ``first_seen`` to
    several calls to catch ids repeated across inputs."""
    parsed: list[ParsedLine] = []
    errors: list[LineError] = []
    first_seen = {} if first_seen is None else first_seen
    for lineno, raw in lines:
        result = parse_line(source, lineno, raw)
        if isinstance(result, list):
            errors.extend(result)
            continue
        record_id = result.envelope.record.id
        if record_id in first_seen:
            where = "{}:{}".format(*first_seen[record_id])
            errors.append(
                LineError(
                    source, lineno, "record.id", f"duplicate id {record_id!r} (first at {where})"
                )
            )
            continue
        first_seen[record_id] = (source, lineno)
        parsed.append(result)
    return parsed, errors


def content_hash(envelope: Envelope) -> str:
    """Hash of what a record says (its fields and draft flag), not where it came from."""
    payload = {"record": envelope.record.model_dump(mode="json"), "draft": envelope.draft}
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _apply(row: Record, envelope: Envelope, digest: str) -> None:
    data = envelope.record.model_dump(mode="json")
    for name, column in SCALAR_COLUMNS.items():
        setattr(row, column, data[name])
    row.solutions = [RecordSolution(text=t) for t in data["solutions"]]
    row.prevention_tips = [RecordPreventionTip(text=t) for t in data["preventionTips"]]
    row.tags = [RecordTag(tag=t) for t in data["tags"]]
    scenarios = data["triggerScenarios"]
    if scenarios is None:
        row.trigger_scenarios_kind, row.trigger_scenarios_text = None, None
        row.trigger_scenarios = []
    elif isinstance(scenarios, str):
        row.trigger_scenarios_kind, row.trigger_scenarios_text = "text", scenarios
        row.trigger_scenarios = []
    else:
        row.trigger_scenarios_kind, row.trigger_scenarios_text = "list", None
        row.trigger_scenarios = [RecordTriggerScenario(text=t) for t in scenarios]
    row.dataset_version = envelope.datasetVersion
    row.is_draft = envelope.draft
    row.content_hash = digest


def _version_row(row: Record, envelope: Envelope) -> RecordVersion:
    return RecordVersion(
        record_id=row.id,
        version=row.version,
        dataset_version=envelope.datasetVersion,
        is_draft=envelope.draft,
        content_hash=row.content_hash,
        content=envelope.record.model_dump(mode="json"),
    )


def upsert(session: DbSession, parsed: Iterable[ParsedLine], batch: int = 500) -> ImportStats:
    """Insert new records, update changed ones (keeping history), skip unchanged ones."""
    stats = ImportStats()
    pending = list(parsed)
    for start in range(0, len(pending), batch):
        chunk = pending[start : start + batch]
        ids = [p.envelope.record.id for p in chunk]
        existing = {r.id: r for r in session.scalars(select(Record).where(Record.id.in_(ids)))}
        changed: list[Record] = []
        for item in chunk:
            envelope = item.envelope
            digest = content_hash(envelope)
            row = existing.get(envelope.record.id)
            if row is not None and row.content_hash == digest:
                stats.unchanged += 1
                continue
            if row is None:
                row = Record(version=1)
                session.add(row)
                stats.created += 1
            else:
                row.version += 1
                stats.updated += 1
            _apply(row, envelope, digest)
            session.add(_version_row(row, envelope))
            changed.append(row)
        session.flush()
        index_documents(session, [document_for(r) for r in changed])
    if stats.written:
        bump_catalog(session)
    return stats


def bump_catalog(session: DbSession) -> None:
    """Mark the record set as changed (read by the match index's freshness check)."""
    state = session.get(CatalogState, 1, with_for_update=True)
    if state is None:
        session.add(CatalogState(id=1, version=1))
    else:
        state.version += 1
    session.flush()


def catalog_version(session: DbSession) -> int:
    state = session.get(CatalogState, 1)
    return state.version if state is not None else 0


def record_to_dict(row: Record) -> dict[str, Any]:
    """The record in the dataset's own field names and order."""
    out: dict[str, Any] = {}
    for name in RECORD_FIELDS:
        if name in SCALAR_COLUMNS:
            out[name] = getattr(row, SCALAR_COLUMNS[name])
        elif name == "solutions":
            out[name] = [s.text for s in row.solutions]
        elif name == "preventionTips":
            out[name] = [t.text for t in row.prevention_tips]
        elif name == "tags":
            out[name] = [t.tag for t in row.tags]
        elif name == "triggerScenarios":
            if row.trigger_scenarios_kind == "list":
                out[name] = [s.text for s in row.trigger_scenarios]
            else:
                out[name] = row.trigger_scenarios_text
    return out


def envelope_to_dict(row: Record) -> dict[str, Any]:
    out: dict[str, Any] = {"record": record_to_dict(row), "datasetVersion": row.dataset_version}
    if row.is_draft:
        out["draft"] = True
    return out


def iter_export(session: DbSession, batch: int = 1000) -> Iterator[dict[str, Any]]:
    """Every current record as a dataset envelope, in id order."""
    stmt = select(Record).order_by(Record.id).execution_options(yield_per=batch)
    for row in session.scalars(stmt):
        yield envelope_to_dict(row)


def get_record(session: DbSession, record_id: str) -> Record | None:
    return session.get(Record, record_id)


def document_for(row: Record) -> SearchDocument:
    texts: list[str | None] = [row.documentation, row.common_situations]
    texts += [s.text for s in row.solutions]
    texts += [t.text for t in row.prevention_tips]
    texts += [s.text for s in row.trigger_scenarios] or [row.trigger_scenarios_text]
    return SearchDocument.build(
        row.id,
        message=row.error_message,
        error_class=row.error_class,
        error_type=row.error_type,
        tags=[t.tag for t in row.tags],
        background_tag=row.background_tag,
        file_path=row.file_path,
        texts=texts,
    )
