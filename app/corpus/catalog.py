"""The in-process pattern index (and what a match answer shows) over the record store,
rebuilt when records change.

Each worker process keeps one :class:`MatchIndex`. At most every ``CHECK_INTERVAL``
seconds a request compares the catalog version (one primary-key read; bumped by every
import or write) with the one the index was built from, and rebuilds it if they differ.
"""

from __future__ import annotations

import gc
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from sys import intern
from typing import Any

from flask import Flask
from sqlalchemy import Text, cast, or_, select
from sqlalchemy.exc import SQLAlchemyError

from app.corpus.evidence import FrameIndex
from app.corpus.history import Location, at_release, version_key
from app.corpus.models import ExceptionClassDef, RecordLocation, RecordSite
from app.db import DbSession
from app.drafts.scan import (
    FORM_ASSERT,
    FORM_BARE_ASSERT,
    FORM_LOOKUP,
    FORM_UNWORDED,
    STATEMENT_FORMS,
)
from app.extensions import db
from app.matching import MatchIndex, PatternEntry
from app.matching.services import default_text_search
from app.records.models import Record, RecordSolution
from app.records.services import catalog_version

CHECK_INTERVAL = 2.0
# Recent answers a worker keeps per catalog: at most this many, holding at most MEMO_BYTES
# in all (the pastes they are keyed by and the bodies sent for them); a longer paste than
# MEMO_MAX_TEXT is not kept.
MEMO_ENTRIES = 2048
MEMO_BYTES = 32 << 20
MEMO_MAX_TEXT = 64 << 10


class Memo:
    """The most recently used answers of one catalog. The same paste comes back often (an
    IDE plugin re-sends the error of each failed run; many users hit one error): a ranking
    is a function of the paste and the catalog alone, so it is kept, not computed again.
    Dropped with its catalog (a rebuilt one starts empty); bounded by count and by the
    bytes its entries hold (a paste, and what is added to its entry later: `charge`)."""

    def __init__(
        self,
        entries: int = MEMO_ENTRIES,
        size: int = MEMO_BYTES,
        max_text: int = MEMO_MAX_TEXT,
    ) -> None:
        self.entries, self.size, self.max_text = entries, size, max_text
        self._items: OrderedDict[Hashable, tuple[int, Any]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Hashable) -> Any | None:
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            self._items.move_to_end(key)
            return found[1]

    def put(self, key: Hashable, size: int, value: Any) -> None:
        """Keep ``value`` under ``key`` (``size``: the characters of the paste it answers)."""
        if size > self.max_text or self.entries <= 0:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._size -= old[0]
            self._items[key] = (size, value)
            self._size += size
            self._shrink()

    def charge(self, key: Hashable, size: int) -> bool:
        """Count ``size`` more bytes to ``key``'s entry (what was added to its value); the
        least recently used entries go until all fit. False when the entry is not kept."""
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return False
            self._items[key] = (found[0] + size, found[1])
            self._size += size
            self._shrink()
            return key in self._items

    def _shrink(self) -> None:
        while len(self._items) > self.entries or self._size > self.size:
            self._size -= self._items.popitem(last=False)[1][0]


@dataclass(frozen=True, slots=True)
class SiteFacts:
    """Per record: repo, curated or draft, and where it is in each pinned release."""

    repo: str
    curated: bool
    locations: tuple[Location, ...] = ()

    @property
    def releases(self) -> tuple[str, str] | None:
        if not self.locations:
            return None
        return self.locations[0].release, self.locations[-1].release

    def at(self, version: str | None) -> Location | None:
        """The location at the user's release (or the newest before it); else the latest."""
        if not self.locations:
            return None
        found = at_release(self.locations, version) if version else None
        return found or self.locations[-1]

    def fits(self, version: str) -> bool:
        """Whether the site exists at `version` (inside its release range)."""
        span = self.releases
        if span is None:
            return True
        key = version_key(version)
        return version_key(span[0]) <= key <= version_key(span[1])


