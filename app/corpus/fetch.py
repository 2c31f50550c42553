"""Released wheels in a local cache: downloaded once with pip, checked by SHA-256."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.config import cache_settings
from app.corpus.pins import Release


class FetchError(RuntimeError):
    """A wheel could not be downloaded or does not match its pinned hash."""


def cache_dir(config: Mapping[str, Any] | None = None) -> Path:
    """`ERRATA_CACHE_DIR` of ``config`` (the app's), else of the environment (default
    `~/.cache/errata`): wheels and built corpora live under it."""
    settings = cache_settings() if config is None else config
    return Path(settings["ERRATA_CACHE_DIR"])


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def ensure_wheel(release: Release, wheels: Path) -> Path:
    """The release's wheel in `wheels`, downloaded with `pip download` if missing."""
    wheels.mkdir(parents=True, exist_ok=True)
    path = wheels / release.wheel
    if not path.exists():
        spec = f"{release.package}=={release.version}"
        # A release published only as a source archive is pinned by its `.tar.gz` name.
        binary = "--no-binary=:all:" if release.wheel.endswith(".tar.gz") else "--only-binary=:all:"
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", binary]
        cmd += ["--disable-pip-version-check", "-q", "-d", str(wheels), spec]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode != 0 or not path.exists():
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise FetchError(f"{spec}: download failed ({release.wheel}): {tail[0]}")
    actual = file_sha256(path)
    if actual != release.sha256:
        raise FetchError(
            f"{path}: SHA-256 {actual} does not match the pinned {release.sha256}; "
            "delete the file to download it again"
        )
    return path
