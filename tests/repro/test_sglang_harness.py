"""The real harness on the seed record, in the real sglang 0.5.23 environment.

The environment is built first (idempotent: a no-op once built); set
ERRATA_SKIP_SGLANG=1 to skip these tests on a machine that cannot build it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from repro.runner import COMPLETED, run_harness

pytestmark = pytest.mark.sglang

ENV = "sglang-0.5.23"
FACTS = Path(__file__).resolve().parents[2] / "data" / "repro-facts" / "sglang-0.5.23.json"
HARNESS = "sglang_attention_backend"


def _run(record: dict[str, Any], platform: str) -> dict[str, Any]:
    payload = {"record": record, "options": {"platform": platform, "repeats": 2}}
    report = run_harness(HARNESS, ENV, payload, timeout_s=300)
    assert report["outcome"] == COMPLETED, report["message"] + "\n" + report["stderr_tail"]
    json.dumps(report)
    return report["result"]


@pytest.fixture(scope="module")
def blackwell(sglang_env, seed_record):
    return _run(seed_record, "blackwell")


@pytest.fixture(scope="module")
def hopper(sglang_env, seed_record):
    return _run(seed_record, "hopper")


def _fixes(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {fix["backend"]: fix for fix in result["fixes"]}


def test_simulated_blackwell_reproduces_the_seed_error(blackwell, seed_record):
    trigger = blackwell["trigger"]
    assert blackwell["platform"]["simulated"] is True
    assert trigger["outcome"] == "REPRODUCED"
    assert trigger["flaky"] is False and trigger["outcomes"] == ["REPRODUCED"] * 2
    assert trigger["error"]["class"] == "ValueError"
    assert trigger["error"]["function"] == "create_trtllm_mla_backend"
    assert trigger["error"]["file"].endswith("sglang/srt/layers/attention/attention_registry.py")
    assert trigger["use_mla_backend"] is False  # Qwen2.5 is GQA, decided by ModelConfig


def test_fixes_on_simulated_blackwell(blackwell):
    fixes = _fixes(blackwell)
    # Triton's CUDA path imports a kernel helper only a GPU build has: not a verdict.
    assert fixes["triton"]["outcome"] in ("FIXED", "NEEDS_GPU")
    # The fa3 factory's own guard reads the simulated SM 100: a real verdict.
    assert fixes["fa3"]["outcome"] == "FIX_BREAKS"
    assert fixes["fa3"]["error"]["class"] == "AssertionError"
    # flashinfer passes the MLA guard; constructing it needs the GPU-only package.
    assert fixes["flashinfer"]["outcome"] == "NEEDS_GPU"
    assert "flashinfer" in fixes["flashinfer"]["needs_gpu_because"]
    assert fixes["flashmla"]["outcome"] == "NEEDS_GPU"
    # Auto-select on Blackwell picks trtllm_mha, which is built on flashinfer.
    assert fixes["auto"]["resolved_backends"] == ["trtllm_mha", "trtllm_mha"]
    assert fixes["auto"]["outcome"] == "NEEDS_GPU"


def test_drift_reports_the_moved_raise(blackwell, seed_record):
    drift = blackwell["drift"]
    assert drift["record"]["line"] == seed_record["lineNumber"]
    assert drift["installed"]["function"] == "create_trtllm_mla_backend"
    assert drift["installed"]["line"] == drift["observed"]["line"]
    assert drift["moved"] is (drift["installed"]["line"] != seed_record["lineNumber"])


def test_simulated_hopper_stops_earlier_with_a_different_error(hopper):
    trigger = hopper["trigger"]
    assert trigger["outcome"] == "DIFFERENT_ERROR"
    assert "only supported on Blackwell" in trigger["error"]["message"]
    assert trigger["error"]["file"].endswith("sglang/srt/arg_groups/overrides.py")
    assert trigger["error"]["stage"] == "resolve"
    fixes = _fixes(hopper)
    # FA3 is the normal backend on a real H100/H200: its guard passes on simulated SM 90,
    # and what construction needs next (sgl_kernel) is for the GPU tier to judge.
    assert fixes["fa3"]["outcome"] == "NEEDS_GPU"
    assert "sgl_kernel" in fixes["fa3"]["needs_gpu_because"]
    assert fixes["auto"]["resolved_backends"] == ["fa3", "fa3"]  # Hopper's documented default
    for fix in fixes.values():
        assert fix["outcome"] not in ("FIX_BREAKS", "FIX_FAILS"), fix


def test_reports_name_files_relative_to_their_package(blackwell, hopper):
    text = json.dumps([blackwell, hopper])
    assert ".cache/errata" not in text and "site-packages" not in text
    assert blackwell["trigger"]["error"]["file"] == (
        "sglang/srt/layers/attention/attention_registry.py"
    )


def test_seed_verdicts_agree_with_known_facts(blackwell, hopper):
    """The seed record's verdicts against data/repro-facts (its "seed" list)."""
    facts = json.loads(FACTS.read_text())["seed"]
    results = {"blackwell": blackwell, "hopper": hopper}
    for fact in facts:
        result = results[fact["platform"]]
        outcome = (
            result["trigger"]["outcome"]
            if fact.get("trigger")
            else _fixes(result)[fact["fix"]]["outcome"]
        )
        assert outcome not in fact["not"], f"{fact['id']}: {outcome} contradicts {fact}"


def test_mla_model_passes_the_guard(sglang_env, seed_record):
    """Control: the same command on an MLA model does not raise the record's error."""
    record = {
        **seed_record,
        "exampleFix": seed_record["exampleFix"].replace(
            "qwen/Qwen2.5-7B", "deepseek-ai/DeepSeek-V2-Lite"
        ),
        "solutions": [],
    }
    trigger = _run(record, "blackwell")["trigger"]
    assert trigger["use_mla_backend"] is True
    assert trigger["outcome"] != "REPRODUCED"