@dataclass(frozen=True)
class Catalog:
    """What a match answer needs, held in memory: the index, each record's solutions
    (message and class are in the index's entries), its site facts and the exception
    classes the corpus packages define (name -> bases)."""

    index: MatchIndex
    solutions: dict[str, list[str]]
    # Records with a reproducer verdict (few: the harnessed ones), refreshed with each
    # freshness check, so a match only queries verdicts when it can find some.
    with_verdicts: frozenset[str] = frozenset()
    sites: dict[str, SiteFacts] = field(default_factory=dict)
    classes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    frames: FrameIndex = field(default_factory=lambda: FrameIndex({}, {}))
    # record id -> its site's older wordings: (pattern, the pinned releases with it)
    wordings: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = field(default_factory=dict)
    # attribute -> the methods that read it of `self` (read from the store on first need:
    # few pastes ask, and held for all it would cost a worker tens of megabytes)
    _readers: dict[str, tuple[tuple[str, str, tuple[str, ...]], ...]] = field(default_factory=dict)
    # recent answers (the service layer keys and fills it); shared by the copies that
    # refresh `with_verdicts`, dropped with the catalog
    memo: Memo = field(default_factory=Memo)

    def readers(
        self, session: DbSession
    ) -> Callable[[str], Sequence[tuple[str, str, tuple[str, ...]]]]:
        """What `match_error` asks for an attribute: (record id, `Cls.method`, what that
        method reads of `self`) for each record in a method that reads it."""

        def read(attr: str) -> Sequence[tuple[str, str, tuple[str, ...]]]:
            found = self._readers.get(attr)
            if found is None:
                if len(self._readers) >= MAX_CACHED_ATTRIBUTES:
                    self._readers.clear()
                found = self._readers[attr] = self_readers(session, attr)
            return found

        return read

    def allowed(
        self,
        record_id: str,
        *,
        repo: str | None = None,
        version: str | None = None,
        curated: bool | None = None,
    ) -> bool:
        """Whether a record passes the match filters (repo, release, curated)."""
        facts = self.sites.get(record_id)
        if facts is None:
            return repo is None and version is None and curated is not True
        if repo is not None and facts.repo.lower() != repo.lower():
            return False
        if curated is not None and facts.curated != curated:
            return False
        return version is None or facts.fits(version)

    def ancestors(self, name: str) -> tuple[str, ...]:
        """An exception class's bases, transitively, nearest first (names as written)."""
        out: list[str] = []
        todo = [name.rsplit(".", 1)[-1]]
        while todo and len(out) < 20:
            for base in self.classes.get(todo.pop(0), ()):
                if base not in out:
                    out.append(base)
                    todo.append(base.rsplit(".", 1)[-1])
        return tuple(out)


@dataclass
class _Cached:
    catalog: Catalog
    signature: int
    checked_at: float


_lock = threading.Lock()
_cache: dict[str, _Cached] = {}


def _signature(session: DbSession) -> int:
    return catalog_version(session)


def build_catalog(session: DbSession) -> Catalog:
    solutions: dict[str, list[str]] = {}
    for record_id, text in session.execute(
        select(RecordSolution.record_id, RecordSolution.text).order_by(
            RecordSolution.record_id, RecordSolution.position
        )
    ):
        solutions.setdefault(record_id, []).append(text)
    sites, bases, links = _site_facts(session)
    index, wordings = _indexed(session)
    default_text_search(index)  # built now, not on the first request that falls back
    classes: dict[str, tuple[str, ...]] = {}
    for name, parents in session.execute(select(ExceptionClassDef.name, ExceptionClassDef.bases)):
        classes[name] = tuple(parents)
    frames = FrameIndex.build(sites, bases, links)
    return Catalog(index, solutions, sites=sites, classes=classes, frames=frames, wordings=wordings)


