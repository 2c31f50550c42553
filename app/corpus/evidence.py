"""Frames as evidence: which pinned releases a traceback fits, and, when no message
matches, what the innermost frame in a known project says (its file and function at that
release and the records raised in that function). Pure functions over plain data."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.corpus.history import Location, version_key


class FrameLike(Protocol):
    @property
    def file(self) -> str: ...
    @property
    def line(self) -> int | None: ...
    @property
    def function(self) -> str | None: ...


class SiteLike(Protocol):
    @property
    def repo(self) -> str: ...
    @property
    def locations(self) -> tuple[Location, ...]: ...


def _parts(path: str) -> list[str]:
    return [p for p in path.replace("\\", "/").split("/") if p and p != "."]


def _shared_suffix(a: list[str], b: list[str]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


# function name -> release -> (lines of its raise sites, their record ids in order)
_ByFunction = dict[str, dict[str, tuple[set[int], list[str]]]]


@dataclass
class _File:
    repo: str
    path: str
    # release -> [(line, function, record id)]
    sites: dict[str, list[tuple[int, str, str]]] = field(default_factory=dict)
    urls: dict[str, str] = field(default_factory=dict)
    parts: list[str] = field(default_factory=list)  # the path's, filled by FrameIndex.build
    # Filled from `sites` when a traceback first names the file (most files never are):
    # per function name (unqualified), per release, its raise sites' lines and record ids
    # (in order); per release, the lines of all its raise sites.
    _indexed: tuple[_ByFunction, dict[str, set[int]]] | None = None

    @property
    def functions(self) -> _ByFunction:
        return self._index()[0]

    @property
    def lines(self) -> dict[str, set[int]]:
        return self._index()[1]

    def _index(self) -> tuple[_ByFunction, dict[str, set[int]]]:
        if self._indexed is not None:
            return self._indexed
        functions: _ByFunction = {}
        lines: dict[str, set[int]] = {}
        for release, rows in self.sites.items():
            lines[release] = {line for line, _func, _rid in rows}
            for line, func, rid in rows:
                found, rids = functions.setdefault(func.rsplit(".", 1)[-1], {}).setdefault(
                    release, (set(), [])
                )
                found.add(line)
                if rid not in rids:
                    rids.append(rid)
        # Built whole, then published (another thread may read the file meanwhile).
        self._indexed = (functions, lines)
        return self._indexed


@dataclass(frozen=True, slots=True)
class FrameIndex:
    """Known files by path key, and each repo's pinned releases (oldest first)."""

    files: dict[str, list[_File]]  # by file name
    releases: dict[str, tuple[str, ...]]

    def lookup(self, path: str) -> _File | None:
        """The known file sharing the longest path suffix (its directory too) with `path`."""
        parts = _parts(path)
        if not parts:
            return None
        best: tuple[int, _File] | None = None
        for entry in self.files.get(parts[-1], []):
            shared = _shared_suffix(parts, entry.parts)
            if shared >= 2 and (best is None or shared > best[0]):
                best = (shared, entry)
        return None if best is None else best[1]

    @classmethod
    def build(
        cls,
        sites: Mapping[str, SiteLike],
        bases: Mapping[tuple[str, str], str] | None = None,
        links: Mapping[str, str] | None = None,
    ) -> FrameIndex:
        """From each record's locations; `bases` maps (repo, release) to the GitHub
        `.../blob/<tag>/` prefix of that release, `links` a file to its path there when
        the repository keeps it elsewhere than the wheel does."""
        bases = bases or {}
        links = links or {}
        by_path: dict[str, _File] = {}
        releases: dict[str, set[str]] = {}
        for rid, facts in sites.items():
            for loc in facts.locations:
                entry = by_path.get(loc.file_path)
                if entry is None:
                    entry = by_path[loc.file_path] = _File(facts.repo, loc.file_path)
                entry.sites.setdefault(loc.release, []).append((loc.line_number, loc.function, rid))
                base = bases.get((facts.repo, loc.release))
                if base:
                    entry.urls[loc.release] = base + links.get(loc.file_path, loc.file_path)
                releases.setdefault(facts.repo, set()).add(loc.release)
        ordered = {r: tuple(sorted(v, key=version_key)) for r, v in releases.items()}
        files: dict[str, list[_File]] = {}
        for entry in by_path.values():
            entry.parts = _parts(entry.path)
            files.setdefault(entry.parts[-1], []).append(entry)
        return cls(files, ordered)


