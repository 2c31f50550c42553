"""CPU instructions per request, counted by callgrind: repeatable where timings are not.

Run by hand (never in tests), on a database holding the full corpus (``flask corpus build``):

    .venv/bin/python bench/instructions.py --db sqlite:////tmp/full.db

This machine's timings move by half between runs of the same code; an instruction count
moves by well under one per cent. Three counts, each in its own process under
``valgrind --tool=callgrind``, counting only the measured loop (``callgrind_control -i``
switches counting on after the catalog is built and every input has been seen once):

- ``health``: ``GET /api/v1/health`` through the app's WSGI callable (the baseline);
- ``match``: ``POST /api/v1/match`` with ``http_bench.py``'s tracebacks, same way (seen
  before: from the second on, each answer is the worker's memo);
- ``match_new``: the same, each traceback one the worker has not answered before (warmed
  on as many others), so every answer is ranked;
- ``match_error``: the held-out set's real pastes through ``match_error`` alone.

Prints instructions per call, and match / health (the app's share of the HTTP ratio;
gunicorn's and the client's work per request comes on top of both). Compare two
commits by running it in a checkout of each.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MODES = ("health", "match", "match_new", "match_error")


def _counting(on: bool) -> None:
    subprocess.run(
        ["callgrind_control", "-i", "on" if on else "off", str(os.getpid())],
        capture_output=True,
        check=False,
    )


def _wsgi_calls(db: str, mode: str, count: int) -> list[Callable[[], None]]:
    from werkzeug.test import EnvironBuilder

    from app import create_app
    from app.corpus.catalog import warm
    from bench.http_bench import bodies

    app = create_app({"SQLALCHEMY_DATABASE_URI": db, "RATELIMIT_ENABLED": False})
    warm(app, wait=True)  # as a gunicorn worker (app/wsgi.py) builds and settles its catalog

    def call_for(path: str, body: str | None) -> Callable[[], None]:
        environ = EnvironBuilder(
            path=path,
            method="POST" if body else "GET",
            data=body,
            content_type="application/json" if body else None,
            base_url="http://127.0.0.1:8765",
        ).get_environ()
        raw = (body or "").encode()

        def call() -> None:
            env = {**environ, "wsgi.input": io.BytesIO(raw)}
            status: list[str] = []
            for _ in app(env, lambda s, h, e=None: status.append(s)):
                pass
            if not status[0].startswith("200"):
                raise SystemExit(f"{path}: {status[0]}")

        return call

    if mode == "health":
        return [call_for("/api/v1/health", None)]
    return [call_for("/api/v1/match", b) for b in bodies(db, count, 7)]


def _new_match_calls(
    db: str, count: int
) -> tuple[list[Callable[[], None]], list[Callable[[], None]]]:
    """Calls to warm on, and as many others to count (each once: no memo answers them)."""
    calls = _wsgi_calls(db, "match", 2 * count)
    return calls[:count], calls[count:]


def _match_error_calls(db: str, cases: str | None) -> list[Callable[[], None]]:
    from app import create_app
    from app.corpus.catalog import get_catalog, warm
    from app.extensions import db as sa
    from app.matching import match_error
    from tests.matching.heldout import load_cases

    app = create_app({"SQLALCHEMY_DATABASE_URI": db, "TESTING": True})
    warm(app, wait=True)
    with app.app_context():
        index = get_catalog(sa.session, str(sa.engine.url)).index
    found = load_cases(Path(cases)) if cases else load_cases()
    return [lambda t=case.text: match_error(t, index) for case in found]


def worker(db: str, mode: str, calls: int, bodies: int, cases: str | None) -> None:
    """Inside callgrind: build, warm every input twice, count ``calls`` calls."""
    if mode == "match_new":
        warm, funcs = _new_match_calls(db, calls)
        for f in warm:
            f()
        _counting(True)
        for f in funcs:
            f()
        _counting(False)
        return
    if mode == "match_error":
        funcs = _match_error_calls(db, cases)
    else:
        funcs = _wsgi_calls(db, mode, bodies)
    for _ in range(2):
        for f in funcs:
            f()
    _counting(True)
    for i in range(calls):
        funcs[i % len(funcs)]()
    _counting(False)


def count(db: str, mode: str, calls: int, bodies: int, cases: str | None) -> int:
    """Instructions of ``calls`` calls of ``mode``, from a callgrind run of this script."""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--instr-atstart=no",
                f"--callgrind-out-file={tmp}/callgrind.out",
                sys.executable,
                __file__,
                "--db",
                db,
                "--worker",
                mode,
                "--calls",
                str(calls),
                "--bodies",
                str(bodies),
                *(["--cases", cases] if cases else []),
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "ERRATA_RATELIMIT_ENABLED": "0"},
            check=False,
        )
    found = re.search(r"Collected : (\d+)", out.stderr)
    if out.returncode != 0 or found is None:
        raise SystemExit(f"{mode}: callgrind run failed\n{out.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="DATABASE_URL of the built corpus")
    parser.add_argument("--calls", type=int, default=222, help="measured calls per mode")
    parser.add_argument("--bodies", type=int, default=200, help="match tracebacks (rotated)")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--cases", help="held-out case directory for match_error (default: all)")
    parser.add_argument("--worker", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.db, args.worker, args.calls, args.bodies, args.cases)
        return 0
    for tool in ("valgrind", "callgrind_control"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is not installed (apt-get install valgrind)")
    per: dict[str, Any] = {}
    for mode in args.modes:
        per[mode] = count(args.db, mode, args.calls, args.bodies, args.cases) / args.calls
        print(f"{mode:12s} {per[mode] / 1e6:8.3f} M instructions per call", flush=True)
    for mode in ("match", "match_new"):
        if mode in per and "health" in per:
            print(f"{mode} / health (app only) {per[mode] / per['health']:.2f}")
    print(json.dumps({k: round(v) for k, v in per.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
