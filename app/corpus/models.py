"""Per-release locations and code-derived facts of raise sites; exception classes."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, RecordId, Timestamp


class RecordSite(Base):
    """What the code alone says about a record's raise site (machine-extracted)."""

    __tablename__ = "record_sites"

    record_id: Mapped[RecordId] = mapped_column(
        ForeignKey("records.id", ondelete="CASCADE"), primary_key=True
    )
    package: Mapped[str] = mapped_column(String(200), index=True)
    function: Mapped[str] = mapped_column(String(500))
    condition: Mapped[str | None] = mapped_column(Text)
    docstring: Mapped[str | None] = mapped_column(Text)
    cli_flags: Mapped[list[str]] = mapped_column(JSON, default=list)
    form: Mapped[str] = mapped_column(String(40))
    # What the enclosing method reads of `self` ("x", "x.y"), at any pinned release.
    self_reads: Mapped[list[str] | None] = mapped_column(JSON)
    corpus_digest: Mapped[str] = mapped_column(String(64), index=True)


class RecordLocation(Base):
    """Where a raise site is in one release, and its wording there."""

    __tablename__ = "record_locations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    record_id: Mapped[RecordId] = mapped_column(
        ForeignKey("records.id", ondelete="CASCADE"), index=True
    )
    position: Mapped[int] = mapped_column(Integer)
    release: Mapped[str] = mapped_column(String(64))
    file_path: Mapped[str] = mapped_column(String(1000))
    line_number: Mapped[int] = mapped_column(Integer)
    github_url: Mapped[str] = mapped_column(Text)
    function: Mapped[str] = mapped_column(String(500))
    error_message: Mapped[str] = mapped_column(Text)
    message_pattern: Mapped[str] = mapped_column(Text)


class RecordAlias(Base):
    """A record id a corpus load replaced, and the id its raise site has now: a merged site
    is named by its oldest wording, so pinning an older release renames it, and a curated
    record that takes a site replaces the draft's id. Old links redirect."""

    __tablename__ = "record_aliases"

    old_id: Mapped[RecordId] = mapped_column(primary_key=True)
    new_id: Mapped[RecordId] = mapped_column(
        ForeignKey("records.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[Timestamp]


class ExceptionClassDef(Base):
    """An exception class a package defines, with its bases (for class agreement)."""

    __tablename__ = "exception_classes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    package: Mapped[str] = mapped_column(String(200), index=True)
    name: Mapped[str] = mapped_column(String(500), index=True)
    bases: Mapped[list[str]] = mapped_column(JSON)
    file_path: Mapped[str] = mapped_column(String(1000))


class CorpusState(Base):
    """One row: the digest of the corpus last loaded, so a reload of it is a no-op."""

    __tablename__ = "corpus_state"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    digest: Mapped[str] = mapped_column(String(64))
    summary: Mapped[dict[str, Any]] = mapped_column(JSON)
    loaded_at: Mapped[Timestamp]


__all__ = ["CorpusState", "ExceptionClassDef", "RecordLocation", "RecordSite"]
