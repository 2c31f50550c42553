"""``flask repro ...``: link records to harnesses and run them here (``nightly``: app.jobs.cli)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import click
from flask.cli import AppGroup

from app.extensions import db
from app.records.cli import require_schema
from app.repro import services
from app.repro.models import DONE, ReproRun
from repro.harnesses import LINKS_FILE, load_links
from repro.runner import run_harness
from repro.vocabulary import PLATFORM_LABELS, PLATFORMS

repro_cli = AppGroup("repro", help="Run records' reproducer harnesses.")


def run_here(run: ReproRun, repeats: int, timeout: float, worker: str) -> None:
    """Run ``run`` in this process: committed as running first (so /runs shows it), then
    the harness, then its report, committed."""
    services.start(db.session, run, worker)
    db.session.commit()
    payload = services.payload_for(db.session, run, repeats)
    report = run_harness(run.harness, run.env, payload, timeout_s=timeout)
    services.record_report(db.session, run, report, worker)
    db.session.commit()


@repro_cli.command("links")
@click.option(
    "--file",
    "path",
    type=click.Path(exists=True, dir_okay=False),
    default=str(LINKS_FILE),
    show_default=True,
    help="The link data file.",
)
def links_command(path: str) -> None:
    """Load record -> harness links from the data file (replaces the stored ones)."""
    require_schema()
    try:
        links = load_links(Path(path))
    except (ValueError, KeyError) as exc:
        raise click.ClickException(f"{path}: not a valid link file: {exc}") from None
    linked, missing = services.sync_links(db.session, links)
    db.session.commit()
    click.echo(f"linked {linked} record(s) to harnesses")
    for record_id in missing:
        click.echo(f"warning: {path}: record {record_id} is not in the store; skipped", err=True)


@repro_cli.command("run")
@click.argument("record_id")
@click.option(
    "--platform",
    "platforms",
    multiple=True,
    type=click.Choice(PLATFORMS),
    help="Platform to run on (repeatable). Default: the record's simulated platforms.",
)
@click.option(
    "--repeats",
    type=click.IntRange(1, 20),
    default=3,
    show_default=True,
    help="Runs per scenario, to detect flakiness.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(1, 3600),
    default=600.0,
    show_default=True,
    help="Whole-run limit in seconds.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the stored runs as JSON.")
def run_command(
    record_id: str, platforms: tuple[str, ...], repeats: int, timeout: float, as_json: bool
) -> None:
    """Run RECORD_ID's harness here and store the run (outcomes, platform, drift, logs)."""
    require_schema()
    try:
        target = services.target_for(db.session, record_id)
    except services.ReproError as exc:
        raise click.ClickException(str(exc)) from None
    chosen = platforms or tuple(p for p in target.platforms if p != "real")
    worker = f"cli@{socket.gethostname()}"
    failed = False
    results = []
    for platform in chosen:
        try:
            run = services.create_run(db.session, record_id, platform, origin="cli")
        except services.ReproError as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"run {run.id}: {target.harness} on {platform} ...", err=True)
        run_here(run, repeats, timeout, worker)
        results.append(services.summary(run) | {"status": run.status, "message": run.message})
        if run.status != DONE:
            failed = True
            click.echo(f"run {run.id}: {run.status}: {run.message}", err=True)
            continue
        label = PLATFORM_LABELS.get(platform, platform)
        kind = "simulated" if run.simulated else "real"
        click.echo(
            f"run {run.id}: trigger {run.trigger_outcome} on {label} ({kind}), "
            f"{services.upstream_label(run)}"
        )
        for fix in run.fixes:
            click.echo(f"  fix {fix['backend'] or fix['scenario']}: {fix['outcome']}")
        drift = run.drift or {}
        if drift:
            status = drift.get("status") or ("moved" if drift.get("moved") else "unchanged")
            installed = (drift.get("installed") or {}).get("line", "?")
            click.echo(
                f"  drift {status}: record line {(drift.get('record') or {}).get('line')}, "
                f"{services.upstream_label(run)} line {installed}"
            )
        for regression in run.regressions:
            click.echo(
                f"  REGRESSION {regression['what']}: {regression['was']} -> {regression['now']}"
            )
    if as_json:
        click.echo(json.dumps(results, indent=2))
    if failed:
        raise SystemExit(1)


@repro_cli.command("sweep-overdue")
def sweep_overdue_command() -> None:
    """Fail runs still 'running' past the worker's hard time limit (the nightly catch-up
    does this every 15 minutes too)."""
    require_schema()
    closed = services.sweep_overdue(db.session)
    db.session.commit()
    click.echo(f"closed {len(closed)} overdue run(s)")
    for run in closed:
        click.echo(f"  run {run.id} ({run.record_id} on {run.platform}): {run.message}")


@repro_cli.command("invalidate")
@click.argument("run_id", type=int)
@click.option("--reason", required=True, help="Why (kept on the run).")
def invalidate_command(run_id: int, reason: str) -> None:
    """Mark a run invalid: kept in the history, left out of the verdicts."""
    from app.audit import audit
    from app.corpus import catalog as match_index
    from app.records.moderation import ModerationError
    from app.repro.moderation import invalidate_run

    require_schema()
    try:
        invalidate_run(db.session, run_id, reason)
    except ModerationError as exc:
        raise click.ClickException(str(exc)) from None
    db.session.commit()
    match_index.forget()
    audit("run invalidated", None, f"run {run_id}", reason=reason)
    click.echo(f"invalidated run {run_id}")
