"""Build a harness environment: ``python -m repro.envs.build <name> [--force]``.

Idempotent: the marker file is written only after the install and the smoke import
succeed, and a re-run that finds it returns at once.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

from repro.envs import MARKER_NAME, EnvSpec, env_path, known_envs, spec_for


def _say(message: str) -> None:
    print(f"[repro.envs.build] {message}", flush=True)


def _run(cmd: list[str]) -> None:
    _say("$ " + " ".join(cmd))
    subprocess.run(cmd, check=True)


def build(name: str, *, force: bool = False) -> Path:
    """Create (or reuse) the environment and return its directory."""
    spec: EnvSpec = spec_for(name)
    target = env_path(name)
    marker = target / MARKER_NAME
    if marker.is_file() and not force:
        _say(f"{name}: up to date at {target}")
        return target
    started = time.monotonic()
    if target.exists():
        _say(f"{name}: removing incomplete or forced build at {target}")
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    # Built in place (a venv's scripts hard-code its path); without the marker a
    # half-built directory counts as missing and the next build starts over.
    _say(f"{name}: creating venv at {target}")
    _run([sys.executable, "-m", "venv", str(target)])
    pip = [str(target / "bin" / "python"), "-m", "pip", "install", "--no-input"]
    _say(f"{name}: installing {spec.requirements.name}")
    _run([*pip, "-r", str(spec.requirements)])
    if spec.nodeps_requirements.is_file():
        _say(f"{name}: installing {spec.nodeps_requirements.name} (--no-deps)")
        _run([*pip, "--no-deps", "-r", str(spec.nodeps_requirements)])
    if spec.smoke_import:
        _say(f"{name}: smoke check: import {spec.smoke_import}")
        _run([str(target / "bin" / "python"), "-c", f"import {spec.smoke_import}"])
    marker.write_text(f"{name} {spec.digest()} built in {time.monotonic() - started:.0f}s\n")
    _say(f"{name}: ready at {target} ({time.monotonic() - started:.0f}s)")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m repro.envs.build", description=__doc__)
    parser.add_argument("name", choices=known_envs())
    parser.add_argument("--force", action="store_true", help="rebuild even if present")
    parser.add_argument("--print-path", action="store_true", help="print the env dir only")
    args = parser.parse_args(argv)
    if args.print_path:
        print(env_path(args.name))
        return 0
    try:
        build(args.name, force=args.force)
    except subprocess.CalledProcessError as exc:
        _say(f"{args.name}: build FAILED ({exc}); nothing marked as built")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
