"""Search latency (``app.records.queries.find``) on SQLite and PostgreSQL, against a LIKE scan.

Run by hand (never in tests), on databases prepared by ``import_bench.py --keep``:

    .venv/bin/python bench/search_bench.py \
        --sqlite /tmp/errata-bench/bench-100k.db --pg errata_bench_100k

The query mix is drawn (seeded) from the stored messages: common words, rare words (in at
most 3 records), mid-frequency words, 2- and 3-word runs taken from one message, and
prefixes (the last word cut to 3-5 letters), each once bare and once with a facet filter
(``errorClass`` of a record it came from). Every query runs once to warm up, then
``--rounds`` times timed. The baseline, timed in the same run, is a plain
``SELECT id FROM records WHERE error_message LIKE '%word%'`` (first query word).
Facet counts (``with_facets=True``) are timed on their own. ``--dump FILE`` writes each
query's ids, order and total so two runs (or two backends) can be compared exactly.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import text  # noqa: E402

from app import create_app  # noqa: E402
from app.extensions import db  # noqa: E402
from app.records.queries import RecordQuery, facet_counts, find  # noqa: E402
from app.search.text import query_terms, tokens  # noqa: E402
from bench._common import ms, timed  # noqa: E402

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432"


def query_mix(
    rows: list[tuple[str, str]], seed: int, per_kind: int
) -> list[tuple[str, RecordQuery]]:
    """(kind, query) pairs drawn from the stored (message, errorClass) rows."""
    rng = random.Random(seed)
    docs = [(tokens(m), c) for m, c in rows]
    df: Counter[str] = Counter()
    for words, _ in docs:
        df.update(set(words))
    by_df = sorted(df, key=lambda w: (-df[w], w))
    common = by_df[:per_kind]
    rare = sorted(w for w in df if df[w] <= 3 and len(w) >= 4 and not w.isdigit())
    mid = sorted(w for w in df if 50 <= df[w] <= 2000 and not w.isdigit())
    long_docs = [d for d in docs if len(d[0]) >= 3]
    klass_of: dict[str, list[str]] = {}
    for words, klass in docs:
        for w in set(words):
            klass_of.setdefault(w, []).append(klass)

    def runs(n: int) -> list[str]:
        out = []
        for _ in range(per_kind):
            words, _ = rng.choice(long_docs)
            i = rng.randrange(len(words) - n + 1)
            out.append(" ".join(words[i : i + n]))
        return out

    sources = [w for w in rng.sample(common + mid, per_kind) if len(w) > 3]
    prefixes = [(w[: rng.randint(3, 5)], w) for w in sources]
    kinds = {
        "common": common,
        "rare": rng.sample(rare, min(per_kind, len(rare))),
        "mid": rng.sample(mid, min(per_kind, len(mid))),
        "2 words": runs(2),
        "3 words": runs(3),
        "prefix": prefixes,
    }
    out: list[tuple[str, RecordQuery]] = []
    for kind, qs in kinds.items():
        for item in qs:
            q, source = item if isinstance(item, tuple) else (item, query_terms(item)[0])
            out.append((kind, RecordQuery(q=q)))
            klass = rng.choice(klass_of[source])
            out.append((kind + " +facet", RecordQuery(q=q, filters={"errorClass": [klass]})))
    return out


def bench(name: str, url: str, args: argparse.Namespace, dump: dict[str, Any]) -> None:
    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        session = db.session
        n = session.execute(text("SELECT count(*) FROM records")).scalar_one()
        rows = [
            tuple(r)
            for r in session.execute(
                text("SELECT error_message, error_class FROM records ORDER BY id")
            )
        ]
        mix = query_mix(rows, args.seed, args.per_kind)
        print(f"--- {name}: {n} records, {len(mix)} queries x {args.rounds} rounds")

        def run_find(item: tuple[str, RecordQuery]) -> None:
            find(session, item[1], with_lists=False)  # as GET /api/v1/search
            session.rollback()  # end the read transaction, drop the identity map

        def run_like(item: tuple[str, RecordQuery]) -> None:
            word = query_terms(item[1].q)[0]
            session.execute(
                text("SELECT id FROM records WHERE error_message LIKE :p"), {"p": f"%{word}%"}
            ).all()
            session.rollback()

        like = timed(run_like, mix, args.rounds, warmup=True)
        l50 = statistics.median(like)
        everything = timed(run_find, mix, args.rounds, warmup=True)
        print(f"  LIKE scan (baseline)  {ms(like, 2)}")
        print(
            f"  find, all queries     {ms(everything, 2)}   "
            f"p50 / LIKE p50 {statistics.median(everything) / l50:6.3f}"
        )
        kinds = [k for k, _ in mix] * args.rounds
        for kind in dict.fromkeys(kinds):
            t = [s for k, s in zip(kinds, everything, strict=True) if k == kind]
            print(f"    {kind:<15} {ms(t, 2)}   ({len(t) // args.rounds} q)")
        facet_items = mix[:: max(1, len(mix) // args.facet_queries)]
        facets = timed(
            lambda item: (facet_counts(session, item[1]), session.rollback()),
            facet_items,
            warmup=True,
        )
        print(f"  facet_counts only     {ms(facets, 2)}   ({len(facet_items)} q)")
        browse = timed(
            lambda item: (find(session, RecordQuery(filters=item[1].filters)), session.rollback()),
            [m for m in mix if m[1].filters][:20],
            args.rounds,
            warmup=True,
        )
        print(f"  no query, facet only  {ms(browse, 2)}")
        out = {}
        for kind, q in mix:
            r = find(session, q)
            out[f"{kind}|{q.q}|{json.dumps(q.filters, sort_keys=True)}"] = {
                "ids": [rec.id for rec in r.records],
                "scores": [r.scores.get(rec.id) for rec in r.records],
                "total": r.total,
            }
            session.rollback()
        dump[name] = out
        db.engine.dispose()
    if args.dump:
        args.dump.write_text(json.dumps(dump, indent=1, sort_keys=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sqlite", type=Path, help="SQLite file prepared by import_bench.py")
    parser.add_argument("--pg", help="PostgreSQL database errata_bench_* prepared likewise")
    parser.add_argument("--per-kind", type=int, default=25)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--facet-queries", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--dump", type=Path, help="write ids/order/total per query as JSON")
    args = parser.parse_args()
    dump: dict[str, Any] = {}
    if args.sqlite:
        bench("sqlite", f"sqlite:///{args.sqlite.resolve()}", args, dump)
    if args.pg:
        bench("postgresql", f"postgresql+psycopg://postgres@127.0.0.1:5432/{args.pg}", args, dump)
    if len(dump) == 2:
        a, b = dump["sqlite"], dump["postgresql"]
        same = sum(1 for k in a if k in b and a[k]["ids"] == b[k]["ids"])
        print(f"same ids in the same order on both backends: {same}/{len(a)} queries")


if __name__ == "__main__":
    main()
