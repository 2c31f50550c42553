"""Parse a pasted error (message, Python traceback or log) into exceptions and frames.

`parse_error` never raises: any input gives a `ParsedError`, possibly with a single plain
"exception" holding the cleaned text. Work is linear in the input, which is capped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from app.matching.clean import TRACEBACK_HEADER, Line, clean_lines

MAX_MESSAGE_LINES = 60
MAX_MESSAGE_CHARS = 8_192
MAX_PLAIN_CHARS = 16_384
MAX_FRAMES = 500

ROLE_ROOT = "root"
ROLE_LAST = "last"
ROLE_CHAINED = "chained"
ROLE_PLAIN = "plain"
ROLE_BODY = "body"
# Text beside a traceback (log lines, a kernel's assert lines): ranked below anything the
# traceback's own exceptions match.
ROLE_CONTEXT = "context"
MAX_CONTEXT = 4  # exceptions read from the text beside a traceback, its whole text last
# The last exception and the root cause are what users mean; intermediates follow, and the
# text beside a traceback last.
ROLE_ORDER = {
    ROLE_LAST: 0,
    ROLE_BODY: 1,
    ROLE_ROOT: 2,
    ROLE_PLAIN: 3,
    ROLE_CHAINED: 4,
    ROLE_CONTEXT: 5,
}
MAX_BODIES = 8

GROUP_HEADER = "Exception Group Traceback (most recent call last):"
CHAIN_SEPARATORS = (
    "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:",
)
# A frame line, its spacing as printed or as a paste lost or doubled it (`",  line398, in
# load_weights`); also one whose start a paste lost (`sglang/x/utils.py", line 298, in f`,
# copied from the middle of the path on): then its path, with no space, ends in `.py"`.
_FRAME = re.compile(
    r'\s*(?:File "|"?(?=[^"\s]{1,2000}\.py[xi]?",))'
    r'([^"\n]{1,2000})",[ \t]{0,4}line[ \t]{0,4}(\d{1,9})(?:,[ \t]{0,4}in ([^\n]{1,300}))?'
)
_CLASS = r"[A-Za-z_]\w{0,200}(?:\.[A-Za-z_<>]\w{0,200}>?){0,30}"
_EXC_LINE = re.compile(r"(" + _CLASS + r")(?::(?: ([^\n]*))?)?$")
_RAISE = re.compile(r"raise (" + _CLASS + r")\b")
EXCEPTION_SUFFIXES = ("Error", "Exception", "Warning", "Exit", "Interrupt", "Timeout", "Failure")
# `Class: message` inside prose or quotes: "... error: `ValueError: x`", "\"OSError: y\""
_INLINE_EXC = re.compile(
    r"(?<![A-Za-z0-9_.])((?:[A-Za-z_]\w{0,100}\.){0,8}[A-Za-z_]\w{0,100}"
    r"(?:Error|Exception|Warning|Exit|Interrupt|Timeout|Failure)"
    r"|(?:[a-z_]\w{0,100}\.){1,8}[A-Z]\w{0,100}): (\S[^\n]{0,8000})"
)
_CLOSING = {"`": "`", '"': '"', "'": "'", "(": ")"}
# An import error a log line quotes without its class, after the logger's own words:
# "Ignore import error when loading sglang.srt.models.x: No module named 'transformers.y'".
_LOGGED_IMPORT = re.compile(
    r":\s+((No module named|cannot import name) ['\"\u2018][\w.]{1,300}['\"\u2019][^\n]{0,500})"
)
_IMPORT_CLASS = {"No module named": "ModuleNotFoundError", "cannot import name": "ImportError"}
# Where a C++ library raised (PyTorch's c10::Error): "Exception raised from checkTimeout at
# ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most recent call first):"
_CPP_RAISED = re.compile(
    r"Exception raised from ([^\s()]{1,300})(?:\([^\n]{0,300}\))? at ([^\s:]{1,1000}):(\d{1,9})"
)
# The message of an error body, JSON or a Python repr: "message": "...", 'message': '...';
# FastAPI's {"detail": "..."} and a server's {"error": "..."} (a string, not OpenAI's object).
# The closing quote may be missing: a body cut off at the end of a line or of the paste.
_BODY_VALUE = (
    r"""\s{0,4}:\s{0,4}"""
    r"""(?:"((?:\\.|[^"\\\n]){1,8000})(?:"|(?=\n)|\Z)|'((?:\\.|[^'\\\n]){1,8000})(?:'|(?=\n)|\Z))"""
)
_BODY_MESSAGE = re.compile(r"""["'](?:message|detail|error)["']""" + _BODY_VALUE)
# Some sglang releases passed create_error_response's arguments swapped: the body's
# "message" is the status code ("400") and its "type" the server's message.
_BODY_TYPE = re.compile(r"""["']type["']""" + _BODY_VALUE)
_STATUS_ONLY = re.compile(r"\d{3}")
_BODY_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)")
_BODY_SIMPLE = {"n": "\n", "t": "\t", "r": "", "b": "\b", "f": "\f"}


