"""The README configuration table lists every environment variable the loaders read."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

import pytest

from app.config import cache_settings, load_settings, schedule_settings, serving_settings
from repro.settings import WorkerSettings, env_dir
from tests.conftest import ROOT

pytestmark = pytest.mark.unit


class Recording(Mapping[str, str]):
    """An empty environment that remembers every name asked for."""

    def __init__(self) -> None:
        self.asked: set[str] = set()

    def __getitem__(self, name: str) -> str:
        self.asked.add(name)
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        self.asked.add(str(name))
        return False

    def get(self, name: str, default: str | None = None) -> str | None:  # type: ignore[override]
        self.asked.add(name)
        return default

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def _read_by_loaders(tmp_path) -> set[str]:
    env = Recording()
    load_settings(str(tmp_path), env)
    schedule_settings(env)  # the scheduler's (it builds no app)
    cache_settings(env)  # the tests' and benchmarks' wheel cache
    serving_settings(env)  # the gunicorn worker's
    WorkerSettings.from_env(env)
    env_dir(env)
    return env.asked


def test_readme_configuration_table_lists_every_setting(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    documented = {
        name
        for line in readme.splitlines()
        if line.startswith("| `")
        for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", line.split("|")[1])
    }
    read = _read_by_loaders(tmp_path)
    assert len(read) >= 15
    assert read - documented == set(), "settings missing from the README table"
