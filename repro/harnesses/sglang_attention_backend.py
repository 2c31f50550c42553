"""Harness: sglang attention-backend records (errors raised from ``attention_registry.py``).

Run as ``python -m repro.harnesses.sglang_attention_backend`` inside the sglang env with
``{"record": {...}, "options": {"platform": ..., "repeats": N, "scenario_timeout_s": S}}``
on stdin. sglang is imported once; every scenario repeat runs in a fresh fork.
"""

from __future__ import annotations

import logging
import platform as pyplatform
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

from repro.harnesses import _classify as C
from repro.harnesses._drift import drift_report
from repro.harnesses._fork import CHILD_TIMEOUT, run_forked
from repro.harnesses._protocol import serve
from repro.harnesses._scenarios import Scenario, build_scenarios
from repro.harnesses._simulate import DEVICES, SIMULATED

NAME = "sglang_attention_backend"
PLATFORMS = (*SIMULATED, "cpu", "real")
LOG_LINES = 60
# Failures in these steps are the harness's own (no shipped config for the model, the
# stand-in runner could not be built), not evidence about the record.
HARNESS_STAGES = ("model_lookup", "runner_setup")


class _Tail(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: deque[str] = deque(maxlen=LOG_LINES)

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {record.name}: {record.getMessage()}")


def _platform(name: str, probe: dict[str, Any], versions: dict[str, str]) -> dict[str, Any]:
    """Platform block; ``server_device`` is what the launch implies, ``runner_device``
    where tensors can really live on this machine."""
    cuda = bool(probe.get("cuda_available"))
    info: dict[str, Any] = {
        "name": name,
        "simulated": name in SIMULATED,
        "device": probe.get("device"),
        "sm": probe.get("sm"),
        "cuda": probe.get("cuda"),
        "driver": probe.get("driver"),
        "torch": probe.get("torch"),
        "python": pyplatform.python_version(),
        "packages": versions,
        "cuda_available": cuda,
    }
    if name in SIMULATED:
        major, minor = DEVICES[name]["capability"]
        info["simulated_sm"] = major * 10 + minor
        info["simulated_device"] = DEVICES[name]["name"]
        info["server_device"] = "cuda"
    elif name == "cpu":
        info["server_device"] = "cpu"
    else:
        info["server_device"] = None  # let sglang detect the real device
    info["runner_device"] = "cuda" if cuda and name == "real" else "cpu"
    return info


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for pkg in ("sglang", "torch", "transformers", "triton", "flashinfer-python", "sgl-kernel"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            continue
    return out


def _run_scenario(
    scenario: Scenario,
    record: dict[str, Any],
    plat: dict[str, Any],
    repeats: int,
    timeout_s: float,
) -> dict[str, Any]:
    from repro.harnesses._sglang_steps import run_scenario

    attempts = []
    for _ in range(repeats):
        forked_at = time.perf_counter()
        answer = run_forked(
            lambda: run_scenario(scenario.argv, plat, plat["runner_device"]), timeout_s
        )
        answer["wall_s"] = time.perf_counter() - forked_at
        if "fork_error" in answer:
            outcome = C.TIMEOUT if answer["fork_error"] == CHILD_TIMEOUT else C.HARNESS_ERROR
        elif (answer.get("error") or {}).get("stage") in HARNESS_STAGES:
            outcome = C.HARNESS_ERROR
        elif scenario.role == "trigger":
            outcome = C.classify_trigger(answer.get("error"), record, plat["simulated"])
        else:
            outcome = C.classify_fix(answer.get("error"), record, plat["simulated"])
        answer["outcome"] = outcome
        attempts.append(answer)
    outcome, flaky = C.summarize([a["outcome"] for a in attempts])
    first = next(a for a in attempts if a["outcome"] == outcome)
    error = first.get("error")
    result = {
        "scenario": scenario.name,
        "source": scenario.source,
        "backend": scenario.backend,
        "command": scenario.command,
        "outcome": outcome,
        "error": _public_error(error),
        "repeats": repeats,
        "outcomes": [a["outcome"] for a in attempts],
        "flaky": flaky,
        "duration_s": round(sum(a.get("duration_s", 0.0) for a in attempts) / repeats, 4),
        "wall_s": round(sum(a["wall_s"] for a in attempts) / repeats, 4),
    }
    for key in ("resolved_backends", "constructed", "use_mla_backend", "attention_arch"):
        if key in first:
            result[key] = first[key]
    if "fork_error" in first:
        result["detail"] = first.get("detail")
    if error and outcome == C.NEEDS_GPU:
        result["needs_gpu_because"] = C.needs_gpu(error) or C.simulation_gap(
            error, plat["simulated"]
        )
    if error and outcome == C.HARNESS_ERROR:
        result["harness_fault"] = C.harness_fault(error)
    return result


def _public_error(error: dict[str, Any] | None) -> dict[str, Any] | None:
    if not error:
        return None
    keys = ("class", "message", "file", "line", "function", "code", "stage", "frames")
    return {k: error.get(k) for k in keys}


def main(payload: dict[str, Any]) -> dict[str, Any]:
    started = time.perf_counter()
    record = payload.get("record", payload)
    record = record.get("record", record)
    options = payload.get("options", {})
    platform_name = options.get("platform", "blackwell")
    if platform_name not in PLATFORMS:
        raise SystemExit(f"unknown platform {platform_name!r}; choose from {PLATFORMS}")
    repeats = max(1, int(options.get("repeats", 3)))
    timeout_s = float(options.get("scenario_timeout_s", 60))
    tail = _Tail()
    logging.getLogger().addHandler(tail)

    t0 = time.perf_counter()
    import sglang
    from sglang.srt.layers.attention.attention_registry import ATTENTION_BACKENDS

    from repro.harnesses import _sglang_steps

    import_s = time.perf_counter() - t0
    probe = run_forked(_sglang_steps.torch_cuda_probe, timeout_s)
    plat = _platform(platform_name, probe, _versions())
    if platform_name == "real" and not plat["cuda_available"]:
        # Without a device every scenario would fail device detection alike; that is
        # a statement about this machine, not about the record.
        raise SystemExit(f"--platform real needs a CUDA device; none found ({probe})")
    scenarios = build_scenarios(record, sorted(ATTENTION_BACKENDS))
    t1 = time.perf_counter()
    _warm_backend_modules()
    warm_s = time.perf_counter() - t1

    results = [_run_scenario(s, record, plat, repeats, timeout_s) for s in scenarios]
    trigger, fixes = results[0], results[1:]
    observed = None
    if trigger["error"] and trigger["outcome"] == C.REPRODUCED:
        observed = {k: trigger["error"][k] for k in ("file", "line", "function")}
    package_dir = Path(sglang.__file__).resolve().parent
    return {
        "harness": NAME,
        "sglang_version": getattr(sglang, "__version__", None),
        "record_id": record.get("id"),
        "platform": plat,
        "trigger": trigger,
        "fixes": fixes,
        "drift": drift_report(package_dir, record, observed),
        "timings": {
            "import_s": round(import_s, 3),
            "warm_s": round(warm_s, 3),
            "scenario_runs": len(scenarios) * repeats,
            "mean_scenario_s": round(
                sum(r["duration_s"] for r in results) / max(1, len(results)), 4
            ),
            "mean_scenario_wall_s": round(
                sum(r["wall_s"] for r in results) / max(1, len(results)), 4
            ),
            "total_s": round(time.perf_counter() - started, 3),
        },
        "log_tail": list(tail.lines),
    }


def _warm_backend_modules() -> None:
    """Import the backend modules once in the parent so forks don't each pay for it.

    A module that fails to import is left unimported, so the child meets (and reports)
    the same ImportError it would have met cold.
    """
    import importlib

    for module in (
        "sglang.srt.layers.attention.triton_backend",
        "sglang.srt.layers.attention.torch_native_backend",
        "sglang.srt.layers.attention.flashinfer_backend",
        "sglang.srt.layers.attention.flashinfer_mla_backend",
        "sglang.srt.layers.attention.trtllm_mla_backend",
        "sglang.srt.layers.attention.flashmla_backend",
        "sglang.srt.layers.attention.flashattention_backend",
    ):
        try:
            importlib.import_module(module)
        except Exception as exc:  # the child will meet and report this itself
            print(f"[{NAME}] warm-up: {module} not importable: {exc!r}", file=sys.stderr)


if __name__ == "__main__":
    serve(main)