def _site_facts(
    session: DbSession,
) -> tuple[dict[str, SiteFacts], dict[tuple[str, str], str], dict[str, str]]:
    """Each record's facts, each (repo, release)'s GitHub `.../blob/<tag>/` prefix, and
    the repository path of each file whose link is not its own path."""
    records = list(session.execute(select(Record.id, Record.repo, Record.is_draft)))
    repos = {rid: repo for rid, repo, _ in records}
    located: dict[str, list[Location]] = {}
    bases: dict[tuple[str, str], str] = {}
    links: dict[str, str] = {}
    for rid, release, path, line, function, url in session.execute(
        select(
            RecordLocation.record_id,
            RecordLocation.release,
            RecordLocation.file_path,
            RecordLocation.line_number,
            RecordLocation.function,
            RecordLocation.github_url,
        ).order_by(RecordLocation.record_id, RecordLocation.position)
    ):
        # Paths, functions and releases repeat across rows: share one string for each.
        release, path, function = intern(release), intern(path), intern(function)
        located.setdefault(rid, []).append(Location(release, path, line, function))
        key = (repos.get(rid, ""), release)
        linked = url.split("#", 1)[0]
        if linked.endswith("/" + path):
            if key not in bases:
                bases[key] = linked.removesuffix(path)
        elif path not in links:
            # A file the repository keeps elsewhere (the pins' `links`): its path there.
            _, _, tail = linked.partition("/blob/")
            links[path] = tail.partition("/")[2]
    out = {
        rid: SiteFacts(repo, not is_draft, tuple(located.get(rid, ())))
        for rid, repo, is_draft in records
    }
    return out, bases, links


def build_index(session: DbSession) -> MatchIndex:
    """Every record's current pattern, plus each older wording or file of its raise site (the
    same record id, at the file and line of the release that had it). Entries carry
    curated/draft, repo and enclosing function: the matcher groups and ranks by them."""
    return _indexed(session)[0]


def _indexed(
    session: DbSession,
) -> tuple[MatchIndex, dict[str, tuple[tuple[str, tuple[str, ...]], ...]]]:
    """`build_index`'s index, and each record's older wordings: (pattern, the pinned
    releases with it, oldest first), where a paste in that wording was raised."""
    locations = list(
        session.execute(
            select(
                RecordLocation.record_id,
                RecordLocation.message_pattern,
                RecordLocation.file_path,
                RecordLocation.line_number,
                RecordLocation.error_message,
                RecordLocation.function,
                RecordLocation.release,
            ).order_by(RecordLocation.record_id, RecordLocation.position)
        )
    )
    functions = {row[0]: row[5] for row in locations}  # the newest release's function
    spans: dict[str, int] = {}
    lines_at: dict[tuple[str, str], set[int]] = {}  # (id, file) -> its lines at any release
    for row in locations:
        spans[row[0]] = spans.get(row[0], 0) + 1
        if row[3] is not None:
            lines_at.setdefault((row[0], row[2]), set()).add(row[3])
    statements = _statements(session)
    assertions = _assertions(session)
    current = [
        PatternEntry(
            rid,
            pattern,
            cls,
            path,
            line,
            message,
            is_draft,
            repo,
            functions.get(rid) or None,
            statement,
            frame_only,
            spans.get(rid, 0),
            assertions.get(rid),
            context,
            _other_lines(lines_at, rid, path, line),
        )
        for rid, pattern, cls, path, line, message, is_draft, repo in session.execute(
            select(
                Record.id,
                Record.message_pattern,
                Record.error_class,
                Record.file_path,
                Record.line_number,
                Record.error_message,
                Record.is_draft,
                Record.repo,
            ).where(Record.retracted_at.is_(None))
        )
        for statement, frame_only, context in (statements.get(rid, _NO_STATEMENT),)
    ]
    by_id = {e.record_id: e for e in current}
    older: dict[tuple[str, str, str], PatternEntry] = {}
    worded: dict[str, dict[str, list[str]]] = {}  # id -> older pattern -> its releases
    for rid, pattern, path, line, message, function, release in locations:
        entry = by_id.get(rid)
        if entry is not None and pattern != entry.pattern:
            worded.setdefault(rid, {}).setdefault(pattern, []).append(intern(release))
        # An older wording, or the file the site was in before it moved (a traceback
        # from that release has its frames there).
        if entry is not None and (pattern != entry.pattern or path != entry.file_path):
            older[(rid, pattern, path)] = PatternEntry(
                rid,
                pattern,
                entry.error_class,
                path,
                line,
                message,
                entry.is_draft,
                entry.repo,
                function or None,
                entry.statement,
                entry.frame_only,
                entry.releases,
                # A bare assert's older wording is its older expression.
                message[len("assert ") :]
                if entry.assertion and message.startswith("assert ")
                else None,
                entry.context,
                _other_lines(lines_at, rid, path, line),
            )
    wordings = {
        rid: tuple((pattern, tuple(releases)) for pattern, releases in by_pattern.items())
        for rid, by_pattern in worded.items()
    }
    # Older wordings first: the index keeps the last entry per id as the record's own.
    return MatchIndex([*older.values(), *current]), wordings


