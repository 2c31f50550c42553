"""Query-string parsing shared by the pages and the API: typed values or ``BadParameter``."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from werkzeug.datastructures import MultiDict

TRUE = frozenset({"1", "true", "yes"})
FALSE = frozenset({"0", "false", "no", ""})


class BadParameter(ValueError):
    """A query parameter is unknown, malformed or out of range (answered 400)."""


def reject_unknown(args: MultiDict[str, str], allowed: Iterable[str]) -> None:
    """Raise on any parameter not in ``allowed`` (a typo must not pass silently)."""
    known = set(allowed)
    unknown = sorted(name for name in args if name not in known)
    if unknown:
        names = ", ".join(repr(n[:50]) for n in unknown[:5])
        raise BadParameter(f"unknown parameter(s) {names}; known: {', '.join(sorted(known))}")


def flag(args: MultiDict[str, str], name: str) -> bool:
    value = args.get(name, "0").strip().lower()
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    raise BadParameter(f"{name} must be true or false (1 or 0).")


def int_arg(args: MultiDict[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = args.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadParameter(f"{name} must be an integer.") from None
    if not low <= value <= high:
        raise BadParameter(f"{name} must be between {low} and {high}.")
    return value


def choice_arg(args: MultiDict[str, str], name: str, choices: Collection[str]) -> str | None:
    """One value from ``choices``, or None when absent or empty."""
    value = args.get(name) or None
    if value is not None and value not in choices:
        raise BadParameter(f"{name} must be one of {', '.join(choices)}.")
    return value


def choices_arg(args: MultiDict[str, str], name: str, choices: Collection[str]) -> list[str]:
    """Every value of a repeatable parameter, each from ``choices``."""
    values = args.getlist(name)
    bad = [v for v in values if v not in choices]
    if bad:
        raise BadParameter(f"{name} must be one of {', '.join(choices)} (got {bad[0][:50]!r}).")
    return values
