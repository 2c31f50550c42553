"""The worker task: a refused report (4xx) is final, and the harness is not run again."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

import repro.worker as worker

pytestmark = pytest.mark.unit


class _Api(BaseHTTPRequestHandler):
    result_status = 422

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        status = 200 if self.path.endswith("/start") else self.result_status
        body = json.dumps({"finished": False} if status == 200 else {"title": "refused"})
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def api(monkeypatch):
    server = HTTPServer(("127.0.0.1", 0), _Api)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("ERRATA_API_URL", f"http://127.0.0.1:{server.server_port}")
    monkeypatch.setenv("ERRATA_WORKER_TOKEN", "t")
    yield server
    server.shutdown()
    server.server_close()


def test_refused_report_does_not_rerun_the_harness(api, monkeypatch):
    calls = []

    def fake_run(*args, **kwargs):
        calls.append(args)
        return {"outcome": "COMPLETED", "result": {}}

    monkeypatch.setattr(worker, "run_harness", fake_run)
    job = {"job_id": "j1", "harness": "h", "env": "e", "payload": {}}
    outcome = worker.run_harness_job.apply(args=[job]).get()
    assert outcome.startswith("refused: j1/result: HTTP 422")
    assert len(calls) == 1
