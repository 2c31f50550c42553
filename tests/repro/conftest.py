"""Fixtures for the reproducer's tests: the seed record and tiny fake harnesses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
FAKES = Path(__file__).resolve().parent / "fakes"


def _seed_path() -> Path:
    shared = REPO.parent / "shared" / "seed-000_0c21a27e1637202c.json"
    return shared if shared.is_file() else REPO / "data" / "records" / "sglang.jsonl"


@pytest.fixture(scope="session")
def seed_record() -> dict[str, Any]:
    """The seed record 1760fbb64ae487e4 (trtllm_mla on a non-MLA model)."""
    for line in (REPO / "data" / "records" / "sglang.jsonl").read_text().splitlines():
        doc = json.loads(line)
        record = doc.get("record", doc)
        if record["id"] == "1760fbb64ae487e4":
            return record
    raise AssertionError("seed record missing from data/records/sglang.jsonl")


@pytest.fixture
def fakes_dir() -> Path:
    return FAKES
