"""Per-target Python environments that harnesses run in.

Each environment is pinned by the requirements files under ``repro/envs/<name>/`` and
built (by ``python -m repro.envs.build <name>``) into a cache directory outside the
repository, keyed by a short hash of those files, so a fresh clone on the same machine
reuses it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from repro.settings import env_dir

ENVS_SOURCE_DIR = Path(__file__).resolve().parent
MARKER_NAME = ".errata-env-ok"


class EnvMissingError(RuntimeError):
    """The named environment has not been built (or its build did not finish)."""

    def __init__(self, name: str, path: Path) -> None:
        self.name = name
        self.path = path
        super().__init__(
            f"environment {name!r} is not built (expected at {path}); "
            f"build it with: python -m repro.envs.build {name}"
        )


class UnknownEnvError(KeyError):
    """No requirements are pinned for that environment name."""


@dataclass(frozen=True)
class EnvSpec:
    """An environment's pinned inputs: the files whose content decides its identity."""

    name: str
    source_dir: Path

    @property
    def requirements(self) -> Path:
        return self.source_dir / "requirements.txt"

    @property
    def nodeps_requirements(self) -> Path:
        return self.source_dir / "requirements-nodeps.txt"

    @property
    def smoke_import(self) -> str:
        path = self.source_dir / "smoke.txt"
        return path.read_text().strip() if path.exists() else ""

    def input_files(self) -> list[Path]:
        return sorted(p for p in self.source_dir.iterdir() if p.suffix == ".txt")

    def digest(self) -> str:
        """Short hash of the pinned files, so an edited pin builds a new environment."""
        h = hashlib.sha256()
        for path in self.input_files():
            h.update(path.name.encode())
            h.update(b"\0")
            h.update(path.read_bytes())
        return h.hexdigest()[:12]


def env_root() -> Path:
    """Where built environments live (``repro.settings.env_dir``)."""
    return env_dir()


def spec_for(name: str) -> EnvSpec:
    source = ENVS_SOURCE_DIR / name
    if not (source / "requirements.txt").is_file():
        raise UnknownEnvError(name)
    return EnvSpec(name=name, source_dir=source)


def known_envs() -> list[str]:
    return sorted(p.name for p in ENVS_SOURCE_DIR.iterdir() if (p / "requirements.txt").is_file())


def env_path(name: str) -> Path:
    spec = spec_for(name)
    return env_root() / f"{name}-{spec.digest()}"


def python_for(name: str) -> Path:
    """The interpreter of a built environment; raises EnvMissingError if not built."""
    path = env_path(name)
    python = path / "bin" / "python"
    if not (path / MARKER_NAME).is_file() or not python.exists():
        raise EnvMissingError(name, path)
    return python
