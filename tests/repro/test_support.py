"""Drift location, model-config lookup, forked scenario runs, the harness registry, envs."""

from __future__ import annotations

import os
import time

import pytest

from repro import envs
from repro.harnesses import harness_for, load_links
from repro.harnesses._drift import drift_report, locate_raises
from repro.harnesses._fork import CHILD_CRASHED, CHILD_TIMEOUT, run_forked
from repro.harnesses._models import UnknownModelError, resolve_model_dir

pytestmark = pytest.mark.unit

SOURCE = """
def helper():
    pass


def create_trtllm_mla_backend(runner):
    if not runner.use_mla_backend:
        raise ValueError("trtllm_mla backend can only be used with MLA models.")
    raise ValueError("something else")
"""


def test_drift_finds_the_raise_by_its_message(tmp_path, seed_record):
    pkg = tmp_path / "sglang"
    target = pkg / "srt" / "layers" / "attention" / "attention_registry.py"
    target.parent.mkdir(parents=True)
    target.write_text(SOURCE)
    [hit] = locate_raises(target, seed_record)
    assert (hit["line"], hit["function"], hit["class"]) == (
        8,
        "create_trtllm_mla_backend",
        "ValueError",
    )
    report = drift_report(pkg, seed_record, None)
    assert report["record"] == {
        "file": seed_record["filePath"],
        "line": 75,
        "function": "create_trtllm_mla_backend",
    }
    assert report["installed"]["line"] == 8
    assert report["moved"] is True


def test_drift_when_the_file_is_gone(tmp_path, seed_record):
    report = drift_report(tmp_path / "sglang", seed_record, None)
    assert report["moved"] is True and report["installed"] is None


def test_model_names_resolve_case_insensitively():
    assert resolve_model_dir("qwen/Qwen2.5-7B").name == "qwen__Qwen2.5-7B"
    assert resolve_model_dir("Qwen/qwen2.5-7b-instruct").name == "qwen__Qwen2.5-7B"
    assert resolve_model_dir("deepseek-ai/DeepSeek-V3").name == "deepseek-ai__DeepSeek-V3"
    assert resolve_model_dir("meta-llama/Meta-Llama-3.1-8B").name.startswith("meta-llama")
    assert (resolve_model_dir("mistralai/Mistral-7B-v0.1") / "config.json").is_file()
    with pytest.raises(UnknownModelError):
        resolve_model_dir("nobody/NoSuchModel-1B")


def test_forked_run_returns_result_crash_and_timeout():
    assert run_forked(lambda: {"pid": os.getpid()}, 10)["pid"] != os.getpid()
    assert run_forked(lambda: os._exit(7), 10)["fork_error"] == CHILD_CRASHED
    started = time.monotonic()
    answer = run_forked(lambda: time.sleep(30) or {}, 0.5)
    assert answer["fork_error"] == CHILD_TIMEOUT
    assert time.monotonic() - started < 10


def test_seed_record_links_to_the_attention_harness(seed_record):
    info = harness_for(seed_record)
    assert info is not None and info.name == "sglang_attention_backend"
    link = load_links()["1760fbb64ae487e4"]
    assert link["env"] == info.env == "sglang-0.5.23"
    sibling = {**seed_record, "id": "unlinked"}
    assert harness_for(sibling) is info  # by repo + filePath rule
    assert harness_for({"repo": "other/repo", "filePath": "x.py"}) is None


def test_env_identity_and_missing_env(tmp_path, monkeypatch):
    monkeypatch.setenv("ERRATA_ENV_DIR", str(tmp_path))
    path = envs.env_path("sglang-0.5.23")
    assert path.parent == tmp_path
    assert path.name == f"sglang-0.5.23-{envs.spec_for('sglang-0.5.23').digest()}"
    with pytest.raises(envs.EnvMissingError, match="python -m repro.envs.build sglang-0.5.23"):
        envs.python_for("sglang-0.5.23")
    (path / "bin").mkdir(parents=True)
    (path / "bin" / "python").write_text("")
    with pytest.raises(envs.EnvMissingError):  # no marker: a half-built env is missing
        envs.python_for("sglang-0.5.23")
    (path / envs.MARKER_NAME).write_text("ok")
    assert envs.python_for("sglang-0.5.23") == path / "bin" / "python"
    with pytest.raises(envs.UnknownEnvError):
        envs.spec_for("nothing-1.0")


def test_build_is_a_no_op_when_marked(tmp_path, monkeypatch, capsys):
    from repro.envs.build import main

    monkeypatch.setenv("ERRATA_ENV_DIR", str(tmp_path))
    path = envs.env_path("sglang-0.5.23")
    path.mkdir(parents=True)
    (path / envs.MARKER_NAME).write_text("ok")
    assert main(["sglang-0.5.23"]) == 0
    assert "up to date" in capsys.readouterr().out


def test_drift_statuses(tmp_path, seed_record):
    pkg = tmp_path / "sglang"
    target = pkg / "srt" / "layers" / "attention" / "attention_registry.py"
    target.parent.mkdir(parents=True)
    assert drift_report(pkg, seed_record, None)["status"] == "gone"

    # Same file, same line as the record says.
    padding = "\n" * (seed_record["lineNumber"] - 3)
    target.write_text(
        padding
        + "def create_trtllm_mla_backend(runner):\n"
        + "    if not runner.use_mla_backend:\n"
        + '        raise ValueError("trtllm_mla backend can only be used with MLA models.")\n'
    )
    report = drift_report(pkg, seed_record, None)
    assert report["status"] == "unchanged" and report["moved"] is False
    assert report["record"]["function"] == "create_trtllm_mla_backend"

    # Another message in the same function.
    target.write_text(SOURCE.replace("can only be used with MLA models.", "needs an MLA model"))
    report = drift_report(pkg, seed_record, None)
    assert report["status"] == "message_changed"
    assert report["installed"]["message"] == "trtllm_mla backend needs an MLA model"
    assert report["installed"]["function"] == "create_trtllm_mla_backend"

    # The raise moved to another file.
    target.write_text("def create_trtllm_mla_backend(runner):\n    return None\n")
    other = pkg / "srt" / "layers" / "attention" / "backends" / "trtllm.py"
    other.parent.mkdir()
    other.write_text(SOURCE)
    report = drift_report(pkg, seed_record, None)
    assert report["status"] == "moved"
    assert report["installed"]["file"].endswith("backends/trtllm.py")
