"""Explorer results (``data/repro-sweep/*.json``, written by ``python -m repro.explore``)
linked to records by (repo, package-relative file, message), never by record id, so a
record merged across releases still finds the raise site it describes."""

from __future__ import annotations

import json
import re
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

SWEEP_DIR = Path(__file__).resolve().parents[2] / "data" / "repro-sweep"
# A directory's listing is reused this many seconds (as the catalog's freshness check):
# every match answer reads it, and the explorer writes it a few times a day.
LISTING_TTL = 2.0
_listings: dict[str, tuple[float, list[dict[str, Any]]]] = {}


def package_path(path: str) -> str:
    """``python/sglang/srt/x.py`` and ``sglang/srt/x.py`` both become ``sglang/srt/x.py``."""
    path = path.replace("\\", "/")
    index = path.find("sglang/")
    return path[index:] if index >= 0 else path


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> dict[str, Any]:
    data = json.loads(Path(path).read_text())
    by_file: dict[str, list[dict[str, Any]]] = {}
    for site in data.get("sites", []):
        by_file.setdefault(site["file"], []).append(site)
    return {"meta": {k: v for k, v in data.items() if k != "sites"}, "by_file": by_file}


def sweeps(directory: Path | None = None) -> list[dict[str, Any]]:
    """Every sweep file of ``directory`` (default SWEEP_DIR), read; listed at most every
    LISTING_TTL seconds, each file read again when it changes."""
    directory = directory or SWEEP_DIR
    now = time.monotonic()
    cached = _listings.get(str(directory))
    if cached is not None and now - cached[0] < LISTING_TTL:
        return cached[1]
    loaded = (
        [_load(str(p), p.stat().st_mtime) for p in sorted(directory.glob("*.json"))]
        if directory.is_dir()
        else []
    )
    if cached is not None and _same(cached[1], loaded):
        loaded = cached[1]  # unchanged: the same list, so answers built on it are still good
    if len(_listings) >= 64:
        _listings.clear()
    _listings[str(directory)] = (now, loaded)
    return loaded


def _same(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def _matches(site: dict[str, Any], pattern: str, message: str) -> bool:
    try:
        if pattern and re.search(pattern, str(site.get("message") or "")):
            return True
    except re.error:
        pass
    template = str(site.get("template") or "")
    return bool(template) and template.split("{}")[0].strip()[:40] in message


def findings(
    repo: str,
    file_path: str,
    pattern: str,
    message: str,
    directory: Path | None = None,
    loaded: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Sweep sites for a record: same repo, same package file, message matches.
    ``loaded`` is ``sweeps()`` read once by a caller asking for many records."""
    out = []
    target = package_path(file_path)
    for sweep in sweeps(directory) if loaded is None else loaded:
        meta = sweep["meta"]
        if meta.get("repo") != repo:
            continue
        for site in sweep["by_file"].get(target, []):
            if _matches(site, pattern, message):
                out.append({"upstream": f"sglang {meta.get('sglang_version')}", **site})
    return out


def proven(
    repo: str | None,
    file_path: str | None,
    pattern: str,
    message: str,
    loaded: list[dict[str, Any]],
) -> dict[str, bool] | None:
    """``{"reproduced", "fixProven"}`` for a record's raise site from the explorer's
    results (``loaded``: ``sweeps()``), or None when the explorer did not reach it."""
    if not repo or not file_path:
        return None
    found = findings(repo, file_path, pattern, message, loaded=loaded)
    if not found:
        return None
    return {
        "reproduced": any(s.get("reproduced") for s in found),
        "fixProven": any(s.get("reproduced") and s.get("fixed") for s in found),
    }


def coverage(directory: Path | None = None) -> list[dict[str, Any]]:
    """Per sweep file: version, when, and coverage by area (for the matrix page)."""
    return [
        {
            "upstream": f"sglang {s['meta'].get('sglang_version')}",
            "generatedAt": s["meta"].get("generated_at"),
            "durationS": s["meta"].get("duration_s"),
            "runs": s["meta"].get("runs"),
            **(s["meta"].get("coverage") or {}),
        }
        for s in sweeps(directory)
    ]
