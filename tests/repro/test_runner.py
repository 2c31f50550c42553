"""The runner classifies a harness run: completed, crashed, hung, over memory, env missing."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from repro.runner import COMPLETED, ENV_MISSING, HARNESS_ERROR, TIMEOUT, run_harness
from tests.helpers import wait_for

pytestmark = pytest.mark.unit


def _run(fakes_dir: Path, module: str, payload=None, **kwargs):
    return run_harness(
        module,
        "test-env",
        payload if payload is not None else {"hello": "world"},
        python=Path(sys.executable),
        module=module,
        pythonpath=[fakes_dir],
        **kwargs,
    )


def test_completed_harness_returns_its_result_and_keeps_stdout_clean(fakes_dir):
    report = _run(fakes_dir, "fake_ok", timeout_s=60)
    assert report["outcome"] == COMPLETED
    assert report["result"] == {"echo": {"hello": "world"}, "ok": True}
    assert "library noise on stdout" in report["stderr_tail"]


@pytest.mark.parametrize(
    ("module", "signal_name"), [("fake_abort", "SIGABRT"), ("fake_segfault", "SIGSEGV")]
)
def test_harness_killed_by_a_signal_is_a_harness_error(fakes_dir, module, signal_name):
    report = _run(fakes_dir, module, timeout_s=60)
    assert report["outcome"] == HARNESS_ERROR
    assert report["signal"] == signal_name
    assert "about to" in report["stderr_tail"]


def test_os_exit_with_half_written_output_is_a_harness_error(fakes_dir):
    report = _run(fakes_dir, "fake_exit", timeout_s=60)
    assert report["outcome"] == HARNESS_ERROR
    assert report["returncode"] == 3
    assert report["result"] is None


def test_garbage_on_stdout_is_a_harness_error(fakes_dir):
    report = _run(fakes_dir, "fake_garbage", timeout_s=60)
    assert report["outcome"] == HARNESS_ERROR
    assert "not a JSON object" in report["message"]


def test_hung_harness_times_out_and_its_whole_group_is_killed(fakes_dir, tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    report = _run(fakes_dir, "fake_hang", timeout_s=3, extra_env={"FAKE_PID_FILE": str(pid_file)})
    assert report["outcome"] == TIMEOUT
    grandchild = int(pid_file.read_text())
    wait_for(lambda: not _alive(grandchild), 5, "the harness's own child to die", every_s=0.1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie reparented to init still answers kill(0); check its state.
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"


def test_memory_cap_stops_a_harness_that_allocates_too_much(fakes_dir):
    report = _run(fakes_dir, "fake_memory", timeout_s=60, memory_bytes=1024**3)
    assert report["outcome"] == HARNESS_ERROR
    assert "MemoryError" in report["stderr_tail"]
    assert report["limits"]["memory_bytes"] == 1024**3


def test_missing_env_says_which_command_builds_it(tmp_path, monkeypatch):
    monkeypatch.setenv("ERRATA_ENV_DIR", str(tmp_path))
    report = run_harness("sglang_attention_backend", "sglang-0.5.23", {}, timeout_s=5)
    assert report["outcome"] == ENV_MISSING
    assert "python -m repro.envs.build sglang-0.5.23" in report["message"]
    json.dumps(report)  # plain data


def test_a_harness_that_cannot_start_is_a_harness_error(tmp_path):
    """A missing or non-executable interpreter still yields a report, not an exception."""
    not_executable = tmp_path / "python"
    not_executable.write_text("")
    for python in (tmp_path / "missing" / "python", not_executable):
        report = run_harness("x", "env", {}, python=python, timeout_s=5)
        assert report["outcome"] == HARNESS_ERROR
        assert "could not start" in report["message"]
        json.dumps(report)
