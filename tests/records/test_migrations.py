"""Migrations build the schema, agree with the models, and go back down to base."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect

from app import create_app
from app.db import include_name
from app.extensions import db
from tests.conftest import BACKENDS, make_database

pytestmark = pytest.mark.unit  # besides the database backend, no service


@pytest.mark.parametrize("kind", BACKENDS)
def test_upgrade_check_downgrade(kind, tmp_path):
    url, pg = make_database(kind, tmp_path)
    try:
        app = create_app({"SQLALCHEMY_DATABASE_URI": url, "TESTING": True})
        with app.app_context():
            upgrade()
            with db.engine.connect() as conn:
                context = MigrationContext.configure(
                    conn,
                    opts={
                        "compare_type": True,
                        "render_as_batch": True,
                        "include_name": include_name,
                    },
                )
                assert compare_metadata(context, db.metadata) == []
                tables = set(inspect(conn).get_table_names())
            assert {"records", "record_tags", "record_versions"} <= tables

            downgrade(revision="base")
            with db.engine.connect() as conn:
                assert set(inspect(conn).get_table_names()) <= {"alembic_version"}
            db.engine.dispose()
    finally:
        if pg is not None:
            pg.drop()