def _other_lines(
    lines_at: dict[tuple[str, str], set[int]], rid: str, path: str | None, line: int | None
) -> tuple[int, ...]:
    """The site's lines in this file at the other pinned releases, but for ``line``."""
    found = lines_at.get((rid, path or ""))
    if not found or found == {line}:
        return ()
    return tuple(sorted(found - {line}))


_CODE_WORD = re.compile(r"[A-Za-z_]\w+")
_NO_STATEMENT: tuple[str | None, bool, frozenset[str]] = (None, False, frozenset())


def _statements(session: DbSession) -> dict[str, tuple[str | None, bool, frozenset[str]]]:
    """Statement sites: (the statement's first line, frame only, a lookup's code words),
    read off the record's code excerpt."""
    out: dict[str, tuple[str | None, bool, frozenset[str]]] = {}
    rows = session.execute(
        select(
            RecordSite.record_id,
            RecordSite.form,
            Record.source_code,
            Record.source_code_start,
            Record.line_number,
        )
        .join(Record, Record.id == RecordSite.record_id)
        .where(RecordSite.form.in_(STATEMENT_FORMS))
    )
    for rid, form, source, start, line in rows:
        text = None
        if source and start and line >= start:
            lines = source.split("\n")
            if line - start < len(lines):
                text = " ".join(lines[line - start].split()) or None
        lookup = form == FORM_LOOKUP
        words = frozenset(_CODE_WORD.findall(source)) if lookup and source else frozenset()
        # A lookup's `'.+?'` fits any quoted text, an unworded raise's text is its code:
        # neither is a message to search for.
        out[rid] = (text, lookup or form == FORM_UNWORDED, words)
    return out


MAX_CACHED_ATTRIBUTES = 4096
MAX_READERS = 5000
_LIKE_ESCAPE = str.maketrans({"\\": "\\\\", "%": "\\%", "_": "\\_"})


def self_readers(session: DbSession, attr: str) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """Records whose enclosing method reads `self.<attr>`, or `<attr>` of an object it holds
    (`self.kv_args.<attr>`), at some pinned release."""
    if not attr.isidentifier():
        return ()
    escaped = attr.translate(_LIKE_ESCAPE)
    reads_text = cast(RecordSite.self_reads, Text)
    rows = session.execute(
        select(RecordSite.record_id, RecordSite.function, RecordSite.self_reads)
        .where(
            or_(
                reads_text.like('%"' + escaped + '"%', escape="\\"),
                reads_text.like("%." + escaped + '"%', escape="\\"),
            )
        )
        .limit(MAX_READERS)
    )
    held = "." + attr
    found = {
        rid: (function, tuple(reads))
        for rid, function, reads in rows
        if isinstance(reads, list) and any(r == attr or r.endswith(held) for r in reads)
    }
    # A method renamed or moved to another class keeps its record: each release's counts.
    functions: dict[str, set[str]] = {rid: {function} for rid, (function, _) in found.items()}
    ids = list(found)
    for start in range(0, len(ids), 500):
        for rid, function in session.execute(
            select(RecordLocation.record_id, RecordLocation.function)
            .where(RecordLocation.record_id.in_(ids[start : start + 500]))
            .distinct()
        ):
            functions[rid].add(function)
    return tuple(
        (rid, function, found[rid][1]) for rid in ids for function in sorted(functions[rid])
    )


def _assertions(session: DbSession) -> dict[str, str]:
    """Assert sites (with a message or bare): the expression their first line asserts."""
    out: dict[str, str] = {}
    rows = session.execute(
        select(Record.id, Record.source_code, Record.source_code_start, Record.line_number)
        .join(RecordSite, Record.id == RecordSite.record_id)
        .where(RecordSite.form.in_((FORM_ASSERT, FORM_BARE_ASSERT)))
    )
    for rid, source, start, line in rows:
        if not (source and start and line and line >= start):
            continue
        lines = source.split("\n")
        if line - start < len(lines):
            expression = assert_expression(lines[line - start])
            if expression:
                out[rid] = expression
    return out


