"""A record's raise site as the corpus knows it: its history across releases and the
"why it fired" derived from the code alone (never presented as curated)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from app.corpus.history import History, Location, history
from app.corpus.models import RecordLocation, RecordSite
from app.db import DbSession
from app.drafts.scan import FORM_LOGGED

DERIVED_LABEL = "derived from the code (machine-extracted, not curated)"


@dataclass(frozen=True, slots=True)
class WhyFired:
    """The raise site's code context: function, firing condition, docstring, flags."""

    function: str
    condition: str | None
    docstring: str | None
    cli_flags: tuple[str, ...]
    form: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": "code",
            "label": DERIVED_LABEL,
            "function": self.function,
            "condition": self.condition,
            "docstring": self.docstring,
            "cliFlags": list(self.cli_flags),
            "form": self.form,
        }


@dataclass(frozen=True, slots=True)
class SiteView:
    package: str
    why: WhyFired
    locations: tuple[Location, ...]
    history: History | None

    @property
    def verb(self) -> str:
        """What the site does with its message: "logged" for the error log, else "raised"."""
        return "logged" if self.why.form == FORM_LOGGED else "raised"

    def to_dict(self) -> dict[str, Any]:
        return {
            "package": self.package,
            "machineExtracted": True,
            "summary": None if self.history is None else self.history.summary(self.verb),
            "releases": None
            if self.history is None
            else {"first": self.history.first, "last": self.history.last},
            "movedIn": [] if self.history is None else list(self.history.moved_in),
            "reworded": []
            if self.history is None
            else [{"release": r, "before": b} for r, b in self.history.reworded],
            "locations": [
                {
                    "release": loc.release,
                    "filePath": loc.file_path,
                    "lineNumber": loc.line_number,
                    "function": loc.function,
                    "errorMessage": loc.error_message,
                    "githubUrl": loc.github_url,
                }
                for loc in self.locations
            ],
            "whyFired": self.why.to_dict(),
        }


def site_view(session: DbSession, record_id: str) -> SiteView | None:
    """The site facts of a record, or None when no corpus release has it."""
    site = session.get(RecordSite, record_id)
    if site is None:
        return None
    rows = session.scalars(
        select(RecordLocation)
        .where(RecordLocation.record_id == record_id)
        .order_by(RecordLocation.position)
    )
    locations = tuple(
        Location(
            r.release,
            r.file_path,
            r.line_number,
            r.function,
            r.error_message,
            r.message_pattern,
            r.github_url,
        )
        for r in rows
    )
    why = WhyFired(
        site.function, site.condition, site.docstring, tuple(site.cli_flags or ()), site.form
    )
    return SiteView(site.package, why, locations, history(locations))