@dataclass(frozen=True, slots=True)
class Frame:
    """One traceback frame."""

    file: str
    line: int | None
    function: str | None
    source: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "function": self.function,
            "source": self.source,
        }


@dataclass(frozen=True, slots=True)
class ParsedException:
    """One exception found in the input; role says where it sits in its chain."""

    error_class: str | None
    message: str
    frames: tuple[Frame, ...]
    role: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "errorClass": self.error_class,
            "message": self.message,
            "role": self.role,
            "frames": [f.to_dict() for f in self.frames],
        }


@dataclass(frozen=True, slots=True)
class ParsedError:
    """All exceptions found, most useful first, plus the cleaned text for text search."""

    exceptions: tuple[ParsedException, ...]
    text: str
    truncated: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "exceptions": [e.to_dict() for e in self.exceptions],
            "truncated": self.truncated,
        }


def looks_like_exception_class(name: str) -> bool:
    """True for names such as ValueError, torch.OutOfMemoryError, pkg.mod.SomethingFailed."""
    last = name.rsplit(".", 1)[-1]
    return last.endswith(EXCEPTION_SUFFIXES) or ("." in name and last[:1].isupper())


def _indent(s: str) -> int:
    return len(s) - len(s.lstrip())


def _split_exception_line(s: str) -> tuple[str | None, str]:
    """`Class: message` -> (Class, message); trailing spaces of the message are kept."""
    s = s.lstrip()
    m = _EXC_LINE.match(s.rstrip())
    if m is None:
        return None, s
    return m.group(1), s[m.start(2) :].lstrip() if m.group(2) is not None else ""


def _read_message(lines: list[Line], i: int, first: str, prefix: str, base: int) -> tuple[str, int]:
    """Read a multi-line message starting after line i; return it and the next index."""
    parts = [first]
    size = len(first)
    j = i + 1
    while j < len(lines) and len(parts) < MAX_MESSAGE_LINES and size < MAX_MESSAGE_CHARS:
        line = lines[j]
        s = line.text
        stripped = s.strip()
        if (
            not stripped
            or line.prefix != prefix
            or stripped.startswith("```")
            or TRACEBACK_HEADER in s
            or stripped in CHAIN_SEPARATORS
            or _indent(s) < base
            or _FRAME.match(s) is not None
        ):
            break
        parts.append(s[base:])
        size += len(s)
        j += 1
    return "\n".join(parts).strip()[:MAX_MESSAGE_CHARS], j


def _is_exception_line(s: str) -> bool:
    cls, _ = _split_exception_line(s)
    return cls is not None and looks_like_exception_class(cls)


