"""Helpers the benchmarks share: synthetic words, timing loops and percentile formatting.

Benchmarks are run by hand as scripts (``python bench/x.py``); each puts the repository
root on ``sys.path`` and imports these as ``bench._common``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

_CONSONANTS = "bcdfghjklmnprstvz"
_VOWELS = "aeiou"


def pseudo_word(n: int) -> str:
    """Distinct pronounceable word for each n (so every synthetic variant has its own literal)."""
    syllables = []
    for _ in range(4):
        n, r = divmod(n, len(_CONSONANTS) * len(_VOWELS))
        syllables.append(_CONSONANTS[r // len(_VOWELS)] + _VOWELS[r % len(_VOWELS)])
    return "".join(syllables)


def pct(values: Iterable[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank; NaN for no values."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(values: Sequence[float], decimals: int = 3) -> str:
    """``p50 … ms  p99 … ms`` of durations in seconds."""
    width = decimals + 5
    p50 = statistics.median(values) * 1e3
    p99 = pct(values, 0.99) * 1e3
    return f"p50 {p50:{width}.{decimals}f} ms  p99 {p99:{width}.{decimals}f} ms"


def timed(
    fn: Callable[[Any], object],
    items: Iterable[Any],
    rounds: int = 1,
    warmup: bool = False,
    clock: Callable[[], float] = time.perf_counter,
) -> list[float]:
    """Seconds per call of ``fn(item)``, ``rounds`` times over ``items``.

    ``warmup`` calls each item once, untimed, first (caches, compiled patterns); without it
    the first round measures cold calls. ``clock=time.thread_time`` gives CPU time of this
    thread: what a call costs without waiting for a core on a loaded machine.
    """
    items = list(items)
    if warmup:
        for item in items:
            fn(item)
    out = []
    for _ in range(rounds):
        for item in items:
            t = clock()
            fn(item)
            out.append(clock() - t)
    return out
