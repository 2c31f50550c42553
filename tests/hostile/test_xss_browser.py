"""XSS payloads in every text field of a record, rendered in real headless Chromium: no
script runs, no dialog opens, and the payload shows as text. The CSP forbids inline script."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

pytestmark = pytest.mark.browser

SCRIPT = "<script>window.__xss=1</script>"
IMG = '<img src=x onerror="window.__xss=1">'
SVG = '"><svg onload=window.__xss=1>'
PAYLOAD = f"{SCRIPT} {IMG} {SVG}"
TEXT_FIELDS = [
    "errorMessage",
    "documentation",
    "commonSituations",
    "exampleFix",
    "validationCode",
    "typeGuard",
    "sourceCode",
    "tryCatchPattern",
    "handlingStrategy",
    "backgroundTag",
    "errorCode",
    "slug",
]
LIST_FIELDS = ["solutions", "preventionTips", "triggerScenarios"]
XSS_ID = "x55000000000001"


@pytest.fixture(scope="module")
def xss_server(tmp_path_factory):
    import threading

    from werkzeug.serving import make_server

    from app import create_app
    from tests.conftest import SEED_FILE, import_envelopes, make_database, migrate_up

    tmp = tmp_path_factory.mktemp("xss")
    url, _ = make_database("sqlite", tmp)
    migrate_up(url)
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "TESTING": True, "RATELIMIT_ENABLED": False})
    envelope = json.loads(SEED_FILE.read_text(encoding="utf-8").splitlines()[0])
    record = envelope["record"]
    record["id"] = XSS_ID
    for name in TEXT_FIELDS:
        record[name] = PAYLOAD
    for name in LIST_FIELDS:
        record[name] = [SCRIPT, IMG, SVG]
    record["filePath"] = f"python/{SVG}.py"
    record["tags"] = ["<script>window.__xss=1</script>", '"><svg/onload=window.__xss=1>']
    record["messagePattern"] = r"<script>window\.__xss=1</script>"
    import_envelopes(app.test_cli_runner(), tmp / "xss.jsonl", [envelope])
    # githubUrl must be https://github.com/...: javascript: is refused by the importer.
    bad = json.loads(json.dumps(envelope))
    bad["record"]["id"] = "x55000000000002"
    bad["record"]["githubUrl"] = "javascript:window.__xss=1"
    (tmp / "bad.jsonl").write_text(json.dumps(bad) + "\n")
    result = app.test_cli_runner().invoke(args=["records", "import", str(tmp / "bad.jsonl")])
    assert result.exit_code == 1 and "record.githubUrl" in result.output
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", app
    server.shutdown()


PAGES = [
    "/",
    f"/?q={quote('script xss')}",
    f"/?tag={quote(SCRIPT)}",
    f"/records/{XSS_ID}",
    "/runs",
    "/runs/matrix",
    "/api/v1/docs",
    f"/?q={quote(SVG)}",
]


@pytest.mark.parametrize("path", PAGES)
def test_payloads_render_as_text(xss_server, page, path: str) -> None:
    base, _ = xss_server
    response = page.goto(base + path)
    assert response is not None and response.status in (200, 400)
    csp = response.headers.get("content-security-policy", "")
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert page.evaluate("typeof window.__xss") == "undefined"
    if path.startswith("/records/"):
        body = page.inner_text("body")
        assert SCRIPT in body and "onerror=" in body and "<svg onload=" in body


def test_match_page_with_payload(xss_server, page) -> None:
    base, _ = xss_server
    page.goto(base + "/match")
    traceback = (
        "Traceback (most recent call last):\n"
        f'  File "/x/{SVG}.py", line 1, in f\n'
        f"ValueError: {SCRIPT} {IMG}\n"
    )
    page.get_by_label("Error text").fill(traceback)
    page.get_by_role("button", name="Find the record").click()
    page.wait_for_load_state()
    assert page.evaluate("typeof window.__xss") == "undefined"
    assert SCRIPT in page.inner_text("body")
