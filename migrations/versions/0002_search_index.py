"""Full-text search index: FTS5 on SQLite, tsvector + GIN on PostgreSQL.

Both store the same normalized words per field (message, class, tags, path, body) so the
app ranks results identically on either backend. Existing records are indexed here.

Revision ID: 0002
Revises: 0001
"""

import re

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def _normalize(*parts):
    return " ".join(t for p in parts if p for t in _TOKEN.findall(p.lower()) if len(t) <= 64)


def _documents(bind):
    lists = {}
    for table, column in (
        ("record_tags", "tag"),
        ("record_solutions", "text"),
        ("record_prevention_tips", "text"),
        ("record_trigger_scenarios", "text"),
    ):
        rows = bind.execute(
            sa.text(f"SELECT record_id, {column} FROM {table} ORDER BY record_id, position")
        )
        for record_id, value in rows:
            lists.setdefault((table, record_id), []).append(value)
    records = bind.execute(
        sa.text(
            "SELECT id, error_message, error_class, error_type, background_tag, file_path, "
            "documentation, common_situations, trigger_scenarios_text FROM records"
        )
    )
    for rid, message, klass, etype, bg, path, doc, common, scen_text in records:
        scenarios = lists.get(("record_trigger_scenarios", rid)) or [scen_text]
        yield {
            "record_id": rid,
            "message": _normalize(message),
            "klass": _normalize(klass, etype),
            "tags": _normalize(*lists.get(("record_tags", rid), []), bg),
            "path": _normalize(path),
            "body": _normalize(
                doc,
                common,
                *lists.get(("record_solutions", rid), []),
                *lists.get(("record_prevention_tips", rid), []),
                *scenarios,
            ),
        }


def upgrade():
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        op.execute(
            "CREATE VIRTUAL TABLE record_search_fts USING fts5("
            "record_id UNINDEXED, message, klass, tags, path, body, "
            "tokenize = 'unicode61 remove_diacritics 2')"
        )
        insert = (
            "INSERT INTO record_search_fts (record_id, message, klass, tags, path, body) "
            "VALUES (:record_id, :message, :klass, :tags, :path, :body)"
        )
    else:
        op.execute(
            "CREATE TABLE record_search ("
            "record_id VARCHAR(64) PRIMARY KEY REFERENCES records(id) ON DELETE CASCADE, "
            "message TEXT NOT NULL, klass TEXT NOT NULL, tags TEXT NOT NULL, "
            "path TEXT NOT NULL, body TEXT NOT NULL, document TSVECTOR NOT NULL)"
        )
        op.execute("CREATE INDEX ix_record_search_document ON record_search USING GIN (document)")
        insert = (
            "INSERT INTO record_search (record_id, message, klass, tags, path, body, document) "
            "VALUES (:record_id, :message, :klass, :tags, :path, :body, "
            "setweight(to_tsvector('simple', :message), 'A') "
            "|| setweight(to_tsvector('simple', :klass || ' ' || :tags), 'B') "
            "|| setweight(to_tsvector('simple', :path), 'C') "
            "|| setweight(to_tsvector('simple', :body), 'D'))"
        )
    docs = list(_documents(bind))
    if docs:
        bind.execute(sa.text(insert), docs)


def downgrade():
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TABLE IF EXISTS record_search_fts")
    else:
        op.execute("DROP TABLE IF EXISTS record_search")
