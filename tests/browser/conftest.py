"""A real server and a real headless Chromium (Debian's), driven by Playwright."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from app import create_app
from tests.conftest import corpus, import_envelopes, make_database, migrate_up


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory, request) -> Iterator[str]:
    """The app on a free loopback port, over a SQLite database holding the test corpus."""
    tmp = tmp_path_factory.mktemp("browser")
    url, _ = make_database("sqlite", tmp)
    migrate_up(url)
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "TESTING": True})
    seed_file = Path(__file__).resolve().parents[2] / "data" / "records" / "sglang.jsonl"
    import json

    seed = json.loads(seed_file.read_text(encoding="utf-8").splitlines()[0])
    import_envelopes(app.test_cli_runner(), tmp / "corpus.jsonl", corpus(seed))
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
