"""``python -m repro.explore``: run the sweep in the sglang environment (see docs/repro.md).

Resumable: every scenario's answer is appended to a cache keyed by the sglang version
and a hash of the harness code, so a re-run (or a run after an interruption) only runs
what is not cached; a new release or changed harness code starts a new cache.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from repro.envs import EnvMissingError, python_for
from repro.harnesses._models import MODEL_CONFIGS_DIR, available
from repro.runner import REPO_ROOT, _child_env
from repro.settings import sweep_cache_dir

ENV = "sglang-0.5.23"
PRIMARY_MODEL = "qwen__Qwen2.5-7B"
DEFAULT_OUT = REPO_ROOT / "data" / "repro-sweep" / f"{ENV}.json"


def default_models() -> list[str]:
    names = [p.name for p in available(MODEL_CONFIGS_DIR).values()]
    return [PRIMARY_MODEL, *sorted(n for n in names if n != PRIMARY_MODEL)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m repro.explore", description=__doc__)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help="default: sweep/ under ERRATA_ENV_DIR, else ~/.cache/errata/sweep",
    )
    parser.add_argument("--budget-min", type=float, default=50.0, help="wall-clock budget")
    parser.add_argument("--workers", type=int, default=2, help="forked scenarios in flight")
    parser.add_argument("--platforms", default="hopper,blackwell,ampere,mi300,cpu")
    parser.add_argument("--models", default=",".join(default_models()))
    parser.add_argument("--pairs", type=int, default=400, help="random two-flag scenarios")
    parser.add_argument(
        "--per-site", type=int, default=8, help="guided moves per raise site not hit yet"
    )
    parser.add_argument(
        "--flags", default="", help="explore only these flags (comma list; no config.json edits)"
    )
    parser.add_argument("--max-sites", type=int, default=0, help="finish at most N sites")
    args = parser.parse_args(argv)
    args.cache_dir = args.cache_dir or sweep_cache_dir()
    try:
        python = python_for(ENV)
    except EnvMissingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    command = [str(python), "-m", "repro.explore.sweep"]
    for name in ("out", "cache_dir", "budget_min", "workers", "platforms", "models", "pairs",
                 "per_site", "flags", "max_sites"):  # fmt: skip
        command.append(f"--{name.replace('_', '-')}={getattr(args, name)}")
    # One thread per forked scenario: the tensors are tiny, and threads only contend.
    threads = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "TORCH_NUM_THREADS": "1"}
    return subprocess.call(command, cwd=str(REPO_ROOT), env=_child_env(threads, ()))


if __name__ == "__main__":
    raise SystemExit(main())
