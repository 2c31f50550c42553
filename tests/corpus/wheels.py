"""Real released wheels for the tests, from the pinned list (downloaded once, cached)."""

from __future__ import annotations

import json
from pathlib import Path

from app.corpus.fetch import cache_dir, ensure_wheel
from app.corpus.pins import DEFAULT_PINS, load_pins


def sglang_wheel(version: str) -> Path:
    """The pinned sglang wheel of `version` (SHA-256 checked)."""
    (release,) = [r for r in load_pins(only=("sglang",)).releases if r.version == version]
    return ensure_wheel(release, cache_dir() / "wheels")


def small_pins(tmp: Path, versions: tuple[str, ...], include: tuple[str, ...] = ()) -> Path:
    """A pins file with only these sglang releases (for fast end-to-end builds), and only
    the files under `include` when given."""
    data = json.loads(DEFAULT_PINS.read_text())
    (sglang,) = [p for p in data["packages"] if p["name"] == "sglang"]
    sglang["releases"] = [r for r in sglang["releases"] if r["version"] in versions]
    if include:
        sglang["include"] = list(include)
    path = tmp / "pins.json"
    path.write_text(json.dumps({"packages": [sglang]}))
    return path


def pinned_wheel(package: str) -> tuple[Path, object]:
    """The first pinned wheel of `package` (SHA-256 checked), with its pin."""
    release = load_pins(only=(package,)).releases[0]
    return ensure_wheel(release, cache_dir() / "wheels"), release
