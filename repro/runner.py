"""Run a harness in its own environment's interpreter and classify the run as a whole.

The harness is ``python -m repro.harnesses.<name>`` started with the target env's
python, the repository root on PYTHONPATH, the payload as JSON on stdin and one JSON
object expected on stdout; stderr is the log. The child gets its own process group
(killed whole on timeout) and an address-space cap (RLIMIT_AS).
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from repro.envs import EnvMissingError, python_for
from repro.paths import public_path, scrub
from repro.vocabulary import RunOutcome

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TIMEOUT_S = 600.0
DEFAULT_MEMORY_BYTES = 16 * 1024**3
STDERR_TAIL_CHARS = 4000

COMPLETED = RunOutcome.COMPLETED.value
HARNESS_ERROR = RunOutcome.HARNESS_ERROR.value
TIMEOUT = RunOutcome.TIMEOUT.value
ENV_MISSING = RunOutcome.ENV_MISSING.value


@dataclass
class RunReport:
    """What happened to one harness run; ``result`` is the harness's own JSON if it finished."""

    outcome: str
    harness: str
    env: str
    result: dict[str, Any] | None = None
    message: str = ""
    returncode: int | None = None
    signal: str | None = None
    duration_s: float = 0.0
    stderr_tail: str = ""
    limits: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _limit_child(memory_bytes: int | None) -> Callable[[], None]:
    def preexec() -> None:
        if memory_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        # No core files from a crashing harness.
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return preexec


def _child_env(extra: Mapping[str, str] | None, pythonpath: Sequence[Path]) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP"}
    }
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), *map(str, pythonpath)])
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["HF_HUB_OFFLINE"] = "1"
    env["TRANSFORMERS_OFFLINE"] = "1"
    env["HF_DATASETS_OFFLINE"] = "1"
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    if extra:
        env.update(extra)
    return env


def _tail(data: bytes, limit: int = STDERR_TAIL_CHARS) -> str:
    return public_path(data.decode("utf-8", errors="replace"))[-limit:]


def _last_line(data: bytes) -> str:
    lines = [line for line in data.decode("utf-8", errors="replace").splitlines() if line.strip()]
    return public_path(lines[-1])[-500:] if lines else "(no stderr)"


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _parse_result(stdout: bytes) -> dict[str, Any]:
    text = stdout.decode("utf-8", errors="replace").strip()
    if not text:
        raise ValueError("harness wrote nothing on stdout")
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"harness result is a {type(value).__name__}, not an object")
    return value


def run_harness(
    harness: str,
    env: str,
    payload: Mapping[str, Any],
    *,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    memory_bytes: int | None = DEFAULT_MEMORY_BYTES,
    python: Path | None = None,
    extra_env: Mapping[str, str] | None = None,
    module: str | None = None,
    pythonpath: Sequence[Path] = (),
) -> dict[str, Any]:
    """Run ``repro.harnesses.<harness>`` in env ``env`` and return a RunReport as a dict.

    ``python`` overrides the env lookup and ``module``/``pythonpath`` the module run
    (tests use the current interpreter and small fake harnesses).
    """
    limits = {"timeout_s": timeout_s, "memory_bytes": memory_bytes}
    report = RunReport(outcome=HARNESS_ERROR, harness=harness, env=env, limits=limits)
    try:
        interpreter = python if python is not None else python_for(env)
    except EnvMissingError as exc:
        report.outcome = ENV_MISSING
        report.message = str(exc)
        return report.to_dict()

    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            [str(interpreter), "-m", module or f"repro.harnesses.{harness}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=str(REPO_ROOT),
            env=_child_env(extra_env, pythonpath),
            start_new_session=True,
            preexec_fn=_limit_child(memory_bytes),
        )
    except (OSError, subprocess.SubprocessError) as exc:
        # The harness never started: still a report (HARNESS_ERROR), never lost.
        report.message = f"harness process could not start: {exc}"
        report.duration_s = round(time.monotonic() - started, 3)
        return report.to_dict()
    try:
        stdout, stderr = proc.communicate(json.dumps(payload).encode(), timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        stdout, stderr = proc.communicate()
        report.outcome = TIMEOUT
        report.message = f"harness did not finish within {timeout_s:g}s; process group killed"
        report.duration_s = round(time.monotonic() - started, 3)
        report.stderr_tail = _tail(stderr)
        report.returncode = proc.returncode
        return report.to_dict()
    finally:
        # Forked scenario children left behind by a crashed harness go too.
        _kill_group(proc)

    report.duration_s = round(time.monotonic() - started, 3)
    report.returncode = proc.returncode
    report.stderr_tail = _tail(stderr)
    if proc.returncode < 0:
        report.signal = signal.Signals(-proc.returncode).name
        report.message = f"harness killed by {report.signal}"
        return report.to_dict()
    if proc.returncode != 0:
        report.message = f"harness exited with status {proc.returncode}: {_last_line(stderr)}"
        return report.to_dict()
    try:
        report.result = scrub(_parse_result(stdout))
    except ValueError as exc:
        report.message = (
            f"harness output is not a JSON object: {exc}; stdout: {_tail(stdout, 300)!r}"
        )
        return report.to_dict()
    report.outcome = COMPLETED
    return report.to_dict()
