"""Pattern index: Aho-Corasick literal prefilter, RE2 verification, segment semantics.

Match semantics: a record's `messagePattern` matches an exception message when the
pattern matches the *whole* message (ignoring surrounding whitespace) or a whole
*segment* of it: a line, or a clause of a line that starts at the line start, after
": " or after a sentence end (". ", "! ", "? ") and ends at the line end, at a sentence
end or before ": ", or a quoted part of a line (double quotes or backticks). So
"Loading failed: <pattern text>", "<pattern text> Try X." and 'still see "<pattern
text>" when' match, but a pattern found in the middle of a longer sentence does not.
"""

from __future__ import annotations

import heapq
import re
import sys
import time
from array import array
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from operator import itemgetter
from typing import Any, NamedTuple

import ahocorasick
import re2

from app.matching.literals import extract, folded_runs, required_runs
from app.matching.naming import file_named, mentioned_name, mentioned_names, stem_words

MAX_VERIFY_CHARS = 16_384
MAX_HITS = 8
MAX_BOUNDS_PER_LINE = 6
PREFIX_KEY = 12
MIN_PREFIX_CHARS = 24
# A cut-off message that ends where a sentence or clause of the template does ("RuntimeError:
# Initialization failed" of "Initialization failed. Please see ..."): an issue title quotes
# the first sentence whole, evidence a shorter start carries than a cut anywhere.
MIN_SENTENCE_CHARS = 16
_SENTENCE_END = frozenset(".!?:;")
MIN_DIVERGED_CHARS = 18  # a message that goes on differently must share this much first
MIN_DIVERGED_TAIL = 12  # ... and go on for this much: "models!" for "models." is a near miss
MIN_CONTAINED_CHARS = 32  # literal text a template needs to be found inside a sentence
MAX_CONTAINED_HITS = 32
MIN_SHARED_LITERAL = 8  # a later literal's start the text carries before it diverges
INNER_KEY_SCAN = 48  # chars after a segment start where a short-headed template's key may sit
MAX_PREFIX_STARTS = 24
# Cost bounds (docs/security.md): patterns without a usable literal form a small tier
# verified on the head of each message; every query has a time budget for verification.
MAX_ALWAYS = 64
ALWAYS_VERIFY_CHARS = 4_096
MAX_PROGRAM = 2_000
MAX_COMPILED = 2_048  # compiled patterns a worker keeps, per kind (str, bytes)
_UNCOMPILED = object()
MAX_VERIFY_COST = 4_000_000  # RE2 program size x characters verified (~0.1 s worst case)
VERIFY_BUDGET_S = 0.25

# Segment bounds: after ": " or a sentence end, or inside double quotes or backticks
# (an issue title that quotes the message: 'Still face "<message>" when ...').
_START_MARKS = re.compile(r"(?::|[.!?])[ \t]+|(?:^|(?<=\s))[\"\u201c`]")
_PREFIX_STARTS = re.compile(r"\n[ \t]*|" + _START_MARKS.pattern)  # line starts too
# ... and before the clause an issue title goes on with ("<message> when using run_batch").
_END_MARKS = re.compile(
    r"[.!?](?=[ \t])|(?=:[ \t])|(?=[\"\u201d`](?:[\s.,;:!?)]|$))"
    r"|(?=[ \t]+(?:when|while|after|during|using)[ \t])"
)
_QUOTE_CLOSE = {"`": "`", '"': '"', "\u201c": "\u201d"}
_WORD_START = re.compile(r"(?<=\s)\S")
_PLACEHOLDER = re.compile(r"\{[^{}\n]{0,200}\}")
_VALUE = itemgetter(1)  # an automaton hit's value: (end, value)
# Verification needs only the span of the whole match: with every group non-capturing,
# RE2 answers from its DFA instead of computing submatches.
_VERIFY_OPTIONS = re2.Options()
_VERIFY_OPTIONS.log_errors = False
_VERIFY_OPTIONS.max_mem = 8 << 20
_VERIFY_OPTIONS.never_capture = True
_ANCHOR = re2._re2.RE2.Anchor
_UNANCHORED, _BOTH = _ANCHOR.UNANCHORED, _ANCHOR.ANCHOR_BOTH


@dataclass(slots=True)
class VerifyBudget:
    """Verification time left to one query; ``exceeded`` once it ran out."""

    deadline: float
    exceeded: bool = False

    @classmethod
    def start(cls, seconds: float = VERIFY_BUDGET_S) -> VerifyBudget:
        return cls(time.monotonic() + seconds)

    def spent(self) -> bool:
        if not self.exceeded and time.monotonic() > self.deadline:
            self.exceeded = True
        return self.exceeded


@dataclass(frozen=True, slots=True)
class PatternEntry:
    """One record's matching data, as plain values (no ORM objects)."""

    record_id: str
    pattern: str
    error_class: str | None = None
    file_path: str | None = None
    line_number: int | None = None
    error_message: str | None = None
    # Read when the catalog provides them (absent: unknown); they group and rank results.
    is_draft: bool | None = None
    repo: str | None = None
    function: str | None = None
    # A statement site (scan.STATEMENT_FORMS): the statement's first line, as a traceback
    # frame shows it; `frame_only` keeps its pattern out of message search (a KeyError's
    # `'.+?'` fits any quoted text): it is found through a frame on the statement.
    statement: str | None = None
    frame_only: bool = False
    releases: int = 0  # pinned releases that have the site (0: unknown)
    # An assert's expression, as its first line reads (`numerator % denominator == 0`):
    # a writer who quotes `assert <expr>` without the message is pointed to it.
    assertion: str | None = None
    # A lookup's code words (its excerpt's identifiers and quoted names): a KeyError that
    # quotes a weight's name, with no frame, is told apart by the names it shares.
    context: frozenset[str] = frozenset()
    # The site's other lines in this file at the other pinned releases (a traceback from
    # one of them has its frame there); empty when every release has it at `line_number`.
    lines: tuple[int, ...] = ()

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> PatternEntry:
        """From a schema v2 record dict (camelCase keys, as in the dataset JSONL)."""
        line = record.get("lineNumber")
        return cls(
            record_id=str(record["id"]),
            pattern=record.get("messagePattern") or "",
            error_class=record.get("errorClass"),
            file_path=record.get("filePath"),
            line_number=line if isinstance(line, int) else None,
            error_message=record.get("errorMessage"),
            is_draft=record.get("isDraft") if isinstance(record.get("isDraft"), bool) else None,
            repo=record.get("repo"),
            function=record.get("function"),
        )


