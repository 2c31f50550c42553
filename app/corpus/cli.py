"""``flask corpus ...``: build the pinned corpus and load it into the store."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from flask import current_app
from flask.cli import AppGroup

from app.corpus.build import build_corpus, default_jobs
from app.corpus.fetch import FetchError, cache_dir
from app.corpus.load import LoadError, current_digest, load_corpus, load_digest
from app.corpus.pins import DEFAULT_PINS, PinError, load_pins
from app.extensions import db
from app.records.cli import require_schema

corpus_cli = AppGroup("corpus", help="Build and load the corpus of pinned releases.")


@corpus_cli.command("build")
@click.option(
    "--pins",
    type=click.Path(dir_okay=False, path_type=Path),
    default=DEFAULT_PINS,
    show_default=True,
    help="The pinned release list.",
)
@click.option("--only", multiple=True, help="Only this package (repeatable).")
@click.option("--no-load", is_flag=True, help="Build the corpus file only.")
@click.option("--force", is_flag=True, help="Load even if this corpus is already loaded.")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1, max=64),
    default=None,
    help="Releases drafted at once, one process each (~0.5 GB apiece) [default: one per CPU,"
    " at most 8].",
)
def build_command(
    pins: Path, only: tuple[str, ...], no_load: bool, force: bool, jobs: int | None
) -> None:
    """Fetch, draft and merge the pinned releases (cached), then load them."""
    if not no_load:
        require_schema()
    try:
        pinned = load_pins(pins, only)
    except PinError as exc:
        raise click.ClickException(str(exc)) from None
    cache = cache_dir(current_app.config)
    with click.progressbar(
        length=len(pinned.releases), label="drafting releases", file=sys.stderr
    ) as bar:

        def step(label: str) -> None:
            bar.label = f"drafted {label:<28}"
            bar.update(1)

        try:
            built = build_corpus(pinned, cache, step, jobs or default_jobs())
        except (FetchError, OSError) as exc:
            raise click.ClickException(str(exc)) from None
    how = "reused" if built.reused else "built"
    click.echo(f"corpus {how}: {built.records} raise sites from {len(pinned.releases)} releases")
    click.echo(f"  {built.path}", err=True)
    if no_load:
        return
    digest = load_digest(db.session, built.digest)
    if not force and current_digest(db.session) == digest:
        click.echo("corpus already loaded: nothing to do")
        return
    meta = json.loads(built.meta_path.read_text())
    with click.progressbar(length=built.records, label="loading", file=sys.stderr) as bar:
        try:
            stats = load_corpus(
                db.session, built.path, meta, digest, force=force, progress=bar.update
            )
            db.session.commit()
        except LoadError as exc:
            db.session.rollback()
            raise click.ClickException(str(exc)) from None
    click.echo(
        f"loaded: {stats.created} created, {stats.updated} updated, {stats.unchanged} "
        f"unchanged, {stats.attached} attached to curated records, {stats.removed} removed, "
        f"{stats.renamed} renamed (their old ids redirect)"
    )