def _read_block(
    lines: list[Line], i: int, *, headerless: bool = False
) -> tuple[str | None, str, tuple[Frame, ...], int]:
    """Read one traceback block whose header is at line i (or, headerless, whose first
    frame is). Tolerates lost indentation: a line right after a frame is its source."""
    header = lines[i].text
    if headerless:
        base = max(0, _indent(header) - 2)
        j = i
    else:
        base = _indent(header) if header.lstrip().startswith(TRACEBACK_HEADER) else 0
        j = i + 1
    frames: list[Frame] = []
    pending: tuple[str, int, str | None] | None = None
    while j < len(lines):
        s = lines[j].text
        fm = _FRAME.match(s)
        if fm:
            if pending and len(frames) < MAX_FRAMES:
                frames.append(Frame(pending[0], pending[1], pending[2], None))
            pending = (fm.group(1), int(fm.group(2)), fm.group(3))
            j += 1
            continue
        stripped = s.strip()
        flat_source = pending is not None and _indent(s) <= base and not _is_exception_line(s)
        carets = bool(stripped) and set(stripped) <= set("^~ ")
        if (
            not stripped
            or _indent(s) > base
            or stripped.startswith("[Previous line repeated")
            or flat_source
            or (carets and frames)
        ):
            if pending and stripped and not carets:
                if len(frames) < MAX_FRAMES:
                    frames.append(Frame(pending[0], pending[1], pending[2], stripped[:500]))
                pending = None
            j += 1
            continue
        break
    if pending and len(frames) < MAX_FRAMES:
        frames.append(Frame(pending[0], pending[1], pending[2], None))
    if j >= len(lines):
        return _class_from_source(None, frames), "", tuple(frames), j
    cls, first = _split_exception_line(lines[j].text)
    if cls is not None and ":" not in lines[j].text:
        # A bare `NotImplementedError`: no message, and what follows is not one.
        return _class_from_source(cls, frames), "", tuple(frames), j + 1
    message, j = _read_message(lines, j, first, lines[j].prefix, base)
    return _class_from_source(cls, frames), message, tuple(frames), j


def _class_from_source(cls: str | None, frames: list[Frame]) -> str | None:
    """Fall back to the class named by `raise X(...)` in the innermost frame's source."""
    if cls is not None or not frames or not frames[-1].source:
        return cls
    m = _RAISE.search(frames[-1].source)
    return m.group(1) if m else None


def _parse_tracebacks(
    lines: list[Line],
) -> tuple[list[list[tuple[str | None, str, tuple[Frame, ...]]]], list[Line]]:
    """Group traceback blocks into chains (root cause first); also the lines outside them."""
    chains: list[list[tuple[str | None, str, tuple[Frame, ...]]]] = []
    outside: list[Line] = []
    chained_next = False
    i = 0
    while i < len(lines):
        s = lines[i].text
        headerless = TRACEBACK_HEADER not in s and _FRAME.match(s) is not None
        if TRACEBACK_HEADER in s or headerless:
            before = s.split(TRACEBACK_HEADER, 1)[0].strip() if not headerless else ""
            if before:  # `[TP0] Scheduler hit an exception: Traceback (most recent ...`
                outside.append(Line(before, lines[i].prefix))
            cls, message, frames, i = _read_block(lines, i, headerless=headerless)
            if chained_next and chains:
                chains[-1].append((cls, message, frames))
            else:
                chains.append([(cls, message, frames)])
            chained_next = False
            continue
        stripped = s.strip()
        if stripped in CHAIN_SEPARATORS:
            chained_next = True
        elif stripped and not stripped.startswith("```"):
            chained_next = False
            outside.append(lines[i])
        i += 1
    return chains, outside


