"""Draft records: scan a package's raise sites into schema v2 records without docs."""

from app.drafts.services import draft_records, envelope

__all__ = ["draft_records", "envelope"]
