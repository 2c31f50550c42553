"""Match a pasted error to records and explain why each match was made.

Kinds of evidence, strongest first: a pattern match (the whole message before a segment
of it); a message that carries the start of a record's message template and is cut off
there or goes on differently (`kind="prefix"`, ranked by the characters shared, beside
patterns with fewer than WEAK_PATTERN_CHARS literal characters); the traceback's
innermost frame in a file the catalog knows (`kind="frame"`: records raised there, its
own function first, then nearest line); a message the interpreter words itself matched
by a record of a file no frame is in; text similarity (`kind="text"`, `TokenSetSearch`
unless the caller passes another). Within a kind: exception class agreement, a frame in
the record's file and how near its line, curated before draft, pattern specificity;
never the record id while evidence differs.

Records of one raise site (same repo, file and message template: the drafts of several
releases) come back as one result with a count; a curated record represents its site.
Every result carries an `answer` that says what is known and what is not.
"""

from __future__ import annotations

import builtins
import re
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from difflib import SequenceMatcher
from functools import lru_cache, partial
from itertools import islice
from typing import Any, Final, NamedTuple

from app.matching import statement
from app.matching.index import (
    MAX_STOPLESS_CHARS,
    MIN_CONTAINED_CHARS,
    STOPS,
    MatchIndex,
    PatternEntry,
    PatternHit,
    VerifyBudget,
    file_key,
    last_value_start,
    package_parts,
    path_parts,
    template_overlap,
    whole_but_its_stop,
)
from app.matching.naming import file_named, mentions, paste_words
from app.matching.parse import (
    EXCEPTION_SUFFIXES,
    ROLE_BODY,
    ROLE_CONTEXT,
    ROLE_ORDER,
    Frame,
    ParsedError,
    ParsedException,
    parse_error,
)
from app.matching.text import TextSearch, TokenSetSearch

KIND_PATTERN = "pattern"
KIND_PREFIX = "prefix"
KIND_FRAME = "frame"
KIND_STATEMENT = "statement"
KIND_ASSERTION = "assertion"  # the paste quotes `assert <expr>`: the assert of that expression
KIND_KEY = "key"  # a KeyError quoting a weight's name, no frame: the loaders' lookups
KIND_TEXT = "text"
# `'Cls' object has no attribute 'x'` with no frame: the methods of Cls that read `self.x`.
KIND_ATTRIBUTE = "attribute"
# The same with no method of that class reading it: the few functions that read an attribute
# of that name of any object (`self.base_model.get_module_name`).
KIND_READER = "reader"
# Raised in the function that logged a warning the paste matched: what a crash after the
# warning likely came from (`_adjust_embedding_length` warns, then raises).
KIND_BESIDE = "beside"
LOGGED_WARNING = "logging.WARNING"  # the drafter's class for a warning (scan.LOGGED_CLASSES)
MAX_BESIDE = 3  # raises shown per warning
# No message matched, no frame: the paste names a file and an error class (an issue title's
# "NotImplementedError in kimik2_detector.py"): that class's raise sites in that file.
KIND_NAMED = "named"
MAX_SAME_SITE = 20
# A message many sites raise alike (`No module named 'torch'`: thousands of imports) has
# its hits ranked on a cheap key first, and only this many are scored.
MAX_SCORED_HITS = 64
# Of the sites that share a pattern and a class, those a search returns (with those in a
# frame's file): enough that the hits the ranking filters out leave MAX_SCORED_HITS.
PER_SITE_KIND = 2 * MAX_SCORED_HITS
MAX_FRAME_CANDIDATES = 64
MIN_FRAME_START = 8  # a message's start that picks its record among a frame's function's
CLASS_EXACT = "exact"
CLASS_NAME = "name"
CLASS_DIFFERENT = "different"
CLASS_UNKNOWN = "unknown"
_CLASS_LEVEL = {CLASS_EXACT: 2, CLASS_NAME: 1, CLASS_UNKNOWN: 0, CLASS_DIFFERENT: 0}
CONTEXT_TIER = 100  # above every tier: a context item sorts after all the others
_TIER = {
    KIND_STATEMENT: 3,
    KIND_PATTERN: 3,
    KIND_ASSERTION: 3,
    KIND_ATTRIBUTE: 3,
    KIND_PREFIX: 2,
    KIND_READER: 2,
    KIND_BESIDE: 2,
    KIND_FRAME: 1,
    KIND_KEY: 1,
    KIND_NAMED: 1,
    KIND_TEXT: 0,
}
# A frame's source line that raises a class with a literal message: `raise X("text` (what
# of the literal the line shows, up to an f-string's first placeholder).
_RAISE_SOURCE = re.compile(r"raise ([A-Za-z_][\w.]*)\(\s*[rRbBuUfF]{0,2}[\"']([^\"'{}\\]*)")
MIN_QUOTED_RAISE_CHARS = 2
# What a read site of the very attribute adds to a reader's specificity (its score caps at 40).
READ_SITE_SPECIFICITY = 40
_ATTRIBUTE_PROTOCOL = frozenset({"__getattr__", "__getattribute__"})
# The attribute's closing quote may be lost where the paste was cut (`... attribute 'executor`).
_NO_ATTRIBUTE = re.compile(r"'([A-Za-z_]\w*)' object has no attribute '([A-Za-z_]\w*)(?:'|\Z)")
_NO_MODULE_ATTRIBUTE = re.compile(
    r"(?<![\w'])module '([A-Za-z_][\w.]*)' has no attribute '([A-Za-z_]\w*)(?:'|\Z)"
)
# A class name retyped by hand (`TransformersForCasualLM`): this close to one that reads it.
CLASS_NAME_SIMILARITY = 0.9
MIN_CUT_CLASS = 5  # a class name cut off by the paste's end still names its class
MAX_ATTRIBUTE_SITES = 20
MAX_ATTRIBUTE_LOOKUPS = 2  # distinct attributes looked up per paste
# A method that reads the attribute of an object it holds under the class's name: below
# the class's own methods (20), above a class of a close name (0).
HELD_SPECIFICITY = 10
# With no reader of that class, an attribute this few functions read names them (more would
# be a guess among many: `.shape`, `.config`).
MAX_RARE_READERS = 4
# `module 'm' has no attribute 'x'`: the functions that read `m.x`, when at most this many do.
MAX_MODULE_READERS = 8
MAX_NAMED_FILES = 3  # `utils.py` names dozens of files: no evidence of which
MAX_NAMED = 4  # file names, and error classes, a paste's words are read for
MAX_NAMED_CHARS = 4_096
# A file or an error class a writer names in prose: `kimik2_detector.py`, `srt/x/y.py`;
# `NotImplementedError`, `torch.OutOfMemoryError`.
_FILE_WORD = re.compile(r"(?<![\w./-])((?:[A-Za-z_][\w-]*/)*[A-Za-z_]\w*\.py)\b")
_CLASS_WORD = re.compile(r"\b([A-Z]\w*(?:Error|Exception|Interrupt|Exit))\b")
_CODE_NAME = re.compile(r"[A-Za-z_]\w*")
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# attribute -> (record id, its function `Cls.method`, what that method reads of `self`), for
# the methods that read `self.<attribute>` or `self.<...>.<attribute>`
AttributeReaders = Callable[[str], Sequence[tuple[str, str, tuple[str, ...]]]]
# A KeyError quoting a checkpoint tensor's name: `'model.layers.3.mlp.down_proj.weight_scale'`,
# or a top-level module's with its prefix stripped (`'embed_tokens.weight'`). Quoted, it may
# be followed by the writer's words (a title's "when loading Qwen3 MoE").
_WEIGHT_NAME = re.compile(r"""(['"]?)([A-Za-z_]\w*(?:\.\w+){1,40})\1(?=\s|\Z)""")
_WEIGHT_PART = re.compile(r"weight|bias|scale|zero|g_idx|inv_freq|proj|embed|norm|head", re.I)
# The classes of statement sites that read a name or an attribute (unset.py, unbound.py).
_READ_CLASSES = frozenset({"AttributeError", "NameError"})
# The classes a statement site's statement raises (by its record's class).
_STATEMENT_CLASSES = {
    "AssertionError": frozenset({"AssertionError"}),
    "ImportError": frozenset({"ImportError", "ModuleNotFoundError"}),
    "ModuleNotFoundError": frozenset({"ModuleNotFoundError", "ImportError"}),
    "KeyError": frozenset({"KeyError"}),
    "TypeError": frozenset({"TypeError"}),  # a call of a kernel package's function
    "ValueError": frozenset({"ValueError"}),  # a lookup of a value in the package's Enum
}
# A pattern with fewer literal characters than this ("Cannot find .+?") is no stronger
# evidence than a long shared start of another template: both rank by characters shared.
WEAK_PATTERN_CHARS = 16
# The classes of lines that report an error rather than raise one: logged lines and the
# messages an aborted request carries (app/drafts/scan.py's LOGGED_CLASSES, REPORTED_CLASS).
_REPORTING_CLASSES = frozenset(
    {"logging.WARNING", "logging.ERROR", "logging.CRITICAL", "BadRequestError"}
)
MIN_HEAD_CHARS = 16  # a multi-line message's first line this long is its head
_BARE_LABEL = re.compile(r"[\w.]+:")  # `ImportError:` alone on its line, its message below
MIN_QUOTED_CHARS = 16  # a reported line's last value shorter than this is no error's message
MAX_QUOTED_STARTS = 3  # exception names in a reported line's last value tried as its start
_EXCEPTION_NAME = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b")
# Messages the Python interpreter itself words. A dependency that raises the same words
# ("'x' object has no attribute 'y'") is not where the user's error came from unless a
# frame of the traceback is in its file; such a match ranks below the frames' evidence.
_INTERPRETER_MESSAGE = re.compile(
    r"""(?x)\A(?:
      (?:type\ object\ |module\ )?'?[\w.<>]+'?\ (?:object\ )?has\ no\ attribute\ '?[\w.]+'?
    | [\w.<>]+\(\)\ (?:got\ an\ unexpected\ keyword\ argument|got\ multiple\ values\ for
        \ argument|missing\ \d+\ required\ (?:positional|keyword-only)\ arguments?|takes)\ \S.*
    | (?:list|tuple|string|range)\ index\ out\ of\ range
    | '?[\w.]+'?\ object\ is\ not\ (?:subscriptable|callable|iterable|an\ iterator)
    | No\ module\ named\ \S+ | cannot\ import\ name\ \S.*
    | unsupported\ operand\ type\(s\)\ for\ .+ | name\ '\w+'\ is\ not\ defined
    | (?:local\ variable|cannot\ access\ local\ variable)\ '\w+'\ .+
    | object\ of\ type\ '[\w.]+'\ has\ no\ len\(\)
    | (?:integer\ |float\ )?division\ (?:or\ modulo\ )?by\ zero
    | maximum\ recursion\ depth\ exceeded.*
    | too\ many\ values\ to\ unpack.* | not\ enough\ values\ to\ unpack.*
    | .+\ is\ not\ in\ (?:list|tuple)
    | (?:list|tuple|deque)\.(?:index|remove)\(x\):\ x\ not\ in\ \w+
    | '?[\w.]+'?\ object\ does\ not\ support\ item\ (?:assignment|deletion)
    | '?[\w.]+'?\ object\ cannot\ be\ interpreted\ as\ an\ integer
    | unhashable\ type:\ '[\w.]+' | cannot\ unpack\ non-iterable\ \S+\ object
    | argument\ of\ type\ '[\w.]+'\ is\ not\ iterable
    | (?:string|list|tuple)\ indices\ must\ be\ integers.* | can\ only\ concatenate\ .+
    | '[<>=!]{1,2}'\ not\ supported\ between\ instances\ of\ .+ | bad\ operand\ type\ for\ .+
    | invalid\ literal\ for\ int\(\)\ with\ base\ \d+:\ .+
    | pop\ from\ (?:an\ )?empty\ \w+
    | (?:max|min)\(\)\ (?:arg\ is\ an\ empty\ sequence|iterable\ argument\ is\ empty)
    | dictionary\ changed\ size\ during\ iteration
    | expected\ str,\ bytes\ or\ os\.PathLike\ object,\ not\ \w+
    | can't\ multiply\ sequence\ by\ non-int\ of\ type\ .+
    )\Z""",
    re.DOTALL,
)
# A message whose first value is the instance's own class (`'{type(self).__name__}' object
# has no attribute '{name}'` in a `__getattr__`) names that class or a subclass: never
# `None` or a builtin type, which only the interpreter's own error names.
_SELF_TYPE = re.compile(r"\A['\"]?\{(?:type\(self\)|self\.__class__|cls)\.__(?:qual)?name__\}")
# A template that names the callee it checks by a value: `{function_name}() got ...`.
_CALLEE_VALUE = re.compile(r"\A\{[^{}]+\}(?:\.__init__)?\(\) ")
# A call whose arguments do not fit its callee, as Python words it: the callee's name
# (`HiRadixCache.__init__`, `NixlKVSender.send`, `f`) before `()`.
_CALL_MISFIT = re.compile(
    r"(?<![\w.])([A-Za-z_][\w.]*)\(\) (?:got an unexpected keyword argument"
    r"|got multiple values for (?:keyword )?argument|missing \d+ required"
    r"|takes (?:from )?\d+ (?:to \d+ )?positional arguments? but)"
)
_CLASS_NAME = re.compile(r"[A-Za-z_][\w.]*")
# A module's own `__getattr__` (PEP 562) words `module '{__name__}' has no attribute ...`:
# the value is that module's dotted name, which its file's path spells.
# A lazy module's class words it with `{self.__name__}`: a module of that package.
_OWN_MODULE = re.compile(r"\Amodule ['\"]?\{(self\.)?__name__(?:!r)?\}['\"]? ")
_BUILTIN_TYPES = frozenset(
    {name for name, value in vars(builtins).items() if isinstance(value, type)}
    | {"NoneType", "function", "method", "module", "builtin_function_or_method", "generator"}
)
# The interpreter's own words in the messages above. A record whose template has no other
# word (`{res} object has no attribute {attr_name}`) says nothing a paste could confirm
# unless a frame of the traceback is in its file.
_INTERPRETER_WORDS = frozenset(
    """type object has no attribute got an unexpected keyword argument multiple values for
    missing required positional keyword only arguments takes list tuple string range index
    out of is not subscriptable callable iterable iterator module named cannot import name
    from unsupported operand s local variable access integer float division or modulo by
    zero maximum recursion depth exceeded too many to unpack enough expected len in does
    support item assignment deletion interpreted as an unhashable non argument indices must
    be integers slices concatenate only supported between instances and bad invalid literal
    for int with base pop empty arg sequence dictionary changed size during iteration str
    bytes os PathLike can t multiply""".split()
)
_TEMPLATE_WORD = re.compile(r"[A-Za-z]+")
# What Python 3.10+ appends to an AttributeError, NameError or ImportError it words:
# `... has no attribute 'tokenizer'. Did you mean: '_tokenizer'?`.
_DID_YOU_MEAN = re.compile(r"\.? Did you mean:? '?[\w.]+'?\?\s*\Z")
# The same guess exactly as Python 3.10+ writes it, cut off before a message's templates are
# searched: it follows the message it words after a period the template does not have.
_PYTHONS_GUESS = re.compile(r"\. Did you mean: '[\w.]{1,200}'\?\s*\Z")
_CANNOT_IMPORT = re.compile(r"cannot import name ['\u2018\u2019\"]?(\w+)")
_NO_MODULE = re.compile(r"No module named ['\u2018\u2019\"]?([\w.]+)")
_PLACEHOLDER = re.compile(r"\{[^{}\n]{0,200}\}")
_NAMED = 6  # where the ranking key holds how plainly the paste names the record's file
_SPACE = re.compile(r"\s+")
_PACKAGE_ROOTS = frozenset({"site-packages", "dist-packages"})
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
    cut: bool = False  # prefix evidence: the message ends inside the template (else diverges)

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
    same_site: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        """Records of this raise site that matched (this one included)."""
        return 1 + len(self.same_site)

    def to_dict(self) -> dict[str, Any]:
        return {
            "recordId": self.record_id,
            "score": self.score,
            "why": self.why.to_dict(),
            "count": self.count,
            "sameSite": list(self.same_site[:MAX_SAME_SITE]),
        }