class PatternHit(NamedTuple):
    """A verified pattern match: span within the message and whether it is the whole.
    (A named tuple: a message thousands of sites raise makes thousands of hits.)"""

    entry: PatternEntry
    start: int
    end: int
    whole: bool
    specificity: int
    cut: bool = False  # prefix hits: the text ends inside the template (else it diverges)
    # Message search hits: the entry's place in the index's tie order, its file's key.
    order: int = 0
    file: str = ""


# A template's closing stop (`.`, `!`, `?`), escaped as a pattern writes it; an issue title
# or a log line often drops it ("... is not supported yet").
STOPS = ".!?"
# ... as str and as the ASCII bytes a segment may be read as (`_verify_with`).
_STOP_ENDS = frozenset([*STOPS, *(c.encode() for c in STOPS)])
_STOP_ESCAPES = ("\\.", "!", "\\?")
MAX_STOPLESS_CHARS = 600  # a longer segment is no title: not checked


@lru_cache(maxsize=1024)
def _without_stop(pattern: str) -> re2._Regexp | None:
    """The pattern without the stop it ends in, compiled by RE2 as the index verifies (in
    linear time: a paste is no backtracking bomb); None when it ends in none (or in an
    escaped backslash before one)."""
    for stop in _STOP_ESCAPES:
        head = pattern[: -len(stop)]
        if pattern.endswith(stop) and not head.endswith("\\") and head.strip():
            return _compile(head, _VERIFY_OPTIONS)
    return None


@lru_cache(maxsize=4096)
def verifier(pattern: str) -> re2._Regexp | None:
    """A pattern compiled by RE2 as the index verifies it; None when RE2 cannot."""
    return _compile(pattern, _VERIFY_OPTIONS)


def whole_but_its_stop(hit: PatternHit, message: str) -> bool:
    """A cut-off hit whose text instantiates the whole template but for its closing stop:
    the whole message, written without the final period."""
    text = message[hit.start : hit.end].rstrip()
    if not hit.cut or len(text) > MAX_STOPLESS_CHARS or text[-1:] in STOPS:
        return False
    rx = _without_stop(hit.entry.pattern)
    return rx is not None and rx.fullmatch(text) is not None


def template_overlap(template: str, text: str) -> tuple[int, bool]:
    """How far the text instantiates a message template before it stops: (chars, cut).

    ``chars`` counts the template's literal characters the text carries; placeholders
    absorb anything. ``cut`` is True when the text ends inside the template (a truncated
    paste), False when it goes on with other words (a reworded end, a title that adds the
    user's own) for at least MIN_DIVERGED_TAIL characters; then the count stops at the last
    whole word. (0, False) when the text does not start as the template does, differs only
    in its last word, or instantiates all of it (a pattern match, not this).
    """
    parts = _template_parts(template)
    head = parts[0]
    if not head.strip():
        return _overlap_after_value(parts, text)
    if not text.startswith(head):
        common = _common_prefix(head, text)
        if common == len(text):
            return common, True
        chars = text.rfind(" ", 0, common + 1) + 1
        return (chars, False) if len(text) - chars >= MIN_DIVERGED_TAIL else (0, False)
    pos = matched = len(head)
    for literal in parts[1:]:
        if pos >= len(text) or not literal:
            break
        found = text.find(literal, pos + 1)
        if found < 0:
            cut = _cut_literal(text, pos + 1, literal)
            if cut >= min(2, len(literal)):
                return matched + cut, True
            if len(text) - pos < MIN_DIVERGED_TAIL:
                # A short value that ends in the literal's first character ("." of ". Try
                # again") ends inside the value; it is read on as any long value.
                return (matched, True) if cut else (0, False)
            # The text may carry this literal's start before it goes on in other words
            # ("... are not supported for now?" of "... for now. Supported ..."): counted.
            return matched + _shared_literal(text, pos + 1, literal), False
        pos = found + len(literal)
        matched += len(literal)
    else:
        return 0, False
    return matched, True


def completed_end(template: str, text: str) -> int | None:
    """Where the text completes a template that ends in literal text, when it goes on after
    it with a space and MIN_DIVERGED_TAIL characters or more of other words; None otherwise.
    Its literal text is MIN_DIVERGED_CHARS at least (a shared start would need as much)."""
    parts = _template_parts(template)
    if not parts[0].strip() or not parts[-1].strip() or not text.startswith(parts[0]):
        return None
    if sum(len(p) for p in parts) < MIN_DIVERGED_CHARS:
        return None
    pos = len(parts[0])
    for literal in parts[1:]:
        found = text.find(literal, pos + 1)  # a placeholder takes one character at least
        if found < 0:
            return None
        pos = found + len(literal)
    if pos < len(text) and text[pos].isspace() and len(text) - pos >= MIN_DIVERGED_TAIL:
        return pos
    return None


def _overlap_after_value(parts: tuple[str, ...], text: str) -> tuple[int, bool]:
    """template_overlap of a template that starts with its placeholder (`{arch} has no
    SGlang implementation ...`): the value is the text's first word, then the literal."""
    if len(parts) < 2 or len(parts[1].strip()) < MIN_SHARED_LITERAL:
        return 0, False
    literal = parts[1]
    word = len(text) - len(text.lstrip())
    word = next((i for i in range(word, len(text)) if text[i].isspace()), len(text))
    if word == 0 or word == len(text) or (literal[0].isspace() and text[word] != literal[0]):
        return 0, False
    if literal[0].isspace():
        rest = text[word:]
    else:  # `{name}: ...`: the literal starts inside the word
        end = text.find(literal[:2], 1)
        if end < 0 or end > word:
            return 0, False
        rest = text[end:]
    if rest.startswith(literal):
        chars = len(literal)
        if len(parts) == 2:
            return 0, False  # instantiated whole: a pattern match
        # The rest as a template of its own, its head one character both sides share.
        after, cut = template_overlap("{}".join(("\0",) + parts[2:]), "\0" + rest[chars:])
        return (chars + max(after - 1, 0), cut) if after or cut else (chars, False)
    common = _common_prefix(literal, rest)
    if common == len(rest):
        return common, True
    # Words after a value are weaker evidence than a message's own start (" got an
    # unexpected " follows many names): as much as a cut-off message must share.
    words = rest.rfind(" ", 0, common + 1)
    tail = len(rest) - max(words, 0)
    return (words, False) if words >= MIN_PREFIX_CHARS and tail >= MIN_DIVERGED_TAIL else (0, False)


