"""What the curated-record tests share: the files under `data/records/`, imported."""

from __future__ import annotations

from pathlib import Path

import pytest

RECORDS = Path(__file__).resolve().parents[2] / "data" / "records"


@pytest.fixture
def curated_records(app, runner):
    """Every curated record file imported through the CLI, the catalog rebuilt."""
    result = runner.invoke(args=["records", "import", *map(str, sorted(RECORDS.glob("*.jsonl")))])
    assert result.exit_code == 0, result.output
    assert " 0 invalid" in result.output
    from app.corpus.catalog import forget

    forget()
    return app
