"""Vet a record's ``messagePattern`` before it is stored.

A pattern must compile in both RE2 (what Errata matches with, linear time) and Python's
``re``, fit a bounded RE2 program, and have no shape that backtracks exponentially in a
backtracking engine. The structural rules (docs/security.md) are:

* inside a repeat that can run more than once, every inner repeat has a fixed count
  (``(a+)+``, ``(?:a?a)+``, ``(?:a+){2}``, ``(?:[a-z]+\\s?){1,15}`` are refused);
* alternatives inside such a repeat start with different characters
  (``(a|ab)*``, ``(?:\\d|\\d\\d)+`` are refused);
* a counted repeat runs at most ``MAX_COUNT`` times (``.{1,1000}`` is refused);
* at most two variable repeats over overlapping characters follow each other directly
  (``a*a*a*b`` is refused; ``.+?.+?`` from a draft's ``f"{a}{b}"`` is kept).

With every inner repeat fixed and every alternative decided by its first character, a
repeat's body matches a given position in at most one way, so backtracking is polynomial.
The rules are deliberately conservative: a rejected pattern can be rewritten, and the
importer reports which rule it broke. Record patterns are only ever run by RE2 (the
service and the harnesses), so the check is a second line, not the only one.
"""

from __future__ import annotations

import importlib
import re
import warnings
from typing import Any

import re2

# CPython's own regex parser (private modules; typed loosely on purpose).
sre_c: Any = importlib.import_module("re._constants")
sre_parse: Any = importlib.import_module("re._parser")

MAX_PATTERN_CHARS = 4_000
MAX_COUNT = 100  # largest {m,n} bound accepted
MAX_PROGRAM = 2_000  # RE2 program size (instructions): verification cost per character
MAX_ADJACENT = 2  # variable repeats over overlapping characters in a row

# Characters used to decide whether two alternatives can start alike.
_ALPHABET = tuple(chr(c) for c in range(128)) + ("é", "中", "\u00a0", "\u2028")
_ALL = frozenset(_ALPHABET)

_CATEGORY_TESTS = {
    sre_c.CATEGORY_DIGIT: str.isdigit,
    sre_c.CATEGORY_NOT_DIGIT: lambda c: not c.isdigit(),
    sre_c.CATEGORY_SPACE: str.isspace,
    sre_c.CATEGORY_NOT_SPACE: lambda c: not c.isspace(),
    sre_c.CATEGORY_WORD: lambda c: c.isalnum() or c == "_",
    sre_c.CATEGORY_NOT_WORD: lambda c: not (c.isalnum() or c == "_"),
}
_REPEATS = {sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, getattr(sre_c, "POSSESSIVE_REPEAT", None)}
_ZERO_WIDTH = {sre_c.AT, sre_c.ASSERT, sre_c.ASSERT_NOT}


class PatternRejected(ValueError):
    """The pattern does not compile, is too costly, or could backtrack catastrophically."""


def re2_options() -> re2.Options:
    """RE2 options for record patterns: quiet, with a bounded memory budget."""
    options = re2.Options()
    options.log_errors = False
    options.max_mem = 8 << 20
    return options


