"""Match a pasted error to records and explain why each match was made.

Ranking, most important first: a pattern match (the whole message before a segment of
it), exception class agreement (qualified name, then last dotted component), a frame in
the record's file and how near its line, then pattern specificity (literal characters).
When no pattern matches, a full-text search (injected, or `TokenSetSearch`) is used and
the result says so (`fallback=True`, `kind="text"`).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

from app.matching.index import MatchIndex, PatternEntry, VerifyBudget
from app.matching.parse import (
    ROLE_CHAINED,
    ROLE_LAST,
    ROLE_PLAIN,
    ROLE_ROOT,
    Frame,
    ParsedError,
    ParsedException,
    parse_error,
)
from app.matching.text import TextSearch, TokenSetSearch

KIND_PATTERN = "pattern"
KIND_TEXT = "text"
CLASS_EXACT = "exact"
CLASS_NAME = "name"
CLASS_DIFFERENT = "different"
CLASS_UNKNOWN = "unknown"
_CLASS_LEVEL = {CLASS_EXACT: 2, CLASS_NAME: 1, CLASS_UNKNOWN: 0, CLASS_DIFFERENT: 0}
_ROLE_ORDER = {ROLE_LAST: 0, ROLE_ROOT: 1, ROLE_PLAIN: 2, ROLE_CHAINED: 3}
_default_text: weakref.WeakKeyDictionary[MatchIndex, TokenSetSearch] = weakref.WeakKeyDictionary()


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a record matched."""

    kind: str
    pattern: str | None
    span: tuple[int, int] | None
    matched_text: str | None
    whole_message: bool
    exception_role: str
    exception_class: str | None
    exception_message: str
    class_agreement: str
    frame: Frame | None
    line_distance: int | None
    specificity: int
    similarity: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "pattern": self.pattern,
            "span": None if self.span is None else {"start": self.span[0], "end": self.span[1]},
            "matchedText": self.matched_text,
            "wholeMessage": self.whole_message,
            "exception": {
                "role": self.exception_role,
                "errorClass": self.exception_class,
                "message": self.exception_message,
            },
            "classAgreement": self.class_agreement,
            "frame": None if self.frame is None else self.frame.to_dict(),
            "lineDistance": self.line_distance,
            "specificity": self.specificity,
            "similarity": self.similarity,
        }


@dataclass(frozen=True, slots=True)
class Match:
    """One matched record with its score (0..1, pattern matches >= 0.5) and explanation."""

    record_id: str
    score: float
    why: Explanation

    def to_dict(self) -> dict[str, Any]:
        return {"recordId": self.record_id, "score": self.score, "why": self.why.to_dict()}


@dataclass(frozen=True, slots=True)
class MatchResult:
    """Ranked matches; `fallback` is True when they come from text similarity."""

    matches: tuple[Match, ...]
    fallback: bool
    parsed: ParsedError
    incomplete: bool = False  # the verification budget ran out: some patterns not tried

    def to_dict(self) -> dict[str, Any]:
        return {
            "matches": [m.to_dict() for m in self.matches],
            "fallback": self.fallback,
            "parsed": self.parsed.to_dict(),
            "incomplete": self.incomplete,
        }


def class_agreement(parsed: str | None, record: str | None) -> str:
    """Compare exception classes: full qualified name, then the last dotted component."""
    if not parsed or not record:
        return CLASS_UNKNOWN
    if parsed == record:
        return CLASS_EXACT
    if parsed.rsplit(".", 1)[-1] == record.rsplit(".", 1)[-1]:
        return CLASS_NAME
    return CLASS_DIFFERENT


def _parts(path: str) -> list[str]:
    return [p for p in path.replace("\\", "/").split("/") if p and p != "."]


def path_suffix_hit(frame_file: str, record_path: str) -> int:
    """Trailing path components shared (0 unless the file name and, if any, its dir agree)."""
    a, b = _parts(frame_file), _parts(record_path)
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n if n >= min(2, len(b)) and n > 0 else 0


def best_frame(frames: tuple[Frame, ...], entry: PatternEntry) -> tuple[Frame | None, int | None]:
    """The frame that best agrees with the record's file and line, and the line distance."""
    if not entry.file_path:
        return None, None
    best: tuple[int, int, int] | None = None
    chosen: tuple[Frame | None, int | None] = (None, None)
    for pos, frame in enumerate(frames):
        shared = path_suffix_hit(frame.file, entry.file_path)
        if not shared:
            continue
        dist = None
        if frame.line is not None and entry.line_number is not None:
            dist = abs(frame.line - entry.line_number)
        key = (shared, -(dist if dist is not None else 10**9), pos)
        if best is None or key > best:
            best, chosen = key, (frame, dist)
    return chosen


