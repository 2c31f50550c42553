"""Match latency and recall at 1k/10k/100k records, against the naive RE2 loop.

Run by hand (never in tests):

    pip download sglang==0.5.23 --no-deps -d /tmp/sgl
    .venv/bin/python bench/match_bench.py --wheel /tmp/sgl/sglang-0.5.23-*.whl

The corpus is the sglang drafts; it is scaled past its ~12.8k records by synthesising
distinct variants ("<pseudo-word>: <message>"). Queries are instantiated messages
(placeholders filled with plausible values) wrapped in a one-frame traceback.
"""

from __future__ import annotations

import argparse
import gc
import random
import re
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import re2  # noqa: E402

from app.drafts.extract import Part, Placeholder  # noqa: E402
from app.drafts.records import build_record, escape_literal, instantiate  # noqa: E402
from app.drafts.services import iter_sites  # noqa: E402
from app.matching import MatchIndex, PatternEntry, match_error  # noqa: E402
from app.matching.services import default_text_search  # noqa: E402
from bench._common import ms, pseudo_word, timed  # noqa: E402

_VALUES: list[tuple[str, tuple[str, ...]]] = [
    (r"size|num|len|count|rank|idx|index|step|dim|bs|tp|dp|pp|port|batch|tokens?", ("8", "4096")),
    (r"path|dir|file", ("/models/llama-3-8b/config.json",)),
    (r"dtype", ("torch.bfloat16",)),
    (r"shape", ("torch.Size([4, 4096])",)),
    (r"model|name|arch", ("Qwen2ForCausalLM", "llama-3-8b")),
    (r"backend|mode|method|type|kind", ("flashinfer", "fp8")),
]


@dataclass(frozen=True)
class Case:
    entry: PatternEntry
    parts: tuple[Part, ...]


def value_for(name: str, rng: random.Random) -> str:
    lowered = name.lower()
    for pattern, choices in _VALUES:
        if re.search(pattern, lowered):
            return rng.choice(choices)
    return rng.choice(("foo_bar", "None", "abc123"))


def load_cases(wheel: Path) -> list[Case]:
    cases = []
    for path, lines, site in iter_sites(wheel):
        rec = build_record(
            site,
            repo="sgl-project/sglang",
            sha="0" * 40,
            path="python/" + path,
            source_lines=lines,
            analyzed_at="",
        )
        entry = PatternEntry(
            rec["id"],
            rec["messagePattern"],
            rec["errorClass"],
            rec["filePath"],
            rec["lineNumber"],
            rec["errorMessage"],
        )
        cases.append(Case(entry, site.parts))
    return cases


def scale(cases: list[Case], size: int) -> list[Case]:
    out = list(cases[:size])
    n = 0
    while len(out) < size:
        base = cases[n % len(cases)]
        word = pseudo_word(n)
        e = base.entry
        entry = PatternEntry(
            f"{e.record_id}-{word}",
            escape_literal(word + ": ") + e.pattern,
            e.error_class,
            e.file_path,
            e.line_number,
            f"{word}: {e.error_message}",
        )
        out.append(Case(entry, (word + ": ", *base.parts)))
        n += 1
    return out


def query_text(case: Case, rng: random.Random) -> tuple[str, str]:
    values = {p.name: value_for(p.name, rng) for p in case.parts if isinstance(p, Placeholder)}
    message = instantiate(case.parts, values).strip()
    e = case.entry
    frame_file = "/usr/lib/python3.11/site-packages/" + (e.file_path or "x.py").removeprefix(
        "python/"
    )
    text = (
        "Traceback (most recent call last):\n"
        f'  File "{frame_file}", line {e.line_number}, in run\n'
        f"    raise {e.error_class}(msg)\n"
        f"{e.error_class}: {message}\n"
    )
    return message, text


def run(cases: list[Case], size: int, queries: int, naive_queries: int, seed: int) -> None:
    rng = random.Random(seed)
    corpus = scale(cases, size)
    t0 = time.perf_counter()
    index = MatchIndex(c.entry for c in corpus)
    build_s = time.perf_counter() - t0
    # As a serving worker does once its catalog is built (app/corpus/catalog.py `_settle`).
    gc.collect()
    gc.freeze()
    t0 = time.perf_counter()
    default_text_search(index)  # the app builds it with its catalog; time it apart
    text_s = time.perf_counter() - t0
    sample = rng.sample(corpus, min(queries, len(corpus)))
    built = [(c, *query_text(c, rng)) for c in sample]
    texts = [text for _, _, text in built]
    messages = [message for _, message, _ in built]
    # Cold: each query's candidate patterns are compiled by RE2 on first use.
    cold = timed(lambda text: match_error(text, index), texts)
    warm = timed(lambda text: match_error(text, index), texts)
    warm_cpu = timed(lambda text: match_error(text, index), texts, clock=time.thread_time)
    search = timed(index.search, messages)
    top1 = sum(
        1
        for case, _, text in built
        if (r := match_error(text, index)).matches
        and r.matches[0].record_id == case.entry.record_id
    )
    # Message only (no frame): records sharing a message cannot be told apart, so count a
    # hit when the top record has the expected record's pattern.
    plain_top1 = 0
    for case, message, _ in built:
        r = match_error(f"{case.entry.error_class}: {message}", index)
        if r.matches and r.matches[0].why.pattern == case.entry.pattern:
            plain_top1 += 1
    compiled = [re2.compile(c.entry.pattern) for c in corpus]
    naive = timed(
        lambda message: [rx for rx in compiled if rx.search(message) is not None],
        messages[:naive_queries],
    )
    n50 = statistics.median(naive)
    print(
        f"--- {size} records: index build {build_s:.2f}s (+ default text search {text_s:.2f}s), "
        f"always-verify {index.always_verified}"
    )
    print(f"  match_error cold  {ms(cold)}  naive/cold-p50 {n50 / statistics.median(cold):7.0f}x")
    print(f"  match_error warm  {ms(warm)}  naive/warm-p50 {n50 / statistics.median(warm):7.0f}x")
    print(f"  match_error warm  CPU time {ms(warm_cpu)}")
    s50 = statistics.median(search)
    print(f"  index.search warm {ms(search)}  naive/search-p50 {n50 / s50:7.0f}x")
    print(f"  naive RE2 loop    {ms(naive)}  ({len(naive)} queries)")
    print(
        f"  recall@1 traceback {top1 / len(built):.4f} ({top1}/{len(built)}), "
        f"message only (same pattern) {plain_top1 / len(built):.4f}"
    )
    gc.unfreeze()


def self_check(cases: list[Case], seed: int) -> None:
    """Every draft pattern must fully match its own instantiated message."""
    rng = random.Random(seed)
    bad = 0
    for case in cases:
        message, _ = query_text(case, rng)
        if re2.compile(case.entry.pattern).fullmatch(message) is None:
            bad += 1
    print(
        f"self-check: {len(cases) - bad}/{len(cases)} instantiated messages fullmatch their pattern"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, required=True, help="sglang 0.5.23 wheel")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--naive-queries", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    t = time.perf_counter()
    cases = load_cases(args.wheel)
    random.Random(args.seed).shuffle(cases)
    print(f"{len(cases)} draft sites from {args.wheel.name} in {time.perf_counter() - t:.1f}s")
    self_check(cases, args.seed)
    for size in args.sizes:
        run(cases, size, args.queries, args.naive_queries, args.seed)


if __name__ == "__main__":
    main()
