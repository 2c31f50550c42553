"""A raise site's life across releases, from its per-release locations (plain data)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True, slots=True)
class Location:
    release: str
    file_path: str
    line_number: int
    function: str
    error_message: str = ""
    message_pattern: str = ""
    github_url: str = ""


@dataclass(frozen=True, slots=True)
class History:
    """First and last release, where the site moved and where its message changed."""

    first: str
    last: str
    moved_in: tuple[str, ...]
    reworded: tuple[tuple[str, str], ...]  # (release, wording before it)

    def summary(self, verb: str = "raised") -> str:
        """E.g. "raised in 0.4.6 – 0.5.23; moved in 0.5.5; message reworded in 0.5.17
        (before: ...)"; `verb` is "logged" for a message written to the error log."""
        span = self.first if self.first == self.last else f"{self.first} – {self.last}"
        parts = [f"{verb} in {span}"]
        if self.moved_in:
            parts.append("moved in " + ", ".join(self.moved_in))
        for release, before in self.reworded:
            parts.append(f"message reworded in {release} (before: {before})")
        return "; ".join(parts)


@lru_cache(maxsize=4096)
def version_key(version: str) -> tuple[tuple[int, int, str], ...]:
    """Order release strings numerically: 0.4.10 after 0.4.6; suffixes after the number."""
    return tuple(
        (0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"[.+-]", version.strip())
    )


def history(locations: Sequence[Location]) -> History | None:
    """The history of a site from its locations (any order); None without any."""
    ordered = sorted(locations, key=lambda loc: version_key(loc.release))
    if not ordered:
        return None
    moved: list[str] = []
    reworded: list[tuple[str, str]] = []
    for before, after in zip(ordered, ordered[1:], strict=False):
        if before.file_path != after.file_path:
            moved.append(after.release)
        if before.error_message != after.error_message:
            reworded.append((after.release, before.error_message))
    return History(ordered[0].release, ordered[-1].release, tuple(moved), tuple(reworded))


def at_release(locations: Sequence[Location], version: str) -> Location | None:
    """The location at `version`, or at the newest pinned release not after it."""
    key = version_key(version)
    best: Location | None = None
    for loc in sorted(locations, key=lambda loc: version_key(loc.release)):
        if version_key(loc.release) <= key:
            best = loc
    return best
