"""Normalise pasted text: decode, strip colour codes, unwrap JSON log lines, drop log prefixes.

Every regular expression here is anchored or has bounded repetition, and every loop is
bounded, so cleaning is linear in the (capped) input size.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

MAX_INPUT_CHARS = 262_144
MAX_LINES = 20_000
MAX_PREFIX_PASSES = 8
MAX_JSON_DEPTH = 32
TRACEBACK_HEADER = "Traceback (most recent call last):"

_ANSI = re.compile(r"\x1b\[[0-9;?]{0,32}[ -/]{0,4}[@-~]|\x1b[@-Z\\-_]")
_JSON_ESCAPE = re.compile(r'\\(["\\/bfnrt]|u[0-9a-fA-F]{4})')
_JSON_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "", "t": "\t"}

_TS = r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?"
_LEVEL = r"(?:ERROR|WARNING|WARN|INFO|DEBUG|CRITICAL|FATAL)"
# Each prefix is tried at the start of a line; the first that matches is removed.
_PREFIXES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p)
    for p in (
        # docker compose: "sglang-1  | "
        r"[A-Za-z0-9][\w.-]{0,100} {1,40}\| ?",
        # sglang: "[2026-12-01 09:14:03 TP0] ", "[2026-12-01 09:14:03 DP0 TP1] ", "[...Z] "
        r"\[" + _TS + r"Z?(?: [^\]\n]{0,80})?\] ?",
        # sglang's diffusion server (multimodal_gen), no year: "[12-11 17:52:52] "
        r"\[\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?: [^\]\n]{0,80})?\] ?",
        # logging: "2026-12-01 09:14:03,123 - name - ERROR - "
        _TS + r" - [^\n]{0,200}? - " + _LEVEL + r" - ",
        # vllm style: "ERROR 12-01 09:14:03 [file.py:12] "
        _LEVEL + r" \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,9})? \[[^\]\n]{0,200}\] ",
        # bare timestamp, optional level: "2026-12-01T09:14:03.123Z ERROR "
        _TS + r"(?:Z|[+-]\d\d:?\d\d)?(?: " + _LEVEL + r")?(?::| -)? ",
        # level first, as cloud log viewers show a line: "ERROR 2025-04-07T19:13:52.54Z "
        _LEVEL + r" " + _TS + r"(?:Z|[+-]\d\d:?\d\d)?:? ",
        # logging.basicConfig default: "ERROR:root:"
        _LEVEL + r":[\w.]{0,200}:",
        # torch.distributed: "[rank0]: "
        r"\[rank\d{1,6}\]: ?",
        # Ray's worker logs: "(pid=8123) ", "(RayWorkerWrapper pid=8123, ip=10.0.0.2) "
        r"\((?:[\w.]{1,100} )?pid=\d{1,10}(?:, ip=[\w.:]{1,64})?\) ?",
        # pytest failure lines: "E   "
        r"E   ",
        # a Markdown quote, as issue comments quote each other: "> "
        r">(?: |$)",
        # issue titles: "[Bug] ", "[Feature]: ", "[Error]"
        r"\[(?i:bug|feature|usage|error|question|misc|issue|help)\]:? ?",
    )
)
# The same, as one alternation: the first alternative that matches is the one removed,
# as in a loop over _PREFIXES (none matches the empty string), in one call per line.
_ANY_PREFIX = re.compile("|".join(f"(?:{p.pattern})" for p in _PREFIXES))


# Ray's log deduplication, after a line it repeated: " [repeated 6x across cluster]".
_RAY_REPEATED = re.compile(r" ?\[repeated \d{1,9}x across cluster\](?: \(Ray deduplicates[^\n]*)?$")
_PREFIX_TIME = re.compile(_TS)
MIN_TIMED_LINES = 3
# What a log line says, with its numbers and ids masked: the ranks of one server log the
# same line (`[TP0] Decode transfer failed for request rank=0 ...`, then rank=7, ...).
_VARYING = re.compile(r"0x[0-9a-fA-F]+|[0-9a-fA-F]{16,}|\d+")
MIN_REPEAT_CHARS = 24
# A traceback whose line breaks became spaces (a reflowed log line, a web log viewer):
# cut again where runs of spaces were a break and indentation, before each `File "`, and
# before an exception line that follows its frame's source after one space.
MAX_COLLAPSED_CHARS = 65_536
_COLLAPSED_CUT = re.compile(r' {2,}(?=\S)|(?<=\S) (?=File ")')
# A frame after the writer's words on its line ("the sglang error log is:File "...", line 9").
_PROSE_FRAME = re.compile(
    r'(?<=[^\s>`*_])[ \t]*(?=File "[^"\n]{1,2000}",[ \t]{0,4}line[ \t]{0,4}\d)'
)
# A frame whose source line follows its function on the same line, one space apart: a
# traceback GitHub flattened into one line of a quote (`> File "x.py", line 920, in
# load_weights param = params_dict[name] KeyError: 'w'`). A function name has no space.
_FLAT_FRAME = re.compile(
    r'(File "[^"\n]{1,2000}",[ \t]{0,4}line[ \t]{0,4}\d{1,9},[ \t]{0,4}in [\w<>.]{1,200}) (?=\S)'
)
_CLASS_TOKEN = re.compile(r"(?<=[\w)\]}'\"]) ([\w.]{1,200}+):(?= |$)")
_EXCEPTION_SUFFIXES = ("Error", "Exception", "Exit", "Interrupt", "Warning")

_TYPOGRAPHIC_FRAME = re.compile(
    r"^[ \t>`]{0,8}File \u201c[^\n]{1,1000}\u201d,[ \t]{0,4}line[ \t]{0,4}\d", re.MULTILINE
)
_ESCAPED_FRAME = re.compile(
    r'^[ \t>`]{0,8}File \\"[^\n]{1,1000}\\",[ \t]{0,4}line[ \t]{0,4}\d', re.MULTILINE
)
_STRAIGHT_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})


@dataclass(frozen=True, slots=True)
class Line:
    """One cleaned line: its text without log prefixes, and the prefixes removed."""

    text: str
    prefix: str


def decode(raw: str | bytes) -> str:
    """Turn whatever was pasted into text, never raising."""
    if isinstance(raw, bytes):
        return raw.decode("utf-8", errors="replace")
    return raw


def cap_input(text: str) -> tuple[str, bool]:
    """Keep at most MAX_INPUT_CHARS, centred on the first traceback if there is one."""
    if len(text) <= MAX_INPUT_CHARS:
        return text, False
    start = text.find(TRACEBACK_HEADER)
    if start < 0:
        start = text.find("Traceback (most recent call last):\\n")
    if start < 0:
        return text[-MAX_INPUT_CHARS:], True
    start = max(0, start - 4096)
    return text[start : start + MAX_INPUT_CHARS], True


def _unescape_json(s: str) -> str:
    def repl(m: re.Match[str]) -> str:
        g = m.group(1)
        return chr(int(g[1:], 16)) if g[0] == "u" else _JSON_SIMPLE[g]

    return _JSON_ESCAPE.sub(repl, s)


def _json_strings(value: object, out: list[str], budget: list[int]) -> None:
    """Collect string values from decoded JSON, breadth bounded by budget."""
    if budget[0] <= 0:
        return
    budget[0] -= 1
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            _json_strings(v, out, budget)
    elif isinstance(value, list):
        for v in value:
            _json_strings(v, out, budget)


def nesting_within(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when brackets in text (outside strings) nest at most `limit` deep; linear."""
    depth = 0
    quote = ""
    escaped = False
    for ch in text:
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def load_json(text: str) -> object | None:
    """Decode JSON from a paste, or None: never raises, refuses deep nesting."""
    if not nesting_within(text):
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _expand_json_line(line: str) -> list[str] | None:
    """Return the text a JSON log line carries when it embeds an escaped traceback."""
    if "\\n" not in line or '"' not in line:
        return None
    brace = line.find("{")
    if brace >= 0:
        doc = load_json(line[brace:])
        if doc is not None:
            strings: list[str] = []
            _json_strings(doc, strings, [256])
            keep = [s for s in strings if "\n" in s]
            if keep:
                return "\n".join(keep).split("\n")
    if TRACEBACK_HEADER + "\\n" in line:
        return _unescape_json(line).split("\n")
    return None