def assert_expression(line: str) -> str | None:
    """`assert a % b == 0, "msg"` -> `a % b == 0`: the expression up to its message (or the
    line's end, for one that goes on over lines), spaces collapsed."""
    text = line.strip()
    if not text.startswith("assert ") and not text.startswith("assert("):
        return None
    text = text[len("assert") :]
    depth, quote, end = 0, "", len(text)
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote and text[i - 1] != "\\" else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            end = i
            break
        elif ch == "#":
            end = i
            break
    expression = " ".join(text[:end].split())
    return expression or None


def get_catalog(
    session: DbSession,
    key: str,
    verdict_ids: Callable[[DbSession], frozenset[str]] = lambda _: frozenset(),
) -> Catalog:
    """The catalog for the database ``key`` (its URL), fresh within ``CHECK_INTERVAL``;
    ``verdict_ids`` lists the records with a reproducer verdict (the caller knows how)."""
    now = time.monotonic()
    cached = _cache.get(key)
    if cached is not None and now - cached.checked_at < CHECK_INTERVAL:
        return cached.catalog
    with _lock:
        cached = _cache.get(key)
        signature = _signature(session)
        with_verdicts = verdict_ids(session)
        if cached is not None and cached.signature != signature and _server.app is not None:
            _rebuild_in_background(key, signature, verdict_ids)
            cached.catalog = replace(cached.catalog, with_verdicts=with_verdicts)
            cached.checked_at = now
        elif cached is None or cached.signature != signature:
            catalog = replace(build_catalog(session), with_verdicts=with_verdicts)
            cached = _Cached(catalog, signature, now)
            _cache[key] = cached
            _settle()
        else:
            cached.catalog = replace(cached.catalog, with_verdicts=with_verdicts)
            cached.checked_at = now
        return cached.catalog


@dataclass
class _Server:
    """Set by `warm`: in a serving worker, a changed catalog is rebuilt off the request
    path (requests keep the previous one until the new one is ready)."""

    app: Flask | None = None
    building: set[str] = field(default_factory=set)


_server = _Server()


def _settle() -> None:
    """In a serving worker, once a catalog is built: move its hundreds of thousands of
    long-lived objects out of the cyclic collector's way. Otherwise each full collection
    that a request's allocations trigger walks them all: a message thousands of sites
    raise, whose hits are thousands of small objects, matched 3x slower. What is frozen
    is still freed when no longer referenced (a rebuilt catalog's predecessor)."""
    if _server.app is not None:
        gc.collect()
        gc.freeze()


def warm(app: Flask, wait: bool = False) -> None:
    """Start building the catalog as a worker starts, not on its first request.

    The build runs in a thread so a slow build cannot trip the server's worker-boot
    timeout; a request that arrives meanwhile waits for it instead of building again.
    """
    _server.app = app
    thread = threading.Thread(target=_build_at_start, args=(app,), name="errata-warm", daemon=True)
    thread.start()
    if wait:
        thread.join()


def _build_at_start(app: Flask) -> None:
    with app.app_context():
        try:
            get_catalog(db.session, str(db.engine.url))
        except SQLAlchemyError as exc:
            app.logger.warning("match index not built at start: %s", str(exc).splitlines()[0])
        finally:
            db.session.remove()


def _rebuild_in_background(
    key: str, signature: int, verdict_ids: Callable[[DbSession], frozenset[str]]
) -> None:
    app = _server.app
    if app is None or key in _server.building:
        return
    _server.building.add(key)

    def run() -> None:
        try:
            with app.app_context():
                try:
                    with_verdicts = verdict_ids(db.session)
                    catalog = replace(build_catalog(db.session), with_verdicts=with_verdicts)
                finally:
                    db.session.remove()
            with _lock:
                _cache[key] = _Cached(catalog, signature, time.monotonic())
                _settle()
        except SQLAlchemyError as exc:
            app.logger.warning("match index rebuild failed: %s", str(exc).splitlines()[0])
        finally:
            _server.building.discard(key)

    threading.Thread(target=run, name="errata-catalog", daemon=True).start()


def forget() -> None:
    """Drop every cached index (tests, after a bulk change)."""
    with _lock:
        _cache.clear()
