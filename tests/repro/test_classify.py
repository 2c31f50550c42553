"""Outcome rules for triggers and fixes, and the needs-a-GPU rule."""

from __future__ import annotations

import pytest

from repro.harnesses import _classify as C

pytestmark = pytest.mark.unit


def _err(cls="ValueError", msg="trtllm_mla backend can only be used with MLA models.", **kw):
    base = {
        "class": cls,
        "message": msg,
        "file": "/venv/site-packages/sglang/srt/layers/attention/attention_registry.py",
        "line": 97,
        "stage": "construct",
    }
    return {**base, **kw}


def test_trigger_outcomes(seed_record):
    assert C.classify_trigger(_err(), seed_record) == C.REPRODUCED
    assert C.classify_trigger(None, seed_record) == C.NOT_REPRODUCED
    elsewhere = _err(file="/venv/site-packages/sglang/srt/arg_groups/overrides.py")
    assert C.classify_trigger(elsewhere, seed_record) == C.DIFFERENT_ERROR
    assert C.classify_trigger(_err(cls="RuntimeError"), seed_record) == C.DIFFERENT_ERROR


def test_fix_outcomes(seed_record):
    assert C.classify_fix(None, seed_record) == C.FIXED
    assert C.classify_fix(_err(), seed_record) == C.FIX_FAILS
    fa3 = _err(cls="AssertionError", msg="FlashAttention v3 Backend requires SM>=80 and SM<=90.")
    assert C.classify_fix(fa3, seed_record) == C.FIX_BREAKS
    missing = _err(cls="ModuleNotFoundError", msg="No module named 'flash_mla'")
    assert C.classify_fix(missing, seed_record) == C.NEEDS_GPU
    no_cuda = _err(cls="RuntimeError", msg="Found no NVIDIA driver on your system.")
    assert C.classify_fix(no_cuda, seed_record) == C.NEEDS_GPU


def test_missing_gpu_module_before_construction_is_not_needs_gpu(seed_record):
    at_resolve = _err(
        cls="ModuleNotFoundError", msg="No module named 'sgl_kernel'", stage="resolve"
    )
    assert C.classify_fix(at_resolve, seed_record) == C.FIX_BREAKS


def test_name_from_guarded_gpu_import_needs_gpu(tmp_path, seed_record):
    source = tmp_path / "backend.py"
    source.write_text(
        "if available():\n    from flashinfer import Wrapper\n\ndef make():\n    return Wrapper()\n"
    )
    error = _err(cls="NameError", msg="name 'Wrapper' is not defined", file=str(source))
    assert "flashinfer" in C.needs_gpu(error)
    assert C.classify_fix(error, seed_record) == C.NEEDS_GPU
    other = _err(cls="NameError", msg="name 'Other' is not defined", file=str(source))
    assert C.classify_fix(other, seed_record) == C.FIX_BREAKS


def test_flakiness_is_disagreement_across_repeats():
    assert C.summarize([C.FIXED, C.FIXED, C.FIXED]) == (C.FIXED, False)
    assert C.summarize([C.FIXED, C.TIMEOUT, C.FIXED]) == (C.FIXED, True)
