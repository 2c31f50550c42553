"""What every match, search hit and compact record says about its raise site: curated or
draft, the repo, the release range, and the file and line at the user's release."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.corpus.evidence import Evidence, frame_evidence
from app.corpus.history import version_key
from app.matching import Explanation, ParsedError, PatternEntry
from app.matching.index import verifier
from app.matching.services import KIND_PATTERN

if TYPE_CHECKING:  # the catalog imports this package's models; no import at run time
    from app.corpus.catalog import Catalog

FILTER_OVERFETCH = 50
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})


@dataclass(frozen=True, slots=True)
class MatchFilters:
    """Optional match filters: a repo (OWNER/NAME), a release, curated only or drafts only."""

    repo: str | None = None
    version: str | None = None
    curated: bool | None = None

    def any(self) -> bool:
        return self.repo is not None or self.version is not None or self.curated is not None


def match_filters(form: Mapping[str, str]) -> MatchFilters:
    """Filters from a page's form fields (blank means no filter; bad values are ignored)."""
    repo = (form.get("repo") or "").strip()[:201] or None
    version = (form.get("version") or "").strip()[:64] or None
    if version is not None and not re.fullmatch(r"[0-9A-Za-z.+-]+", version):
        version = None
    curated = {"1": True, "0": False}.get((form.get("curated") or "").strip())
    return MatchFilters(repo, version, curated)


def site_fields(catalog: Catalog, record_id: str, version: str | None = None) -> dict[str, Any]:
    """`curated`, `repo`, `releases` ({first, last} or null) and `at` (the release, file and
    line at `version`, or at the newest release that has the site)."""
    facts = catalog.sites.get(record_id)
    if facts is None:
        return {"curated": False, "repo": None, "releases": None, "at": None}
    span = facts.releases
    loc = facts.at(version)
    if loc is not None:
        at = {"release": loc.release, "filePath": loc.file_path, "lineNumber": loc.line_number}
    else:
        # A record in no pinned release (a curated record of C++ code, read at a commit):
        # its own file and line, at no release.
        entry = catalog.index.get(record_id)
        at = None
        if entry is not None and entry.file_path:
            at = {"release": None, "filePath": entry.file_path, "lineNumber": entry.line_number}
    return {
        "curated": facts.curated,
        "repo": facts.repo,
        "releases": None if span is None else {"first": span[0], "last": span[1]},
        "at": at,
    }


def keep(catalog: Catalog, record_ids: list[str], filters: MatchFilters) -> list[str]:
    """The ids that pass the filters, in order."""
    if not filters.any():
        return record_ids
    return [
        rid
        for rid in record_ids
        if catalog.allowed(rid, repo=filters.repo, version=filters.version, curated=filters.curated)
    ]


def traceback_evidence(catalog: Catalog, parsed: ParsedError) -> Evidence | None:
    """Frames as evidence for a parsed paste (the most useful exception's frames last, so
    its innermost frame is the one answered from); None without frames."""
    frames = [f for exc in reversed(parsed.exceptions) for f in exc.frames]
    return frame_evidence(catalog.frames, frames) if frames else None


def worded_releases(catalog: Catalog, entry: PatternEntry, why: Explanation) -> tuple[str, ...]:
    """The pinned releases that worded the site as the paste does, when the paste's message
    matched a whole older wording (`why`) and not the site's current one; else (). Not for
    a statement site but an import (whose message names what it imported): the interpreter
    words its message from code that changes for more reasons than a rewording (a callee's
    signature)."""
    older = catalog.wordings.get(entry.record_id)
    if not older or why.kind != KIND_PATTERN or why.pattern == entry.pattern:
        return ()
    if entry.statement and entry.error_class not in _IMPORT_ERRORS:
        return ()
    message = why.exception_message
    current = verifier(entry.pattern)
    if current is None or current.search(message):
        return ()  # the current wording fits too: the wording says nothing of the release
    found: set[str] = set()
    for pattern, releases in older:
        regex = verifier(pattern)
        if regex is not None and regex.search(message):
            found.update(releases)
    return tuple(sorted(found, key=version_key))


def user_release(
    catalog: Catalog,
    entry: PatternEntry,
    filters: MatchFilters,
    evidence: Evidence | None,
    worded: tuple[str, ...] = (),
) -> str | None:
    """The release to show a site at: the one asked for, else the newest the frames fit.
    A paste in an older wording of the site (`worded`: the releases that worded it so)
    narrows that to the releases both fit, or, with no frames that fit, to the newest of
    those releases."""
    if filters.version:
        return filters.version
    facts = catalog.sites.get(entry.record_id)
    if facts is None:
        return None
    fits = evidence.fits.get(facts.repo, ()) if evidence is not None else ()
    both = [release for release in worded if release in fits] if fits else list(worded)
    if both:
        return both[-1]
    return fits[-1] if fits else None


def wording_note(catalog: Catalog, record_id: str, worded: tuple[str, ...]) -> str | None:
    """For a paste in an older wording of a site: the pinned releases that worded it so."""
    facts = catalog.sites.get(record_id)
    if not worded or facts is None:
        return None
    span = worded[0] if len(worded) == 1 else f"{worded[0]} – {worded[-1]}"
    return (
        f"the message is worded as {facts.repo} {span} words it (of the pinned releases); "
        f"the releases after {worded[-1]} word it otherwise"
    )


def evidence_fields(
    catalog: Catalog, evidence: Evidence | None, href: Callable[[str], str], matched: bool
) -> dict[str, Any]:
    """`evidence` (what the frames say) and `notes` (what is known and what is not)."""
    notes: list[str] = []
    out: dict[str, Any] = {}
    if evidence is not None:
        data = evidence.to_dict()
        frame = data["frame"]
        if frame is not None:
            frame["recordsInFunction"] = [
                {
                    "id": rid,
                    "errorMessage": entry.error_message,
                    "errorClass": entry.error_class,
                    "href": href(rid),
                }
                for rid in frame["recordsInFunction"]
                if (entry := catalog.index.get(rid)) is not None
            ]
        out["evidence"] = data
        notes += data["notes"]
        for repo, fit in data["fits"].items():
            span = (
                fit["first"] if fit["first"] == fit["last"] else f"{fit['first']} – {fit['last']}"
            )
            notes.append(f"the frames fit {repo} {span} (of the pinned releases)")
    if not matched:
        notes.insert(0, "no record's message pattern matches this error")
        if evidence is None:
            notes.append("no traceback frames to go on")
    out["notes"] = notes
    return out
