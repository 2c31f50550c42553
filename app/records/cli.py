"""``flask records ...``: import and export the dataset."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from typing import BinaryIO

import click
from flask.cli import AppGroup
from sqlalchemy import inspect, text
from sqlalchemy.exc import OperationalError

from app.drafts.cli import draft_command
from app.extensions import db
from app.records import services

records_cli = AppGroup("records", help="Import, export and draft error records.")
records_cli.add_command(draft_command)


def require_schema() -> None:
    """Fail with a clear message, not a traceback, when the database was never migrated."""
    try:
        present = inspect(db.session.connection()).has_table("records")
    except OperationalError as exc:
        raise click.ClickException(f"cannot open the database: {exc.orig}") from None
    finally:
        db.session.rollback()  # a long validation should not keep the transaction open
    if not present:
        raise click.ClickException(
            "the database has no schema yet: run `flask db upgrade` (or `make migrate`) first"
        )


PROGRESS_MIN_BYTES = 1024 * 1024
ANALYZE_AFTER = 1000


def _lines_with_progress(name: str, stream: BinaryIO) -> Iterator[tuple[int, bytes]]:
    """Read lines, showing a progress bar on stderr for large files."""
    try:
        size = os.fstat(stream.fileno()).st_size
    except (OSError, ValueError):
        size = 0
    if size < PROGRESS_MIN_BYTES:
        yield from services.read_lines(name, stream)
        return
    with click.progressbar(
        length=size, label=f"validating {name}", file=sys.stderr, show_pos=False
    ) as bar:
        for lineno, raw in services.read_lines(name, stream):
            bar.update(len(raw) + 1)
            yield lineno, raw


@records_cli.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option(
    "--skip-invalid",
    is_flag=True,
    help="Import the valid lines even if some are bad (bad ones are still reported).",
)
def import_command(files: tuple[str, ...], skip_invalid: bool) -> None:
    """Import JSONL dataset FILES ('-' reads stdin). Upserts by id, keeps history."""
    require_schema()
    parsed: list[services.ParsedLine] = []
    errors: list[services.LineError] = []
    first_seen: dict[str, tuple[str, int]] = {}  # ids repeated across files are errors too
    for name in files:
        try:
            if name == "-":
                file_parsed, file_errors = services.parse_stream(
                    "<stdin>", services.read_lines("<stdin>", sys.stdin.buffer), first_seen
                )
            else:
                with open(name, "rb") as stream:
                    file_parsed, file_errors = services.parse_stream(
                        name, _lines_with_progress(name, stream), first_seen
                    )
        except OSError as exc:
            raise click.ClickException(f"{name}: cannot read: {exc.strerror or exc}") from None
        parsed.extend(file_parsed)
        errors.extend(file_errors)

    for err in errors:
        click.echo(str(err), err=True)
    bad_lines = len({(e.source, e.line) for e in errors})
    if errors and not skip_invalid:
        raise click.ClickException(
            f"{bad_lines} invalid line(s); nothing was imported (use --skip-invalid "
            "to import the valid lines)"
        )
    try:
        stats = services.upsert(db.session, parsed)  # only valid, first-seen lines
        db.session.commit()
        _audit_import(files, stats)
    except OperationalError as exc:
        db.session.rollback()
        reason = str(exc.orig).splitlines()[0] if exc.orig is not None else str(exc)
        raise click.ClickException(
            f"cannot write to the database: {reason}; nothing was imported"
        ) from None
    if stats.written >= ANALYZE_AFTER and db.engine.dialect.name == "postgresql":
        # Fresh planner statistics: without them a search count over 100k rows took 315 ms
        # instead of 26 ms right after a bulk import.
        db.session.execute(text("ANALYZE records, record_search, record_tags, record_solutions"))
        db.session.commit()
    click.echo(
        f"imported: {stats.created} created, {stats.updated} updated, "
        f"{stats.unchanged} unchanged, {bad_lines} invalid"
    )
    if errors:
        sys.exit(1)


@records_cli.command("export")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, allow_dash=True),
    default="-",
    help="Write to this file instead of stdout.",
)
def export_command(output: str) -> None:
    """Write every record as JSONL, in the dataset's own envelope."""
    require_schema()
    try:
        stream = click.open_file(output, "w", encoding="utf-8")
    except OSError as exc:
        raise click.ClickException(f"{output}: cannot write: {exc.strerror or exc}") from None
    count = 0
    with stream:
        for envelope in services.iter_export(db.session):
            stream.write(json.dumps(envelope, ensure_ascii=False) + "\n")
            count += 1
    click.echo(f"exported {count} record(s)", err=True)


@records_cli.command("retract")
@click.argument("record_id")
@click.option("--reason", required=True, help="Why (kept with the tombstone).")
def retract_command(record_id: str, reason: str) -> None:
    """Retract a record: hidden from matching, search and lists; its history is kept."""
    from app.audit import audit
    from app.records.moderation import ModerationError, retract_record

    require_schema()
    try:
        retract_record(db.session, record_id, reason)
    except ModerationError as exc:
        raise click.ClickException(str(exc)) from None
    db.session.commit()
    audit("record retracted", None, record_id, reason=reason)
    click.echo(f"retracted {record_id}")


def _audit_import(files: tuple[str, ...], stats: services.ImportStats) -> None:
    from app.audit import audit

    audit("records imported", None, ",".join(files), written=stats.written)
