"""What a raise site's enclosing method reads of `self`, for frameless AttributeErrors.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05 16:45:00

"""

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("record_sites") as batch:
        batch.add_column(sa.Column("self_reads", sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table("record_sites") as batch:
        batch.drop_column("self_reads")
