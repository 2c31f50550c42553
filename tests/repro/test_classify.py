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


def test_a_package_relative_path_is_read_from_the_installed_package(tmp_path, monkeypatch):
    # Run reports name files from the package on (sglang/srt/...); the guarded import
    # must still be found there, or a missing GPU package reads as an sglang error.
    package = tmp_path / "pkg_gpu_guarded"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "backend.py").write_text(
        "if available():\n    from flashinfer import Wrapper\n\ndef make():\n    return Wrapper()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    error = _err(
        cls="NameError", msg="name 'Wrapper' is not defined", file="pkg_gpu_guarded/backend.py"
    )
    assert "flashinfer" in C.needs_gpu(error)
    missing = _err(cls="NameError", msg="name 'Wrapper' is not defined", file="nope/backend.py")
    assert C.needs_gpu(missing) is None


def test_flakiness_is_disagreement_across_repeats():
    assert C.summarize([C.FIXED, C.FIXED, C.FIXED]) == (C.FIXED, False)
    assert C.summarize([C.FIXED, C.TIMEOUT, C.FIXED]) == (C.FIXED, True)


def test_class_names_compare_short_and_qualified(seed_record):
    oom = {"class": "OutOfMemoryError", "qualname": "torch.OutOfMemoryError"}
    assert C.same_class(oom, "OutOfMemoryError")
    assert C.same_class(oom, "torch.OutOfMemoryError")
    cuda_oom = {"class": "OutOfMemoryError", "qualname": "torch.cuda.OutOfMemoryError"}
    assert C.same_class(cuda_oom, "torch.OutOfMemoryError")
    assert not C.same_class(oom, "jax.OutOfMemoryError")
    assert not C.same_class(oom, "MemoryError")
    record = {**seed_record, "errorClass": "builtins.ValueError"}
    assert C.classify_trigger(_err(qualname="builtins.ValueError"), record) == C.REPRODUCED


def test_harness_faults_are_never_a_verdict(seed_record):
    stand_in = _err(cls="AttributeError", msg="'HarnessRunner' object has no attribute 'x'")
    assert C.classify_fix(stand_in, seed_record) == C.HARNESS_ERROR
    assert C.classify_trigger(stand_in, seed_record) == C.HARNESS_ERROR
    own_code = _err(cls="KeyError", msg="'a'", file="/srv/errata/repro/harnesses/_sglang_steps.py")
    assert C.classify_fix(own_code, seed_record) == C.HARNESS_ERROR


def test_construction_on_a_simulated_platform_is_not_a_verdict(seed_record):
    """A construct-stage error the simulation does not cover is NEEDS_GPU there, while
    the factory guards in attention_registry.py (they read only simulated facts) count."""
    deep = _err(
        cls="TypeError",
        msg="unsupported operand",
        file="/env/site-packages/sglang/srt/layers/attention/flashattention_backend.py",
    )
    assert C.classify_fix(deep, seed_record, simulated=True) == C.NEEDS_GPU
    assert C.classify_fix(deep, seed_record, simulated=False) == C.FIX_BREAKS
    guard = _err(cls="AssertionError", msg="FlashAttention v3 Backend requires SM>=80 and SM<=90.")
    assert C.classify_fix(guard, seed_record, simulated=True) == C.FIX_BREAKS
    smi = _err(cls="RuntimeError", msg="nvidia-smi not found.", stage="resolve")
    assert C.classify_fix(smi, seed_record, simulated=True) == C.NEEDS_GPU
    for outcome in (C.FIX_BREAKS, C.FIX_FAILS):
        assert C.classify_fix(deep, seed_record, simulated=True) != outcome
