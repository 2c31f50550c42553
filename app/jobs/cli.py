"""``flask repro nightly``: enqueue tonight's jobs (or run them here with ``--local``)."""

from __future__ import annotations

import datetime as dt
import socket

import click
from flask import current_app

from app.extensions import db
from app.jobs import services as jobs
from app.records.cli import require_schema
from app.repro.cli import repro_cli, run_here
from app.repro.models import DONE, QUEUED
from repro.vocabulary import PLATFORMS


@repro_cli.command("nightly")
@click.option(
    "--local",
    is_flag=True,
    help="Run every job here, in this process, with no broker (embedded default).",
)
@click.option(
    "--platform",
    "platforms",
    multiple=True,
    type=click.Choice(PLATFORMS),
    help="Platforms (repeatable). Default: ERRATA_NIGHTLY_PLATFORMS or blackwell,hopper.",
)
@click.option("--repeats", type=click.IntRange(1, 20), default=3, show_default=True)
def nightly_command(local: bool, platforms: tuple[str, ...], repeats: int) -> None:
    """Enqueue tonight's jobs: one per harnessed record x platform (as the schedule does)."""
    require_schema()
    chosen = list(platforms) or current_app.config["ERRATA_NIGHTLY_PLATFORMS"]
    night = dt.datetime.now(dt.UTC).date()
    batch = jobs.plan_nightly(db.session, night, chosen)
    db.session.commit()
    todo = batch.created + batch.resent
    click.echo(
        f"night {batch.night}: {len(batch.created)} new job(s), {len(batch.resent)} to re-send, "
        f"{batch.skipped} already queued or done"
    )
    worker = f"local@{socket.gethostname()}"
    if local:
        for run in todo:
            run_here(run, repeats, 600.0, worker)
            click.echo(f"  {run.job_id}: {run.status} {run.trigger_outcome or run.message or ''}")
        failed = sum(run.status != DONE for run in todo)
    else:
        sent = jobs.send_batch(db.session, batch, current_app.config["ERRATA_BROKER_URL"], repeats)
        for run in todo:
            state = "queued" if run.status == QUEUED else f"NOT SENT: {run.message}"
            click.echo(f"  {run.job_id}: {state}")
        failed = len(todo) - sent
    if failed:
        raise SystemExit(1)
