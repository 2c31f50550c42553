"""Aware timestamps: records.updated_at and catalog_state.changed_at become timezone-aware
like every other timestamp (the stored values are UTC, as ``app.db.utcnow`` wrote them).

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

COLUMNS = (("records", "updated_at"), ("catalog_state", "changed_at"))


def _alter(aware: bool) -> None:
    if op.get_bind().dialect.name == "sqlite":
        return  # SQLite stores both as the same text; rebuilding records would cascade
    for table, column in COLUMNS:
        op.alter_column(
            table,
            column,
            existing_type=sa.DateTime(timezone=not aware),
            type_=sa.DateTime(timezone=aware),
            existing_nullable=False,
            postgresql_using=f"{column} AT TIME ZONE 'UTC'",
        )


def upgrade():
    _alter(aware=True)


def downgrade():
    _alter(aware=False)