# Explanation's fields, in its order (mypy checks `Explanation(*why)` against them).
_WhyFields = tuple[
    str,
    str | None,
    tuple[int, int] | None,
    str | None,
    bool,
    str,
    str | None,
    str,
    str,
    Frame | None,
    int | None,
    int,
    float | None,
    bool,
]
_WHY_KIND: Final = 0
_WHY_MESSAGE: Final = 7  # the message of the exception the hit is for
_WHY_SPECIFICITY: Final = 11  # the literal characters of the template the hit shares


class _Scored(NamedTuple):
    """A scored hit of one record; most are outranked, so its Explanation is built only if
    it is shown."""

    record_id: str
    score: float
    why: _WhyFields


_Item = tuple[tuple[Any, ...], _Scored]  # (ranking key, hit)


@dataclass(frozen=True, slots=True)
class MatchResult:
    """Ranked matches; `fallback` is True when they come from text similarity."""

    matches: tuple[Match, ...]
    fallback: bool
    parsed: ParsedError
    answer: dict[str, Any] = field(default_factory=dict)
    incomplete: bool = False  # the verification budget ran out: some patterns not tried

    def to_dict(self) -> dict[str, Any]:
        return {
            "matches": [m.to_dict() for m in self.matches],
            "fallback": self.fallback,
            "parsed": self.parsed.to_dict(),
            "answer": self.answer,
            "incomplete": self.incomplete,
        }


def class_agreement(parsed: str | None, record: str | None) -> str:
    """Compare exception classes: full qualified name, then the last dotted component."""
    if not parsed or not record:
        return CLASS_UNKNOWN
    if parsed == record:
        return CLASS_EXACT
    name, recorded = parsed.rsplit(".", 1)[-1], record.rsplit(".", 1)[-1]
    if name == recorded:
        return CLASS_NAME
    if (
        len(name) >= MIN_CUT_CLASS
        and recorded.startswith(name)
        and not name.endswith(EXCEPTION_SUFFIXES)
    ):
        return CLASS_NAME  # a paste cut off inside the class name: `AssertionErro`
    return CLASS_DIFFERENT


def path_suffix_hit(frame_file: str, record_path: str) -> int:
    """Trailing path components shared (0 unless the file name and, if any, its dir agree)."""
    a, b = path_parts(frame_file), path_parts(record_path)
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n if n >= min(2, len(b)) and n > 0 else 0


# A frame of the record's file: (trailing path components shared, position, frame, the
# function its code is written in).
_FileFrame = tuple[int, int, Frame, str | None]
# One query's frames per (exception's frames, record file): most hits share a few files.
_Memo = dict[tuple[int, str], tuple[_FileFrame, ...]]


def _file_frames(
    frames: tuple[Frame, ...], file_path: str, memo: _Memo | None = None
) -> tuple[_FileFrame, ...]:
    """The frames in ``file_path`` (by trailing path components), each once per query."""
    key = (id(frames), file_path)
    if memo is not None and key in memo:
        return memo[key]
    name = path_parts(file_path)[-1:]
    found = []
    for pos, frame in enumerate(frames):
        if not name or not frame.file.endswith(name[0]):
            continue  # not even the file name agrees
        shared = path_suffix_hit(frame.file, file_path)
        if shared:
            found.append((shared, pos, frame, _function_of(frames, frame)))
    out = tuple(found)
    if memo is not None:
        memo[key] = out
    return out


def _nearest(
    candidates: tuple[_FileFrame, ...], line: int | None, lines: tuple[int, ...] = ()
) -> tuple[Frame, int | None, str | None, int] | None:
    """Of a file's frames: most path shared, then nearest the line (or the line the site
    had at another pinned release, ``lines``: the traceback may be from that one), then
    innermost."""
    best: tuple[int, int, int] | None = None
    chosen: tuple[Frame, int | None, str | None, int] | None = None
    for shared, pos, frame, function in candidates:
        dist = None
        if frame.line is not None and line is not None:
            dist = abs(frame.line - line)
            if lines:
                dist = min(dist, *(abs(frame.line - at) for at in lines))
        key = (shared, -(dist if dist is not None else 10**9), pos)
        if best is None or key > best:
            best, chosen = key, (frame, dist, function, shared)
    return chosen


def _whole_path(shared: int, record_path: str) -> bool:
    """Whether a frame carries the record's whole path but its source root (`python/`,
    `src/`): `sglang/srt/x/y.py`, not only the `x/y.py` another package's copy shares."""
    return shared >= len(path_parts(record_path)) - 1


