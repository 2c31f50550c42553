"""What the public sees of a run: package-relative paths, no host names, no versions of
Python, torch or CUDA (docs/security.md). Admins see the stored run as it is."""

from __future__ import annotations

import re
from typing import Any

PUBLIC_PLATFORM_KEYS = ("name", "simulated", "sm", "device")
_MARKERS = ("site-packages/", "dist-packages/")
_ABSOLUTE = re.compile(r"(?<![\w.:/])(?:/[\w.@+~-]+){2,}/?")
_WINDOWS = re.compile(r"\b[A-Za-z]:\\(?:[\w.@+~ -]+\\)*[\w.@+~-]+")


def relative_path(path: str) -> str:
    """``/…/site-packages/sglang/x.py`` -> ``sglang/x.py``; other absolute paths keep only
    their last two parts (``…/repro/x.py`` -> ``repro/x.py``)."""
    for marker in _MARKERS:
        if marker in path:
            return path.rsplit(marker, 1)[1]
    if path.startswith("/") or _WINDOWS.fullmatch(path):
        parts = [p for p in re.split(r"[\\/]", path) if p]
        return "/".join(parts[-2:])
    return path


def scrub_text(text: str) -> str:
    """Absolute paths inside free text (messages, errors) made relative."""
    text = _ABSOLUTE.sub(lambda m: relative_path(m.group(0)), text)
    return _WINDOWS.sub(lambda m: relative_path(m.group(0)), text)


def _scrub(value: Any, depth: int = 0) -> Any:
    if depth > 20:
        return None
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, list):
        return [_scrub(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {k: _scrub(v, depth + 1) for k, v in value.items()}
    return value


def public_run(payload: dict[str, Any]) -> dict[str, Any]:
    """A run payload without server details."""
    out = dict(payload)
    info = out.get("platformInfo")
    if isinstance(info, dict):
        out["platformInfo"] = {k: info[k] for k in PUBLIC_PLATFORM_KEYS if k in info}
    elif info is not None:
        out["platformInfo"] = None
    out["worker"] = None
    for key in ("trigger", "fixes", "drift", "message", "regressions", "logTail"):
        out[key] = _scrub(out.get(key))
    return out
