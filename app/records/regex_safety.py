"""Vet a record's ``messagePattern`` before it is stored.

A pattern must compile in both RE2 (what Errata matches with, linear time) and Python's
``re`` (what harnesses and plugins use), and must not be able to backtrack
catastrophically in a backtracking engine. The static check rejects the two shapes
that cause exponential backtracking:

* a repeat inside an unbounded repeat (star height > 1), e.g. ``(a+)+$``, ``(a*b?)*``;
* an unbounded repeat over alternatives that can start with the same character,
  e.g. ``(a|ab)*``, ``(\\w|\\d)+``.

It is deliberately conservative: a rejected pattern can always be rewritten without
nesting, and the importer reports which rule it broke.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

import re2

# CPython's own regex parser (private modules; typed loosely on purpose).
sre_c: Any = importlib.import_module("re._constants")
sre_parse: Any = importlib.import_module("re._parser")

# Characters used to decide whether two alternatives can start alike.
_ALPHABET = tuple(chr(c) for c in range(128)) + ("é", "中", "\u00a0", "\u2028")
_ALL = frozenset(_ALPHABET)
_UNBOUNDED_MIN = 16  # {n,m} with m at least this is treated like an unbounded repeat

_CATEGORY_TESTS = {
    sre_c.CATEGORY_DIGIT: str.isdigit,
    sre_c.CATEGORY_NOT_DIGIT: lambda c: not c.isdigit(),
    sre_c.CATEGORY_SPACE: str.isspace,
    sre_c.CATEGORY_NOT_SPACE: lambda c: not c.isspace(),
    sre_c.CATEGORY_WORD: lambda c: c.isalnum() or c == "_",
    sre_c.CATEGORY_NOT_WORD: lambda c: not (c.isalnum() or c == "_"),
}
_REPEATS = {sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, getattr(sre_c, "POSSESSIVE_REPEAT", None)}


class PatternRejected(ValueError):
    """The pattern does not compile or could backtrack catastrophically."""


def check_pattern(pattern: str) -> None:
    """Raise :class:`PatternRejected` with a reason if ``pattern`` is unsafe."""
    try:
        parsed = sre_parse.parse(pattern)
    except (re.error, RecursionError, OverflowError) as exc:
        raise PatternRejected(f"does not compile: {exc}") from None
    try:
        re2.compile(pattern, _re2_options())
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        raise PatternRejected(f"not supported by the linear-time engine (RE2): {reason}") from None
    _walk(parsed, inside_unbounded=False)


def _re2_options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False
    return options


def _is_unbounded(max_count: int) -> bool:
    return bool(max_count == sre_c.MAXREPEAT or max_count >= _UNBOUNDED_MIN)


def _walk(items: Any, inside_unbounded: bool) -> None:
    for op, arg in items:
        if op in _REPEATS:
            min_count, max_count, body = arg
            if inside_unbounded and max_count > 1 and min_count != max_count:
                raise PatternRejected(
                    "nested quantifier (a repeat inside an unbounded repeat) "
                    "can backtrack catastrophically"
                )
            unbounded = _is_unbounded(max_count)
            if unbounded:
                _check_alternatives(body)
            _walk(body, inside_unbounded or unbounded)
        elif op == sre_c.SUBPATTERN:
            _walk(arg[-1], inside_unbounded)
        elif op == sre_c.BRANCH:
            for branch in arg[1]:
                _walk(branch, inside_unbounded)
        elif op in (sre_c.ASSERT, sre_c.ASSERT_NOT):
            _walk(arg[1], inside_unbounded)
        elif op == sre_c.GROUPREF_EXISTS:
            for branch in arg[1:]:
                if branch is not None:
                    _walk(branch, inside_unbounded)
        elif op == getattr(sre_c, "ATOMIC_GROUP", None):
            _walk(arg, inside_unbounded)


def _check_alternatives(body: Any) -> None:
    """Reject overlapping branches anywhere inside an unbounded repeat's body."""
    for op, arg in body:
        if op == sre_c.BRANCH:
            seen: set[str] = set()
            for branch in arg[1]:
                first = _first_chars(list(branch))
                if first & seen:
                    raise PatternRejected(
                        "alternatives under an unbounded repeat can match the same text "
                        "and backtrack catastrophically"
                    )
                seen |= first
            for branch in arg[1]:
                _check_alternatives(branch)
        elif op == sre_c.SUBPATTERN:
            _check_alternatives(arg[-1])


def _first_chars(items: list[Any]) -> frozenset[str]:
    """Characters the sequence can start with; everything if it can match empty."""
    for op, arg in items:
        if op in (sre_c.AT,):
            continue
        if op == sre_c.LITERAL:
            return frozenset({chr(arg)}) & _ALL or frozenset({chr(arg)})
        if op == sre_c.NOT_LITERAL:
            return _ALL - {chr(arg)}
        if op == sre_c.ANY:
            return _ALL
        if op == sre_c.IN:
            return frozenset(c for c in _ALPHABET if _in_class(arg, c))
        if op == sre_c.SUBPATTERN:
            inner = _first_chars(list(arg[-1]))
            if inner is _ALL:
                return _ALL
            return inner
        if op == sre_c.BRANCH:
            out: frozenset[str] = frozenset()
            for branch in arg[1]:
                out |= _first_chars(list(branch))
            return out
        if op in _REPEATS:
            min_count, _max, body = arg
            first = _first_chars(list(body))
            return first if min_count > 0 else _ALL
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