def _plain(lines: list[Line]) -> list[ParsedException]:
    """Exceptions from text without a traceback: `Class: message` lines, then all text."""
    found: list[ParsedException] = []
    i = 0
    while i < len(lines) and len(found) < 20:
        cls, first = _split_exception_line(lines[i].text)
        if cls and first and looks_like_exception_class(cls):
            message, i = _read_message(lines, i, first, lines[i].prefix, _indent(lines[i].text))
            found.append(ParsedException(cls, _unquoted(message), (), ROLE_PLAIN))
            continue
        if cls and _opens_message(lines, i) and looks_like_exception_class(cls):
            # `ImportError:` alone on its line: a message that starts with a newline.
            nxt = lines[i + 1]
            message, i = _read_message(
                lines, i + 1, nxt.text.strip(), nxt.prefix, _indent(nxt.text)
            )
            found.append(ParsedException(cls, message, (), ROLE_PLAIN))
            continue
        inline = _inline_exception(lines[i].text)
        if inline is not None:
            found.append(ParsedException(inline[0], inline[1], (), ROLE_PLAIN))
        else:
            logged = _LOGGED_IMPORT.search(lines[i].text)
            if logged is not None:
                cls = _IMPORT_CLASS[logged.group(2)]
                message = logged.group(1).rstrip().rstrip("`")
                if not any(e.message == message for e in found):
                    found.append(ParsedException(cls, message, (), ROLE_PLAIN))
        i += 1
    body = "\n".join(line.text for line in lines if not line.text.strip().startswith("```"))
    body = body.strip()[-MAX_PLAIN_CHARS:]
    only = found[0] if len(found) == 1 else None
    if body and not (only and body == f"{only.error_class}: {only.message}"):
        found.append(ParsedException(None, body, (), ROLE_PLAIN))
    return found


def _opens_message(lines: list[Line], i: int) -> bool:
    """Line i is `Class:` with nothing after it, and a line of text follows."""
    if not lines[i].text.rstrip().endswith(":") or i + 1 >= len(lines):
        return False
    nxt = lines[i + 1].text.strip()
    return bool(nxt) and not nxt.startswith("```") and _FRAME.match(nxt) is None


_CARETS = frozenset("^~ ")


def _without_frames(lines: list[Line]) -> list[Line]:
    """The lines that are not a traceback's: its header, `File ...` lines, the source
    line under each and the caret lines under that (`^^^^`, `~~~^^^`)."""
    kept: list[Line] = []
    after_frame = False
    for line in lines:
        s = line.text
        if TRACEBACK_HEADER in s or _FRAME.match(s):
            after_frame = _FRAME.match(s) is not None
            continue
        stripped = s.strip()
        if stripped and set(stripped) <= _CARETS:
            continue
        if after_frame and stripped and not _is_exception_line(s):
            after_frame = False
            continue
        after_frame = False
        kept.append(line)
    return kept


def _unquoted(message: str) -> str:
    """`Error: "the message"`, as a writer quotes it: the message without its quotes
    (a key's repr, `KeyError: 'x'`, keeps its single quotes)."""
    if len(message) > 2 and message[0] == message[-1] == '"' and '"' not in message[1:-1]:
        return message[1:-1]
    return message


def _inline_exception(line: str) -> tuple[str, str] | None:
    """`Class: message` found inside a line of prose, without its surrounding quotes."""
    m = _INLINE_EXC.search(line)
    if m is None or m.start() == 0:
        return None
    message = m.group(2).rstrip()
    before = line[m.start() - 1]
    closing = _CLOSING.get(before)
    if closing is not None:
        end = message.rfind(closing)
        if end > 0:
            message = message[:end].rstrip()
    return m.group(1), message


def _unescape_body(s: str) -> str:
    def repl(m: re.Match[str]) -> str:
        g = m.group(1)
        if len(g) == 5 and g[0] == "u":
            return chr(int(g[1:], 16))
        return _BODY_SIMPLE.get(g, g)

    return _BODY_ESCAPE.sub(repl, s)


def body_messages(text: str) -> list[str]:
    """Messages of error bodies (OpenAI-style JSON, or Python reprs of them) in text."""
    found: list[str] = []
    for m in _BODY_MESSAGE.finditer(text):
        raw = m.group(1) if m.group(1) is not None else m.group(2)
        message = _unescape_body(raw).strip()
        if _STATUS_ONLY.fullmatch(message):
            end = text.find("}", m.end())
            body = text[text.rfind("{", 0, m.start()) + 1 : end if end >= 0 else len(text)]
            kind = _BODY_TYPE.search(body)
            if kind is not None:
                message = _unescape_body(kind.group(1) or kind.group(2) or "").strip()
        if message and message not in found:
            found.append(message)
        if len(found) >= MAX_BODIES:
            break
    return found


