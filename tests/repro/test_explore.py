"""The explorer on a small fixed subset of the launch space (the full sweep is run by hand:
``python -m repro.explore``, docs/repro.md)."""

from __future__ import annotations

import json

import pytest

from repro.explore.__main__ import main as explore
from repro.explore._space import Flag, alternatives, mutations

SUBSET = ["--flags=--kv-cache-dtype", "--platforms=hopper,blackwell", "--pairs=0"]


@pytest.mark.unit
def test_moves_and_fixes_come_from_the_flag_definition():
    choice = Flag("--kv-cache-dtype", "choice", "auto", ("auto", "fp8_e4m3", "nvfp4"))
    assert mutations(choice) == [["--kv-cache-dtype", "fp8_e4m3"], ["--kv-cache-dtype", "nvfp4"]]
    assert alternatives(choice, ["--kv-cache-dtype", "nvfp4"]) == [
        [], ["--kv-cache-dtype", "auto"], ["--kv-cache-dtype", "fp8_e4m3"],
    ]  # fmt: skip
    assert mutations(Flag("--enable-x", "bool", False)) == [["--enable-x"]]
    assert ["--page-size", "-1"] in mutations(Flag("--page-size", "int", None))


@pytest.mark.sglang
def test_sweep_reproduces_minimises_and_proves_fixes(sglang_env, tmp_path):
    out = tmp_path / "sweep.json"
    args = [f"--out={out}", f"--cache-dir={tmp_path / 'cache'}", "--models=qwen__Qwen2.5-7B"]
    assert explore([*args, *SUBSET, "--budget-min=12", "--max-sites=2"]) == 0
    data = json.loads(out.read_text())
    assert data["flags_explored"] == 1 and data["sglang_version"] == "0.5.23"
    sites = {(s["file"], s["line"]): s for s in data["sites"]}
    assert sites, data
    for site in sites.values():
        assert not site["file"].startswith("/") and site["file"].startswith("sglang/")
        assert site["reproduced"] and site["repeats"] == [True, True, True]
        assert site["trigger"]["flags"][0] == "--kv-cache-dtype"  # minimal: the one flag
        assert site["platforms"][site["trigger"]["platform"]] == "REPRODUCED"
        assert site["fixed"], site["fixes"]
        removal = next(f for f in site["fixes"] if f["change"].startswith("remove"))
        assert removal["outcome"] == "FIXED" and "--kv-cache-dtype" not in removal["command"]
    mxfp8 = [s for s in sites.values() if "mxfp8" in s["message"]]
    assert mxfp8 and mxfp8[0]["platforms"]["hopper"] == "REPRODUCED"
    assert mxfp8[0]["platforms"]["blackwell"] != "REPRODUCED"  # SM100 passes that guard
    # Resumable: a second run answers from the cache and runs nothing new.
    again = tmp_path / "again.json"
    explore([f"--out={again}", *args[1:], *SUBSET, "--budget-min=12", "--max-sites=2"])
    assert json.loads(again.read_text())["runs"] == 0


@pytest.mark.unit
def test_choices_given_as_a_set_are_read_in_a_fixed_order():
    # --sampling-backend's choices are a set in sglang 0.5.23: read in hash order, the
    # moves (and the sweep cache's keys) would change from one run to the next.
    import argparse

    from repro.explore._space import flags

    parser = argparse.ArgumentParser()
    parser.add_argument("--sampling-backend", choices={"pytorch", "flashinfer", "intel_xpu"})
    parser.add_argument("--kv-cache-dtype", choices=["auto", "fp8_e5m2", "bf16"])
    by_name = {f.name: f for f in flags(parser)}
    assert by_name["--sampling-backend"].choices == ("flashinfer", "intel_xpu", "pytorch")
    assert by_name["--kv-cache-dtype"].choices == ("auto", "fp8_e5m2", "bf16")