def _build(
    entry: PatternEntry,
    exc: ParsedException,
    *,
    kind: str,
    span: tuple[int, int] | None,
    whole: bool,
    specificity: int,
    similarity: float | None,
    cut: bool = False,
    memo: _Memo | None = None,
    inside: bool = False,
    at: Frame | None = None,
    quoted: bool = False,
) -> _Item:
    agreement = class_agreement(exc.error_class, entry.error_class)
    if kind == KIND_STATEMENT and exc.error_class:
        # The statement raises each of these itself (`from X import a`: ImportError, or
        # ModuleNotFoundError when X is missing): the class is the statement's own.
        raised = _STATEMENT_CLASSES.get(entry.error_class or "", frozenset())
        if exc.error_class.rsplit(".", 1)[-1] in raised:
            agreement = CLASS_EXACT
    frame: Frame | None = None
    dist: int | None = None
    same_function = False
    whole_path = False
    if entry.file_path and exc.frames:
        candidates = _file_frames(exc.frames, entry.file_path, memo)
        if at is not None:
            # The frame the answer is about (the innermost the catalog knows): not whichever
            # frame of the file is nearest the record's line at some release.
            candidates = tuple(c for c in candidates if c[2] is at) or candidates
        found = _nearest(candidates, entry.line_number, entry.lines)
        if found is not None:
            frame, dist, function, shared = found
            same_function = _same_function(entry.function, function)
            whole_path = _whole_path(shared, entry.file_path)
    nearness = 0.0 if frame is None else 0.5 + (0.0 if dist is None else 0.5 / (1 + dist / 10))
    if frame is not None and not whole_path:
        nearness /= 2  # a file of the same name and folder in another part of the package
    spec = min(specificity, 100) / 100
    if (
        kind == KIND_PATTERN
        and frame is None
        and (
            # An import's own pattern names the very module and name.
            (
                entry.statement is None
                and (_raised_in_a_frame(exc) or _interpreter_worded(exc, span))
            )
            # An attribute its class may lack (`'C' object has no attribute 'x'`) or a name
            # its module may not bind is read in many places, and a traceback's frames say
            # which: a read in no frame's file is not the one.
            or (
                entry.statement is not None
                and entry.error_class in _READ_CLASSES
                and bool(exc.frames)
            )
        )
    ):
        # Below the frames' evidence, above text similarity (see _INTERPRETER_MESSAGE); a
        # `__getattr__` of the very class the message names before those of other classes.
        own = _names_its_owner(entry, exc.message, span[0] if span else 0)
        score = 0.15 + 0.03 * _CLASS_LEVEL[agreement] + 0.015 * spec + 0.01 * own
        tier: tuple[int | float, float] = (0.5, specificity + 1000 * own)
    elif (
        kind == KIND_PATTERN
        and whole
        and not exc.frames
        and entry.statement is not None
        and entry.error_class == "AttributeError"
        and agreement == CLASS_EXACT
    ):
        # A read whose error is this very wording (`obj.x` of an object annotated `C`:
        # typed.py), with no frame to say which read ran: beside the class's own methods
        # that read it (`_class_readers`), above the raises those methods are shown by.
        score = 0.9 + 0.002 * (READ_SITE_SPECIFICITY - 1)
        tier = (_TIER[KIND_ATTRIBUTE], 2)
    elif kind == KIND_PREFIX or (
        kind == KIND_PATTERN and (specificity < WEAK_PATTERN_CHARS or inside)
    ):
        # A template found inside a sentence ranks as a shared text of its length.
        score = 0.4 + 0.03 * _CLASS_LEVEL[agreement] + 0.03 * nearness + 0.01 * spec
        # Characters of the template the message carries; a cut-off message before one
        # that goes on differently, before a short pattern matched whole.
        tier = (_TIER[KIND_PREFIX], specificity + 0.5 * cut + 0.25 * whole)
    elif kind == KIND_PATTERN:
        # Weights keep the score in the same order as the ranking key below. The error a
        # logged line quotes whole ranks above the line's own whole match.
        score = 0.5 + 0.25 * (whole or quoted) + 0.08 * _CLASS_LEVEL[agreement]
        score += 0.06 * nearness + 0.015 * spec + 0.01 * quoted
        tier = (_TIER[kind], 2 if quoted else int(whole))
    elif kind == KIND_ASSERTION:
        # As a pattern that matched part of the message: the expression is the assert's
        # own code, but its message (what a whole match would be) is not in the paste.
        score = 0.5 + 0.08 * _CLASS_LEVEL[agreement] + 0.06 * nearness + 0.015 * spec
        tier = (_TIER[kind], 0)
    elif kind == KIND_STATEMENT:
        # The innermost frame is this very statement and the class is the one it raises:
        # as strong as a whole-message pattern match in the frame's own function.
        score = 0.75 + 0.08 * max(_CLASS_LEVEL[agreement], 1) + 0.06 * nearness
        tier = (_TIER[kind], 1)
    elif kind == KIND_ATTRIBUTE:
        # The method reads the very attribute of the very class (specificity: the class
        # exact, and the paste quoting the method's own `self.x.y`): above any pattern an
        # interpreter-worded message matches, as the frames' evidence would be.
        agreement = CLASS_EXACT  # the record stands for its method, not for its own class
        score = 0.9 + 0.002 * min(specificity, 40)
        tier = (_TIER[kind], 2)
    elif kind == KIND_READER:
        # A function that reads an attribute of that name, of an object of no known class:
        # above a pattern any `__getattr__` shares, below a cut-off message of its own.
        agreement = CLASS_UNKNOWN
        score = 0.45
        tier = (_TIER[kind], 0)
    elif kind == KIND_BESIDE:
        # The warning's own record ranks above; this only shares its function.
        score = 0.4 + 0.03 * _CLASS_LEVEL[agreement]
        tier = (_TIER[kind], 0)
    elif kind == KIND_KEY:
        # Names the tensor and the paste share (specificity): below any frame's evidence.
        score = 0.1 + 0.01 * min(specificity, 10)
        tier = (_TIER[kind], specificity)
    elif kind == KIND_NAMED:
        # As a frame's file without its line: the function the paste also names first.
        score = 0.2 + 0.07 * min(specificity, 1) + 0.02 * _CLASS_LEVEL[agreement]
        tier = (_TIER[kind], min(specificity, 1))
    elif kind == KIND_FRAME:
        # A record of the frame's own function before any class agreement elsewhere; of
        # those, one whose message starts as the paste's (cut too short to be a prefix
        # match on its own: `AssertionError: parent does not have`) first.
        score = 0.2 + 0.07 * same_function + 0.02 * _CLASS_LEVEL[agreement] + 0.02 * nearness
        score += 0.01 * cut
        tier = (_TIER[kind], 2 * int(same_function) + int(cut))
    else:
        sim = similarity or 0.0
        score = 0.45 * sim
        tier = (0, round(sim, 2))
    # The explanation's fields, in order: written out only for the results shown (_rank).
    why: _WhyFields = (
        kind,
        entry.pattern or None,
        span,
        None if span is None else exc.message[span[0] : span[1]],
        whole,
        exc.role,
        exc.error_class,
        exc.message,
        agreement,
        frame,
        dist,
        specificity,
        similarity,
        cut,
    )
    key = (
        # Text beside the traceback ranks below anything its exceptions match.
        -tier[0] + (CONTEXT_TIER if exc.role == ROLE_CONTEXT else 0),
        -tier[1],
        -_CLASS_LEVEL[agreement],
        2 if frame is None else int(not whole_path),
        not same_function,
        not mentions(exc.message, entry.function),
        0,  # the paste's words naming the file: filled in by _rank for tied sites only
        dist if dist is not None else 10**9,
        entry.is_draft is not False,
        -specificity,
        ROLE_ORDER.get(exc.role, 9),
        entry.file_path or "",
        entry.line_number or 0,
        entry.record_id,
    )
    return key, _Scored(entry.record_id, round(score, 4), why)


_NESTED = frozenset({"<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>", "<lambda>"})


def _function_of(frames: tuple[Frame, ...], frame: Frame) -> str | None:
    """The function a frame's code is written in: a comprehension's or lambda's frame
    (`<listcomp>`) is in the function of the frame that called it, in the same file."""
    pos = next((i for i, f in enumerate(frames) if f is frame), None)
    while pos and frames[pos].function in _NESTED and frames[pos - 1].file == frames[pos].file:
        pos -= 1
    return frame.function if pos is None else frames[pos].function


def _same_function(qualified: str | None, name: str | None) -> bool:
    """A record's `Class.method` against a frame's `method` (frames name no class)."""
    return bool(qualified) and bool(name) and str(qualified).rsplit(".", 1)[-1] == name


def _raised_in_a_frame(exc: ParsedException) -> bool:
    """The innermost frame is a `raise` statement: the error was raised in that frame's file,
    so a record of a file no frame is in (a dependency that words a message alike) is not
    where it came from."""
    return bool(exc.frames) and (exc.frames[-1].source or "").startswith("raise ")


@lru_cache(maxsize=1 << 12)
def _only_interpreter_words(message: str) -> bool:
    """The template's literal words are all the interpreter's (its values aside)."""
    if _SELF_TYPE.match(message) or _OWN_MODULE.match(message):
        return False  # names its own class or module: `_not_its_class`/`_module` check it
    literal = _PLACEHOLDER.sub(" ", message)
    return all(w.lower() in _INTERPRETER_WORDS for w in _TEMPLATE_WORD.findall(literal))


def _in_a_frames_file(entry: PatternEntry, frame_files: set[str]) -> bool:
    """The record's file is one a frame of the paste is in (joined on `file_key`)."""
    return file_key(entry.file_path or "") in frame_files


def _says_nothing(entry: PatternEntry, exc: ParsedException, frame_files: set[str]) -> bool:
    """An interpreter-worded message matched by a template of only the interpreter's words,
    in a file no frame is in: a dependency's generic helper, not where the error came from."""
    if not entry.error_message or entry.statement is not None:
        return False
    if _in_a_frames_file(entry, frame_files):
        return False
    return _only_interpreter_words(entry.error_message) and _interpreter_worded(exc, None)


def _alike_by_wording(entry: PatternEntry, frame_files: set[str]) -> bool:
    """For a message the interpreter words: a record whose template shares only those
    words (its own class's name aside), in a file no frame is in: alike text, no evidence."""
    if not entry.error_message or _in_a_frames_file(entry, frame_files):
        return False
    message = _OWN_MODULE.sub("", _SELF_TYPE.sub("", entry.error_message))
    return _only_interpreter_words(message)