@dataclass(frozen=True, slots=True)
class FrameAnswer:
    """What the innermost known frame says, and what is not known."""

    repo: str
    file_path: str
    function: str | None
    line: int | None
    release: str | None
    url: str | None
    records: tuple[str, ...]
    raise_site: bool


@dataclass(frozen=True, slots=True)
class Evidence:
    """The releases the frames fit (per repo), and the innermost known frame's answer."""

    fits: dict[str, tuple[str, ...]]
    frame: FrameAnswer | None
    notes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": "frames",
            "fits": {
                repo: {"first": r[0], "last": r[-1], "releases": list(r)}
                for repo, r in self.fits.items()
                if r
            },
            "frame": None
            if self.frame is None
            else {
                "repo": self.frame.repo,
                "filePath": self.frame.file_path,
                "function": self.frame.function,
                "line": self.frame.line,
                "release": self.frame.release,
                "githubUrl": self.frame.url,
                "recordsInFunction": list(self.frame.records),
                "atRaiseSite": self.frame.raise_site,
            },
            "notes": list(self.notes),
        }


def _fit(entry: _File, frame: FrameLike) -> tuple[set[str], set[str]]:
    """(releases with a raise site on this very line, releases where the function exists)."""
    found = entry.functions.get(frame.function) if frame.function else None
    if not found:
        return set(), set()
    exact = {release for release, (lines, _rids) in found.items() if frame.line in lines}
    return exact, set(found)


def frame_evidence(index: FrameIndex, frames: Sequence[FrameLike]) -> Evidence:
    """Infer the releases a traceback fits and answer from its innermost known frame."""
    fits: dict[str, set[str]] = {}
    notes: list[str] = []
    innermost: tuple[_File, FrameLike] | None = None
    for frame in frames:
        entry = index.lookup(frame.file)
        if entry is None:
            continue
        innermost = (entry, frame)
        exact, function = _fit(entry, frame)
        present = set(entry.sites)
        for candidate in (exact, function, present):
            if candidate:
                current = fits.get(entry.repo)
                narrowed = candidate if current is None else current & candidate
                if narrowed:
                    fits[entry.repo] = narrowed
                break
    ordered = {
        repo: tuple(r for r in index.releases.get(repo, ()) if r in found)
        for repo, found in fits.items()
    }
    if innermost is None:
        notes.append("no frame is in a file of a known project release")
        return Evidence(ordered, None, tuple(notes))
    entry, frame = innermost
    release = ordered.get(entry.repo, ())[-1:] or (None,)
    at = release[0]
    if at is not None and at not in entry.sites:
        # The repo's other package (sgl-kernel beside sglang): the file's own newest release.
        at = max(entry.sites, key=version_key, default=None)
    own = (
        entry.functions.get(frame.function, {}).get(at)
        if frame.function is not None and at
        else None
    )
    in_function = tuple(own[1]) if own else ()
    on_line = frame.line in entry.lines.get(at, ()) if at else False
    url = entry.urls.get(at) if at else None
    if url and frame.line:
        url = f"{url}#L{frame.line}"
    if not in_function:
        notes.append(f"no recorded raise site in {frame.function or 'this function'}")
    return Evidence(
        ordered,
        FrameAnswer(
            entry.repo, entry.path, frame.function, frame.line, at, url, in_function, on_line
        ),
        tuple(notes),
    )
