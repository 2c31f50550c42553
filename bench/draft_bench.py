"""Time drafting with this checkout's drafter against another commit's.

Run by hand (never in tests):

    pip download --no-deps sglang==0.5.19 -d /tmp/whl
    .venv/bin/python bench/draft_bench.py --wheel /tmp/whl/sglang-0.5.19-*.whl --baseline HEAD
    .venv/bin/python bench/draft_bench.py --pins data/corpus/releases.json --baseline HEAD

The baseline commit is checked out in a temporary git worktree; each side works in a fresh
process, the two taking turns for ``--rounds`` rounds. ``--wheel`` drafts one release (the
corpus build's own call, statement sites included); ``--pins`` builds the corpus file of a
pins file as `flask corpus build --no-load` does (drafting ``--jobs`` releases at once, then
merging), into an empty cache whose wheels are those of ``--cache`` (``ERRATA_CACHE_DIR``;
missing ones are downloaded there first). It prints each time, the median ratio (this
checkout / baseline; below 1 is faster) and whether the two outputs are identical (the
decompressed corpus file, or the release's drafts), which a pure speed-up must keep.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.corpus.fetch import FetchError, cache_dir, ensure_wheel  # noqa: E402
from app.corpus.pins import PinError, load_pins  # noqa: E402

# Run in a child whose sys.path starts at the checkout to time: prints seconds, sites, digest.
_CHILD = """
import hashlib, json, sys, time
from pathlib import Path
from app.corpus.draft import draft_release
wheel, prefix, include, statements = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
start = time.perf_counter()
draft = draft_release(Path(wheel), prefix, (include,) if include else (), (), statements, ())
seconds = time.perf_counter() - start
text = json.dumps(draft.to_dict(), sort_keys=True)
print(json.dumps({"seconds": seconds, "sites": len(draft.sites),
                  "digest": hashlib.sha256(text.encode()).hexdigest()}))
"""

# The same for a pins file: builds its corpus file in an empty cache (wheels linked in).
_CHILD_PINS = """
import gzip, hashlib, json, sys, tempfile, time
from pathlib import Path
from app.corpus.build import build_corpus
from app.corpus.pins import load_pins
pins, wheels, jobs = load_pins(Path(sys.argv[1])), Path(sys.argv[2]), int(sys.argv[3])
with tempfile.TemporaryDirectory(prefix="draft-bench-cache-") as tmp:
    (Path(tmp) / "wheels").symlink_to(wheels)
    start = time.perf_counter()
    built = build_corpus(pins, Path(tmp), None, jobs)
    seconds = time.perf_counter() - start
    with gzip.open(built.path, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()
print(json.dumps({"seconds": seconds, "sites": built.records, "digest": digest}))
"""


def draft_once(checkout: Path, args: argparse.Namespace) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    if args.pins is not None:
        argv = [_CHILD_PINS, str(args.pins.resolve()), str(args.wheels), str(args.jobs)]
    else:
        statements = "1" if args.statements else "0"
        argv = [_CHILD, str(args.wheel), args.prefix, args.include, statements]
    out = subprocess.run(
        [sys.executable, "-c", *argv],
        cwd=checkout,
        env=env,
        check=False,
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"drafting with {checkout} failed: {last}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def fetch_wheels(pins: Path, cache: Path | None, parser: argparse.ArgumentParser) -> Path:
    """The wheels folder of the cache, with every pinned wheel in it (downloaded if missing)."""
    wheels = (cache if cache is not None else cache_dir()) / "wheels"
    try:
        for release in load_pins(pins).releases:
            ensure_wheel(release, wheels)
    except (PinError, FetchError) as exc:
        parser.error(str(exc))
    return wheels.resolve()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--wheel", type=Path, help="a release's wheel")
    what.add_argument("--pins", type=Path, help="a pins file: build its corpus file")
    parser.add_argument("--cache", type=Path, help="where the wheels are (ERRATA_CACHE_DIR)")
    parser.add_argument("--jobs", type=int, default=2, help="releases drafted at once (--pins)")
    parser.add_argument("--baseline", default="HEAD", help="git commit to compare against")
    parser.add_argument("--prefix", default="python/", help="repository path of the wheel root")
    parser.add_argument("--include", default="sglang/", help="folder drafted ('' for all)")
    parser.add_argument(
        "--no-statements", dest="statements", action="store_false", help="raise sites only"
    )
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    if args.wheel is not None and not args.wheel.is_file():
        parser.error(f"--wheel {args.wheel}: no such file")
    if args.pins is not None:
        if args.jobs < 1:
            parser.error("--jobs must be at least 1")
        args.wheels = fetch_wheels(args.pins, args.cache, parser)
    with tempfile.TemporaryDirectory(prefix="draft-bench-") as tmp:
        base = Path(tmp) / "baseline"
        added = subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.baseline],
            check=False,
            capture_output=True,
            text=True,
        )
        if added.returncode != 0:
            parser.error(f"--baseline {args.baseline}: {added.stderr.strip() or 'not a commit'}")
        try:
            ours: list[dict] = []
            theirs: list[dict] = []
            for n in range(args.rounds):
                order = [(ROOT, ours), (base, theirs)]
                for checkout, into in order if n % 2 == 0 else reversed(order):
                    into.append(draft_once(checkout, args))
                print(
                    f"round {n + 1}: this checkout {ours[-1]['seconds']:.1f} s, "
                    f"baseline {theirs[-1]['seconds']:.1f} s",
                    flush=True,
                )
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)],
                check=False,
                capture_output=True,
            )
    ratio = statistics.median(
        a["seconds"] / b["seconds"] for a, b in zip(ours, theirs, strict=True)
    )
    same = {r["digest"] for r in ours} == {r["digest"] for r in theirs}
    name = args.wheel.name if args.wheel is not None else f"{args.pins} (--jobs {args.jobs})"
    print(
        f"{name}: {ours[-1]['sites']} sites; this checkout / baseline "
        f"({args.baseline}) median {ratio:.2f}x; output identical: {same}"
    )
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
