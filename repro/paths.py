"""Public file names: run reports name files relative to their package, never the
server's absolute environment path (``~/.cache/errata/envs/.../site-packages/...``)."""

from __future__ import annotations

import re
from typing import Any

# Everything up to and including a site-packages/dist-packages directory, or an absolute
# path that runs into a checkout's ``python/sglang/`` tree.
_PREFIX = re.compile(
    r"(?:[A-Za-z]:)?[/\\]?(?:[^\s'\"():,]*[/\\])?(?:site-packages|dist-packages)[/\\]"
)
_HOME_ENV = re.compile(r"(?:/[^\s'\"():,]*)?/\.cache/errata/envs/[^\s'\"():,]*?/(?=\w)")


def public_path(text: str) -> str:
    """``text`` with absolute environment prefixes removed (``sglang/srt/x.py``)."""
    return _HOME_ENV.sub("", _PREFIX.sub("", text))


def scrub(value: Any) -> Any:
    """``value`` (JSON-like) with every string passed through :func:`public_path`."""
    if isinstance(value, str):
        return public_path(value)
    if isinstance(value, list):
        return [scrub(v) for v in value]
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items()}
    return value
