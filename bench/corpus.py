"""Build an N-record JSONL corpus from the sglang drafts, for the search and HTTP benchmarks.

Run by hand (never in tests):

    .venv/bin/flask records draft --from /tmp/sgl/sglang-0.5.23-*.whl \
        --repo sgl-project/sglang --sha 0132848349585cfe6aae51c4941cbae872505f8a \
        -o /tmp/sgl/drafts.jsonl
    .venv/bin/python bench/corpus.py /tmp/sgl/drafts.jsonl -n 100000 -o /tmp/sgl/corpus-100k.jsonl

The first records are the drafts as they are (in file order); past the end of the drafts,
each further record is a variant of draft ``n % len(drafts)`` with a distinct pronounceable
word ``w`` (``pseudo_word(n)``): id ``<id>-<w>``, message ``"<w>: <message>"``, pattern
``"<w>: " + <pattern>``, so every variant is its own record with its own literal. The output
is deterministic and valid for ``flask records import``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.drafts.records import escape_literal  # noqa: E402
from bench._common import pseudo_word  # noqa: E402


def variant(envelope: dict, n: int) -> dict:
    """Draft ``envelope`` made distinct by the n-th pseudo-word."""
    word = pseudo_word(n)
    rec = dict(envelope["record"])
    rec["id"] = f"{rec['id']}-{word}"
    rec["slug"] = f"{word}-{rec['slug']}"[:500]
    rec["errorMessage"] = f"{word}: {rec['errorMessage']}"
    rec["messagePattern"] = escape_literal(f"{word}: ") + rec["messagePattern"]
    return {**envelope, "record": rec}


def build(drafts: list[dict], size: int) -> list[dict]:
    out = list(drafts[:size])
    n = 0
    while len(out) < size:
        out.append(variant(drafts[n % len(drafts)], n))
        n += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("drafts", type=Path, help="drafts JSONL (flask records draft -o)")
    parser.add_argument("-n", "--size", type=int, required=True, help="records to write")
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args()
    with args.drafts.open(encoding="utf-8") as f:
        drafts = [json.loads(line) for line in f if line.strip()]
    corpus = build(drafts, args.size)
    with args.output.open("w", encoding="utf-8") as f:
        for envelope in corpus:
            f.write(json.dumps(envelope, ensure_ascii=False) + "\n")
    print(f"{len(corpus)} records ({len(drafts)} drafts) -> {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
