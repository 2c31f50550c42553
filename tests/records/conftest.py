"""What the curated-record tests share: the files under `data/records/`, imported."""

from __future__ import annotations

from pathlib import Path

import pytest

RECORDS = Path(__file__).resolve().parents[2] / "data" / "records"


def import_curated(runner, path: Path) -> None:
    """Import one curated record file through the CLI: every line created, none invalid;
    the catalog is rebuilt on the next match."""
    result = runner.invoke(args=["records", "import", str(path)])
    assert result.exit_code == 0, result.output
    lines = path.read_text(encoding="utf-8").splitlines()
    assert f"{len(lines)} created" in result.output and " 0 invalid" in result.output
    from app.corpus.catalog import forget

    forget()


def top_match(client, text: str) -> tuple[dict, dict]:
    """The first match `POST /api/v1/match` gives for the text, and its whole record."""
    resp = client.post("/api/v1/match", json={"text": text, "limit": 3})
    assert resp.status_code == 200
    (top, *_) = resp.get_json()["matches"]
    return top, client.get(f"/api/v1/records/{top['id']}").get_json()


@pytest.fixture
def curated_records(app, runner):
    """Every curated record file imported through the CLI, the catalog rebuilt."""
    result = runner.invoke(args=["records", "import", *map(str, sorted(RECORDS.glob("*.jsonl")))])
    assert result.exit_code == 0, result.output
    assert " 0 invalid" in result.output
    from app.corpus.catalog import forget

    forget()
    return app
