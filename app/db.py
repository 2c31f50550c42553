"""Declarative base, naming convention and reusable column types."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from sqlalchemy import DateTime, Integer, MetaData, String, Text, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Session, mapped_column, scoped_session

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


# Full-text search tables are backend-specific (FTS5 on SQLite, tsvector on PostgreSQL)
# and built by migrations; they have no model, so schema comparison leaves them out.
SEARCH_TABLE_PREFIX = "record_search"


def include_name(name: str | None, type_: str, parent_names: Any) -> bool:
    """Alembic filter: compare everything but the search index tables."""
    return not (type_ == "table" and name is not None and name.startswith(SEARCH_TABLE_PREFIX))


# A plain session or Flask-SQLAlchemy's scoped one: services accept either.
DbSession = Session | scoped_session[Any]

RecordId = Annotated[str, mapped_column(String(64))]
ShortText = Annotated[str, mapped_column(String(255))]
LongText = Annotated[str, mapped_column(Text)]
Position = Annotated[int, mapped_column(Integer, primary_key=True, autoincrement=False)]
Timestamp = Annotated[dt.datetime, mapped_column(DateTime(timezone=True), default=utcnow)]


@event.listens_for(Engine, "connect")
def _sqlite_pragmas(dbapi_connection: Any, connection_record: Any) -> None:
    """Turn on foreign keys and WAL for SQLite; a no-op for other drivers."""
    module = type(dbapi_connection).__module__
    if not module.startswith("sqlite3"):
        return
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()
