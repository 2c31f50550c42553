"""Load test: a mix of match, search and record reads against gunicorn, at rising concurrency.

Run by hand (never in tests), on loopback only, bounded in time:

    apt-get install wrk   # once
    .venv/bin/python bench/load.py --db sqlite:////tmp/errata-bench/bench-100k.db
    .venv/bin/python bench/load.py --db postgresql://postgres@127.0.0.1:5432/errata_bench_100k

Starts ``gunicorn -w 2 'app:create_app()'`` on 127.0.0.1 with rate limits off (they would
answer the load with 429), warms both workers, then for each concurrency step (default 4, 16,
64 connections, ``--duration`` seconds each, 60 by default) runs wrk twice: the trivial
``GET /api/v1/health`` (the baseline, same server, same step) and the mix (50% match with real
tracebacks, 30% search, 20% record reads), probing health every 50 ms during the mix.
Prints throughput, p50/p99, errors (non-2xx and socket errors; target 0), the mix/baseline
throughput ratio and health's p95 during the mix, per step.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from sqlalchemy import create_engine, text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._common import pct  # noqa: E402
from bench.http_bench import WRK, bodies, driver_url, start_gunicorn, to_ms  # noqa: E402

SEARCH_WORDS = (
    "cuda",
    "attention",
    "backend",
    "not supported",
    "memory",
    "tensor",
    "quant",
    "invalid",
    "expected",
    "model config",
    "lora",
    "sampling",
    "mla",
    "flashinf",
)


def record_ids(url: str, count: int, seed: int) -> list[str]:
    engine = create_engine(driver_url(url))
    with engine.connect() as conn:
        ids = list(conn.execute(text("SELECT id FROM records")).scalars())
    engine.dispose()
    return random.Random(seed).sample(ids, min(count, len(ids)))


def lua_mix(matches: list[str], ids: list[str], seed: int) -> str:
    rng = random.Random(seed)
    requests = []
    for i in range(1000):
        kind = rng.random()
        if kind < 0.5:
            requests.append(("POST", "/api/v1/match", matches[i % len(matches)]))
        elif kind < 0.8:
            q = rng.choice(SEARCH_WORDS).replace(" ", "+")
            requests.append(("GET", f"/api/v1/search?q={q}&per_page=20", ""))
        else:
            requests.append(("GET", f"/api/v1/records/{rng.choice(ids)}?compact=1", ""))
    rows = ",\n".join(
        "{[==[" + m + "]==], [==[" + p + "]==], [==[" + b + "]==]}" for m, p, b in requests
    )
    return (
        "local reqs = {\n" + rows + "\n}\n"
        "local i = 0\n"
        "request = function()\n"
        "  i = i % #reqs + 1\n"
        "  local r = reqs[i]\n"
        "  local headers = nil\n"
        '  if r[1] == "POST" then headers = {["Content-Type"] = "application/json"} end\n'
        '  if r[3] == "" then return wrk.format(r[1], r[2], headers, nil) end\n'
        "  return wrk.format(r[1], r[2], headers, r[3])\n"
        "end\n"
    )


def run_wrk(url: str, connections: int, duration: int, script: str | None) -> dict[str, float]:
    threads = min(2, connections)
    cmd = [
        WRK,
        f"-t{threads}",
        f"-c{connections}",
        f"-d{duration}s",
        "--latency",
        "--timeout",
        "10s",
    ]
    if script:
        cmd += ["-s", script]
    out = subprocess.run([*cmd, url], capture_output=True, text=True, check=True).stdout
    found = re.search(r"Requests/sec:\s+([\d.]+)", out)
    result = {"rps": float(found.group(1)) if found else 0.0}
    for q in ("50", "99"):
        m = re.search(rf"^\s+{q}%\s+(\S+)", out, re.M)
        result[f"p{q}"] = to_ms(m.group(1)) if m else float("nan")
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    sockets = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out
    )
    result["errors"] = float(non2xx.group(1)) if non2xx else 0.0
    if sockets:
        result["errors"] += sum(float(g) for g in sockets.groups())
    total = re.search(r"(\d+) requests in", out)
    result["requests"] = float(total.group(1)) if total else 0.0
    return result


def probe_health(base: str, stop: float, out: list[float]) -> None:
    """One ``GET /api/v1/health`` every 50 ms until ``stop`` (ms; a failure counts 10 s)."""
    while time.monotonic() < stop:
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(base + "/api/v1/health", timeout=10) as response:
                response.read()
            out.append((time.perf_counter() - started) * 1000)
        except OSError:
            out.append(10_000.0)
        time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="DATABASE_URL of a prepared database")
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--duration", type=int, default=60, help="seconds per step (max 120)")
    parser.add_argument("--steps", default="4,16,64", help="connections per step")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    duration = max(1, min(args.duration, 120))
    steps = [max(1, min(int(s), 256)) for s in args.steps.split(",")]
    matches = bodies(args.db, 200, args.seed)
    ids = record_ids(args.db, 500, args.seed)
    base = f"http://127.0.0.1:{args.port}"
    server = start_gunicorn(args.db, args.port, args.workers)
    results = []
    try:
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
            f.write(lua_mix(matches, ids, args.seed))
        run_wrk(base + "/", 4, 10, f.name)  # warm both workers (pattern index, caches)
        for connections in steps:
            health = run_wrk(base + "/api/v1/health", connections, duration, None)
            probes: list[float] = []
            prober = threading.Thread(
                target=probe_health, args=(base, time.monotonic() + duration, probes)
            )
            prober.start()
            mix = run_wrk(base + "/", connections, duration, f.name)
            prober.join()
            mix["health_during_p95"] = pct(probes, 0.95)
            results.append((connections, health, mix))
            print(
                f"c={connections:<3} mix {mix['rps']:7.0f} req/s p50 {mix['p50']:7.2f} ms "
                f"p99 {mix['p99']:7.2f} ms errors {mix['errors']:.0f}/{mix['requests']:.0f} | "
                f"health {health['rps']:7.0f} req/s | mix/health {mix['rps'] / health['rps']:.3f}"
                f" | health during the mix: p95 {mix['health_during_p95']:.1f} ms",
                flush=True,
            )
        os.unlink(f.name)
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(
        json.dumps(
            {
                "db": args.db.split("@")[-1],
                "duration_s": duration,
                "steps": [{"connections": c, "mix": m, "health": h} for c, h, m in results],
            }
        )
    )


if __name__ == "__main__":
    main()
