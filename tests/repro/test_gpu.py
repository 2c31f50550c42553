"""GPU tier: the real device and a real Engine. Skipped, with the reason, without CUDA."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from repro.runner import COMPLETED, run_harness

pytestmark = pytest.mark.gpu


def _has_cuda() -> bool:
    smi = shutil.which("nvidia-smi")
    return bool(smi) and subprocess.run([smi, "-L"], capture_output=True).returncode == 0


@pytest.fixture(scope="module", autouse=True)
def cuda_device():
    if not _has_cuda():
        pytest.skip("no CUDA device on this machine (nvidia-smi finds none)")
    subprocess.run(["python3", "-m", "repro.envs.build", "sglang-0.5.23"], check=True)


def test_real_platform_reports_the_device(seed_record):
    payload = {"record": seed_record, "options": {"platform": "real", "repeats": 1}}
    report = run_harness("sglang_attention_backend", "sglang-0.5.23", payload, timeout_s=600)
    assert report["outcome"] == COMPLETED, report["stderr_tail"]
    platform = report["result"]["platform"]
    assert platform["simulated"] is False and platform["cuda_available"] is True
    assert platform["sm"] and platform["device"]


@pytest.mark.parametrize("backend", ["triton"])
def test_engine_generates_one_token_with_the_fix_backend(backend):
    report = run_harness(
        "engine_check",
        "sglang-0.5.23",
        {"backend": backend},
        module="repro.gpu.engine_check",
        timeout_s=600,
        memory_bytes=None,
    )
    assert report["outcome"] == COMPLETED, report["stderr_tail"]
    assert report["result"]["outcome"] == "PASS", report["result"]
