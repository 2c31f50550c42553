"""Health latency on the default server (gunicorn + gunicorn.conf.py) under attack.

Run by hand (never in tests), on loopback only, bounded in time:

    .venv/bin/python bench/slow_clients.py [--seconds 20] [--slow 48]

Prepares a throwaway SQLite database (the dataset plus 40 records whose costly,
literal-less pattern was stored before the write checks, and one with the issue's
``.{1,1000}.{1,1000}x``), starts gunicorn from the repository root as ``make serve`` does,
and prints ``GET /api/v1/health`` p50/p95/max for: no attack; ``--slow`` slow-loris clients
trickling a header byte every 0.5 s (re-opened when cut); two clients posting 250 KiB
pastes that reach the costly patterns, back to back (within the default rate limits).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import pct  # noqa: E402
from tests.hostile.server import gunicorn, prepare_db, probe, trickle  # noqa: E402

COSTLY = r"[ab]*a(?:[ab]{90}){9}c"


def add_costly(db_url: str, count: int = 40) -> None:
    from sqlalchemy import create_engine, text

    engine = create_engine(db_url)
    with engine.begin() as conn:
        seed_id = conn.execute(text("SELECT id FROM records LIMIT 1")).scalar_one()
        columns = [r[1] for r in conn.execute(text("PRAGMA table_info(records)"))]
        names = ", ".join(c for c in columns if c not in {"id", "message_pattern"})
        for i in range(count):
            pattern = r".{1,1000}.{1,1000}x" if i == 0 else COSTLY
            conn.execute(
                text(
                    f"INSERT INTO records (id, message_pattern, {names}) "
                    f"SELECT :id, :pattern, {names} FROM records WHERE id = :seed"
                ),
                {"id": f"c{i:015d}", "pattern": pattern, "seed": seed_id},
            )
        conn.execute(text("UPDATE catalog_state SET version = version + 1"))
    engine.dispose()


def stats(name: str, latencies: list[float | None]) -> None:
    done = sorted(v * 1000 for v in latencies if v is not None)
    failed = len(latencies) - len(done)
    if not done:
        print(f"{name:<34} every probe failed ({failed})")
        return
    print(
        f"{name:<34} n={len(latencies):4d} p50 {pct(done, 0.5):7.1f} ms  "
        f"p95 {pct(done, 0.95):7.1f} ms  "
        f"max {done[-1]:7.1f} ms  failed {failed}"
    )


def paste_loop(base: str, stop: float, seed: int, answered: list[float]) -> None:
    rng = random.Random(seed)
    text = "ValueError: " + "".join(rng.choice("ab") for _ in range(250_000))
    body = json.dumps({"text": text}).encode()
    while time.monotonic() < stop:
        request = urllib.request.Request(
            base + "/api/v1/match", data=body, headers={"Content-Type": "application/json"}
        )
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                response.read()
            answered.append(time.perf_counter() - started)
        except OSError:
            time.sleep(0.05)  # 429 beyond the limit, or an error: count only answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--slow", type=int, default=48)
    args = parser.parse_args()
    probes = int(args.seconds / 0.07)
    with tempfile.TemporaryDirectory() as tmp:
        db_url = prepare_db(Path(tmp) / "errata.db", {})
        add_costly(db_url)
        with gunicorn(db_url, Path(tmp)) as base:
            port = int(base.rsplit(":", 1)[1])
            probe(base + "/api/v1/health", 20)  # warm both workers
            stats("no attack", probe(base + "/api/v1/health", probes))

            stop = time.monotonic() + args.seconds

            def loris() -> None:
                while time.monotonic() < stop:
                    trickle(port, args.slow, max(0.5, stop - time.monotonic()))

            attack = threading.Thread(target=loris)
            attack.start()
            stats(f"{args.slow} slow-loris clients", probe(base + "/api/v1/health", probes))
            attack.join()

            answered: list[float] = []
            stop = time.monotonic() + args.seconds
            pasters = [
                threading.Thread(target=paste_loop, args=(base, stop, i, answered))
                for i in range(2)
            ]
            for t in pasters:
                t.start()
            stats("2 clients, 250 KiB costly pastes", probe(base + "/api/v1/health", probes))
            for t in pasters:
                t.join()
            if answered:
                print(
                    f"{'  their match answers':<34} n={len(answered):4d} "
                    f"p50 {pct(answered, 0.5) * 1000:7.1f} ms  "
                    f"max {max(answered) * 1000:7.1f} ms"
                )


if __name__ == "__main__":
    main()
