"""A real server and a real headless Chromium (Debian's), driven by Playwright."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from app import create_app
from tests.conftest import corpus, import_envelopes, make_database, migrate_up

CHROMIUM = os.environ.get("ERRATA_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


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


@pytest.fixture(scope="session")
def browser():
    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        message = f"Chromium not found at {CHROMIUM} (apt-get install chromium)"
        if os.environ.get("CI", "").lower() in {"1", "true"}:
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("dialog", lambda dialog: errors.append(f"dialog: {dialog.message}"))
    yield page
    context.close()
    assert not errors, errors
