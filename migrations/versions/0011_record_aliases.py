"""Record aliases: the id a raise site had before a corpus load renamed it (an older release
pinned, a curated record taking the site), so old links and API clients are redirected.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-06 06:00:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "record_aliases",
        sa.Column("old_id", sa.String(length=64), nullable=False),
        sa.Column("new_id", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["new_id"],
            ["records.id"],
            name=op.f("fk_record_aliases_new_id_records"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("old_id", name=op.f("pk_record_aliases")),
    )
    with op.batch_alter_table("record_aliases", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_record_aliases_new_id"), ["new_id"], unique=False)


def downgrade():
    with op.batch_alter_table("record_aliases", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_record_aliases_new_id"))
    op.drop_table("record_aliases")
