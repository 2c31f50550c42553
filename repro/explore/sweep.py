"""The sweep, run inside the sglang environment (``repro.explore`` starts it there).

Explore -> for each sglang raise site: minimise its trigger, re-run it 3 times, run it
on every platform, test each candidate fix -> write one JSON file of sites.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from repro.explore._engine import Explorer, code_hash
from repro.explore._scenario import SITE, Scenario, verdict
from repro.explore._sites import AREAS, area_of, describe
from repro.harnesses._simulate import SIMULATED

REPO_ROOT = Path(__file__).resolve().parents[2]
REPEATS = 3


def _args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m repro.explore")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--cache-dir", type=Path, required=True)
    p.add_argument("--platforms", default=",".join([*SIMULATED, "cpu"]))
    p.add_argument("--models", required=True)
    p.add_argument("--budget-min", type=float, default=50.0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--pairs", type=int, default=400)
    p.add_argument("--per-site", type=int, default=8)
    p.add_argument("--flags", default="", help="only these flags (comma list; for tests)")
    p.add_argument("--max-sites", type=int, default=0, help="stop after N sites (tests)")
    return p.parse_args(argv)


def site_record(ex: Explorer, site: tuple[str, int], root: Path) -> dict[str, Any]:
    first: Scenario = ex.sites[site]["scenario"]
    error = ex.sites[site]["error"]
    minimal = ex.minimize(site, first)
    repeats = [
        verdict(a, minimal.platform in SIMULATED)[1] == site for a in _repeat(ex, minimal, REPEATS)
    ]
    per_platform = {}
    others = [replace(minimal, platform=p) for p in ex.platforms]
    answers = ex.run(others)
    for s in others:
        kind, at = verdict(answers[s.key], s.platform in SIMULATED)
        per_platform[s.platform] = (
            "REPRODUCED" if at == site else ("DIFFERENT_ERROR" if kind == SITE else kind)
        )
    info = describe(root, site[0], site[1])
    fixes = ex.fixes(site, minimal, str(error.get("stage")))
    return {
        "file": site[0],
        "line": site[1],
        "function": info["function"] or error.get("function"),
        "kind": info["kind"],
        "template": info["template"],
        "area": area_of(site[0]),
        "class": error.get("class"),
        "qualname": error.get("qualname"),
        "message": error.get("message"),
        "stage": error.get("stage"),
        "trigger": {
            "command": minimal.command(),
            "flags": list(minimal.extra),
            "platform": minimal.platform,
            "model": minimal.model,
            **({"config": minimal.edits()} if minimal.patch else {}),
        },
        "repeats": repeats,
        "reproduced": all(repeats),
        "platforms": per_platform,
        "fixes": fixes,
        "fixed": [f["command"] for f in fixes if f["outcome"] == "FIXED"],
    }


def _repeat(ex: Explorer, scenario: Scenario, times: int) -> list[dict[str, Any]]:
    """Fresh runs (not the cache): the point is to see it happen again."""
    from repro.explore._pool import run_all
    from repro.explore._scenario import job

    jobs = ((i, job(scenario)) for i in range(times))
    return [a for _, a in run_all(jobs, ex.workers, ex.timeout_s)]


def coverage(sites: list[dict[str, Any]]) -> dict[str, Any]:
    reproduced = [s for s in sites if s["reproduced"] and s["kind"] in ("raise", "assert")]
    fixed = [s for s in reproduced if s["fixed"]]
    by_area: dict[str, dict[str, int]] = {}
    for name in [a for a, _ in AREAS] + ["other"]:
        by_area[name] = {
            "reproduced": sum(1 for s in reproduced if s["area"] == name),
            "fixed": sum(1 for s in fixed if s["area"] == name),
        }
    return {
        "sites_seen": len(sites),
        "implicit_errors": sum(1 for s in sites if s["kind"] == "implicit"),
        "reproduced_raise_sites": len(reproduced),
        "with_fixed_fix": len(fixed),
        "by_area": by_area,
        "by_platform": dict(Counter(s["trigger"]["platform"] for s in reproduced)),
    }


def warm_imports() -> int:
    """Import every attention backend module once in the parent so forks don't each pay
    for it (as the harness does); one that fails to import is left for the child."""
    import importlib
    import pkgutil

    import sglang.srt.layers.attention as attention

    count = 0
    for info in pkgutil.iter_modules(attention.__path__, attention.__name__ + "."):
        if info.name.endswith("_backend"):
            try:
                importlib.import_module(info.name)
                count += 1
            except Exception:  # the child meets and reports it
                continue
    return count


def main(argv: list[str]) -> int:
    args = _args(argv)
    started = time.monotonic()
    import sglang

    root = Path(sglang.__file__).resolve().parent.parent
    version = getattr(sglang, "__version__", "unknown")
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    cache = args.cache_dir / f"sglang-{version}-{code_hash(REPO_ROOT / 'repro')}.jsonl"
    ex = Explorer(
        platforms=args.platforms.split(","),
        models=args.models.split(","),
        workers=args.workers,
        cache_path=cache,
    )
    warm_imports()
    if args.flags:
        wanted = set(args.flags.split(","))
        ex.flag_list = [f for f in ex.flag_list if f.name in wanted]
        ex.config_edits = False  # only these flags: no config.json edits either
    explore_deadline = started + args.budget_min * 60 * 0.6
    ex.explore(explore_deadline, args.pairs, root=root, per_site=args.per_site)
    explored_s = time.monotonic() - started
    print(f"[sweep] explored: {ex.runs} runs, {ex.cached} cached, {len(ex.sites)} sites "
          f"in {explored_s:.0f}s", file=sys.stderr)  # fmt: skip
    sites: list[dict[str, Any]] = []
    deadline = started + args.budget_min * 60
    ordered = sorted(ex.sites)[: args.max_sites or None]
    for site in ordered:
        if time.monotonic() > deadline:
            print(f"[sweep] budget spent; {len(ordered) - len(sites)} sites not finished",
                  file=sys.stderr)  # fmt: skip
            break
        sites.append(site_record(ex, site, root))
    result = {
        "about": "Raise sites reached by generated launch commands (python -m repro.explore).",
        "repo": "sgl-project/sglang",
        "sglang_version": version,
        "generated_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "platforms": ex.platforms,
        "models": ex.models,
        "flags_explored": len(ex.flag_list),
        "runs": ex.runs,
        "cached_runs": ex.cached,
        "duration_s": round(time.monotonic() - started, 1),
        "coverage": coverage(sites),
        "sites": sites,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result["coverage"]), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
