"""Hostile-input fixtures: the shared app with rate limits off, a write token, row counts.

The ``app`` fixture here replaces the suite's one for ``tests/hostile`` only: same database
per backend and same isolation, but rate limits are off (fuzzing sends hundreds of requests)
and the broker URL points at a closed port so a queued run fails fast instead of waiting.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskCliRunner
from hypothesis import HealthCheck, settings
from sqlalchemy import func, select

from app import create_app
from app.extensions import db
from tests.conftest import SEED_FILE, isolated

# Hypothesis profile for this folder: bounded, no deadline (the database is in the loop),
# and the fixtures are function-scoped on purpose: every property below holds whatever
# earlier examples wrote, so sharing one app across the examples of a test is sound.
settings.register_profile(
    "hostile",
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)
HOSTILE = settings.get_profile("hostile")


@pytest.fixture
def app(database_url: str, request: pytest.FixtureRequest) -> Iterator[Flask]:
    app = create_app(
        {
            "TESTING": True,
            "SQLALCHEMY_DATABASE_URI": database_url,
            "RATELIMIT_ENABLED": False,
            "ERRATA_BROKER_URL": "redis://127.0.0.1:9/0",
        }
    )
    with isolated(app, request):
        yield app


def make_token(runner: FlaskCliRunner, scope: str = "write", name: str = "t") -> str:
    """A fresh API token; ``flask tokens create`` prints it (alone) on stdout."""
    result = runner.invoke(args=["tokens", "create", "--name", name, "--scope", scope])
    assert result.exit_code == 0, result.output
    token = result.stdout.strip()
    assert token.startswith("errata_"), token
    return token


@pytest.fixture
def write_token(runner: FlaskCliRunner) -> str:
    return make_token(runner, "write")


@pytest.fixture
def seed() -> dict[str, Any]:
    return json.loads(SEED_FILE.read_text(encoding="utf-8").splitlines()[0])


def row_counts(app: Flask) -> dict[str, int]:
    """Rows per table (api_tokens aside: verifying a token touches last_used_at only)."""
    with app.app_context():
        counts = {
            t.name: db.session.scalar(select(func.count()).select_from(t)) or 0
            for t in db.metadata.sorted_tables
        }
        db.session.remove()
    return counts


def snapshot(app: Flask) -> str:
    """Every record as exported: compares whole contents, not just counts."""
    from app.records import services

    with app.app_context():
        out = json.dumps(list(services.iter_export(db.session)), sort_keys=True)
        db.session.remove()
    return out


def assert_problem(response: Any, *statuses: int) -> dict[str, Any]:
    """A 4xx answered as RFC 9457 problem details, without a traceback."""
    assert response.status_code in statuses, (response.status_code, response.get_data()[:500])
    assert response.mimetype == "application/problem+json", response.mimetype
    body = response.get_json()
    assert body["status"] == response.status_code
    assert isinstance(body["title"], str)
    assert b"Traceback" not in response.get_data()
    return body


def write_lines(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path