def check_pattern(pattern: str) -> None:
    """Raise :class:`PatternRejected` with a reason if ``pattern`` is unsafe."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternRejected(f"longer than {MAX_PATTERN_CHARS} characters")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. FutureWarning: possible nested set
            parsed = sre_parse.parse(pattern)
    except (re.error, RecursionError, OverflowError) as exc:
        raise PatternRejected(f"does not compile: {exc}") from None
    try:
        compiled = re2.compile(pattern, re2_options())
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise PatternRejected(f"not supported by the linear-time engine (RE2): {reason}") from None
    if compiled.programsize > MAX_PROGRAM:
        raise PatternRejected(
            f"too costly to verify: RE2 program of {compiled.programsize} instructions "
            f"(at most {MAX_PROGRAM})"
        )
    try:
        _walk(parsed, inside_repeat=False)
    except RecursionError:
        raise PatternRejected("nested too deeply") from None


def _variable(min_count: int, max_count: int) -> bool:
    return bool(min_count != max_count)


def _walk(items: Any, inside_repeat: bool) -> None:
    _check_adjacent(list(items))
    for op, arg in items:
        if op in _REPEATS:
            min_count, max_count, body = arg
            if max_count != sre_c.MAXREPEAT and max_count > MAX_COUNT:
                raise PatternRejected(
                    f"counted repeat up to {max_count} (at most {MAX_COUNT}): "
                    "costly in every engine"
                )
            if inside_repeat and _variable(min_count, max_count):
                raise PatternRejected(
                    "nested quantifier (a variable repeat inside a repeat) "
                    "can backtrack catastrophically"
                )
            repeats = max_count > 1
            if repeats:
                _check_alternatives(body)
            _walk(body, inside_repeat or repeats)
        elif op == sre_c.SUBPATTERN:
            _walk(arg[-1], inside_repeat)
        elif op == sre_c.BRANCH:
            for branch in arg[1]:
                _walk(branch, inside_repeat)
        elif op in (sre_c.ASSERT, sre_c.ASSERT_NOT):
            _walk(arg[1], inside_repeat)
        elif op == sre_c.GROUPREF_EXISTS:
            for branch in arg[1:]:
                if branch is not None:
                    _walk(branch, inside_repeat)
        elif op == getattr(sre_c, "ATOMIC_GROUP", None):
            _walk(arg, inside_repeat)


def _check_adjacent(items: list[Any]) -> None:
    """Refuse runs of more than MAX_ADJACENT variable repeats over shared characters."""
    run: list[frozenset[str]] = []
    for op, arg in items:
        if op in _ZERO_WIDTH:
            continue
        if op in _REPEATS and _variable(arg[0], arg[1]):
            chars = _chars(list(arg[2]))
            if run and not any(chars & prev for prev in run):
                run = []
            run.append(chars)
            if len(run) > MAX_ADJACENT:
                raise PatternRejected(
                    f"more than {MAX_ADJACENT} variable repeats over the same characters "
                    "in a row can backtrack polynomially"
                )
        else:
            run = []


def _check_alternatives(body: Any) -> None:
    """Reject overlapping branches anywhere inside a repeat's body."""
    for op, arg in body:
        if op == sre_c.BRANCH:
            seen: set[str] = set()
            for branch in arg[1]:
                first = _first_chars(list(branch))
                if first & seen:
                    raise PatternRejected(
                        "alternatives under a repeat can match the same text "
                        "and backtrack catastrophically"
                    )
                seen |= first
            for branch in arg[1]:
                _check_alternatives(branch)
        elif op == sre_c.SUBPATTERN:
            _check_alternatives(arg[-1])


def _chars(items: list[Any]) -> frozenset[str]:
    """Every character the sequence can consume (approximated over ``_ALPHABET``)."""
    out: frozenset[str] = frozenset()
    for op, arg in items:
        if op == sre_c.LITERAL:
            out |= {chr(arg)}
        elif op == sre_c.NOT_LITERAL or op == sre_c.ANY:
            out |= _ALL - ({chr(arg)} if op == sre_c.NOT_LITERAL else set())
        elif op == sre_c.IN:
            out |= {c for c in _ALPHABET if _in_class(arg, c)}
        elif op == sre_c.SUBPATTERN:
            out |= _chars(list(arg[-1]))
        elif op == sre_c.BRANCH:
            for branch in arg[1]:
                out |= _chars(list(branch))
        elif op in _REPEATS:
            out |= _chars(list(arg[2]))
        elif op not in _ZERO_WIDTH:
            out |= _ALL
    return out


def _first_chars(items: list[Any]) -> frozenset[str]:
    """Characters the sequence can start with; everything if it can match empty."""
    for op, arg in items:
        if op in _ZERO_WIDTH:
            continue
        if op == sre_c.LITERAL:
            return frozenset({chr(arg)})
        if op == sre_c.NOT_LITERAL:
            return _ALL - {chr(arg)}
        if op == sre_c.ANY:
            return _ALL
        if op == sre_c.IN:
            return frozenset(c for c in _ALPHABET if _in_class(arg, c))
        if op == sre_c.SUBPATTERN:
            return _first_chars(list(arg[-1]))
        if op == sre_c.BRANCH:
            out: frozenset[str] = frozenset()
            for branch in arg[1]:
                out |= _first_chars(list(branch))
            return out
        if op in _REPEATS:
            min_count, _max, body = arg
            return _first_chars(list(body)) if min_count > 0 else _ALL
        return _ALL
    return _ALL


def _in_class(members: Any, char: str) -> bool:
    negate = False
    hit = False
    for op, arg in members:
        if op == sre_c.NEGATE:
            negate = True
        elif op == sre_c.LITERAL:
            hit = hit or char == chr(arg)
        elif op == sre_c.RANGE:
            hit = hit or arg[0] <= ord(char) <= arg[1]
        elif op == sre_c.CATEGORY:
            test = _CATEGORY_TESTS.get(arg)
            hit = hit or (test(char) if test else True)
    return hit != negate