def _not_its_class(entry: PatternEntry, message: str, start: int) -> bool:
    """The record's message starts with its instance's class, and the paste has no class
    name there, or `None` or a builtin type, which no instance of the record's class is."""
    template = entry.error_message
    found = _SELF_TYPE.match(template) if template else None
    if template is None or found is None:
        return False
    quote = template[0] if template[0] in "'\"" else ""
    after = template[found.end() :].split("{", 1)[0]
    begin = start + (len(quote) if message.startswith(quote, start) else 0)
    stop = message.find(after, begin) if after else -1
    if stop < 0:
        return False
    value = message[begin:stop]
    own = _owner_class(entry.function)
    return _CLASS_NAME.fullmatch(value) is None or (value in _BUILTIN_TYPES and value != own)


def _not_its_module(entry: PatternEntry, message: str, start: int) -> bool:
    """The record's message names its own module (a module `__getattr__`), and the paste
    names another module there: `module 'vllm._custom_ops'` was not raised in torch's."""
    return _module_fit(entry, message, start) == 0


def _module_fit(entry: PatternEntry, message: str, start: int) -> int | None:
    """For a template naming its own module: 2 when the paste names that very module, 1 a
    module of its package (`{self.__name__}`: a lazy module's class), 0 another; else None."""
    template = entry.error_message or ""
    found = _OWN_MODULE.match(template)
    if found is None or not entry.file_path or not message.startswith("module ", start):
        return None
    after = template[found.end() :].split("{", 1)[0]
    stop = message.find(" " + after, start + len("module ")) if after else -1
    if stop < 0:
        return None
    value = message[start + len("module ") : stop].strip("'\"")
    path = entry.file_path.replace("\\", "/").removesuffix(".py").removesuffix("/__init__")
    parts = package_parts(path)
    if found.group(1):  # any module of the file's package
        return int(value.split(".", 1)[0] == parts[0])
    own = ".".join(parts)
    return 2 if value and (own == value or own.endswith("." + value)) else 0


def _owner_class(function: str | None) -> str:
    """The class of a method's qualified name (`Req.__getattr__` -> `Req`), else ""."""
    function = function or ""
    return function.rsplit(".", 1)[0].rsplit(".", 1)[-1] if "." in function else ""


def _names_its_owner(entry: PatternEntry, message: str, start: int) -> bool:
    """A template worded for an instance of its own class (`'{type(self).__name__}' object
    has no attribute ...` in `Req.__getattr__`) or for its own module, and a message naming
    that very class or module."""
    if _module_fit(entry, message, start) == 2:
        return True
    if not _SELF_TYPE.match(entry.error_message or ""):
        return False
    found = _NO_ATTRIBUTE.search(message)
    return found is not None and found.group(1) == _owner_class(entry.function)


def _alike_owners(
    parsed: ParsedError, matches: tuple[Match, ...], index: MatchIndex
) -> tuple[str, tuple[str, ...], str] | None:
    """A frameless `'X' object has no attribute 'y'` (or `X.__init__() got an unexpected
    keyword argument 'k'`) whose pattern matches all word it as Python does for an instance
    of their own class, none of them X (a `__getattr__`, an `__init__` that checks its
    keywords): X, those classes, and which message it is (`attribute`, `call`). Such a site
    raised it only if X derives from its class, which nothing in the paste says."""
    named: str | None = None
    what = "attribute"
    for exc in parsed.exceptions:
        if exc.frames:
            continue
        found = _NO_ATTRIBUTE.search(exc.message)
        if found is not None:
            named = found.group(1)
            break
        call = _CALL_MISFIT.search(exc.message)
        if call is not None:
            named, what = call.group(1).rsplit(".", 1)[0], "call"
            break
    if named is None:
        return None
    owners: list[str] = []
    for match in matches:
        if match.why.kind != KIND_PATTERN:
            continue
        entry = index.get(match.record_id)
        if entry is None:
            return None
        message = entry.error_message or ""
        owner = _owner_class(entry.function)
        if what == "call" and not owner and not entry.statement and _CALLEE_VALUE.match(message):
            owner = entry.function or ""  # checks the keywords of a callable passed to it
        elif not _SELF_TYPE.match(message):
            return None
        if owner in ("", named):
            return None
        if owner not in owners:
            owners.append(owner)
    return (named, tuple(owners), what) if owners else None


def _interpreter_worded(exc: ParsedException, span: tuple[int, int] | None) -> bool:
    """True when the matched message is one the Python interpreter words itself."""
    text = exc.message if span is None else exc.message[span[0] : span[1]]
    # The interpreter words its messages on one line (asked of each hit: read once per line).
    return _interpreter_line(text.strip().split("\n", 1)[0])


@lru_cache(maxsize=256)  # a request asks of a few lines, each hit again: few need keeping
def _interpreter_line(text: str) -> bool:
    if "Did you mean" in text:  # Python 3.10+ adds a guess at the name meant
        text = _DID_YOU_MEAN.sub("", text)
    text = text.rstrip(" .")  # a title's closing full stop is the writer's
    # Also after a logger's or a wrapper's "...: " ("Error in request: f() got ...").
    clauses = text.strip().split(": ")
    return any(
        _INTERPRETER_MESSAGE.match(": ".join(clauses[i:])) is not None
        for i in range(min(len(clauses), 4))
    )


def site_key(entry: PatternEntry) -> tuple[str, str, str, str]:
    """One raise site: repo, file, function (when known) and the message template; an
    import statement is one site whichever of its names fails."""
    if entry.statement and entry.error_class == "ImportError":
        template = entry.statement.strip()
    else:
        template = _site_template(entry.error_message or entry.pattern)
    path = (entry.file_path or "").replace("\\", "/")
    return (entry.repo or "", path, entry.function or "", template)


@lru_cache(maxsize=1 << 16)
def _site_template(message: str) -> str:
    """A message with every placeholder as ``{}`` and runs of space as one."""
    return _SPACE.sub(" ", _PLACEHOLDER.sub("{}", message)).strip()


def _rank(
    scored: dict[str, _Item],
    index: MatchIndex,
    limit: int,
    words: Callable[[], frozenset[str]] | None = None,
) -> tuple[Match, ...]:
    """Best first, one result per raise site; a curated record represents its site."""
    groups: dict[tuple[str, str, str, str], list[_Item]] = {}
    for item in sorted(scored.values(), key=lambda km: km[0]):
        entry = index.get(item[1].record_id) or PatternEntry(item[1].record_id, "")
        groups.setdefault(site_key(entry), []).append(item)
    ranked: list[tuple[tuple[Any, ...], _Scored, tuple[str, ...], str]] = []
    for members in groups.values():
        # Past the evidence of the paste itself, a site whose wordings matched more often,
        # then one that more pinned releases have (users run many releases), goes first:
        # a tie then falls to the file path, never to the id.
        found = index.get(members[0][1].record_id)
        span = found.releases if found is not None else 0
        best_key = (*members[0][0][:10], -len(members), -span, *members[0][0][10:])
        curated = [m for _, m in members if _is_curated(index, m.record_id)]
        head = curated[0] if curated else members[0][1]
        others = tuple(m.record_id for _, m in members if m.record_id != head.record_id)
        ranked.append((best_key, head, others, found.file_path or "" if found else ""))
    ranked.sort(key=lambda km: km[0])
    shown = ranked[: limit + 1]
    tied = any(a[0][:_NAMED] == b[0][:_NAMED] for a, b in zip(shown, shown[1:], strict=False))
    if words is not None and tied:
        # Sites the evidence cannot tell apart: the paste's own words naming a file decide.
        # Read only then (a paste's words cost a tenth of a match).
        found_words = words()
        if found_words:
            ranked = [
                ((*key[:_NAMED], -file_named(found_words, path), *key[_NAMED + 1 :]), h, o, path)
                for key, h, o, path in ranked
            ]
            ranked.sort(key=lambda km: km[0])
    return tuple(
        Match(head.record_id, head.score, Explanation(*head.why), others)
        for _, head, others, _path in ranked[:limit]
    )


def _attribute_items(
    parsed: ParsedError, index: MatchIndex, readers: AttributeReaders, memo: _Memo
) -> list[_Item]:
    """`'Scheduler' object has no attribute 'token_to_kv_pool'` with no traceback frame: a
    record of each method of that class (or of a class named almost so: a retyped title)
    that reads `self.token_to_kv_pool`, those whose `self.x.y` the paste quotes first; with
    none, the few functions that read an attribute of that name. `module 'm' has no
    attribute 'x'`: the few functions that read `m.x`."""
    items: list[_Item] = []
    asked: set[str] = set()
    for exc in parsed.exceptions:
        named = (exc.error_class or "AttributeError").rsplit(".", 1)[-1]
        if exc.frames or named != "AttributeError":
            continue
        found = _NO_ATTRIBUTE.search(exc.message) or _NO_MODULE_ATTRIBUTE.search(exc.message)
        if found is None:
            continue
        owner_name, attr = found.groups()
        if attr not in asked and len(asked) >= MAX_ATTRIBUTE_LOOKUPS:
            continue  # each lookup reads the store: a paste of hundreds asks for a few
        asked.add(attr)
        if found.re is _NO_ATTRIBUTE:
            kind, chosen = _class_readers(parsed, index, readers(attr), owner_name, attr)
        else:
            kind, chosen = KIND_READER, _module_readers(index, readers(attr), owner_name, attr)
        for specificity, entry in chosen[:MAX_ATTRIBUTE_SITES]:
            items.append(
                _build(
                    entry,
                    exc,
                    kind=kind,
                    span=found.span(),
                    whole=False,
                    specificity=specificity,
                    similarity=None,
                    memo=memo,
                )
            )
    return items


_Readers = Iterable[tuple[str, str, tuple[str, ...]]]


