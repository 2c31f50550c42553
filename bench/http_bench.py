"""``POST /api/v1/match`` throughput under gunicorn, against ``GET /api/v1/health``, with wrk.

Run by hand (never in tests), on a database prepared by ``import_bench.py --keep``:

    .venv/bin/python bench/http_bench.py --db sqlite:////tmp/errata-bench/bench-100k.db
    .venv/bin/python bench/http_bench.py \
        --db postgresql://postgres@127.0.0.1:5432/errata_bench_100k

Starts ``gunicorn -w 2 -b 127.0.0.1:PORT app.wsgi:app`` on loopback (the served entry and
``gunicorn.conf.py``: each worker builds and settles its catalog as it starts), warms both
workers, then runs wrk (``--duration``
seconds, 2 threads, 16 connections) on the trivial health endpoint, then on match with a
rotating set of real tracebacks built from stored records (class, message, file, line; a
message's ``{placeholders}`` filled with a value), ``--rounds`` times in turn (this
machine's load moves between runs: a ratio is taken within a round). Prints each round's
requests/s, p50/p99 and match/trivial ratio, and the median ratio, then stops gunicorn.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from sqlalchemy import create_engine, text

ROOT = Path(__file__).resolve().parents[1]
WRK = "/usr/bin/wrk"
THREADS = 2


def driver_url(url: str) -> str:
    if url.startswith("postgresql://"):
        return "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return url


def bodies(url: str, count: int, seed: int) -> list[str]:
    engine = create_engine(driver_url(url))
    with engine.connect() as conn:
        rows = conn.execute(
            text("SELECT error_class, error_message, file_path, line_number FROM records")
        ).all()
    engine.dispose()
    rng = random.Random(seed)
    out = []
    for klass, message, path, line in rng.sample(rows, min(count, len(rows))):
        message = re.sub(r"\{[^{}]*\}", "8", message)
        frame = "/usr/lib/python3.11/site-packages/" + path.removeprefix("python/")
        tb = (
            "Traceback (most recent call last):\n"
            f'  File "{frame}", line {line}, in run\n'
            f"    raise {klass}(msg)\n"
            f"{klass}: {message}\n"
        )
        out.append(json.dumps({"text": tb}))
    return out


def lua_script(payloads: list[str], threads: int = THREADS) -> str:
    items = ",\n".join("[==[" + p + "]==]" for p in payloads)
    return (
        "local bodies = {\n" + items + "\n}\n"
        # Thread k of n sends bodies k+1, k+1+n, ...: no body twice before all were sent.
        "local threads = 0\n"
        "function setup(thread)\n"
        '  thread:set("offset", threads)\n'
        "  threads = threads + 1\n"
        "end\n"
        "local i = 0\n"
        'wrk.method = "POST"\n'
        'wrk.headers["Content-Type"] = "application/json"\n'
        "request = function()\n"
        f"  local k = (offset + i * {threads}) % #bodies + 1\n"
        "  i = i + 1\n"
        '  return wrk.format("POST", "/api/v1/match", nil, bodies[k])\n'
        "end\n"
    )


def to_ms(value: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", value).groups()  # type: ignore[union-attr]
    return float(number) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[unit]


def wrk(url: str, args: argparse.Namespace, script: str | None = None) -> dict[str, float]:
    cmd = [WRK, f"-t{THREADS}", f"-c{args.connections}", f"-d{args.duration}s", "--latency"]
    if script:
        cmd += ["-s", script]
    out = subprocess.run([*cmd, url], capture_output=True, text=True, check=True).stdout
    result = {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))}  # type: ignore[union-attr]
    for q in ("50", "99"):
        result[f"p{q}"] = to_ms(re.search(rf"^\s+{q}%\s+(\S+)", out, re.M).group(1))  # type: ignore[union-attr]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    result["non2xx"] = float(errors.group(1)) if errors else 0.0
    return result


def start_gunicorn(db: str, port: int, workers: int) -> subprocess.Popen[bytes]:
    """gunicorn on 127.0.0.1:``port`` over ``db``, answering health; rate limits off (they
    would answer most of a load test with 429: measure the service, not the limit)."""
    env = {**os.environ, "DATABASE_URL": db, "ERRATA_RATELIMIT_ENABLED": "0"}
    server = subprocess.Popen(
        [
            str(ROOT / ".venv/bin/gunicorn"),
            "-w",
            str(workers),
            "-b",
            f"127.0.0.1:{port}",
            "-t",
            "120",
            "app.wsgi:app",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/health", timeout=1).read()
            break
        except OSError:
            time.sleep(0.2)
    return server


def workers_rss(master: int) -> list[float]:
    """VmRSS (MB) of each gunicorn worker, the master's children."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) != master:
                continue
            status = (stat.parent / "status").read_text()
        except (OSError, IndexError, ValueError):
            continue
        found = re.search(r"VmRSS:\s+(\d+) kB", status)
        if found:
            out.append(int(found.group(1)) / 1024)
    return sorted(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="DATABASE_URL of a prepared database")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=10, help="unmeasured match load, s")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--bodies", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3, help="health then match, this often")
    parser.add_argument(
        "--distinct",
        action="store_true",
        help="every request a paste no worker has answered (with --bodies above the requests "
        "sent: the warm-up gets a disjoint set), so no answer comes from a worker's memo",
    )
    args = parser.parse_args()
    if not os.access(WRK, os.X_OK):
        parser.error(f"{WRK} not found: install wrk (apt-get install wrk)")
    payloads = bodies(args.db, args.bodies * (2 if args.distinct else 1), args.seed)
    warm_payloads = payloads
    if args.distinct:
        unique = list(dict.fromkeys(payloads))
        warm_payloads, payloads = unique[: len(unique) // 2], unique[len(unique) // 2 :]
    base = f"http://127.0.0.1:{args.port}"
    server = start_gunicorn(args.db, args.port, args.workers)
    try:
        t = time.perf_counter()
        for payload in warm_payloads[: 8 * args.workers]:  # each worker builds its index
            req = urllib.request.Request(
                base + "/api/v1/match", payload.encode(), {"Content-Type": "application/json"}
            )
            urllib.request.urlopen(req, timeout=120).read()
        print(f"warm-up (index builds) {time.perf_counter() - t:.1f} s")
        # With --distinct, each round sends its own share of the pastes.
        share = len(payloads) // args.rounds if args.distinct else len(payloads)
        sets = [warm_payloads] + [
            payloads[k * share : (k + 1) * share] if args.distinct else payloads
            for k in range(args.rounds)
        ]
        scripts = []
        for texts in sets:
            with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
                f.write(lua_script(texts))
            scripts.append(f.name)
        # Until both workers have built their index (seconds at 100k), one of them is busy:
        # run match under load once, unmeasured, so the measured runs see warm workers.
        wrk(
            base + "/api/v1/match",
            argparse.Namespace(**{**vars(args), "duration": args.warmup}),
            scripts[0],
        )
        rounds = [
            (wrk(base + "/api/v1/health", args), wrk(base + "/api/v1/match", args, script))
            for script in scripts[1:]
        ]
        for name in scripts:
            os.unlink(name)
        rss = workers_rss(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"{args.db}: gunicorn -w {args.workers}, wrk -t2 -c{args.connections} -d{args.duration}s")
    ratios = []
    for k, (health, match) in enumerate(rounds, 1):
        for name, r in (("GET /api/v1/health", health), ("POST /api/v1/match", match)):
            print(
                f"  {k} {name:<20} {r['rps']:8.0f} req/s  p50 {r['p50']:7.2f} ms"
                f"  p99 {r['p99']:7.2f} ms  non-2xx {r['non2xx']:.0f}"
            )
        ratios.append(match["rps"] / health["rps"])
        print(f"  {k} match / trivial throughput {ratios[-1]:.3f}")
        sent = match["rps"] * args.duration
        if args.distinct:
            state = "each once" if sent <= share else "WRAPPED: raise --bodies"
            print(f"  {k} distinct pastes: {sent:.0f} requests over {share} bodies ({state})")
    print(f"  match / trivial throughput, median of {len(ratios)}: {statistics.median(ratios):.3f}")
    print("  VmRSS per worker after the runs: " + ", ".join(f"{mb:.0f} MB" for mb in rss))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
