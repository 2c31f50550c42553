"""Run reports name files relative to their package, never the server's env path."""

from __future__ import annotations

import pytest

from repro.paths import public_path, scrub

pytestmark = pytest.mark.unit

ENV = "/root/.cache/errata/envs/sglang-0.5.23-c00234ee2a1a"


def test_env_paths_become_package_relative():
    site = f"{ENV}/lib/python3.11/site-packages"
    assert public_path(f"{site}/sglang/srt/server_args.py") == "sglang/srt/server_args.py"
    line = f'File "{site}/torch/cuda/__init__.py", line 3'
    assert public_path(line) == 'File "torch/cuda/__init__.py", line 3'
    assert ".cache/errata" not in public_path(f"{ENV}/bin/python -m repro.harnesses.x")
    assert public_path("python/sglang/srt/x.py") == "python/sglang/srt/x.py"


def test_scrub_walks_a_whole_report():
    report = {
        "trigger": {"error": {"file": f"{ENV}/lib/python3.11/site-packages/sglang/a.py"}},
        "frames": [f"{ENV}/lib/python3.11/site-packages/sglang/b.py:3 f"],
        "n": 3,
    }
    assert scrub(report) == {
        "trigger": {"error": {"file": "sglang/a.py"}},
        "frames": ["sglang/b.py:3 f"],
        "n": 3,
    }