def _class_readers(
    parsed: ParsedError, index: MatchIndex, found: _Readers, cls: str, attr: str
) -> tuple[str, list[tuple[int, PatternEntry]]]:
    """The methods of ``cls`` that read ``attr`` (`attribute`), or with none, the few
    functions that read an attribute of that name of another object (`reader`)."""
    best: dict[tuple[str, str], tuple[int, PatternEntry]] = {}
    others: dict[str, PatternEntry] = {}  # by function: readers of another class's
    holders = _holder_names(cls)
    wording = f"'{cls}' object has no attribute '{attr}'"
    for record_id, function, reads in found:
        entry = index.get(record_id)
        if entry is None:
            continue
        # A read that may find an attribute unset (unset.py's site): this one's goes
        # before the method's raises; another attribute's is not this error's site.
        read_site = entry.statement is not None and entry.error_class in _READ_CLASSES
        if read_site and entry.error_message != wording:
            continue
        owner = _owner_class(function)
        exact = owner == cls
        if attr in reads and (
            exact
            or (
                owner
                and SequenceMatcher(None, owner.lower(), cls.lower()).ratio()
                >= CLASS_NAME_SIMILARITY
            )
        ):
            quoted = sum(1 for r in reads if r.startswith(attr + ".") and r in parsed.text)
            specificity = 20 * exact + 5 * min(quoted, 4) + READ_SITE_SPECIFICITY * read_site
        elif _reads_held(reads, attr, holders):
            specificity = HELD_SPECIFICITY
        else:
            _keep_most_released(others, function, entry)
            continue
        # One record per method: the one more releases have.
        place = (entry.file_path or "", function)
        held_best = best.get(place)
        if held_best is None or (specificity, entry.releases) > (
            held_best[0],
            held_best[1].releases,
        ):
            best[place] = (specificity, entry)
    if best:
        return KIND_ATTRIBUTE, sorted(best.values(), key=lambda se: (-se[0], -se[1].releases))
    if len(others) > MAX_RARE_READERS:
        return KIND_READER, []
    return KIND_READER, _by_releases(others)


def _module_readers(
    index: MatchIndex, found: _Readers, module: str, attr: str
) -> list[tuple[int, PatternEntry]]:
    """The functions that read ``module.attr`` through an import of that module, when they
    are few (`torch.float8_e4m3fn`, read in hundreds, names none of them)."""
    path = f"{module}.{attr}"
    readers: dict[str, PatternEntry] = {}
    for record_id, function, reads in found:
        entry = index.get(record_id)
        if entry is not None and path in reads:
            _keep_most_released(readers, function, entry)
    return _by_releases(readers) if len(readers) <= MAX_MODULE_READERS else []


def _keep_most_released(
    by_function: dict[str, PatternEntry], function: str, entry: PatternEntry
) -> None:
    """One record per function: the one more pinned releases have."""
    held = by_function.get(function)
    if held is None or entry.releases > held.releases:
        by_function[function] = entry


def _by_releases(by_function: dict[str, PatternEntry]) -> list[tuple[int, PatternEntry]]:
    """One record per function, those more releases have first; a method renamed at some
    release comes back under both names, as one record."""
    distinct = {e.record_id: e for e in by_function.values()}
    return sorted(((0, e) for e in distinct.values()), key=lambda se: -se[1].releases)


def _holder_names(cls: str) -> tuple[str, str]:
    """What code names an object of class ``cls`` it holds: `KVArgs` -> `kv_args`, `kvargs`."""
    snake = _CAMEL_BOUNDARY.sub("_", cls).lower()
    return snake, cls.lower()


def _reads_held(reads: tuple[str, ...], attr: str, holders: tuple[str, str]) -> bool:
    """Whether a method reads ``attr`` of an object it holds under the class's own name
    (`self.kv_args.kv_head_num`, `self.draft_model_config.scaling`)."""
    for read in reads:
        holder, _, last = read.rpartition(".")
        if last != attr or not holder:
            continue
        name = holder.rpartition(".")[2].lstrip("_")
        if any(name == h or name.endswith("_" + h) for h in holders):
            return True
    return False


def _is_curated(index: MatchIndex, record_id: str) -> bool:
    entry = index.get(record_id)
    return entry is not None and entry.is_draft is False


def _keep_best(scored: dict[str, _Item], item: _Item) -> None:
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


def _frame_items(
    parsed: ParsedError, index: MatchIndex, memo: _Memo | None = None
) -> tuple[Frame | None, list[_Item], frozenset[str]]:
    """Records raised in the file of the innermost frame the catalog knows, and the ids of
    those raised in the frame's own function."""
    for exc in parsed.exceptions:
        for frame in reversed(exc.frames):
            if _attribute_protocol(exc, frame):
                continue
            # The frame's own function first (its line moves between releases), then the
            # nearest lines. Statement sites of other functions say nothing about an error
            # raised elsewhere in the file (their own line is _statement_items').
            known = index.in_file(frame.file)
            function = _function_of(exc.frames, frame)
            if not known and function:
                known = index.in_moved_file(frame.file, function)
            own = [e for e in known if _same_function(e.function, function)]
            mine = {id(e) for e in own}
            entries = own + [e for e in known if e.statement is None and id(e) not in mine]
            if not entries:
                continue
            if frame.line is not None and len(entries) > MAX_FRAME_CANDIDATES:
                line = frame.line
                entries = (
                    own[:MAX_FRAME_CANDIDATES]
                    + sorted(
                        entries[len(own) :],
                        key=lambda e: abs(e.line_number - line) if e.line_number else 10**9,
                    )[: max(0, MAX_FRAME_CANDIDATES - len(own))]
                )
            items = [
                _build(
                    entry,
                    exc,
                    kind=KIND_FRAME,
                    span=None,
                    whole=False,
                    specificity=index.specificity(entry.record_id),
                    similarity=None,
                    memo=memo,
                    at=frame,  # where it was raised: not an outer frame of the file
                    cut=_starts_as(entry, exc.message),
                )
                for entry in entries
            ]
            return frame, items, frozenset(e.record_id for e in own)
    return None, [], frozenset()


def _starts_as(entry: PatternEntry, message: str) -> bool:
    """The paste's message is the start of the record's template (at least
    MIN_FRAME_START of its literal characters), as a message cut off would be."""
    message = message.strip()
    if len(message) < MIN_FRAME_START or not entry.error_message:
        return False
    chars, cut = template_overlap(entry.error_message, message)
    return cut and chars >= MIN_FRAME_START


def _named_file_items(parsed: ParsedError, index: MatchIndex, memo: _Memo) -> list[_Item]:
    """A paste with no frame that names a file and an error class (`[Bug] ... with
    NotImplementedError in kimik2_detector.py`): that class's raise sites in that file (a
    file of that name in at most MAX_NAMED_FILES folders), those of a function the paste
    names too first."""
    items: list[_Item] = []
    for exc in parsed.exceptions:
        if exc.frames:
            continue
        message = exc.message[:MAX_NAMED_CHARS]  # a title or a few lines name them
        found = [exc.error_class] if exc.error_class else _CLASS_WORD.findall(message)
        classes = list(dict.fromkeys(found))[:MAX_NAMED]
        paths = list(dict.fromkeys(_FILE_WORD.findall(message)))[:MAX_NAMED]
        if not classes or not paths:
            continue
        words = set(_CODE_NAME.findall(message))
        for path in paths:
            name = path.rpartition("/")[2]
            entries = index.in_file(path) if "/" in path else index.in_named_file(name)
            if len({e.file_path for e in entries}) > MAX_NAMED_FILES:
                continue
            for cls in classes:
                named = ParsedException(cls, exc.message, (), exc.role)
                for entry in entries:
                    if class_agreement(cls, entry.error_class) != CLASS_EXACT:
                        continue
                    function = (entry.function or "").rsplit(".", 1)[-1]
                    items.append(
                        _build(
                            entry,
                            named,
                            kind=KIND_NAMED,
                            span=None,
                            whole=False,
                            specificity=int(function in words),
                            similarity=None,
                            memo=memo,
                        )
                    )
    items.sort(key=lambda item: item[0])  # best first: a named function's sites
    return items[:MAX_FRAME_CANDIDATES]


def _attribute_protocol(exc: ParsedException, frame: Frame) -> bool:
    """A frame of `__getattr__`/`__getattribute__` under an AttributeError: the attribute
    protocol passing a missing name on (transformers' `PretrainedConfig.__getattribute__`,
    torch's `nn.Module.__getattr__`). The statement that read the attribute is its caller's."""
    return (
        frame.function in _ATTRIBUTE_PROTOCOL
        and (exc.error_class or "").rsplit(".", 1)[-1] == "AttributeError"
        and frame is not exc.frames[0]
    )


def _message_evidence(scored: dict[str, _Item], chars: int = 0) -> bool:
    """Whether a result has evidence from the message itself (a shared start or better),
    of at least ``chars`` literal characters."""
    return any(
        key[0] <= -_TIER[KIND_PREFIX] and item.why[_WHY_SPECIFICITY] >= chars
        for key, item in scored.values()
    )


def _self_documented_items(parsed: ParsedError, index: MatchIndex, memo: _Memo) -> list[_Item]:
    """A message with no frame that starts with a self-documenting f-string value and then
    stops or goes on in the writer's words (`AssertionError: res=<Response [503]> Process
    was killed`): the sites of the same class whose message starts with that `name=`,
    ranked as a shared start of that many characters."""
    items: list[_Item] = []
    for exc in parsed.exceptions:
        if exc.frames or not exc.error_class:
            continue
        entries, start, end = index.self_documented(exc.message)
        for entry in entries:
            if class_agreement(exc.error_class, entry.error_class) != CLASS_EXACT:
                continue
            items.append(
                _build(
                    entry,
                    exc,
                    kind=KIND_PREFIX,
                    span=(start, len(exc.message.rstrip())),
                    whole=False,
                    specificity=end - start,
                    similarity=None,
                    memo=memo,
                )
            )
    return items


def _weight_name(exc: ParsedException) -> tuple[frozenset[str], str] | None:
    """The parts of the checkpoint tensor's name a frameless KeyError quotes, and the name
    as quoted, if it quotes one (first, or as its whole message)."""
    if exc.frames or (exc.error_class or "").rsplit(".", 1)[-1] != "KeyError":
        return None
    message = exc.message.strip()
    found = _WEIGHT_NAME.match(message)
    if found is None or (not found.group(1) and found.end() != len(message)):
        return None
    parts = found.group(2).split(".")
    if not _WEIGHT_PART.search(parts[-1]):
        return None
    return frozenset(p for p in parts if not p.isdigit()), found.group(0)


