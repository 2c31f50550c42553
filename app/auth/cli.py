"""``flask tokens ...``: API tokens for curators, workers and admins."""

from __future__ import annotations

import click
from flask.cli import AppGroup

from app.audit import audit
from app.auth import services
from app.auth.models import SCOPES
from app.extensions import db
from app.records.cli import require_schema

tokens_cli = AppGroup("tokens", help="Create, list and revoke API tokens.")


@tokens_cli.command("create")
@click.option("--name", required=True, help="Who or what uses it (e.g. gpu-worker-1).")
@click.option("--scope", required=True, type=click.Choice(SCOPES))
@click.option("--gpu", is_flag=True, help="A worker on real GPUs (may report real hardware).")
def create_command(name: str, scope: str, gpu: bool) -> None:
    """Create a token and print it once (only its hash is stored)."""
    require_schema()
    try:
        token, plain = services.create_token(db.session, name, scope, gpu=gpu)
    except services.TokenError as exc:
        raise click.ClickException(str(exc)) from None
    db.session.commit()
    audit("token created", None, f"token {token.id} ({token.name})", scope=token.scope, gpu=gpu)
    click.echo(
        f"created token {token.id} ({token.scope}) for {token.name}; it is shown once:", err=True
    )
    click.echo(plain)


@tokens_cli.command("list")
def list_command() -> None:
    """List tokens (never their values)."""
    require_schema()
    for t in services.list_tokens(db.session):
        state = f"revoked {t.revoked_at:%Y-%m-%d}" if t.revoked_at else "active"
        used = f"{t.last_used_at:%Y-%m-%d %H:%M}" if t.last_used_at else "never"
        scope = f"{t.scope}+gpu" if t.gpu else t.scope
        click.echo(f"{t.id}\t{t.prefix}…\t{scope}\t{t.name}\t{state}\tlast used {used}")


@tokens_cli.command("revoke")
@click.argument("token_id", type=int)
def revoke_command(token_id: int) -> None:
    """Revoke a token by id."""
    require_schema()
    try:
        token = services.revoke(db.session, token_id)
    except services.TokenError as exc:
        raise click.ClickException(str(exc)) from None
    db.session.commit()
    audit("token revoked", None, f"token {token.id} ({token.name})")
    click.echo(f"revoked token {token.id} ({token.name})")