def _build(
    entry: PatternEntry,
    exc: ParsedException,
    *,
    kind: str,
    span: tuple[int, int] | None,
    whole: bool,
    specificity: int,
    similarity: float | None,
) -> tuple[tuple[Any, ...], Match]:
    agreement = class_agreement(exc.error_class, entry.error_class)
    frame, dist = best_frame(exc.frames, entry)
    nearness = 0.0 if frame is None else 0.5 + (0.0 if dist is None else 0.5 / (1 + dist / 10))
    spec = min(specificity, 100) / 100
    if kind == KIND_PATTERN:
        # Weights keep the score in the same order as the ranking key below.
        score = 0.5 + 0.25 * whole + 0.08 * _CLASS_LEVEL[agreement] + 0.06 * nearness
        score += 0.015 * spec
        tier: tuple[int, float] = (1, int(whole))
    else:
        sim = similarity or 0.0
        score = 0.45 * sim
        tier = (0, round(sim, 2))
    why = Explanation(
        kind=kind,
        pattern=entry.pattern or None,
        span=span,
        matched_text=None if span is None else exc.message[span[0] : span[1]],
        whole_message=whole,
        exception_role=exc.role,
        exception_class=exc.error_class,
        exception_message=exc.message,
        class_agreement=agreement,
        frame=frame,
        line_distance=dist,
        specificity=specificity,
        similarity=similarity,
    )
    key = (
        -tier[0],
        -tier[1],
        -_CLASS_LEVEL[agreement],
        frame is None,
        dist if dist is not None else 10**9,
        -specificity,
        _ROLE_ORDER.get(exc.role, 9),
        entry.record_id,
    )
    return key, Match(entry.record_id, round(score, 4), why)


def _rank(scored: dict[str, tuple[tuple[Any, ...], Match]], limit: int) -> tuple[Match, ...]:
    return tuple(m for _, m in sorted(scored.values(), key=lambda km: km[0])[:limit])


def _keep_best(
    scored: dict[str, tuple[tuple[Any, ...], Match]], item: tuple[tuple[Any, ...], Match]
) -> None:
    current = scored.get(item[1].record_id)
    if current is None or item[0] < current[0]:
        scored[item[1].record_id] = item


def default_text_search(index: MatchIndex) -> TextSearch:
    """The pure-Python text search for an index, built once per index."""
    search = _default_text.get(index)
    if search is None:
        search = TokenSetSearch(index.entries())
        _default_text[index] = search
    return search


def match_parsed(
    parsed: ParsedError,
    index: MatchIndex,
    *,
    text_search: TextSearch | None = None,
    limit: int = 10,
) -> MatchResult:
    """Rank records for an already parsed error."""
    scored: dict[str, tuple[tuple[Any, ...], Match]] = {}
    budget = VerifyBudget.start()
    for exc in parsed.exceptions:
        for hit in index.search(exc.message, budget):
            item = _build(
                hit.entry,
                exc,
                kind=KIND_PATTERN,
                span=(hit.start, hit.end),
                whole=hit.whole,
                specificity=hit.specificity,
                similarity=None,
            )
            _keep_best(scored, item)
    if scored:
        return MatchResult(_rank(scored, limit), False, parsed, budget.exceeded)
    search = text_search if text_search is not None else default_text_search(index)
    for exc in parsed.exceptions:
        for record_id, sim in search(exc.message, limit):
            entry = index.get(record_id) or PatternEntry(record_id, "")
            item = _build(
                entry,
                exc,
                kind=KIND_TEXT,
                span=None,
                whole=False,
                specificity=index.specificity(record_id),
                similarity=sim,
            )
            _keep_best(scored, item)
    return MatchResult(_rank(scored, limit), True, parsed, budget.exceeded)


def match_error(
    raw: str | bytes,
    index: MatchIndex,
    *,
    text_search: TextSearch | None = None,
    limit: int = 10,
) -> MatchResult:
    """Parse pasted text and rank matching records; never raises on odd input."""
    return match_parsed(parse_error(raw), index, text_search=text_search, limit=limit)
