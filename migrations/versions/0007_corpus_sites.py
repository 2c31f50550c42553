"""Corpus: per-release locations and code facts of raise sites, exception classes, and
the digest of the corpus last loaded (so reloading it is a no-op).

Revision ID: 0007
Revises: 0005
Create Date: 2026-12-02 18:55:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "record_sites",
        sa.Column("record_id", sa.String(length=64), nullable=False),
        sa.Column("package", sa.String(length=200), nullable=False),
        sa.Column("function", sa.String(length=500), nullable=False),
        sa.Column("condition", sa.Text(), nullable=True),
        sa.Column("docstring", sa.Text(), nullable=True),
        sa.Column("cli_flags", sa.JSON(), nullable=False),
        sa.Column("form", sa.String(length=40), nullable=False),
        sa.Column("corpus_digest", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["record_id"],
            ["records.id"],
            name=op.f("fk_record_sites_record_id_records"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("record_id", name=op.f("pk_record_sites")),
    )
    with op.batch_alter_table("record_sites", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_record_sites_package"), ["package"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_record_sites_corpus_digest"), ["corpus_digest"], unique=False
        )
    op.create_table(
        "record_locations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("record_id", sa.String(length=64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("release", sa.String(length=64), nullable=False),
        sa.Column("file_path", sa.String(length=1000), nullable=False),
        sa.Column("line_number", sa.Integer(), nullable=False),
        sa.Column("github_url", sa.Text(), nullable=False),
        sa.Column("function", sa.String(length=500), nullable=False),
        sa.Column("error_message", sa.Text(), nullable=False),
        sa.Column("message_pattern", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["record_id"],
            ["records.id"],
            name=op.f("fk_record_locations_record_id_records"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_record_locations")),
    )
    with op.batch_alter_table("record_locations", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_record_locations_record_id"), ["record_id"], unique=False
        )
    op.create_table(
        "exception_classes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("package", sa.String(length=200), nullable=False),
        sa.Column("name", sa.String(length=500), nullable=False),
        sa.Column("bases", sa.JSON(), nullable=False),
        sa.Column("file_path", sa.String(length=1000), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_exception_classes")),
    )
    with op.batch_alter_table("exception_classes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_exception_classes_package"), ["package"], unique=False)
        batch_op.create_index(batch_op.f("ix_exception_classes_name"), ["name"], unique=False)
    op.create_table(
        "corpus_state",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("summary", sa.JSON(), nullable=False),
        sa.Column("loaded_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_corpus_state")),
    )


def downgrade():
    op.drop_table("corpus_state")
    with op.batch_alter_table("exception_classes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_exception_classes_name"))
        batch_op.drop_index(batch_op.f("ix_exception_classes_package"))
    op.drop_table("exception_classes")
    with op.batch_alter_table("record_locations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_record_locations_record_id"))
    op.drop_table("record_locations")
    with op.batch_alter_table("record_sites", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_record_sites_corpus_digest"))
        batch_op.drop_index(batch_op.f("ix_record_sites_package"))
    op.drop_table("record_sites")
