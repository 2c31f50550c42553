"""Record store: one row per error raise site, ordered child rows for its lists."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.ext.orderinglist import ordering_list
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.db import Base, Position, RecordId, Timestamp, utcnow


class Record(Base):
    """The current version of a record; every schema v2 field has a column."""

    __tablename__ = "records"

    id: Mapped[RecordId] = mapped_column(primary_key=True)
    repo: Mapped[str] = mapped_column(String(201), index=True)
    slug: Mapped[str] = mapped_column(String(500))
    error_code: Mapped[str | None] = mapped_column(String(500))
    error_message: Mapped[str] = mapped_column(Text)
    message_pattern: Mapped[str] = mapped_column(Text)
    error_type: Mapped[str] = mapped_column(String(64), index=True)
    error_class: Mapped[str] = mapped_column(String(500), index=True)
    http_status: Mapped[int | None] = mapped_column(Integer)
    severity: Mapped[str] = mapped_column(String(16), index=True)
    file_path: Mapped[str] = mapped_column(String(1000), index=True)
    line_number: Mapped[int] = mapped_column(Integer)
    source_code: Mapped[str | None] = mapped_column(Text)
    source_code_start: Mapped[int | None] = mapped_column(Integer)
    source_code_end: Mapped[int | None] = mapped_column(Integer)
    github_url: Mapped[str | None] = mapped_column(Text)
    documentation: Mapped[str | None] = mapped_column(Text)
    # triggerScenarios is a string or a list in the dataset: the kind says which.
    trigger_scenarios_kind: Mapped[str | None] = mapped_column(String(8))
    trigger_scenarios_text: Mapped[str | None] = mapped_column(Text)
    common_situations: Mapped[str | None] = mapped_column(Text)
    example_fix: Mapped[str | None] = mapped_column(Text)
    handling_strategy: Mapped[str | None] = mapped_column(String(500), index=True)
    validation_code: Mapped[str | None] = mapped_column(Text)
    type_guard: Mapped[str | None] = mapped_column(Text)
    try_catch_pattern: Mapped[str | None] = mapped_column(Text)
    background_tag: Mapped[str | None] = mapped_column(String(500), index=True)
    analyzed_sha: Mapped[str] = mapped_column(String(40), index=True)
    analyzed_at: Mapped[str] = mapped_column(String(64))
    schema_version: Mapped[int] = mapped_column(Integer)

    dataset_version: Mapped[str] = mapped_column(String(64), index=True)
    is_draft: Mapped[bool] = mapped_column(Boolean, default=False, index=True)
    content_hash: Mapped[str] = mapped_column(String(64))
    version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[Timestamp]
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )
    # A retracted record is a tombstone: hidden from matching, search and lists; history kept.
    retracted_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    retracted_reason: Mapped[str | None] = mapped_column(Text)

    solutions: Mapped[list[RecordSolution]] = relationship(
        order_by="RecordSolution.position",
        collection_class=ordering_list("position"),
        cascade="all, delete-orphan",
        lazy="selectin",
    )
    prevention_tips: Mapped[list[RecordPreventionTip]] = relationship(
        order_by="RecordPreventionTip.position",
        collection_class=ordering_list("position"),
        cascade="all, delete-orphan",
        lazy="selectin",
    )
    trigger_scenarios: Mapped[list[RecordTriggerScenario]] = relationship(
        order_by="RecordTriggerScenario.position",
        collection_class=ordering_list("position"),
        cascade="all, delete-orphan",
        lazy="selectin",
    )
    tags: Mapped[list[RecordTag]] = relationship(
        order_by="RecordTag.position",
        collection_class=ordering_list("position"),
        cascade="all, delete-orphan",
        lazy="selectin",
    )
    versions: Mapped[list[RecordVersion]] = relationship(
        order_by="RecordVersion.version",
        cascade="all, delete-orphan",
        back_populates="record",
        lazy="select",
    )


class _ListItem:
    """Columns shared by the ordered child rows of a record."""

    record_id: Mapped[RecordId] = mapped_column(
        ForeignKey("records.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[Position]


class RecordSolution(_ListItem, Base):
    __tablename__ = "record_solutions"

    text: Mapped[str] = mapped_column(Text)


class RecordPreventionTip(_ListItem, Base):
    __tablename__ = "record_prevention_tips"

    text: Mapped[str] = mapped_column(Text)


class RecordTriggerScenario(_ListItem, Base):
    __tablename__ = "record_trigger_scenarios"

    text: Mapped[str] = mapped_column(Text)


class RecordTag(_ListItem, Base):
    __tablename__ = "record_tags"
    __table_args__ = (Index("ix_record_tags_tag", "tag"),)

    tag: Mapped[str] = mapped_column(String(100))


class RecordVersion(Base):
    """Every version of a record ever imported, the current one included."""

    __tablename__ = "record_versions"
    __table_args__ = (UniqueConstraint("record_id", "version", name="uq_record_versions_version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    record_id: Mapped[RecordId] = mapped_column(
        ForeignKey("records.id", ondelete="CASCADE"), index=True
    )
    version: Mapped[int] = mapped_column(Integer)
    dataset_version: Mapped[str] = mapped_column(String(64))
    is_draft: Mapped[bool] = mapped_column(Boolean, default=False)
    content_hash: Mapped[str] = mapped_column(String(64))
    content: Mapped[dict[str, Any]] = mapped_column(JSON)
    imported_at: Mapped[Timestamp]
    token_id: Mapped[int | None] = mapped_column(Integer)  # who wrote it (None: CLI import)

    record: Mapped[Record] = relationship(back_populates="versions")


class CatalogState(Base):
    """One row: a counter bumped whenever records change, so caches can check freshness
    with one primary-key read instead of scanning ``records``."""

    __tablename__ = "catalog_state"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    changed_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, onupdate=utcnow
    )