def _says_its_message(entry: PatternEntry, rest: str) -> bool:
    """What a quoted `assert <expr>` line says after the expression: nothing, or a message
    (`, "PCG capture stream is not set"`) whose start is the site's own. The same expression
    asserted elsewhere with another message (`assert stream is not None, f"Media file has
    no audio stream: ..."`) is not the assert the paste quotes."""
    literal = _ASSERT_MESSAGE.match(rest)
    if literal is None:
        return True  # nothing after it, or the writer's own words (`, with chunked prefill`)
    said = rest[literal.end() :]
    head = _template_parts(entry.error_message or "")[0]
    shared = min(len(said), len(head), MIN_SHARED_LITERAL)
    return not shared or said[:shared] == head[:shared]


def _ends_a_sentence(head: str, chars: int) -> bool:
    """A cut of at least MIN_SENTENCE_CHARS of the template's head, at the end of one of
    its sentences or clauses (the text ends on its full stop, or just before it)."""
    if chars < MIN_SENTENCE_CHARS or chars > len(head):
        return False
    return head[chars - 1] in _SENTENCE_END or (chars < len(head) and head[chars] in _SENTENCE_END)


def _overlap_end(template: str, text: str, chars: int) -> int:
    """Where a text that goes on differently leaves the template (``chars`` shared, from
    template_overlap): inside the head, there; past the head, the end of the text's line
    (a placeholder may run up to the writer's own words)."""
    if chars < len(_template_parts(template)[0]):
        return chars
    line_end = text.find("\n")
    return len(text) if line_end < 0 else line_end


@lru_cache(maxsize=1 << 16)
def _template_parts(template: str) -> tuple[str, ...]:
    """A message template's literal parts, around its ``{placeholders}``; a leading newline
    or indent (a triple-quoted message) is not what a paste starts with."""
    return tuple(_PLACEHOLDER.split(template.lstrip()))


def last_value_start(template: str, message: str) -> int | None:
    """Where the value of a template's last placeholder starts in a message it matched
    whole (`... with exception {e}`: after " with exception "), or None when the template
    does not end in a placeholder after some literal text."""
    parts = _template_parts(template)
    if len(parts) < 2 or parts[-1].strip() or len(parts[-2].strip()) < 3:
        return None
    lead = parts[-2]
    at = message.rfind(lead)
    return None if at < 0 else at + len(lead)


