"""Hostile curators and workers: GPU worker tokens, per-job secrets, invalid runs,
retracted records, and the token that wrote each record version.

Revision ID: 0009
Revises: 0005
Create Date: 2026-12-02 18:40:00

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0009"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("api_tokens") as batch:
        batch.add_column(sa.Column("gpu", sa.Boolean(), server_default=sa.false(), nullable=False))
    with op.batch_alter_table("repro_runs") as batch:
        batch.add_column(sa.Column("secret_hash", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("worker_token_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("invalidated_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("invalid_reason", sa.Text(), nullable=True))
    with op.batch_alter_table("records") as batch:
        batch.add_column(sa.Column("retracted_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("retracted_reason", sa.Text(), nullable=True))
    with op.batch_alter_table("record_versions") as batch:
        batch.add_column(sa.Column("token_id", sa.Integer(), nullable=True))


def downgrade():
    with op.batch_alter_table("record_versions") as batch:
        batch.drop_column("token_id")
    with op.batch_alter_table("records") as batch:
        batch.drop_column("retracted_reason")
        batch.drop_column("retracted_at")
    with op.batch_alter_table("repro_runs") as batch:
        batch.drop_column("invalid_reason")
        batch.drop_column("invalidated_at")
        batch.drop_column("worker_token_id")
        batch.drop_column("secret_hash")
    with op.batch_alter_table("api_tokens") as batch:
        batch.drop_column("gpu")
