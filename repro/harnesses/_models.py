"""Resolve a model name from a launch command to a shipped ``config.json`` directory.

Records name Hugging Face repos (``qwen/Qwen2.5-7B``); the harness has no weights and
no network, only the config files under ``data/model-configs/<org>__<name>/``, which
are enough for sglang's ModelConfig to decide the attention architecture.
"""

from __future__ import annotations

import json
from pathlib import Path

MODEL_CONFIGS_DIR = Path(__file__).resolve().parents[2] / "data" / "model-configs"
_SUFFIXES = ("-instruct", "-chat", "-base", "-hf")


class UnknownModelError(LookupError):
    """No shipped config for this model name."""


def _key(name: str) -> str:
    return name.strip().strip("/").replace("/", "__").lower()


def available(configs_dir: Path = MODEL_CONFIGS_DIR) -> dict[str, Path]:
    return {
        p.name.lower(): p for p in sorted(configs_dir.iterdir()) if (p / "config.json").is_file()
    }


def resolve_model_dir(name: str, configs_dir: Path = MODEL_CONFIGS_DIR) -> Path:
    """The config directory for ``name``: an alias from ``aliases.json``, an exact
    (case-insensitive) match, the name without a chat/instruct suffix, then the bare
    model name under any organisation."""
    if Path(name).is_dir() and (Path(name) / "config.json").is_file():
        return Path(name)
    known = available(configs_dir)
    aliases_file = configs_dir / "aliases.json"
    if aliases_file.is_file():
        alias = json.loads(aliases_file.read_text())["aliases"].get(name.strip("/").lower())
        if alias and alias.lower() in known:
            return known[alias.lower()]
    key = _key(name)
    candidates = [key] + [key[: -len(s)] for s in _SUFFIXES if key.endswith(s)]
    for candidate in candidates:
        if candidate in known:
            return known[candidate]
    bare = [c.split("__")[-1] for c in candidates]
    for dirname, path in known.items():
        if dirname.split("__")[-1] in bare:
            return path
    raise UnknownModelError(
        f"no shipped config for model {name!r}; add data/model-configs/<org>__<name>/config.json"
    )
