"""Registry of harnesses: which harness applies to a record, and where links live.

Standard library only (imported inside harness environments too). Links from record
ids to harnesses are data (``data/harnesses.json``); ``harness_for`` is the rule that
proposes a harness for a record nobody has linked yet.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repro.vocabulary import PLATFORMS

LINKS_FILE = Path(__file__).resolve().parents[2] / "data" / "harnesses.json"


@dataclass(frozen=True)
class HarnessInfo:
    """A harness module, the environment it runs in, and the records it understands."""

    name: str
    env: str
    repo: str
    file_suffixes: tuple[str, ...]
    platforms: tuple[str, ...]
    description: str

    def applies_to(self, record: dict[str, Any]) -> bool:
        path = str(record.get("filePath") or "")
        return record.get("repo") == self.repo and path.endswith(self.file_suffixes)


HARNESSES: dict[str, HarnessInfo] = {
    "sglang_attention_backend": HarnessInfo(
        name="sglang_attention_backend",
        env="sglang-0.5.23",
        repo="sgl-project/sglang",
        file_suffixes=("sglang/srt/layers/attention/attention_registry.py",),
        platforms=PLATFORMS,
        description=(
            "Parses the record's launch commands with sglang's ServerArgs, resolves and "
            "publishes them, and constructs the attention backend from ATTENTION_BACKENDS."
        ),
    ),
}


def harness_for(record: dict[str, Any]) -> HarnessInfo | None:
    """The harness for a record: its link if one exists, else the first whose rule matches."""
    record = record.get("record", record)
    link = load_links().get(str(record.get("id")))
    if link is not None and link["harness"] in HARNESSES:
        return HARNESSES[link["harness"]]
    return harness_by_rule(record)


def harness_by_rule(record: dict[str, Any]) -> HarnessInfo | None:
    """The first harness whose repo and file rule covers the record (no link lookup)."""
    for info in HARNESSES.values():
        if info.applies_to(record):
            return info
    return None


def load_links(path: Path = LINKS_FILE) -> dict[str, dict[str, Any]]:
    """Record id -> {harness, env, platforms} from the link data file."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text())
    return {str(link["recordId"]): link for link in data.get("links", [])}
