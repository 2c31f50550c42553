"""Time drafting one release with this checkout's drafter against another commit's.

Run by hand (never in tests):

    pip download --no-deps sglang==0.5.19 -d /tmp/whl
    .venv/bin/python bench/draft_bench.py --wheel /tmp/whl/sglang-0.5.19-*.whl --baseline HEAD

The baseline commit is checked out in a temporary git worktree; each side drafts the wheel in
a fresh process (the corpus build's own call, statement sites included), the two taking turns
for ``--rounds`` rounds. It prints each time, the median ratio (this checkout / baseline;
below 1 is faster) and whether the two drafts are identical, which a pure speed-up must keep.
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


def draft_once(checkout: Path, args: argparse.Namespace) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            _CHILD,
            str(args.wheel),
            args.prefix,
            args.include,
            "1" if args.statements else "0",
        ],
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", type=Path, required=True, help="a release's wheel")
    parser.add_argument("--baseline", default="HEAD", help="git commit to compare against")
    parser.add_argument("--prefix", default="python/", help="repository path of the wheel root")
    parser.add_argument("--include", default="sglang/", help="folder drafted ('' for all)")
    parser.add_argument(
        "--no-statements", dest="statements", action="store_false", help="raise sites only"
    )
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    if not args.wheel.is_file():
        parser.error(f"--wheel {args.wheel}: no such file")
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
    print(
        f"{args.wheel.name}: {ours[-1]['sites']} sites; this checkout / baseline "
        f"({args.baseline}) median {ratio:.2f}x; drafts identical: {same}"
    )
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
