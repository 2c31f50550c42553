"""`records draft`: a plain click command; the app registers it under `flask records`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import IO

import click

from app.drafts.services import draft_records, envelope, iso_now, source_digest

_REPO = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


def _repo(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    if not _REPO.fullmatch(value):
        raise click.BadParameter("expected OWNER/NAME")
    return value


def _sha(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not re.fullmatch(r"[0-9a-f]{7,40}", value):
        raise click.BadParameter("expected a commit SHA: 7 to 40 lowercase hex digits")
    return value


@click.command("draft")
@click.option(
    "--from",
    "source",
    required=True,
    type=click.Path(exists=True, path_type=Path),
    help="Installed package directory or .whl file.",
)
@click.option("--repo", required=True, callback=_repo, help="GitHub OWNER/NAME.")
@click.option("--sha", default=None, callback=_sha, help="Commit the source corresponds to.")
@click.option(
    "--tag",
    default=None,
    help="Release tag for GitHub links (e.g. v0.5.23); without --sha, analyzedSha is the "
    "SHA-256 of the source (first 40 hex digits).",
)
@click.option(
    "--path-prefix",
    default=None,
    help="Package location in the repo (default from --repo, e.g. python/ for sglang).",
)
@click.option("-o", "--output", type=click.File("w"), default="-", help="JSONL file (default -).")
def draft_command(
    source: Path,
    repo: str,
    sha: str | None,
    tag: str | None,
    path_prefix: str | None,
    output: IO[str],
) -> None:
    """Write draft error records (JSONL) for a package's raise sites."""
    if sha is None and tag is None:
        raise click.UsageError("give --tag (a release tag such as v0.5.23) or --sha")
    stamp = iso_now()
    count = 0
    try:
        for record in draft_records(
            source,
            repo,
            sha or source_digest(source)[:40],
            ref=tag,
            path_prefix=path_prefix,
            analyzed_at=stamp,
        ):
            output.write(json.dumps(envelope(record, stamp), ensure_ascii=False) + "\n")
            count += 1
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"{count} draft records", err=True)