def _key_items(parsed: ParsedError, index: MatchIndex, memo: _Memo) -> list[_Item]:
    """A KeyError quoting a weight's name with no frame to say where: the `params_dict[name]`
    lookups of the models' `load_weights`, those of a file the paste names (`Deepseek V3`)
    or whose code shares more of the name's parts first. None when nothing is shared."""
    items: list[_Item] = []
    words: frozenset[str] | None = None
    for exc in parsed.exceptions:
        found = _weight_name(exc)
        if found is None:
            continue
        name, quoted = found
        if words is None:
            # The writer's words around the name (a title's model), not the name's parts.
            words = paste_words(parsed.text, [quoted])
        for entry in index.weight_lookups():
            fit = 2 * file_named(words, entry.file_path) + len(name & entry.context)
            if fit:
                items.append(
                    _build(
                        entry,
                        exc,
                        kind=KIND_KEY,
                        span=None,
                        whole=False,
                        specificity=fit,
                        similarity=None,
                        memo=memo,
                    )
                )
    return items


def _statement_text(text: str | None) -> str:
    return " ".join((text or "").split())


def _beside_items(
    parsed: ParsedError, scored: dict[str, _Item], index: MatchIndex, memo: _Memo
) -> list[_Item]:
    """A warning the paste matched (a logged record of `logging.WARNING`): the raises of
    the function that logged it, more releases first, what a crash after it likely was."""
    warned = [
        (hit.why[_WHY_MESSAGE], entry)
        for _, hit in scored.values()
        if hit.why[_WHY_KIND] == KIND_PATTERN
        and (entry := index.get(hit.record_id)) is not None
        and entry.error_class == LOGGED_WARNING
        and entry.file_path
        and entry.function
    ]
    items: list[_Item] = []
    for message, warning in warned[:MAX_BESIDE]:
        exc = next((e for e in parsed.exceptions if e.message == message), None)
        if exc is None:
            continue
        raises = sorted(
            (
                e
                for e in index.in_file(warning.file_path or "")
                if e.function == warning.function
                and e.file_path == warning.file_path
                and not (e.error_class or "").startswith("logging.")
                and e.record_id not in scored
            ),
            key=lambda e: (-e.releases, e.line_number or 0),
        )
        for entry in raises[:MAX_BESIDE]:
            items.append(
                _build(
                    entry,
                    exc,
                    kind=KIND_BESIDE,
                    span=None,
                    whole=False,
                    specificity=0,
                    similarity=None,
                    memo=memo,
                )
            )
    return items


def _statement_items(
    parsed: ParsedError, index: MatchIndex, memo: _Memo | None = None
) -> list[_Item]:
    """Statement sites an exception's innermost frame is on: same file, function and
    statement line (as the frame shows it), and a class that statement raises."""
    items: list[_Item] = []
    for exc in parsed.exceptions:
        if not exc.frames:
            continue
        frame = exc.frames[-1]
        source = _statement_text(frame.source)
        if not source:
            continue
        name = (exc.error_class or "").rsplit(".", 1)[-1]
        # `from X import a, b` has a site per name: the message names the one that failed.
        missing = _CANNOT_IMPORT.search(exc.message)
        raised = _RAISE_SOURCE.match(source)
        for entry in index.in_file(frame.file):
            if entry.statement is None:
                # The frame is on the very `raise` (its source quotes the message's start):
                # the paste lost or cut the message the traceback ends with.
                if raised is None or not _raises_quoting(entry, raised, frame.function or ""):
                    continue
            elif _statement_text(entry.statement) != source:
                continue
            # An unworded raise raises its own class (`raise NotImplementedError()`).
            own = (entry.error_class or "").rsplit(".", 1)[-1]
            if name and name not in _STATEMENT_CLASSES.get(own, (own,)):
                continue
            if frame.function and entry.function:
                if not _same_function(entry.function, frame.function):
                    continue
            if missing and f"name '{missing.group(1)}'" not in (entry.error_message or ""):
                continue
            if not _imports_module(entry, exc.message):
                continue
            items.append(
                _build(
                    entry,
                    exc,
                    kind=KIND_STATEMENT,
                    span=None,
                    whole=True,
                    specificity=index.specificity(entry.record_id),
                    similarity=None,
                    memo=memo,
                )
            )
    return items


def _from_hit(
    hit: PatternHit,
    exc: ParsedException,
    kind: str,
    memo: _Memo,
    *,
    whole: bool = False,
    cut: bool = False,
    inside: bool = False,
    quoted: bool = False,
) -> _Item:
    """A message search's hit, scored."""
    return _build(
        hit.entry,
        exc,
        kind=kind,
        span=(hit.start, hit.end),
        whole=whole,
        specificity=hit.specificity,
        similarity=None,
        cut=cut,
        memo=memo,
        inside=inside,
        quoted=quoted,
    )


def _is_unworded(entry: PatternEntry | None) -> bool:
    """An unworded raise's statement site (its statement is the `raise` itself)."""
    return entry is not None and (entry.statement or "").startswith("raise ")


def _drop_explained_raises(
    scored: dict[str, _Item], index: MatchIndex, statements: list[_Item]
) -> None:
    """An unworded raise among the ``statements`` matched (`raise ValueError(message)`)
    gives way to a record whose message matched at its very line: a helper's message,
    drafted at that raise from its calls."""
    unworded = [
        (item.record_id, entry)
        for _, item in statements
        if _is_unworded(entry := index.get(item.record_id))
    ]
    if not unworded:
        return
    places = {
        (file_key(entry.file_path or ""), entry.line_number)
        for record_id, (_, item) in scored.items()
        if item.why[_WHY_KIND] in (KIND_PATTERN, KIND_PREFIX) and (entry := index.get(record_id))
    }
    for record_id, entry in unworded:
        if entry is not None and (file_key(entry.file_path or ""), entry.line_number) in places:
            scored.pop(record_id, None)


def _raises_quoting(entry: PatternEntry, raised: re.Match[str], function: str) -> bool:
    """A raise site of the class a frame's `raise X("...` names, in the frame's function,
    whose message starts with the text the frame's source line quotes (two characters at
    least: `raise ImportError("vl` of a traceback cut there)."""
    cls, text = raised.group(1).rsplit(".", 1)[-1], raised.group(2)
    return (
        len(text.strip()) >= MIN_QUOTED_RAISE_CHARS
        and (entry.error_class or "").rsplit(".", 1)[-1] == cls
        and bool(function)
        and _same_function(entry.function, function)
        and (entry.error_message or "").startswith(text)
    )


def _imports_module(entry: PatternEntry, message: str) -> bool:
    """For an `import X.Y` site and `No module named 'm'`: whether the statement's module
    is m or inside it (`import a, b` has a site per module; the message names one)."""
    if entry.error_class != "ModuleNotFoundError":
        return True
    named = _NO_MODULE.search(message)
    site = _NO_MODULE.search(entry.error_message or "")
    if named is None or site is None:
        return True
    wanted, module = named.group(1).rstrip("."), site.group(1)
    return module == wanted or module.startswith(wanted + ".")


def _headline(exc: ParsedException) -> str:
    text = f"{exc.error_class}: {exc.message}" if exc.error_class else exc.message
    text = text.strip().split("\n", 1)[0]
    return text if len(text) <= 120 else text[:117] + "..."


def _package(path: str) -> str | None:
    """The installed package a frame's file belongs to (`.../site-packages/<pkg>/...`)."""
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    for i, part in enumerate(parts[:-1]):
        if part in _PACKAGE_ROOTS:
            return parts[i + 1]
    if "sglang" in parts[:-1]:
        return "sglang"
    return None


def _where_raised(parsed: ParsedError, headless: bool = False) -> list[str]:
    """Where the traceback says the error was raised, and sglang's last frame if elsewhere;
    ``headless`` (no exception line): only where the frames shown end."""
    exc = next((e for e in parsed.exceptions if e.frames), None)
    if exc is None:
        return []
    inner = exc.frames[-1]
    package = _package(inner.file)
    where = f"{inner.file.replace(chr(92), '/').rsplit('/', 1)[-1]}:{inner.line}"
    if inner.function:
        where += f" in {inner.function}"
    owner = package or "code outside any installed package"
    if headless:
        return [f"The last frame shown is in {owner} ({where}); the error may come from deeper."]
    out = [f"Raised in {owner} ({where})."]
    said = statement.explain(exc)
    if said is not None:
        out.append(said)
    if package != "sglang":
        last = next((f for f in reversed(exc.frames) if _package(f.file) == "sglang"), None)
        if last is not None:
            tail = last.file.replace(chr(92), "/").rsplit("sglang/", 1)[-1]
            out.append(
                f"The last sglang frame: {tail}:{last.line}"
                + (f" in {last.function}" if last.function else "")
                + "."
            )
    return out


