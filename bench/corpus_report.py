"""Raise sites per release by form, how many the drafter turns into records, and what the
merged corpus holds: a Markdown table from a built corpus's `.meta.json`.

    .venv/bin/flask corpus build --no-load
    .venv/bin/python bench/corpus_report.py [META_JSON]   # default: the newest built
"""

from __future__ import annotations

import gzip
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.corpus.fetch import cache_dir  # noqa: E402
from app.drafts.cxx import NATIVE_FORMS  # noqa: E402
from app.drafts.scan import DRAFTED_WITH_STATEMENTS as STATEMENT_FORMS  # noqa: E402
from app.drafts.scan import FORMS  # noqa: E402


def main(argv: list[str]) -> int:
    if argv:
        # The corpus file or its `.meta.json` beside it.
        meta_path = Path(
            argv[0].removesuffix(".jsonl.gz").removesuffix(".meta.json") + ".meta.json"
        )
        if not meta_path.is_file():
            print(f"{meta_path}: no such corpus meta file", file=sys.stderr)
            return 1
    else:
        built = sorted(
            (cache_dir() / "corpus").glob("corpus-*.meta.json"), key=lambda p: p.stat().st_mtime
        )
        if not built:
            print("no built corpus: run `flask corpus build --no-load` first", file=sys.stderr)
            return 1
        meta_path = built[-1]
    meta = json.loads(meta_path.read_text())
    shown = [*FORMS, *NATIVE_FORMS]
    print("| package release | " + " | ".join(shown) + " | all | drafted |")
    print("| --- |" + " ---: |" * (len(shown) + 2))
    for rel in meta["releases"]:
        forms, drafted = rel["forms"], rel["drafted"]
        cells = [
            f"{forms.get(f, 0)}"
            + (f" ({drafted[f]})" if f in drafted and drafted[f] != forms.get(f) else "")
            for f in shown
        ]
        print(
            f"| {rel['package']} {rel['version']} | "
            + " | ".join(cells)
            + f" | {sum(forms.values())} | {sum(drafted.values())} |"
        )
    corpus = meta_path.with_name(meta_path.name.replace(".meta.json", ".jsonl.gz"))
    per_repo: Counter[str] = Counter()
    curated_like: Counter[bool] = Counter()
    statements: Counter[tuple[str, str]] = Counter()  # (release, form) -> sites
    merged_statements: Counter[str] = Counter()
    with gzip.open(corpus, "rt", encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            per_repo[doc["record"]["repo"]] += 1
            curated_like[len(doc["locations"]) > 1] += 1
            form = doc["site"]["form"]
            if form in STATEMENT_FORMS:
                merged_statements[form] += 1
                for loc in doc["locations"]:
                    statements[(loc["release"], form)] += 1
    if statements:
        print()
        print("Statement sites and reported messages (sglang; each is a record):")
        print()
        print("| release | " + " | ".join(STATEMENT_FORMS) + " |")
        print("| --- |" + " ---: |" * len(STATEMENT_FORMS))
        for rel in meta["releases"]:
            row = [statements[(rel["version"], f)] for f in STATEMENT_FORMS]
            if rel["package"] == "sglang" and any(row):
                print(f"| sglang {rel['version']} | " + " | ".join(map(str, row)) + " |")
        merged = ", ".join(f"{f}: {merged_statements[f]}" for f in STATEMENT_FORMS)
        print(f"\nmerged statement-site records: {sum(merged_statements.values())} ({merged})")
    print()
    repos = ", ".join(f"{r}: {n}" for r, n in per_repo.items())
    print(f"merged records: {meta['records']} ({repos});")
    size = corpus.stat().st_size / 1e6
    print(f"seen in more than one pinned release: {curated_like[True]}; file {size:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
