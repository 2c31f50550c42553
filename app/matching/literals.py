"""Required literal text of a regular expression, for the Aho-Corasick prefilter.

A literal is *required* when every match of the pattern contains it. Only required
literals are safe to prefilter on. Literals are case-folded; the verifier is exact.
"""

from __future__ import annotations

import re
import re._constants as sre_c
import re._parser as sre_p
from dataclasses import dataclass

MIN_LITERAL = 3
_CLASS_ESCAPES = frozenset("dDwWsSbBAZz0123456789")
_CHAR_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
_SLOW = frozenset("[(|{")
_META = frozenset("\\.^$*+?[](){}|")
_TOKEN = re.compile(r"[^\\.^$*+?\[\](){}|]+|\\.?|.", re.DOTALL)
MAX_LITERAL = 32


@dataclass(frozen=True, slots=True)
class Literals:
    """The best prefilter literal (folded, or None if too short) and the specificity;
    `any_of`: literals one of which every match contains (folded), when the pattern ends in
    a quoted choice of words (`... argument '(?:stream|mode)'`): a sharper prefilter than a
    text thousands of such patterns share."""

    best: str | None
    specificity: int
    any_of: tuple[str, ...] = ()
    # every required run, case-folded, longest first (`folded_runs`)
    runs: tuple[str, ...] = ()


# `'(?:word|word)'` at the end of a pattern: its choices, each with its quotes.
_QUOTED_CHOICE = re.compile(r"'\(\?:([A-Za-z0-9_]+(?:\|[A-Za-z0-9_]+)*)\)'\Z")


def quoted_choice(pattern: str) -> tuple[str, ...]:
    found = _QUOTED_CHOICE.search(pattern)
    if found is None:
        return ()
    return tuple(dict.fromkeys(f"'{word.casefold()}'" for word in found.group(1).split("|")))


def _fast(pattern: str) -> list[str] | None:
    """Scan simple patterns (escaped text, `.`, `*+?`, anchors); None means use the parser."""
    runs: list[str] = []
    cur: list[str] = []
    after_quantifier = False
    for m in _TOKEN.finditer(pattern):
        tok = m.group(0)
        first = tok[0]
        if first not in _META:
            cur.append(tok)
            after_quantifier = False
        elif first == "\\":
            if len(tok) < 2:
                return None
            nxt = tok[1]
            after_quantifier = False
            if nxt in _CLASS_ESCAPES:
                runs.append("".join(cur))
                cur = []
            elif nxt in _CHAR_ESCAPES:
                cur.append(_CHAR_ESCAPES[nxt])
            elif nxt.isalnum():
                return None
            else:
                cur.append(nxt)
        elif first in _SLOW:
            return None
        elif first in "*?":
            if after_quantifier and first == "?":
                after_quantifier = False
                continue
            if cur:  # the quantified atom is the last character, now optional
                cur[-1] = cur[-1][:-1]
            runs.append("".join(cur))
            cur = []
            after_quantifier = True
        elif first == "+":
            if after_quantifier:
                return None
            runs.append("".join(cur))
            cur = []
            after_quantifier = True
        else:  # . ^ $
            runs.append("".join(cur))
            cur = []
            after_quantifier = False
    runs.append("".join(cur))
    return runs


def _walk(seq: sre_p.SubPattern | list, runs: list[str]) -> None:
    cur: list[str] = []

    def flush() -> None:
        runs.append("".join(cur))
        cur.clear()

    for op, av in seq:
        if op is sre_c.LITERAL:
            cur.append(chr(av))
        elif op is sre_c.SUBPATTERN:
            flush()
            _walk(av[-1], runs)
        elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT):
            flush()
            if av[0] >= 1:
                _walk(av[2], runs)
                runs.append("")
        elif op is sre_c.ATOMIC_GROUP:
            flush()
            _walk(av, runs)
        else:
            flush()
    flush()


def _chars(seq: sre_p.SubPattern | list) -> int:
    """Literal characters every match of `seq` contains, an alternation counting its
    alternatives' least (`'(?:port|host)'`: 4 + 2)."""
    total = 0
    for op, av in seq:
        if op is sre_c.LITERAL:
            total += 1
        elif op is sre_c.SUBPATTERN:
            total += _chars(av[-1])
        elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT):
            total += _chars(av[2]) if av[0] >= 1 else 0
        elif op is sre_c.ATOMIC_GROUP:
            total += _chars(av)
        elif op is sre_c.BRANCH:
            total += min((_chars(alt) for alt in av[1]), default=0)
    return total


def _parse(pattern: str) -> sre_p.SubPattern | None:
    try:
        return sre_p.parse(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        return None


def _runs(pattern: str) -> tuple[list[str] | None, sre_p.SubPattern | None]:
    """The required runs, and the parsed pattern when the fast scan could not read it."""
    runs = _fast(pattern)
    if runs is not None:
        return runs, None
    parsed = _parse(pattern)
    if parsed is None:
        return None, None
    out: list[str] = []
    _walk(parsed, out)
    return out, parsed


def required_runs(pattern: str) -> list[str] | None:
    """Literal runs that every match contains; None if Python cannot parse the pattern."""
    return _runs(pattern)[0]


def folded_runs(runs: list[str] | None) -> tuple[str, ...]:
    """Required runs as a prefilter reads them: case-folded, distinct, longest first."""
    found = {r.casefold() for r in runs or () if r.strip()}
    return tuple(sorted(found, key=len, reverse=True))


def extract(pattern: str) -> Literals:
    """Pick the longest required literal of a pattern (folded) and measure specificity."""
    runs, parsed = _runs(pattern)
    if runs is None:
        return Literals(None, 0)
    folded = folded_runs(runs)
    runs = [r for r in runs if r.strip()]
    specificity = sum(len(r) for r in runs)
    if parsed is not None and "|" in pattern:
        # An alternation's text is required too, as its least alternative (a pattern with
        # `|` is never read by the fast scan: `parsed` is its parse).
        specificity = max(specificity, _chars(parsed))
    if not runs:
        return Literals(None, 0)
    # A slice of a required literal is required too; short keys keep the automaton small.
    best = max(runs, key=len).casefold()[:MAX_LITERAL]
    return Literals(
        best if len(best.strip()) >= MIN_LITERAL else None,
        specificity,
        quoted_choice(pattern),
        folded,
    )
