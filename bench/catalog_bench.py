"""Catalog at the loaded corpus: build time at worker start, memory per worker (RSS),
the first match after start, and in-process match p50 over instantiated messages.

    DATABASE_URL=... .venv/bin/python bench/catalog_bench.py [--queries 500]
"""

from __future__ import annotations

import argparse
import random
import re
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app import create_app  # noqa: E402
from app.corpus.catalog import get_catalog, warm  # noqa: E402
from app.extensions import db  # noqa: E402
from app.matching import match_error  # noqa: E402
from bench._common import ms  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=500)
    args = parser.parse_args()
    app = create_app()
    before = rss_mb()
    start = time.perf_counter()
    warm(app, wait=True)
    built = time.perf_counter() - start
    after = rss_mb()
    with app.app_context():
        catalog = get_catalog(db.session, str(db.engine.url))
        entries = catalog.index.entries()
        rng = random.Random(7)
        sample = rng.sample(entries, min(args.queries, len(entries)))
        texts = [
            f"{(e.error_class or 'Error').rsplit('.', 1)[-1]}: "
            + re.sub(r"\{[^{}]*\}", "7", e.error_message or "")
            for e in sample
        ]
        t0 = time.perf_counter()
        with app.test_client() as client:
            client.post("/api/v1/match", json={"text": texts[0]})
        first = time.perf_counter() - t0
        times, top1 = [], 0
        for entry, text in zip(sample, texts, strict=True):
            t = time.perf_counter()
            result = match_error(text, catalog.index, limit=5)
            times.append(time.perf_counter() - t)
            top1 += bool(result.matches) and result.matches[0].record_id == entry.record_id
    print(f"records {len(catalog.sites)}, index entries {len(entries)} (older wordings included)")
    print(f"catalog build at start {built:.2f} s; RSS {before:.0f} MB -> {after:.0f} MB")
    print(f"first HTTP match after start {first * 1000:.1f} ms")
    print(f"match_error {ms(times)} over {len(times)} messages")
    print(f"self-consistency: top-1 is the instantiated record for {top1}/{len(times)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
