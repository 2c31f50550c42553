"""Merge a package's per-release sites into one chain per raise site.

Identity is the message skeleton (placeholders as `{}`) plus the enclosing function, not
the line. Releases are taken oldest first; each site joins, in order of preference:
the chain with the same file, function and skeleton; the chain with the same file and
skeleton in another function (the check was split out or its function renamed); the chain
with the same function and skeleton in another file (the site *moved*; a method that became
a module function, `Class.f` -> `f`, too); the chain in the same file and function with the
same class and a similar message that did not continue (the message was *reworded*); the
chain of the same function, class and file name in another folder with a nearly equal
message that did not continue (moved and reworded at once: `router/model_runner.py`'s "Not
enought memory." became `controller/model_runner.py`'s "Not enough memory.").
Otherwise it starts a new chain.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.corpus.draft import skeleton
from app.drafts.scan import FORM_HELPER, FORM_LOOKUP, FORM_UNBOUND, FORM_UNSET, STATEMENT_FORMS

REWORD_SIMILARITY = 0.6
# A site that moved to another folder and was reworded in the same step joins only when its
# message is nearly the old one (a typo fixed, a word changed): the file name, function and
# class alone are shared by copies of code (`srt/.../fp8.py`, `multimodal_gen/.../fp8.py`).
MOVED_REWORD_SIMILARITY = 0.85


@dataclass
class Chain:
    """One raise site across releases: `locations` is `(release, site dict)`, oldest first."""

    locations: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @property
    def latest(self) -> dict[str, Any]:
        return self.locations[-1][1]

    @property
    def first(self) -> dict[str, Any]:
        return self.locations[0][1]

    def key(self) -> tuple[str, str, str]:
        site = self.latest
        return site["path"], site["function"], identity(site)


def identity(site: dict[str, Any]) -> str:
    """The message skeleton; a lookup's (`{}`, the key) adds its statement's text."""
    skel = skeleton(site["parts"])
    if site.get("form") == FORM_LOOKUP:
        return f"{skel}\n{site.get('statement') or ''}"
    return skel


def _claim(candidates: list[Chain], claimed: set[int]) -> Chain | None:
    for chain in candidates:
        if id(chain) not in claimed:
            claimed.add(id(chain))
            return chain
    return None


class _Known:
    """The chains before a release, indexed by each way a site may join one."""

    def __init__(self, chains: list[Chain]) -> None:
        self.exact: dict[tuple[str, str, str], list[Chain]] = {}
        self.by_function: dict[tuple[str, str], list[Chain]] = {}
        self.by_file: dict[tuple[str, str, str, str | None], list[Chain]] = {}
        self.by_path: dict[tuple[str, str], list[Chain]] = {}
        self.by_short: dict[tuple[str, str], list[Chain]] = {}  # `Class.method` as `method`
        self.by_name: dict[tuple[str, str, str, str | None], list[Chain]] = {}  # file name
        for known in chains:
            path, function, skel = known.key()
            self.exact.setdefault((path, function, skel), []).append(known)
            self.by_path.setdefault((path, skel), []).append(known)
            self.by_short.setdefault((_short(function), skel), []).append(known)
            self.by_function.setdefault((function, skel), []).append(known)
            self.by_file.setdefault(_reword_key(known.latest), []).append(known)
            self.by_name.setdefault(_moved_reword_key(known.latest), []).append(known)

    def same_place(self, site: dict[str, Any], skel: str) -> list[Chain]:
        return self.exact.get((site["path"], site["function"], skel), [])

    def same_file(self, site: dict[str, Any], skel: str) -> list[Chain]:
        """The same message in the same file, in another function (split out or renamed):
        tried before a function of the same name in another file, which may be a copy of
        the code elsewhere in the package (srt/.../fp8.py and multimodal_gen/.../fp8.py)."""
        if site.get("form") == FORM_LOOKUP:
            return []
        return self.by_path.get((site["path"], skel), [])

    def moved(self, site: dict[str, Any], skel: str) -> list[Chain]:
        if site["function"] == "<module>" or site.get("form") == FORM_LOOKUP:
            return []
        candidates = self.by_function.get((site["function"], skel), [])
        same_name = [c for c in candidates if _basename(c) == _basename_of(site)]
        # A method moved out of its class into a module function of another file
        # (`ScheduleBatch.alloc_paged_token_slots_extend` -> allocation.py's).
        others = self.by_short.get((_short(site["function"]), skel), [])
        return same_name + candidates + others


def _join(
    release: str,
    sites: list[dict[str, Any]],
    skels: dict[int, str],
    claimed: set[int],
    find: Callable[[dict[str, Any], str], list[Chain]],
) -> list[dict[str, Any]]:
    """Each site joins the first unclaimed chain `find` offers it; returns the others."""
    left: list[dict[str, Any]] = []
    for site in sites:
        chain = _claim(find(site, skels[id(site)]), claimed)
        if chain is None:
            left.append(site)
        else:
            chain.locations.append((release, site))
    return left


def merge_releases(releases: Sequence[tuple[str, list[dict[str, Any]]]]) -> list[Chain]:
    """Chains for `(release, sites)` given oldest release first."""
    chains: list[Chain] = []
    for release, sites in releases:
        known = _Known(chains)
        skels = {id(site): identity(site) for site in sites}
        claimed: set[int] = set()
        unmatched = sites
        for find in (known.same_place, known.same_file, known.moved):
            unmatched = _join(release, unmatched, skels, claimed, find)
        for site in unmatched:
            skel = skels[id(site)]
            if site.get("form") in (FORM_HELPER, FORM_UNSET, FORM_UNBOUND):
                # A helper's raise carries its callers' messages (`record_failure(room,
                # "Aborted by AbortReq.")`): another text there is another caller's error.
                # Another attribute (or name) a function may lack is another error too.
                chains.append(Chain([(release, site)]))
                continue
            chain = _reworded(known.by_file.get(_reword_key(site), []), skel, claimed)
            if chain is None and site["function"] != "<module>":
                moved = [
                    c
                    for c in known.by_name.get(_moved_reword_key(site), [])
                    if c.latest["path"] != site["path"]
                ]
                chain = _reworded(moved, skel, claimed, MOVED_REWORD_SIMILARITY)
            if chain is None:
                chains.append(Chain([(release, site)]))
            else:
                claimed.add(id(chain))
                chain.locations.append((release, site))
    return chains


def _reworded(
    candidates: list[Chain], skel: str, claimed: set[int], least: float = REWORD_SIMILARITY
) -> Chain | None:
    """The unclaimed chain whose message is most like ``skel``, at least ``least`` alike."""
    best: tuple[float, Chain] | None = None
    for old in candidates:
        if id(old) in claimed:
            continue
        score = difflib.SequenceMatcher(None, identity(old.latest), skel).ratio()
        if score >= least and (best is None or score > best[0]):
            best = (score, old)
    return None if best is None else best[1]


def _reword_key(site: dict[str, Any]) -> tuple[str, str, str, str | None]:
    """Where a reworded message may continue a chain: the same file, function and class,
    and for a statement site the same statement form (the interpreter words its messages:
    `f() got an unexpected keyword argument` and `f() got multiple values for keyword
    argument` at one call are two errors, not a rewording)."""
    form = site.get("form")
    return site["path"], site["function"], site["cls"], form if form in STATEMENT_FORMS else None


def _moved_reword_key(site: dict[str, Any]) -> tuple[str, str, str, str | None]:
    """Where a site that moved to another folder and was reworded may continue a chain:
    `_reword_key` with the file's name in place of its path."""
    _path, function, cls, form = _reword_key(site)
    return _basename_of(site), function, cls, form


def _short(function: str) -> str:
    return function.rsplit(".", 1)[-1]


def _basename(chain: Chain) -> str:
    return _basename_of(chain.latest)


def _basename_of(site: dict[str, Any]) -> str:
    return str(site["path"]).rsplit("/", 1)[-1]