def unwrap_emphasis(line: str) -> str:
    """A whole line in Markdown bold or inline code, as issue text often has, or the first
    or last line of inline code that spans lines: its text."""
    stripped = line.strip()
    if stripped.count("`") == 1 and len(stripped) > 1:
        # Inline code over several lines: its opening backtick on the first, its closing
        # one on the last (`File "...", line 5, in f` / `    assert x`).
        if stripped[0] == "`" or stripped[-1] == "`":
            tick = line.find("`")
            return line[:tick] + line[tick + 1 :]
        return line
    if not stripped or stripped[0] not in "*_`":
        return line
    for mark in ("**", "__", "`"):
        n = len(mark)
        if len(stripped) > 2 * n and stripped.startswith(mark) and stripped.endswith(mark):
            inner = stripped[n:-n]
            if mark not in inner:
                return line[: len(line) - len(line.lstrip())] + inner
    return line


def strip_prefixes(line: str) -> Line:
    """Remove stacked log prefixes from the start of a line (bounded passes).

    Trailing spaces are kept: they can be part of a multi-line message.
    """
    removed: list[str] = []
    for _ in range(MAX_PREFIX_PASSES):
        m = _ANY_PREFIX.match(line)
        if m is None or m.end() == 0:
            break
        removed.append(m.group(0))
        line = line[m.end() :]
    return Line(line, "".join(removed))