def _common_prefix(a: str, b: str) -> int:
    """Length of the longest common start of two strings (slice compares, not a char loop)."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n  # a[:lo] == b[:lo] and a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def _shared_literal(text: str, start: int, literal: str) -> int:
    """Whole words of the longest start of `literal` found in text after `start` (at least
    MIN_SHARED_LITERAL characters, else 0)."""
    if text.find(literal[:MIN_SHARED_LITERAL], start) < 0:
        return 0
    lo, hi = MIN_SHARED_LITERAL, len(literal)  # literal[:lo] is found, literal[:hi + 1] not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if text.find(literal[:mid], start) >= 0:
            lo = mid
        else:
            hi = mid - 1
    words = literal.rfind(" ", 0, lo + 1) if lo < len(literal) else lo
    return words if words >= MIN_SHARED_LITERAL else 0


def _cut_literal(text: str, start: int, literal: str) -> int:
    """Length of the longest start of `literal` that text ends with (after `start`)."""
    for k in range(min(len(literal), len(text) - start), 0, -1):
        if text.endswith(literal[:k]):
            return k
    return 0


# `assert <expr>` quoted in a message: the expression's text, to the end of its line.
MIN_ASSERTION_CHARS = 16
MAX_ASSERTION_HITS = 32
_ASSERT_QUOTED = re.compile(r"(?<![\w.])assert\s+([^\n]{16,400})")
# A message that starts with a self-documenting f-string value (`f"{res=}, {res.text=}"`:
# `res=<Response [503]>, res.text='...'`): the head `name=` is code, which a writer's prose
# does not start with. The name is at least three characters.
_SELF_DOC_TEMPLATE = re.compile(r"([A-Za-z_][\w.]{2,80})=\{")
_SELF_DOC_MESSAGE = re.compile(r"\s*([A-Za-z_][\w.]{2,80})=(?=\S)")
_ASSERT_TRAIL = " `'\",;:"
# The message argument after a quoted assert's expression: `, "`, `, f'`, `, ("`.
_ASSERT_MESSAGE = re.compile(r"""\s*,\s*\(?\s*[fFrRbBuU]{0,2}["']""")


# Every import site's message starts the same way: such a message is keyed on its name.
_IMPORT_HEADS = ("cannot import name ", "No module named ")


@lru_cache(maxsize=1 << 16)
def path_parts(path: str) -> tuple[str, ...]:
    """A path's components (either separator, no empty or `.` ones)."""
    return tuple(p for p in path.replace("\\", "/").split("/") if p and p != ".")


def file_key(path: str) -> str:
    """The last two components of a path: the key frames and records are joined on."""
    return "/".join(path_parts(path)[-2:])


# Folders that hold a package rather than name it (`python/sglang/...`, `src/pkg/...`).
_SOURCE_ROOTS = frozenset({"python", "src", "lib"})


def package_parts(path: str) -> tuple[str, ...]:
    """A path's components from its package folder on (`python/sglang/srt/x.py` ->
    `sglang`, `srt`, `x.py`); the last is always kept."""
    parts = path_parts(path)
    while len(parts) > 1 and parts[0] in _SOURCE_ROOTS:
        parts = parts[1:]
    return parts


def _same_package(entry_path: str, frame_parts: tuple[str, ...]) -> bool:
    """Whether a frame's path (its components) holds the entry's package folder and the
    folder below it, in turn (`sglang/srt`), before its file name."""
    dirs = package_parts(entry_path)[:-1]
    if len(dirs) < 2:
        return False
    head = dirs[:2]
    frame_dirs = frame_parts[:-1]
    return any(frame_dirs[i : i + 2] == head for i in range(len(frame_dirs) - 1))


@dataclass(slots=True)
class _Segments:
    """Segment boundaries of one message (per line: starts and ends), read on first need:
    most candidates fail their first search and never ask."""

    message: str
    whole: tuple[int, int]
    # An ASCII message as bytes (same offsets): its verification calls RE2 directly,
    # without the wrapper's per-call character/byte offset conversion.
    data: bytes | None = None
    _lines: list[tuple[int, int, list[int], list[int]]] | None = None
    _ends: list[int] | None = None  # each line's end, in order (lines do not overlap)

    @property
    def lines(self) -> list[tuple[int, int, list[int], list[int]]]:
        if self._lines is None:
            self._lines = _line_bounds(self.message)
        return self._lines

    def touched(self, spans: list[tuple[int, int]]) -> list[int]:
        """The lines (by position, in order) that a span overlaps or, empty, starts."""
        lines = self.lines
        if self._ends is None:
            self._ends = [le for _ls, le, _s, _e in lines]
        found: set[int] = set()
        for s, e in spans:
            i = bisect_right(self._ends, s)  # the first line ending after s
            while i < len(lines) and (lines[i][0] < e or s == e == lines[i][0]):
                found.add(i)
                i += 1
        return sorted(found)


def _strip_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _segments(message: str) -> _Segments:
    seg = _Segments(message, _strip_bounds(message, 0, len(message)))
    if message.isascii():
        seg.data = message.encode("ascii")
    return seg


def _line_bounds(message: str) -> list[tuple[int, int, list[int], list[int]]]:
    lines = []
    pos = 0
    for raw in message.split("\n"):
        ls, le = _strip_bounds(message, pos, pos + len(raw))
        pos += len(raw) + 1
        if ls >= le:
            continue
        line = message[ls:le]
        starts = [ls] + [ls + m.end() for m in _START_MARKS.finditer(line)][:MAX_BOUNDS_PER_LINE]
        ends = [le] + [ls + m.end() for m in _END_MARKS.finditer(line)][:MAX_BOUNDS_PER_LINE]
        lines.append((ls, le, starts, ends))
    return lines


def _verify(rx: re2._Regexp, seg: _Segments) -> tuple[int, int, bool] | None:
    """(start, end, whole) of the longest segment the pattern fully matches, or None.

    ``rx`` is the bytes pattern when ``seg.data`` is set (then RE2's Match is called
    directly, without the wrapper's generator and offset conversion per call), else the
    str one. Only lines touched by one of the first MAX_HITS search hits are tried.
    """
    if seg.data is not None:
        return _verify_with(rx._regexp.Match, seg.data, seg)
    return _verify_with(_wrapper_match(rx), seg.message, seg)


_Spans = list[tuple[int, int]]


def _wrapper_match(rx: re2._Regexp) -> Callable[[Any, str, int, int], _Spans]:
    """RE2's ``Match(anchor, text, pos, end)`` for a str text, through the wrapper (which
    converts between character and byte offsets)."""

    def match(anchor: Any, text: str, pos: int, end: int) -> _Spans:
        found = (rx.search if anchor == _UNANCHORED else rx.fullmatch)(text, pos, end)
        return [(-1, -1) if found is None else found.span()]

    return match


def _verify_with(
    match: Callable[[Any, Any, int, int], _Spans], text: str | bytes, seg: _Segments
) -> tuple[int, int, bool] | None:
    """`_verify` with ``match`` (RE2's ``Match`` signature): a search, a full match of the
    whole, then of the segments around the first MAX_HITS hits (found as `finditer` would)."""
    end = len(text)
    first = match(_UNANCHORED, text, 0, end)[0]
    if first[0] < 0:
        return None
    ws, we = seg.whole
    whole_end = _full_match_end(match, text, ws, we)
    if whole_end is not None:
        return ws, whole_end, True
    spans = [first]
    # As finditer from first's end (from `we` after an empty first match).
    pos = first[1] if first[1] > first[0] else we
    while len(spans) < MAX_HITS and pos <= end:
        span = match(_UNANCHORED, text, pos, end)[0]
        if span[0] < 0:
            break
        spans.append(span)
        if pos == end:
            break
        pos = span[1] if span[1] != pos else pos + 1
    for s, e in _segment_pairs(seg, spans):
        segment_end = _full_match_end(match, text, s, e)
        if segment_end is not None:
            return s, segment_end, False
    return None


def _full_match_end(
    match: Callable[[Any, Any, int, int], _Spans], text: str | bytes, s: int, e: int
) -> int | None:
    """Where a full match of `text[s:e]` ends: at `e`, or before a closing stop the
    template does not have (a writer's full stop, `<message>. How to fix?`); None when the
    pattern does not match the segment."""
    part = text[s:e]
    if match(_BOTH, part, 0, len(part))[0][0] >= 0:
        return e
    if text[e - 1 : e] in _STOP_ENDS and match(_BOTH, part, 0, len(part) - 1)[0][0] >= 0:
        return e - 1
    return None


def _segment_pairs(seg: _Segments, spans: _Spans) -> _Spans:
    """Candidate segments of the lines the search hits touch, longest first, stripped."""
    ws, we = seg.whole
    pairs: set[tuple[int, int]] = set()
    lines = seg.lines
    for pos in seg.touched(spans):
        _ls, _le, starts, ends = lines[pos]
        pairs.update((s, e) for s in starts for e in ends if s < e)
        pairs.update((s, we) for s in starts if s < we)
        pairs.update((ws, e) for e in ends if ws < e)
    out = []
    for s, e in sorted(pairs, key=lambda p: (p[0] - p[1], p[0])):
        s, e = _strip_bounds(seg.message, s, e)
        if s < e:
            out.append((s, e))
    return out


def _compile(pattern: str | bytes, options: re2.Options) -> re2._Regexp | None:
    try:
        return re2.compile(pattern, options)
    except Exception:  # re2 raises its own error type for unsupported syntax
        return None


class MatchIndex:
    """Immutable index over pattern entries; rebuild it when records change."""

    def __init__(self, entries: Iterable[PatternEntry]) -> None:
        self._entries: list[PatternEntry] = []
        self._specificity: list[int] = []
        self._by_id: dict[str, int] = {}
        self._always: list[int] = []
        # Compiled on first use, once per distinct pattern (many sites share one): for str
        # messages and for ASCII bytes; None when RE2 cannot compile it or its program is
        # too large to verify. The MAX_COMPILED most recently used are kept: each holds
        # its DFA's states (about 60 KB once used), and kept all, a worker answering varied
        # pastes grew by gigabytes.
        self._compiled: OrderedDict[str, re2._Regexp | None] = OrderedDict()
        self._compiled_bytes: OrderedDict[str, re2._Regexp | None] = OrderedDict()
        self._program: dict[str, int] = {}  # RE2 program size, per compiled pattern
        self._runs: dict[str, tuple[str, ...]] = {}  # required literal runs, per pattern
        self._by_head: dict[str, list[int]] = {}
        self._by_inner: dict[str, list[int]] = {}
        self._by_file: dict[str, list[int]] = {}
        # By file name alone: a frame of a file that moved to another folder at the user's
        # build (`mem_cache/unified_cache_components/x.py` there, `.../components/x.py` here).
        self._by_name: dict[str, list[int]] = {}
        self._by_assertion: dict[str, list[int]] = {}
        self._by_self_doc: dict[str, list[int]] = {}
        self._file_keys: list[str] = []
        # Sites that share a pattern and a class share its verification and its place in a
        # search: grouped here (ids in the order of their first member), so a message
        # thousands of sites raise costs a search one group, not thousands of entries.
        self._groups: list[tuple[str, bool, list[int]]] = []
        self._groups_by_literal: dict[str, list[int]] = {}
        self._always_groups: list[int] = []
        group_ids: dict[tuple[str, bool, str | None], int] = {}
        for entry in entries:
            idx = len(self._entries)
            self._entries.append(entry)
            self._by_id[entry.record_id] = idx
            path_key = sys.intern(file_key(entry.file_path)) if entry.file_path else ""
            self._file_keys.append(path_key)  # interned: one string per file
            if path_key:
                self._by_file.setdefault(path_key, []).append(idx)
                self._by_name.setdefault(path_key.rpartition("/")[2], []).append(idx)
            if entry.assertion and len(entry.assertion) >= MIN_ASSERTION_CHARS:
                key = entry.assertion[:MIN_ASSERTION_CHARS]
                self._by_assertion.setdefault(key, []).append(idx)
            if entry.frame_only:
                self._specificity.append(0)
                continue
            found = _SELF_DOC_TEMPLATE.match(entry.error_message or "")
            if found is not None:
                self._by_self_doc.setdefault(found.group(1), []).append(idx)
            lits = extract(entry.pattern)
            # Kept from the parse the build does anyway: a search of a new paste does not
            # parse its candidates' patterns again (Python's regex parser, ~0.2 ms each).
            self._runs.setdefault(entry.pattern, lits.runs)
            self._specificity.append(lits.specificity)
            if lits.best is None:
                if len(self._always) < MAX_ALWAYS:
                    self._always.append(idx)
                    self._group(idx, None, group_ids)
            else:
                self._group(idx, lits.best, group_ids, lits.any_of)
            message = entry.error_message or ""
            head = next((h for h in _IMPORT_HEADS if message.startswith(h)), None)
            if entry.statement is not None and head is not None:
                name = message[len(head) :]
                self._by_inner.setdefault(name[:PREFIX_KEY].casefold(), []).append(idx)
                continue
            parts = _template_parts(entry.error_message or "")
            if len(parts[0]) >= PREFIX_KEY:
                self._by_head.setdefault(parts[0][:PREFIX_KEY].casefold(), []).append(idx)
            elif parts[0].strip() or len(parts) > 1:
                # "TP rank {} could finish ...", "{arch} has no SGlang implementation": keyed
                # on the first long literal instead.
                inner = next((p.lstrip() for p in parts[1:] if len(p.strip()) >= PREFIX_KEY), "")
                if inner:
                    self._by_inner.setdefault(inner[:PREFIX_KEY].casefold(), []).append(idx)
        # Of a group larger than a search returns: its members by the tie order, and by
        # file (built on first use; few groups are that large).
        self._first_of: dict[tuple[int, int], list[int]] = {}
        self._by_file_of: dict[int, dict[str, list[int]]] = {}
        self._by_name_of: dict[int, tuple[dict[str, list[int]], dict[str, list[int]]]] = {}
        # Each entry's place among all, for hits that tie on the paste's evidence: curated,
        # more specific, in more releases first; then by file, line and id (never random).
        ranked = sorted(
            range(len(self._entries)),
            key=lambda i: (
                self._entries[i].is_draft is not False,
                -self._specificity[i],
                -self._entries[i].releases,
                self._entries[i].file_path or "",
                self._entries[i].line_number or 0,
                self._entries[i].record_id,
            ),
        )
        self._order = array("l", [0]) * len(ranked)  # compact: one machine word each
        for place, i in enumerate(ranked):
            self._order[i] = place
        self._weight_lookups = [
            self._entries[i]
            for i in self._by_id.values()
            if self._entries[i].frame_only
            and (self._entries[i].function or "").endswith("load_weights")
        ]
        self._automaton = ahocorasick.Automaton()
        for literal in self._groups_by_literal:
            self._automaton.add_word(literal, literal)
        if self._groups_by_literal:
            self._automaton.make_automaton()
        # The inner keys too: one pass over a message finds where each occurs.
        self._inner_automaton = ahocorasick.Automaton()
        for key in self._by_inner:
            self._inner_automaton.add_word(key, key)
        if self._by_inner:
            self._inner_automaton.make_automaton()

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def always_verified(self) -> int:
        """How many patterns had no usable literal and are checked on every query."""
        return len(self._always)

    def get(self, record_id: str) -> PatternEntry | None:
        idx = self._by_id.get(record_id)
        return None if idx is None else self._entries[idx]

    def entries(self) -> list[PatternEntry]:
        return list(self._entries)

    def specificity(self, record_id: str) -> int:
        idx = self._by_id.get(record_id)
        return 0 if idx is None else self._specificity[idx]

    def _regex(self, idx: int, binary: bool = False) -> re2._Regexp | None:
        """The entry's compiled pattern, for str messages or (``binary``) ASCII bytes;
        compiled without captures (verification reads only the whole match's span)."""
        cache = self._compiled_bytes if binary else self._compiled
        pattern = self._entries[idx].pattern
        found = cache.get(pattern, _UNCOMPILED)
        if found is not _UNCOMPILED:
            with suppress(KeyError):  # another thread may have just dropped it
                cache.move_to_end(pattern)
            return found
        rx = _compile(pattern.encode() if binary else pattern, _VERIFY_OPTIONS)
        if rx is not None and pattern not in self._program:
            # The size the write-time cost check measures with captures: RE2 counts the
            # same program without them (equal for 3,000 corpus patterns sampled), so the
            # pattern is not compiled a second time to measure it.
            self._program[pattern] = rx.programsize
        if rx is not None and self._program[pattern] > MAX_PROGRAM:
            rx = None  # stored before the write-time cost check: never verified
        cache[pattern] = rx
        while len(cache) > MAX_COMPILED:
            with suppress(KeyError):
                cache.popitem(last=False)
        return rx

    def _required(self, pattern: str) -> tuple[str, ...]:
        """The pattern's required literal runs, case-folded, longest first (none: unknown).
        Every match contains each, so a message without one of them cannot match."""
        runs = self._runs.get(pattern)
        if runs is None:
            runs = self._runs[pattern] = folded_runs(required_runs(pattern))
        return runs

    def invalid_patterns(self) -> list[str]:
        """Record ids whose pattern RE2 cannot compile (compiles every pattern: slow)."""
        return [e.record_id for i, e in enumerate(self._entries) if self._regex(i) is None]

    def _group(
        self,
        idx: int,
        literal: str | None,
        ids: dict[tuple[str, bool, str | None], int],
        any_of: tuple[str, ...] = (),
    ) -> None:
        """Add the entry to its group (``ids``: each group's id by its key, while building);
        a group found by one of several literals (``any_of``) is keyed under each."""
        entry = self._entries[idx]
        key = (entry.pattern, literal is None, entry.error_class)
        gid = ids.get(key)
        if gid is None:
            gid = ids[key] = len(self._groups)
            self._groups.append((entry.pattern, literal is None, []))
            if literal is None:
                self._always_groups.append(gid)
            else:
                for lit in any_of or (literal,):
                    self._groups_by_literal.setdefault(lit, []).append(gid)
        self._groups[gid][2].append(idx)

    def _first(self, gid: int, count: int) -> list[int]:
        """A large group's first ``count`` members in the tie order."""
        found = self._first_of.get((gid, count))
        if found is None:
            found = self._first_of[gid, count] = sorted(
                self._groups[gid][2], key=self._order.__getitem__
            )[:count]
        return found

    def _in_files(self, gid: int, files: set[str] | frozenset[str]) -> list[int]:
        """A large group's members in the files ``files`` names, in index order."""
        by_file = self._by_file_of.get(gid)
        if by_file is None:
            by_file = self._by_file_of[gid] = {}
            for idx in self._groups[gid][2]:
                by_file.setdefault(self._file_keys[idx], []).append(idx)
        found = [i for f in files for i in by_file.get(f, ())]
        return sorted(found) if len(files) > 1 else found

    def _named(
        self, gid: int, message: str, words: Callable[[], frozenset[str]] | None
    ) -> list[tuple[tuple[bool, int, int], int]]:
        """A large group's members whose function the message mentions or whose file
        name a word of the paste (``words``) names (what the ranking weighs past frames),
        each with its place in the ranking: mentioned, most plainly named, then in order."""
        found = self._by_name_of.get(gid)
        if found is None:
            by_part: dict[str, list[int]] = {}
            by_function: dict[str, list[int]] = {}
            for idx in self._groups[gid][2]:
                entry = self._entries[idx]
                for part in stem_words(entry.file_path or "")[1]:
                    by_part.setdefault(part, []).append(idx)
                name = mentioned_name(entry.function)
                if name is not None:
                    by_function.setdefault(name, []).append(idx)
            found = self._by_name_of[gid] = (by_part, by_function)
        by_part, by_function = found
        mentioned: set[int] = set()
        if by_function:
            for name in mentioned_names(message):
                mentioned.update(by_function.get(name, ()))
        named: set[int] = set()
        found_words = frozenset() if words is None or not by_part else words()
        for word in found_words:
            named.update(by_part.get(word, ()))
        entries, order = self._entries, self._order
        return [
            ((i not in mentioned, -file_named(found_words, entries[i].file_path), order[i]), i)
            for i in mentioned | named
        ]

    def _candidate_groups(self, folded: str) -> list[int]:
        """Groups whose required literal occurs in the case-folded message, plus the
        always-verify ones, in group order."""
        gids: set[int] = set(self._always_groups)
        if self._groups_by_literal:
            for lit in set(map(_VALUE, self._automaton.iter(folded))):
                gids.update(self._groups_by_literal[lit])
        return sorted(gids)

    def candidates(self, message: str, folded: str | None = None) -> list[int]:
        """Entries whose required literal occurs in the message, plus the always-verify list."""
        text = message.casefold() if folded is None else folded
        return sorted(i for gid in self._candidate_groups(text) for i in self._groups[gid][2])

    def search(
        self,
        message: str,
        budget: VerifyBudget | None = None,
        per_site_kind: int | None = None,
        files: set[str] | frozenset[str] = frozenset(),
        words: Callable[[], frozenset[str]] | None = None,
    ) -> list[PatternHit]:
        """All entries whose pattern matches the message (whole or a segment).

        Literal-less patterns see only the head of the message; with a ``budget``, the
        search stops when it runs out (``budget.exceeded`` says so). With
        ``per_site_kind``, of the sites that share a pattern and a class (`No module named
        'torch'`: thousands), only that many come back, first in the tie order, plus those
        in ``files`` (file keys), those in a function the message names and those in a file
        a word of the paste names (``words``, read only for such a group): the ones a
        ranking by that evidence, then that order, keeps.
        """
        message = message[:MAX_VERIFY_CHARS]
        if not message.strip():
            return []
        folded = message.casefold()
        views = {len(message): _segments(message)}
        binary = views[len(message)].data is not None
        hits: list[PatternHit] = []
        large: list[tuple[int, int, int, bool]] = []  # groups over per_site_kind: _alike_hits
        verified: dict[tuple[str, bool], tuple[int, int, bool] | None] = {}
        for gid in self._candidate_groups(folded):
            pattern, unkeyed, group = self._groups[gid]
            if (pattern, unkeyed) in verified:
                found = verified[pattern, unkeyed]
            elif not all(run in folded for run in self._required(pattern)):
                found = verified[pattern, unkeyed] = None  # a literal every match has is missing
            else:
                if budget is not None and budget.spent():
                    break
                rx = self._regex(group[0], binary)
                if rx is None:
                    continue
                # A costly program sees a shorter head of the message: no one check is slow.
                size = min(len(message), MAX_VERIFY_COST // max(self._program[pattern], 1))
                if unkeyed:
                    size = min(size, ALWAYS_VERIFY_CHARS)
                if size not in views:
                    views[size] = _segments(message[:size])
                found = verified[pattern, unkeyed] = _verify(rx, views[size])
            if found is None:
                continue
            start, end, whole = found
            if per_site_kind is not None and len(group) > per_site_kind:
                large.append((gid, start, end, whole))
                continue
            hits.extend(self._hit(idx, start, end, whole) for idx in group)
        if large and per_site_kind is not None:
            hits += self._alike_hits(large, message, per_site_kind, files, words)
        return hits

    def contained_search(
        self, message: str, budget: VerifyBudget | None = None
    ) -> list[PatternHit]:
        """Entries whose pattern occurs anywhere in the message, not only at a segment's
        bounds (`why <message> / tensor?`), when every match of it holds at least
        MIN_CONTAINED_CHARS literal characters: for the writer's own words (no class, no
        frame), where a long template inside a sentence is still that template."""
        message = message[:MAX_VERIFY_CHARS]
        folded = message.casefold()
        hits: list[PatternHit] = []
        for gid in self._candidate_groups(folded):
            pattern, unkeyed, group = self._groups[gid]
            runs = self._required(pattern)
            if unkeyed or sum(map(len, runs)) < MIN_CONTAINED_CHARS:
                continue
            if not all(run in folded for run in runs):
                continue
            if budget is not None and budget.spent():
                break
            rx = self._regex(group[0])
            if rx is None:
                continue
            # As in `search`: a costly program sees a shorter head of the message.
            size = MAX_VERIFY_COST // max(self._program[pattern], 1)
            found = rx.search(message[:size])
            if found is None:
                continue
            start, end = found.span()
            hits.extend(self._hit(idx, start, end, False) for idx in group)
            if len(hits) >= MAX_CONTAINED_HITS:
                break
        return hits[:MAX_CONTAINED_HITS]

    def _hit(self, idx: int, start: int, end: int, whole: bool) -> PatternHit:
        return PatternHit(
            self._entries[idx],
            start,
            end,
            whole,
            self._specificity[idx],
            False,
            self._order[idx],
            self._file_keys[idx],
        )

    def _alike_hits(
        self,
        large: list[tuple[int, int, int, bool]],
        message: str,
        count: int,
        files: set[str] | frozenset[str],
        words: Callable[[], frozenset[str]] | None,
    ) -> list[PatternHit]:
        """Of the large groups a message matched (`No module named 'torch'`: a group per
        wording of the import, each of hundreds of sites), ``count`` members per class and
        whole-or-part, first in the tie order across those groups, plus each group's
        members the paste singles out (a frame's file, a function or file it names)."""
        order = self._order
        buckets: dict[tuple[bool, str | None], list[tuple[int, int, int, bool]]] = {}
        for found in large:
            cls = self._entries[self._groups[found[0]][2][0]].error_class
            buckets.setdefault((found[3], cls), []).append(found)
        hits: list[PatternHit] = []
        for bucket in buckets.values():
            firsts = [
                [(order[i], i, n) for i in self._first(gid, count)]
                for n, (gid, *_span) in enumerate(bucket)
            ]
            chosen = {(i, n) for _, i, n in islice(heapq.merge(*firsts), count)}
            named = [
                (key, i, n)
                for n, (gid, *_span) in enumerate(bucket)
                for key, i in self._named(gid, message, words)
            ]
            chosen.update((i, n) for _, i, n in heapq.nsmallest(count, named))
            if files:
                for n, (gid, *_span) in enumerate(bucket):
                    chosen.update((i, n) for i in self._in_files(gid, files))
            for i, n in sorted(chosen, key=lambda c: order[c[0]]):
                _gid, start, end, whole = bucket[n]
                hits.append(self._hit(i, start, end, whole))
        return hits

    def prefix_search(self, message: str) -> list[PatternHit]:
        """Entries whose message template the message instantiates up to a point.

        Either the message ends inside the template (a truncated paste: ``cut``, at least
        MIN_PREFIX_CHARS literal characters) or it goes on with other words after at least
        MIN_DIVERGED_CHARS (a reworded end). Tried from each segment start (line start,
        after ": " or a sentence end); the span runs to the end of the message, or to the
        point where the message leaves the template. Specificity is the characters shared.
        """
        message = message[:MAX_VERIFY_CHARS].rstrip()
        if len(message) < MIN_DIVERGED_CHARS or not (self._by_head or self._by_inner):
            return []
        starts = [0]
        for m in _PREFIX_STARTS.finditer(message):
            starts.append(m.end())
            if len(starts) >= MAX_PREFIX_STARTS:
                break
        hits: list[PatternHit] = []
        seen: set[int] = set()
        keyed = self._inner_keys(message, starts[-1] + INNER_KEY_SCAN)
        for start in starts:
            found = list(self._by_head.get(message[start : start + PREFIX_KEY].casefold(), ()))
            if keyed is None:
                # Word starts after the segment's first character, as in its own first
                # INNER_KEY_SCAN characters (the lookbehind sees the space before them).
                for w in _WORD_START.finditer(message, start + 1, start + INNER_KEY_SCAN):
                    found.extend(
                        self._by_inner.get(
                            message[w.start() : w.start() + PREFIX_KEY].casefold(), ()
                        )
                    )
            else:
                first = bisect_right(keyed, (start, "\uffff"))  # past keys at `start` itself
                for pos, key in keyed[first:]:
                    if pos >= start + INNER_KEY_SCAN:
                        break
                    found.extend(self._by_inner[key])
            if not found:
                continue
            text = message[start:]
            closing = _QUOTE_CLOSE.get(message[start - 1]) if start else None
            if closing is not None and closing in text:
                text = text[: text.index(closing)]  # `quoted` in a line of prose: ends there
            for idx in found:
                if idx in seen:
                    continue
                template = self._entries[idx].error_message or ""
                head = _template_parts(template)[0]
                if len(head) >= MIN_DIVERGED_CHARS and not text.startswith(
                    head[:MIN_DIVERGED_CHARS]
                ):
                    continue  # shares under MIN_DIVERGED_CHARS: template_overlap's answer
                chars, cut = template_overlap(template, text)
                done = completed_end(template, text) if not chars and not cut else None
                if done is not None:
                    # The whole template, then the writer's own words (`[Bug] AssertionError:
                    # Hidden size mismatch in Triton MoE Kernel`): `whole` marks it complete.
                    seen.add(idx)
                    hits.append(PatternHit(self._entries[idx], start, start + done, True, done + 1))
                    continue
                if chars < (MIN_PREFIX_CHARS if cut else MIN_DIVERGED_CHARS) and not (
                    cut and _ends_a_sentence(head, chars)
                ):
                    continue
                seen.add(idx)
                end = start + (len(text) if cut else _overlap_end(template, text, chars))
                hits.append(PatternHit(self._entries[idx], start, end, False, chars, cut))
        return hits

    def _inner_keys(self, message: str, end: int) -> list[tuple[int, str]] | None:
        """(position, key), by position, of every inner key at a word start before ``end``, as the
        per-word lookup would find them (the key is the next PREFIX_KEY characters, or the
        rest of the message); None for a message whose case folding moves characters
        (not ASCII): the caller looks word by word."""
        if not self._by_inner:
            return []
        head = message[: end + PREFIX_KEY]
        if not head.isascii():
            return None
        found = []
        for last, key in self._inner_automaton.iter(head.lower()):
            pos = last - len(key) + 1
            if pos == 0 or pos >= end or not message[pos - 1].isspace() or message[pos].isspace():
                continue
            if len(key) == PREFIX_KEY or pos + len(key) == len(message):
                found.append((pos, key))
        found.sort()
        return found

    def weight_lookups(self) -> list[PatternEntry]:
        """Lookups in a model's `load_weights` (`params_dict[name]`), newest wording each."""
        return self._weight_lookups

    def self_documented(self, message: str) -> tuple[list[PatternEntry], int, int]:
        """Sites whose message starts with the self-documenting value the message starts
        with (`res=` of `f"{res=}, ..."`), and the span of its `name=` head."""
        found = _SELF_DOC_MESSAGE.match(message[:MAX_VERIFY_CHARS])
        if found is None:
            return [], 0, 0
        ids = self._by_self_doc.get(found.group(1), ())
        return [self._entries[i] for i in ids], found.start(1), found.end()

    def assertion_search(self, message: str) -> list[tuple[PatternEntry, int, int]]:
        """Assert sites whose expression the message quotes after `assert ` (the rest of
        its line, or the expression's start): (entry, start, end) of the quoted text."""
        found: list[tuple[PatternEntry, int, int]] = []
        if not self._by_assertion:
            return found
        seen: set[int] = set()
        for m in _ASSERT_QUOTED.finditer(message[:MAX_VERIFY_CHARS]):
            quoted = " ".join(m.group(1).split()).rstrip(_ASSERT_TRAIL)
            if len(quoted) < MIN_ASSERTION_CHARS:
                continue
            for idx in self._by_assertion.get(quoted[:MIN_ASSERTION_CHARS], ()):
                entry = self._entries[idx]
                expr = entry.assertion or ""
                if idx not in seen and (
                    (quoted.startswith(expr) and _says_its_message(entry, quoted[len(expr) :]))
                    or expr.startswith(quoted)
                ):
                    seen.add(idx)
                    found.append((entry, m.start(1), m.start(1) + len(quoted)))
            if len(seen) >= MAX_ASSERTION_HITS:
                break
        return found

    def in_file(self, path: str) -> list[PatternEntry]:
        """Entries raised in the file a frame names (joined on the last two components)."""
        return [self._entries[i] for i in self._by_file.get(file_key(path), ())]

    def in_named_file(self, name: str) -> list[PatternEntry]:
        """Entries raised in a file of this name (`kimik2_detector.py`), in any folder."""
        return [self._entries[i] for i in self._by_name.get(name, ())]

    def only_file_named(self, name: str) -> str | None:
        """The one file (its last two components) of this name the entries are raised in,
        or None when no folder or several have one."""
        found = None
        for idx in self._by_name.get(name, ()):
            key = self._file_keys[idx]
            if found is not None and key != found:
                return None
            found = key
        return found

    def in_moved_file(self, path: str, function: str) -> list[PatternEntry]:
        """Entries of ``function`` in a file of the same name as the frame's, elsewhere in the
        same package (the frame's path holds the entry's package folder and the one below
        it: `sglang/srt`): the file moved between the user's build and the pinned releases.
        Only when the frame's own file is unknown (`in_file` is empty)."""
        parts = path_parts(path)
        if len(parts) < 3:
            return []
        found = []
        for i in self._by_name.get(parts[-1], ()):
            entry = self._entries[i]
            if entry.function is None or entry.function.rsplit(".", 1)[-1] != function:
                continue
            if _same_package(entry.file_path or "", parts):
                found.append(entry)
        return found

    def naive_search(self, message: str) -> list[str]:
        """Reference: RE2-search every pattern in turn (for benchmarks and tests)."""
        return [
            e.record_id
            for i, e in enumerate(self._entries)
            if (rx := self._regex(i)) is not None and rx.search(message) is not None
        ]