def _cpp_origin(lines: list[Line]) -> Frame | None:
    """The first C++ raise site a c10 error prints (`Exception raised from F at FILE:LINE`),
    as a frame: its file as printed (`../`, the build's root), line and function."""
    for line in lines:
        if "Exception raised from " not in line.text:
            continue
        m = _CPP_RAISED.search(line.text)
        if m is not None:
            return Frame(m.group(2), int(m.group(3)), m.group(1).rsplit("::", 1)[-1], None)
    return None


def _unbox(line: Line) -> Line:
    """Drop the `|` / `+---` box drawing that exception groups print around tracebacks."""
    s = line.text.lstrip(" \t")
    if s.startswith("+-") and not s.strip(" +-0123456789.").strip():
        return Line("", line.prefix)
    if s.startswith(("| ", "+ ")) or s == "|":
        return Line(s[2:], line.prefix)
    return line


def parse_error(raw: str | bytes) -> ParsedError:
    """Parse pasted text; never raises, bounded work."""
    lines, truncated = clean_lines(raw)
    if any(GROUP_HEADER in line.text for line in lines):
        lines = [_unbox(line) for line in lines]
    text = "\n".join(line.text for line in lines)[-MAX_PLAIN_CHARS:]
    exceptions: list[ParsedException] = []
    seen: set[tuple[str | None, str, str]] = set()
    chains, outside = _parse_tracebacks(lines)
    for chain in chains:
        for pos, (cls, message, frames) in enumerate(chain):
            if len(chain) == 1 or pos == len(chain) - 1:
                role = ROLE_LAST
            elif pos == 0:
                role = ROLE_ROOT
            else:
                role = ROLE_CHAINED
            key = (cls, message, role)
            if key not in seen:
                seen.add(key)
                exceptions.append(ParsedException(cls, message, frames, role))
    if exceptions and all(not e.message and e.error_class is None for e in exceptions):
        # Frames without an exception line after them (the error was pasted first, or
        # the paste stops at the frames): the error comes from the rest of the text.
        # The frames themselves are no message: without any other text, the frames alone
        # say where (a bare assert's line, quoted with its frame).
        frames = next((e.frames for e in exceptions if e.frames), ())
        rest = _plain(_without_frames(lines))
        exceptions = [ParsedException(e.error_class, e.message, frames, e.role) for e in rest]
        if not exceptions and frames:
            cls = _class_from_source(None, list(frames))
            exceptions = [ParsedException(cls, "", frames, ROLE_LAST)]
    elif exceptions and outside:
        # A log line or a kernel's assert beside the traceback: matched too, below it.
        context = _plain(outside)
        if len(context) > MAX_CONTEXT:
            context = [*context[: MAX_CONTEXT - 1], context[-1]]
        for exc in context:
            key = (exc.error_class, exc.message, ROLE_CONTEXT)
            if (exc.error_class, exc.message, ROLE_LAST) not in seen and key not in seen:
                seen.add(key)
                exceptions.append(ParsedException(exc.error_class, exc.message, (), ROLE_CONTEXT))
    if not exceptions:
        exceptions = _plain(lines)
    origin = _cpp_origin(lines)
    if origin is not None:
        # The C++ function that raised is the innermost frame of every exception whose own
        # frames stop in Python (the Python frames end at the call into the library).
        exceptions = [
            e
            if e.frames and e.frames[-1] == origin
            else ParsedException(e.error_class, e.message, (*e.frames, origin), e.role)
            for e in exceptions
        ]
    # What a client got back wraps the server's message in a body: match that message too.
    known = {e.message for e in exceptions}
    for exc in list(exceptions):
        for message in body_messages(exc.message):
            if message not in known:
                known.add(message)
                exceptions.append(ParsedException(None, message, exc.frames, ROLE_BODY))
    exceptions.sort(key=lambda e: ROLE_ORDER[e.role])
    return ParsedError(tuple(exceptions), text, truncated)