def clean_lines(raw: str | bytes) -> tuple[list[Line], bool]:
    """Decode, cap and normalise pasted text into prefix-free lines."""
    text, truncated = cap_input(decode(raw))
    text = text.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n")
    text = _ANSI.sub("", text)
    if _TYPOGRAPHIC_FRAME.search(text):
        # GitHub's typography turned the quotes of a traceback into curly ones (text in
        # single backticks): Python never prints those, so the whole paste is restored.
        text = text.translate(_STRAIGHT_QUOTES)
    if 'File \\"' in text and _ESCAPED_FRAME.search(text):
        # A traceback copied out of a JSON string with real line breaks but its quotes still
        # escaped (`File \"/x/y.py\", line 603`): Python never prints `\"` in a frame.
        text = text.replace('\\"', '"')
    lines: list[Line] = []
    for number, raw_line in enumerate(_split_collapsed(text.split("\n", MAX_LINES)[:MAX_LINES])):
        first = strip_prefixes(raw_line)
        first = Line(_RAY_REPEATED.sub("", unwrap_emphasis(first.text)), first.prefix)
        expanded = _expand_json_line(first.text)
        if expanded is None:
            lines.extend(_after_prose(first))
            continue
        # The marker keeps a message from running on past the JSON value it came from.
        marker = f"{first.prefix}\x00json{number}\x00"
        for sub in expanded[:MAX_LINES]:
            inner = strip_prefixes(_ANSI.sub("", sub))
            lines.append(Line(inner.text, marker + inner.prefix))
    if _newest_first(lines):
        lines.reverse()
    return _without_repeats(lines), truncated


def _without_repeats(lines: list[Line]) -> list[Line]:
    """The lines, less the log lines that repeat an earlier one but for its numbers and ids
    (each rank logging the same failure) and a last log line cut off inside such a repeat:
    the paste is one error, not one per rank. Frame lines are kept (a recursion repeats)."""
    seen: set[str] = set()
    kept: list[Line] = []
    keys: list[str | None] = []  # each kept log line's text, masked
    for line in lines:
        text = line.text.strip()
        key = _VARYING.sub("#", text) if line.prefix else None
        if key is not None and not text.startswith('File "') and len(text) >= MIN_REPEAT_CHARS:
            if key in seen:
                continue
            seen.add(key)
        kept.append(line)
        keys.append(key)
    end = len(kept)
    while end and not kept[end - 1].text.strip():
        end -= 1
    last = keys[end - 1] if end > 1 else None
    if last is not None and any(k is not None and k.startswith(last) for k in keys[: end - 1]):
        del kept[end - 1]
    return kept


def _after_prose(line: Line) -> tuple[Line, ...]:
    """A frame the writer's words precede on its line, cut from them (past log prefixes)."""
    found = _PROSE_FRAME.search(line.text) if 'File "' in line.text else None
    if found is None or TRACEBACK_HEADER in line.text:
        return (line,)
    return Line(line.text[: found.start()], line.prefix), Line(line.text[found.end() :], "")


def _split_collapsed(lines: list[str]) -> list[str]:
    """Lines, with a traceback that was collapsed onto one line cut back into its lines
    (only a line that has the traceback header and a frame after it, or a frame with its
    source line after its function)."""
    out: list[str] = []
    for line in lines:
        header = line.find(TRACEBACK_HEADER)
        rest = line[header:] if header >= 0 else line
        if len(line) > MAX_COLLAPSED_CHARS or 'File "' not in rest or '", line ' not in rest:
            out.append(line)
            continue
        if header < 0:
            # No header: only a frame with its source beside it says the line was collapsed.
            flat = _FLAT_FRAME.sub("\\1\n", line)
            if flat == line:
                out.append(line)
                continue
            line = flat
        for piece in (p for cut in line.split("\n") for p in _COLLAPSED_CUT.split(cut)):
            start = 0
            for m in _CLASS_TOKEN.finditer(piece):
                name = m.group(1).rsplit(".", 1)[-1]
                if name[:1].isupper() and name.endswith(_EXCEPTION_SUFFIXES):
                    out.append(piece[start : m.start()])
                    start = m.start() + 1
            out.append(piece[start:])
    return out[:MAX_LINES]


def _newest_first(lines: list[Line]) -> bool:
    """True when the lines' own timestamps run backwards: a log viewer's newest-first
    listing (cloud logging consoles), in which a traceback reads bottom to top."""
    times = []
    for line in lines:
        m = _PREFIX_TIME.search(line.prefix) if line.prefix else None
        if m is not None:
            times.append(m.group(0).replace("T", " ").replace(",", "."))
    if len(times) < MIN_TIMED_LINES:
        return False
    pairs = list(zip(times, times[1:], strict=False))
    return all(a >= b for a, b in pairs) and any(a > b for a, b in pairs)
