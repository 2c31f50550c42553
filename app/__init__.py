"""Errata: an error-knowledge service with a live reproducer."""

from __future__ import annotations

import os
from typing import Any

from flask import Flask

from app.config import SettingsError, load_settings
from app.extensions import db, limiter, migrate
from app.ratelimits import configure_limits
from app.security import JSONProvider


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app: defaults, then the environment, then ``test_config``."""
    app = Flask(__name__, instance_relative_config=True)
    os.makedirs(app.instance_path, exist_ok=True)
    try:
        app.config.from_mapping(load_settings(app.instance_path))
    except SettingsError as exc:  # a clear line for `flask ...` and gunicorn, no traceback
        raise SystemExit(f"errata: bad setting: {exc}") from None
    if test_config is not None:
        app.config.from_mapping(test_config)

    app.json = JSONProvider(app)
    db.init_app(app)
    configure_limits(app.config)
    limiter.init_app(app)
    migrate.init_app(app, db, directory=os.path.join(os.path.dirname(app.root_path), "migrations"))

    from app import api, compression, errors, security
    from app.auth.cli import tokens_cli
    from app.corpus.cli import corpus_cli
    from app.jobs import cli as jobs_cli  # noqa: F401  (adds ``flask repro nightly``)
    from app.pages import records as records_pages
    from app.pages import repro as repro_pages
    from app.records.cli import records_cli
    from app.repro.cli import repro_cli

    errors.init_app(app)
    security.init_app(app)
    compression.init_app(app)
    api.init_app(app)
    app.register_blueprint(records_pages.bp)
    app.register_blueprint(repro_pages.bp)
    app.cli.add_command(records_cli)
    app.cli.add_command(repro_cli)
    app.cli.add_command(tokens_cli)
    app.cli.add_command(corpus_cli)
    return app