def _answer(
    parsed: ParsedError,
    kind: str | None,
    count: int,
    frame: Frame | None,
    cut: bool = True,
    unworded: bool = False,
    in_function: int = 0,
    alike: tuple[str, tuple[str, ...], str] | None = None,
    beside: int = 0,
    elsewhere: int = 0,
) -> dict[str, Any]:
    """What is known and what is not, in sentences, for every paste; ``unworded``: the
    first match is a raise whose message the code builds at run time; ``in_function``: of
    the frame's matches, how many are in the frame's own function; ``alike``: the class the
    paste names and the other classes whose `__getattr__` words the matched message."""
    known: list[str] = []
    unknown: list[str] = []
    structured = [e for e in parsed.exceptions if e.error_class or e.frames or e.role == ROLE_BODY]
    headless = bool(structured) and all(
        not e.error_class and not e.message.strip() for e in structured
    )
    if headless:
        # Frames only: the paste stops before the exception line (a cut excerpt).
        known.append(f"Read a traceback of {len(structured[0].frames)} frame(s).")
        unknown.append(
            "The traceback ends before its exception line: the error's class and message are"
            " not in the paste."
        )
    elif structured:
        known.append(f"Read {len(structured)} error(s); first: {_headline(structured[0])}")
    elif parsed.exceptions:
        known.append("Found no traceback or `Class: message` line; matched the text as a whole.")
    else:
        unknown.append("The paste is empty after cleaning.")
    frames = sum(len(e.frames) for e in parsed.exceptions)
    known.extend(_where_raised(parsed, headless))
    if kind == KIND_PATTERN:
        known.append(f"The message matches the pattern of {count} raise site(s).")
        if alike is not None:
            named, owners, what = alike
            if what == "attribute":
                where = "on any line that reads a missing attribute"
                whose = "for an instance of its own class"
            else:
                where = (
                    "on any call whose arguments do not fit the callee's signature (the call"
                    " is in the caller)"
                )
                whose = "for its own class, or for a callable it checks"
            unknown.append(
                f"Python words this message itself, {where}. Each site shown words it alike"
                f" {whose} ({', '.join(owners)}): it raised this only if `{named}` is that"
                " class or derives from it. Paste the whole traceback to know which line"
                " raised it."
            )
    elif kind == KIND_PREFIX and cut:
        known.append(f"The message ends part-way; it matches the start of {count} raise site(s).")
        unknown.append("The rest of the message was cut off, so its values are unknown.")
    elif kind == KIND_PREFIX:
        known.append(
            f"The message starts as {count} raise site(s) word theirs, then goes on differently"
            " (reworded, or the writer's own words)."
        )
        unknown.append("No record's message matches it all.")
    elif kind == KIND_ASSERTION:
        known.append(
            f"The text quotes an assert's expression; shown: the assert(s) with that"
            f" expression ({count} site(s))."
        )
        unknown.append("The assert's own message, and the values that failed it, are not in it.")
    elif kind == KIND_STATEMENT and unworded:
        known.append(
            "The innermost frame is on a `raise` whose message is built at run time (the code"
            f" does not spell it out): that statement is its raise site ({count} site(s))."
        )
    elif kind == KIND_STATEMENT:
        known.append(
            "The innermost frame is on a statement that raises this error itself (an import,"
            " a bare assert or a lookup): the interpreter words the message, and the"
            f" statement is its raise site ({count} site(s))."
        )
    elif kind == KIND_FRAME and frame is not None:
        where = f"{frame.file}:{frame.line}" + (f" in {frame.function}" if frame.function else "")
        if in_function:
            shown = (
                f"Shown: {count} raise site(s) in that file, the {in_function} in its function"
                " first, then those of the nearest lines."
            )
        else:
            shown = (
                f"No raise site is recorded in {frame.function or 'its function'}; shown:"
                f" {count} raise site(s) of that file, those of the nearest lines first."
            )
        known.append(
            f"No record's message matches; the innermost frame in a known file is {where}. " + shown
        )
        if not headless:
            unknown.append(
                "The error itself has no record: it comes from a plain statement or from code"
                " the catalog does not cover."
            )
    elif kind == KIND_KEY:
        known.append(
            "The KeyError quotes a checkpoint tensor's name: a model's `load_weights` looked"
            f" it up by name and the model defines no such parameter. Shown: {count} such"
            " lookup(s), those of a model the paste names, or whose code names more of the"
            " tensor's parts, first."
        )
        unknown.append(
            "Which model's loader raised it: the paste has no traceback frame. Paste the"
            " whole traceback to know."
        )
    elif kind == KIND_ATTRIBUTE:
        known.append(
            "The message names a class and an attribute it lacks, with no traceback frame."
            f" Shown: {count} method(s) of that class (or of a class named almost so) that"
            " read that attribute of `self` at a pinned release, those whose code the paste"
            " quotes first; each shown by one record raised in that method."
            + (
                f" Also shown: {elsewhere} read(s) of that attribute outside the class, of an"
                " object the code annotates with it."
                if elsewhere
                else ""
            )
        )
        unknown.append(
            "Which of these methods ran, and why the attribute was never set (an `__init__`"
            " that failed or took another path, or a release that renamed it): paste the"
            " whole traceback to know."
        )
    elif kind == KIND_READER and any(
        _NO_MODULE_ATTRIBUTE.search(e.message) for e in parsed.exceptions if not e.frames
    ):
        known.append(
            "The message names a module and an attribute it lacks, with no traceback frame:"
            " the module installed is not the release the code was written against (renamed,"
            f" removed, or not built for this platform). Shown: {count} function(s) that read"
            " that attribute of that module at a pinned release, each by one record raised"
            " in it."
        )
        unknown.append(
            "Which of them ran, and which release of that module is installed: paste the"
            " whole traceback and the module's version (`pip show`) to know."
        )
    elif kind == KIND_READER:
        known.append(
            "The message names a class and an attribute it lacks, with no traceback frame. No"
            " method of that class reads that attribute at a pinned release; only"
            f" {count} function(s) read an attribute of that name, of some other object"
            " (`self.base_model.x`), and are shown, each by one record raised in it."
        )
        unknown.append(
            "Whether the object one of them read was of that class (a subclass, a model or a"
            " config the code was not written for), and which ran: paste the whole traceback"
            " to know."
        )
    elif kind == KIND_NAMED:
        known.append(
            "No record's message matches and the paste has no traceback; it names a file and"
            f" an error class. Shown: {count} raise site(s) of that class in that file, those"
            " of a function it also names first."
        )
        unknown.append(
            "Which of them raised it, and with what values: paste the whole traceback to know."
        )
    elif kind == KIND_TEXT:
        known.append("No pattern matches; these results are by text similarity only.")
    else:
        reason = "No record matches: no pattern, no cut-off message, no similar text"
        if frames:
            reason += f", and none of the {frames} frame(s) is in a file with a known raise site"
        unknown.append(reason + ".")
        worded = any(_interpreter_worded(e, None) for e in parsed.exceptions)
        if worded and frames:
            unknown.append(
                "Python words this message itself: the statement on the innermost frame's line"
                " raised it, not a raise site of a package (`evidence.frame`, when its file is"
                " in a pinned release, links to that line)."
            )
        elif worded:
            unknown.append(
                "Python words this message itself (an attribute, a call's arguments, an "
                "index, an import): any line could raise it, and the paste has no traceback "
                "frame to say which. Paste the whole traceback."
            )
    if parsed.truncated:
        unknown.append("The paste was longer than the limit; only part of it was read.")
    if beside:
        known.append(
            f"A message matched is a warning the code logs; shown after it: {beside} raise"
            " site(s) of the function that logs it: if a crash followed that warning, where"
            " it most likely came from."
        )
    return {"evidence": kind, "known": known, "unknown": unknown}


def _raised_by_the_statement(hit: PatternHit, exc: ParsedException, frame_files: set[str]) -> bool:
    """A message that goes on differently from a site's template, the site in a file no
    frame is in, while the innermost frame is a statement that is no `raise` or `assert`
    (`logit_bias[i, int(key)] = value`): that statement raised it (the interpreter or a
    compiled op worded it), not a site elsewhere whose message starts alike."""
    if hit.cut or not exc.frames or hit.file in frame_files:
        return False
    source = (exc.frames[-1].source or "").lstrip()
    return bool(source) and not source.startswith(("raise", "assert"))


def _is_evidence(hit: PatternHit, exc: ParsedException, frame_files: set[str]) -> bool:
    """Whether a hit says anything of where the error came from (see the checks)."""
    return (
        not _not_its_class(hit.entry, exc.message, hit.start)
        and not _not_its_module(hit.entry, exc.message, hit.start)
        and not _says_nothing(hit.entry, exc, frame_files)
        and not _not_in_the_traceback(hit.entry, exc, frame_files)
    )


def _not_in_the_traceback(entry: PatternEntry, exc: ParsedException, frame_files: set[str]) -> bool:
    """An interpreter-worded message with its traceback, matched by a template of only the
    interpreter's words and the instance's class (a `__getattr__` that words it as Python
    does) in a file no frame is in: that `__getattr__` would be a frame had it raised it."""
    return (
        bool(exc.frames)
        and _alike_by_wording(entry, frame_files)
        and _interpreter_worded(exc, None)
    )


class _PasteWords:
    """The paste's words that can name a file (`paste_words`), read once, on first need."""

    def __init__(self, parsed: ParsedError) -> None:
        self._parsed = parsed
        self._words: frozenset[str] | None = None

    def __call__(self) -> frozenset[str]:
        if self._words is None:
            parsed = self._parsed
            self._words = paste_words(parsed.text, [e.message for e in parsed.exceptions])
        return self._words


def _most_likely(
    hits: list[PatternHit],
    exc: ParsedException,
    frame_files: set[str],
    keep: Callable[[PatternHit], bool],
    words: Callable[[], frozenset[str]],
) -> list[PatternHit]:
    """The hits `keep` passes; of many, the MAX_SCORED_HITS the ranking would put first:
    in a file a frame is in, whole-message, class agreeing, in a function the message
    names, in a file the paste names, then by the index's order (curated, specific, in
    more releases)."""
    if len(hits) <= MAX_SCORED_HITS:
        return [hit for hit in hits if keep(hit)]
    levels: dict[str | None, int] = {}
    found_words = words()

    def key(hit: PatternHit) -> tuple[bool, bool, int, bool, int, int]:
        entry = hit.entry
        level = levels.get(entry.error_class)
        if level is None:
            agreement = class_agreement(exc.error_class, entry.error_class)
            level = levels[entry.error_class] = _CLASS_LEVEL[agreement]
        return (
            bool(frame_files) and hit.file not in frame_files,
            not hit.whole,
            -level,
            not mentions(exc.message, entry.function),
            -file_named(found_words, entry.file_path),
            hit.order,
        )

    kept: list[PatternHit] = []
    for hit in sorted(hits, key=key):
        if keep(hit):
            kept.append(hit)
            if len(kept) == MAX_SCORED_HITS:
                break
    return kept


# What a writer puts for the folders they cut from a frame's path (`.../backend.py`).
_ELIDED = frozenset({"...", "…", "[...]"})


def _unelided(parsed: ParsedError, index: MatchIndex) -> ParsedError:
    """Frames whose folders the writer cut (`File ".../flashattention_backend.py"`) read as
    the one file of that name the catalog knows; a name several folders have stays cut."""
    if not any(_elided_name(f.file) for e in parsed.exceptions for f in e.frames):
        return parsed
    exceptions = []
    for exc in parsed.exceptions:
        frames = []
        for frame in exc.frames:
            name = _elided_name(frame.file)
            known = index.only_file_named(name) if name else None
            frames.append(replace(frame, file=known) if known else frame)
        exceptions.append(replace(exc, frames=tuple(frames)))
    return replace(parsed, exceptions=tuple(exceptions))


