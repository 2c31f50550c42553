"""The hidden truth test: simulated verdicts against known facts about sglang 0.5.23 on
real hardware (data/repro-facts). A verdict that contradicts a fact fails the suite."""

from __future__ import annotations

import json
import subprocess

import pytest

from repro.envs import python_for
from repro.runner import REPO_ROOT, _child_env

FACTS = REPO_ROOT / "data" / "repro-facts" / "sglang-0.5.23.json"


def _facts() -> dict:
    return json.loads(FACTS.read_text())


@pytest.mark.unit
def test_every_fact_has_a_source_and_a_checkable_expectation():
    data = _facts()
    facts = data["facts"] + data["seed"]
    assert len(facts) >= 20
    assert len({f["id"] for f in facts}) == len(facts)
    for fact in data["facts"]:
        assert fact["source"] and fact["statement"], fact["id"]
        assert fact["expect"] in ("launches", "rejects") or fact["expect"].startswith("resolves:")
        assert (REPO_ROOT / "data" / "model-configs" / fact["model"] / "config.json").is_file()


@pytest.mark.unit
def test_judge_never_reads_unknown_as_a_contradiction():
    """The judging rule without sglang: only a definite outcome can contradict a fact."""
    from repro.explore.facts import judge

    gpu = {"error": {"class": "ModuleNotFoundError", "message": "No module named 'sgl_kernel'",
                     "stage": "construct", "in_sglang": True}}  # fmt: skip
    assert judge("launches", gpu, simulated=True) == ("NEEDS_GPU", False)
    assert judge("rejects", gpu, simulated=True) == ("NEEDS_GPU", False)
    raised = {"error": {"class": "ValueError", "message": "only Blackwell", "stage": "resolve",
                        "in_sglang": True, "file": "sglang/srt/x.py", "line": 3}}  # fmt: skip
    assert judge("launches", raised, simulated=True) == ("rejects", True)
    assert judge("launches", {"error": None}, simulated=True) == ("launches", False)
    assert judge("rejects", {"error": None}, simulated=True) == ("launches", True)
    resolved = {"error": None, "resolved_backends": ["triton", "triton"]}
    assert judge("resolves:fa3", resolved, simulated=True) == ("resolves:triton", True)


@pytest.mark.sglang
def test_simulated_verdicts_do_not_contradict_known_facts(sglang_env):
    proc = subprocess.run(
        [str(python_for(sglang_env)), "-m", "repro.explore.facts", str(FACTS)],
        capture_output=True, text=True, cwd=str(REPO_ROOT), timeout=900,
        env=_child_env({"OMP_NUM_THREADS": "1"}, ()),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(proc.stdout)["results"]
    assert len(results) == len(_facts()["facts"])
    contradictions = [r for r in results if r["contradicts"]]
    assert not contradictions, json.dumps(contradictions, indent=1)
    # The check has teeth: most facts get a definite simulated answer, not NEEDS_GPU.
    definite = [r for r in results if r["observed"] not in ("NEEDS_GPU", "HARNESS_ERROR")]
    assert len(definite) >= 12, json.dumps(results, indent=1)
