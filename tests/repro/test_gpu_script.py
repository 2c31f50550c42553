"""``repro/gpu/run_gpu_checks.sh`` without a GPU: nothing was checked, so it fails."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

SCRIPT = Path(__file__).resolve().parents[2] / "repro" / "gpu" / "run_gpu_checks.sh"


def _has_gpu() -> bool:
    smi = shutil.which("nvidia-smi")
    return bool(smi) and subprocess.run([smi, "-L"], capture_output=True).returncode == 0


def test_exits_non_zero_without_a_gpu(tmp_path):
    if _has_gpu():
        pytest.skip("a CUDA device is present: the script would run the real checks")
    proc = subprocess.run(
        ["bash", str(SCRIPT)], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin",
        "OUT": str(tmp_path)}, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 3
    assert "no CUDA device" in proc.stderr