def _quoted_errors(
    found: list[PatternHit],
    message: str,
    index: MatchIndex,
    budget: VerifyBudget,
    frame_files: set[str],
    words: _PasteWords,
) -> list[PatternHit]:
    """The raise sites whose message is the value a logged or reported line ends with
    (`Prefill transfer failed for request ... with exception {e}`: what `e` said), located
    in the whole message: the error the line reports, which is where it came from."""
    full = message
    for hit in found:
        if hit.entry.error_class not in _REPORTING_CLASSES:
            continue
        if hit.whole:
            offset, message = 0, full
        else:
            # One line of a log the paste has more of (a warning before it): that line.
            end = full.find("\n", hit.start)
            end = len(full) if end < 0 else end
            if (hit.start and full[hit.start - 1] != "\n") or hit.end > end:
                continue
            offset, message = hit.start, full[hit.start : end]
        value = last_value_start(hit.entry.error_message or "", message)
        if value is None or len(message) - value < MIN_QUOTED_CHARS:
            continue
        # The value, or its end from an exception's name on (`... {req.bootstrap_room}` then
        # ` with exception KVTransferError(bootstrap_room=1): ...`, added to the message later).
        starts = [value]
        for m in islice(_EXCEPTION_NAME.finditer(message, value), MAX_QUOTED_STARTS):
            starts.append(m.start())
        for start in starts:
            if len(message) - start < MIN_QUOTED_CHARS:
                break
            shift = offset + start
            quoted = [
                inner._replace(start=inner.start + shift, end=inner.end + shift)
                for inner in index.search(
                    message[start:], budget, PER_SITE_KIND, frame_files, words
                )
                if inner.whole
                and inner.specificity >= WEAK_PATTERN_CHARS
                and inner.entry.error_class not in _REPORTING_CLASSES
            ]
            if not full[offset + len(message) :].strip():
                # The paste may end inside the quoted error (a log cut off): the templates
                # it instantiates up to there, beside those a placeholder lets match whole.
                quoted += [
                    inner._replace(start=inner.start + shift, end=inner.end + shift)
                    for inner in index.prefix_search(message[start:])
                    if inner.start == 0
                    and inner.end >= len(message[start:].rstrip())
                    and inner.specificity >= WEAK_PATTERN_CHARS
                    and inner.entry.error_class not in _REPORTING_CLASSES
                ]
            if quoted:
                # The most specific template only: `KVTransferError(...): {reason}` of every
                # connector is no answer beside the one that words the reason. Of those a
                # frame of the paste locates (its traceback follows the line), if any.
                located = [inner for inner in quoted if _in_a_frames_file(inner.entry, frame_files)]
                quoted = located or quoted
                best = max(inner.specificity for inner in quoted)
                return [inner for inner in quoted if inner.specificity == best]
        return []
    return []


def _head_line_end(message: str, classed: bool) -> int | None:
    """Where an exception's multi-line message's first line ends, when that line is a
    message of its own (MIN_HEAD_CHARS or more). The message is an exception's when the
    paste named its class (`classed`) or the message opens with a bare `ImportError:`
    label on a line of its own (then its head is the next line); lines of a log are not."""
    pos = 0
    while pos < len(message):  # line by line, reading no further than the head
        end = message.find("\n", pos)
        end = len(message) if end < 0 else end
        line = message[pos:end].strip()
        if line and _BARE_LABEL.fullmatch(line):
            classed = True
        elif line:
            if not classed or len(line) < MIN_HEAD_CHARS:
                return None
            return end if end < len(message.rstrip()) else None
        pos = end + 1
    return None


def _may_lack_its_stop(message: str, strongest: int) -> bool:
    """A message with no closing stop that the strongest whole match covers less than half
    of (`.+? not supported yet` of a title): a longer template may end in a period the
    writer dropped."""
    text = message.rstrip()
    return text[-1:] not in STOPS and 2 * strongest < len(text) <= MAX_STOPLESS_CHARS


def _elided_name(path: str) -> str | None:
    """The file name of a path whose folders the writer cut, else None."""
    parts = path_parts(path)
    return parts[-1] if len(parts) >= 2 and parts[-2] in _ELIDED else None


def match_parsed(
    parsed: ParsedError,
    index: MatchIndex,
    *,
    text_search: TextSearch | None = None,
    limit: int = 10,
    readers: AttributeReaders | None = None,
) -> MatchResult:
    """Rank records for an already parsed error; `readers` finds the methods that read an
    attribute of `self` (frameless `'Cls' object has no attribute 'x'`)."""
    pasted, parsed = parsed, _unelided(parsed, index)
    scored: dict[str, _Item] = {}
    memo: _Memo = {}
    budget = VerifyBudget.start()
    words = _PasteWords(parsed)
    frame_files = {file_key(f.file) for e in parsed.exceptions for f in e.frames}
    for exc in parsed.exceptions:
        whole = False
        keep = partial(_is_evidence, exc=exc, frame_files=frame_files)
        guess = _PYTHONS_GUESS.search(exc.message) if "Did you mean" in exc.message else None
        searched = exc.message if guess is None else exc.message[: guess.start()]
        found = index.search(searched, budget, PER_SITE_KIND, frame_files, words)
        strongest = 0  # literal characters of the strongest pattern matched whole
        head = _head_line_end(exc.message, exc.error_class is not None)
        for hit in _most_likely(found, exc, frame_files, keep, words):
            if hit.whole and hit.specificity >= WEAK_PATTERN_CHARS:
                whole, strongest = True, max(strongest, hit.specificity)
            # A template found on a later line of a message with a head line of its own
            # (`CRITICAL: Could not load ...` listing each attempt's ImportError) is a detail
            # of it: ranked as a shared text of its length, as one inside a sentence.
            detail = head is not None and hit.start > head
            item = _from_hit(hit, exc, KIND_PATTERN, memo, whole=hit.whole, inside=detail)
            _keep_best(scored, item)
        for hit in _quoted_errors(found, exc.message, index, budget, frame_files, words):
            if keep(hit):
                _keep_best(scored, _from_hit(hit, exc, KIND_PATTERN, memo, quoted=True))
        if whole and not _may_lack_its_stop(exc.message, strongest):
            continue  # a strong pattern matched the whole message: a shared start adds nothing
        for hit in index.prefix_search(exc.message):
            if not keep(hit) or _raised_by_the_statement(hit, exc, frame_files):
                continue
            if whole_but_its_stop(hit, exc.message):
                # The template's whole message written without its final period (a title):
                # a whole match, found by its start.
                at_ends = hit.start == 0 and not exc.message[hit.end :].strip()
                _keep_best(scored, _from_hit(hit, exc, KIND_PATTERN, memo, whole=at_ends))
            elif not whole:
                # A template the message completes before the writer's words (`whole`) goes
                # before one it leaves after as many characters.
                item = _from_hit(hit, exc, KIND_PREFIX, memo, cut=hit.cut, whole=hit.whole)
                _keep_best(scored, item)
    for exc in parsed.exceptions:
        # The writer's own words (no class, no frame) with no template at a segment's
        # bounds: a long one inside a sentence ("why <message> / tensor?"), ranked as a
        # shared text of its length (below a longer one at a segment's bounds).
        if exc.error_class or exc.frames or _message_evidence(scored, MIN_CONTAINED_CHARS):
            continue
        for hit in index.contained_search(exc.message, budget):
            _keep_best(scored, _from_hit(hit, exc, KIND_PATTERN, memo, inside=True))
    for exc in parsed.exceptions:
        # `assert <expr>` quoted without the assert's message: the assert of that expression.
        for entry, start, end in (
            index.assertion_search(exc.message) if "assert" in exc.message else ()
        ):
            item = _build(
                entry,
                exc,
                kind=KIND_ASSERTION,
                span=(start, end),
                whole=False,
                specificity=end - start,
                similarity=None,
                memo=memo,
            )
            _keep_best(scored, item)
    statements = _statement_items(parsed, index, memo)
    for item in statements:
        _keep_best(scored, item)
    _drop_explained_raises(scored, index, statements)
    if not _message_evidence(scored):
        for item in _self_documented_items(parsed, index, memo):
            _keep_best(scored, item)
    if readers is not None:
        for item in _attribute_items(parsed, index, readers, memo):
            _keep_best(scored, item)
    frame: Frame | None = None
    own: frozenset[str] = frozenset()  # the frame's matches in the frame's own function
    if not _message_evidence(scored):
        # No message evidence, or only interpreter-worded messages of files no frame is in.
        frame, items, own = _frame_items(parsed, index, memo)
        for item in items:
            _keep_best(scored, item)
    if not scored:
        for item in _key_items(parsed, index, memo):
            _keep_best(scored, item)
    if not scored:
        for item in _named_file_items(parsed, index, memo):
            _keep_best(scored, item)
    fallback = False
    if not scored:
        fallback = True
        search = text_search if text_search is not None else default_text_search(index)
        for exc in parsed.exceptions:
            generic = _interpreter_worded(exc, None)
            for record_id, sim in search(exc.message, limit):
                entry = index.get(record_id) or PatternEntry(record_id, "")
                if generic and _alike_by_wording(entry, frame_files):
                    continue
                item = _build(
                    entry,
                    exc,
                    kind=KIND_TEXT,
                    span=None,
                    whole=False,
                    specificity=index.specificity(record_id),
                    similarity=sim,
                    memo=memo,
                )
                _keep_best(scored, item)
    for item in _beside_items(parsed, scored, index, memo):
        _keep_best(scored, item)
    matches = _rank(scored, index, limit, words)
    kind = matches[0].why.kind if matches else None
    cut = bool(matches) and matches[0].why.cut
    unworded = bool(matches) and _is_unworded(index.get(matches[0].record_id))
    count = sum(1 for m in matches if m.why.kind == kind)
    in_function = sum(1 for m in matches if m.why.kind == KIND_FRAME and m.record_id in own)
    alike = _alike_owners(parsed, matches, index) if kind == KIND_PATTERN else None
    beside = sum(1 for m in matches if m.why.kind == KIND_BESIDE)
    elsewhere = 0
    if kind == KIND_ATTRIBUTE:
        # Reads of the attribute outside the class (typed.py), shown beside its methods.
        shown = (index.get(m.record_id) for m in matches if m.why.kind == KIND_PATTERN)
        elsewhere = sum(1 for e in shown if e is not None and e.statement is not None)
    answer = _answer(
        parsed, kind, count, frame, cut, unworded, in_function, alike, beside, elsewhere
    )
    return MatchResult(matches, fallback, pasted, answer, budget.exceeded)


def match_error(
    raw: str | bytes,
    index: MatchIndex,
    *,
    text_search: TextSearch | None = None,
    limit: int = 10,
    readers: AttributeReaders | None = None,
) -> MatchResult:
    """Parse pasted text and rank matching records; never raises on odd input."""
    return match_parsed(
        parse_error(raw), index, text_search=text_search, limit=limit, readers=readers
    )
