"""Merge a package's per-release sites into one chain per raise site.

Identity is the message skeleton (placeholders as `{}`) plus the enclosing function, not
the line. Releases are taken oldest first; each site joins, in order of preference:
the chain with the same file, function and skeleton; the chain with the same file and
skeleton in another function (the check was split out or its function renamed); the chain
with the same function and skeleton in another file (the site *moved*; a method that became
a module function, `Class.f` -> `f`, too); the chain in the same file and function with the
same class and a similar message that did not continue (the message was *reworded*).
Otherwise it starts a new chain.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.corpus.draft import skeleton
from app.drafts.scan import FORM_LOOKUP

REWORD_SIMILARITY = 0.6


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


def merge_releases(releases: Sequence[tuple[str, list[dict[str, Any]]]]) -> list[Chain]:
    """Chains for `(release, sites)` given oldest release first."""
    chains: list[Chain] = []
    for release, sites in releases:
        exact: dict[tuple[str, str, str], list[Chain]] = {}
        by_function: dict[tuple[str, str], list[Chain]] = {}
        by_file: dict[tuple[str, str, str], list[Chain]] = {}
        by_path: dict[tuple[str, str], list[Chain]] = {}
        by_short: dict[tuple[str, str], list[Chain]] = {}  # `Class.method` as `method`
        for known in chains:
            path, function, skel = known.key()
            exact.setdefault((path, function, skel), []).append(known)
            by_path.setdefault((path, skel), []).append(known)
            by_short.setdefault((_short(function), skel), []).append(known)
            by_function.setdefault((function, skel), []).append(known)
            by_file.setdefault((path, function, known.latest["cls"]), []).append(known)
        claimed: set[int] = set()
        pending: list[dict[str, Any]] = []
        for site in sites:
            key = (site["path"], site["function"], identity(site))
            chain: Chain | None = _claim(exact.get(key, []), claimed)
            if chain is None:
                pending.append(site)
            else:
                chain.locations.append((release, site))
        # The same message in the same file, in another function (split out or renamed):
        # before a function of the same name in another file, which may be a copy of the
        # code elsewhere in the package (srt/.../fp8.py and multimodal_gen/.../fp8.py).
        moved_out: list[dict[str, Any]] = []
        for site in pending:
            chain = None
            if site.get("form") != FORM_LOOKUP:
                chain = _claim(by_path.get((site["path"], identity(site)), []), claimed)
            if chain is None:
                moved_out.append(site)
            else:
                chain.locations.append((release, site))
        unmatched: list[dict[str, Any]] = []
        for site in moved_out:
            skel = identity(site)
            chain = None
            if site["function"] != "<module>" and site.get("form") != FORM_LOOKUP:
                candidates = by_function.get((site["function"], skel), [])
                same_name = [c for c in candidates if _basename(c) == _basename_of(site)]
                # A method moved out of its class into a module function of another file
                # (`ScheduleBatch.alloc_paged_token_slots_extend` -> allocation.py's).
                others = by_short.get((_short(site["function"]), skel), [])
                chain = _claim(same_name + candidates + others, claimed)
            if chain is None:
                unmatched.append(site)
            else:
                chain.locations.append((release, site))
        for site in unmatched:
            skel = identity(site)
            best: tuple[float, Chain] | None = None
            for old in by_file.get((site["path"], site["function"], site["cls"]), []):
                if id(old) in claimed:
                    continue
                ratio = difflib.SequenceMatcher(None, identity(old.latest), skel)
                score = ratio.ratio()
                if score >= REWORD_SIMILARITY and (best is None or score > best[0]):
                    best = (score, old)
            if best is None:
                chains.append(Chain([(release, site)]))
            else:
                claimed.add(id(best[1]))
                best[1].locations.append((release, site))
    return chains


def _short(function: str) -> str:
    return function.rsplit(".", 1)[-1]


def _basename(chain: Chain) -> str:
    return _basename_of(chain.latest)


def _basename_of(site: dict[str, Any]) -> str:
    return str(site["path"]).rsplit("/", 1)[-1]
