"""Record patterns in the harness run in RE2 when the environment has ``google-re2``.

Without it, a pattern is searched with Python's ``re`` on at most ``FALLBACK_CHARS``
characters: patterns are vetted before they are stored (no exponential shapes), and the
text stays short. Pin ``google-re2`` in ``repro/envs/<name>/requirements.txt`` to close
that gap.
"""

from __future__ import annotations

import re
from typing import Any

FALLBACK_CHARS = 2_000

try:
    import re2 as _re2
except ImportError:  # pragma: no cover - depends on the environment
    _re2 = None


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` occurs in ``text``; a pattern that does not compile never does."""
    if _re2 is not None:
        options: Any = _re2.Options()
        options.log_errors = False
        options.max_mem = 8 << 20
        try:
            return _re2.compile(pattern, options).search(text) is not None
        except Exception:  # re2.error and friends
            return False
    try:
        return re.search(pattern, text[:FALLBACK_CHARS]) is not None
    except re.error:
        return False
