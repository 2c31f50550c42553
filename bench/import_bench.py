"""Time ``flask records import`` of a corpus file on SQLite and PostgreSQL (records/s).

Run by hand (never in tests):

    .venv/bin/python bench/import_bench.py /tmp/errata-bench/corpus-100k.jsonl \
        --sqlite /tmp/errata-bench/bench-100k.db --pg errata_bench_100k [--keep]

Each target is created fresh (the SQLite file is removed, the PostgreSQL database dropped
and created), migrated with ``flask db upgrade`` and then imported in one ``flask records
import`` process; the import is what is timed. ``--keep`` leaves the databases for
``search_bench.py`` and ``http_bench.py``; otherwise they are dropped.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432"


def flask(url: str, *args: str) -> float:
    env = {**os.environ, "FLASK_APP": "app:create_app", "DATABASE_URL": url}
    t = time.perf_counter()
    subprocess.run(
        [str(ROOT / ".venv/bin/flask"), *args], cwd=ROOT, env=env, check=True, capture_output=True
    )
    return time.perf_counter() - t


def psql(sql: str, database: str = "postgres") -> None:
    subprocess.run(["psql", f"{PG_ADMIN}/{database}", "-qc", sql], check=True)


def pg_name(name: str) -> str:
    if not name.startswith("errata_bench_"):
        sys.exit("PostgreSQL bench databases must be named errata_bench_*")
    return name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--sqlite", type=Path, help="SQLite file to (re)create")
    parser.add_argument("--pg", type=pg_name, help="PostgreSQL database errata_bench_*")
    parser.add_argument("--keep", action="store_true", help="keep the databases")
    args = parser.parse_args()
    with args.corpus.open("rb") as f:
        n = sum(1 for _ in f)
    targets: list[tuple[str, str]] = []
    if args.sqlite:
        args.sqlite.unlink(missing_ok=True)
        targets.append(("sqlite", f"sqlite:///{args.sqlite.resolve()}"))
    if args.pg:
        psql(f"DROP DATABASE IF EXISTS {args.pg}")
        psql(f"CREATE DATABASE {args.pg}")
        targets.append(("postgresql", f"{PG_ADMIN}/{args.pg}"))
    print(f"{n} records in {args.corpus}")
    for name, url in targets:
        flask(url, "db", "upgrade")
        seconds = flask(url, "records", "import", str(args.corpus))
        print(f"  {name:<10} import {seconds:7.1f} s  {n / seconds:8.0f} records/s")
        if name == "postgresql":
            # What autovacuum would do eventually: without it the planner has no statistics
            # and index-only scans fetch every heap page (search joins 10x slower).
            t = time.perf_counter()
            psql("VACUUM ANALYZE", database=args.pg)
            print(f"  {name:<10} VACUUM ANALYZE {time.perf_counter() - t:.1f} s")
    if not args.keep:
        if args.sqlite:
            args.sqlite.unlink(missing_ok=True)
        if args.pg:
            psql(f"DROP DATABASE IF EXISTS {args.pg}")


if __name__ == "__main__":
    main()
