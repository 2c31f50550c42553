"""Scenarios come from the record: the trigger command, the after command, named backends."""

from __future__ import annotations

import pytest

from repro.harnesses._scenarios import (
    ScenarioError,
    backends_named,
    build_scenarios,
    launch_argv,
    with_backend,
)

pytestmark = pytest.mark.unit

# The registry keys of sglang 0.5.23's ATTENTION_BACKENDS (the harness passes the live ones).
KEYS = [
    "aiter", "ascend", "cutedsl_mla", "dsa", "dsv4", "fa3", "fa4", "flashinfer", "flashmla",
    "flex_attention", "hpc_ops", "intel_amx", "intel_xpu", "torch_native", "triton",
    "trtllm_mha", "trtllm_mla", "wave",
]  # fmt: skip


def test_seed_record_gives_trigger_then_one_fix_per_backend(seed_record):
    scenarios = build_scenarios(seed_record, KEYS)
    trigger = scenarios[0]
    assert trigger.role == "trigger"
    assert trigger.argv == ["--model", "qwen/Qwen2.5-7B", "--attention-backend", "trtllm_mla"]
    assert [(s.name, s.source) for s in scenarios[1:]] == [
        ("fix:flashinfer", "exampleFix.after"),
        ("fix:flashmla", "solutions[1]"),
        ("fix:fa3", "solutions[1]"),
        ("fix:triton", "solutions[1]"),
        ("fix:auto", "solutions[2]"),
    ]
    auto = scenarios[-1]
    assert auto.argv == ["--model", "qwen/Qwen2.5-7B"]
    assert auto.command == "python -m sglang.launch_server --model qwen/Qwen2.5-7B"


def test_launcher_prefix_is_dropped_and_continuations_joined():
    assert launch_argv("python3 -m sglang.launch_server --model m --tp 2") == [
        "--model", "m", "--tp", "2",
    ]  # fmt: skip
    record = {"exampleFix": "# before\npython -m sglang.launch_server \\\n  --model m \\\n"
              "  --attention-backend=trtllm_mla\n"}  # fmt: skip
    [trigger] = build_scenarios(record, KEYS)
    assert trigger.backend == "trtllm_mla"


def test_backend_flag_is_replaced_or_removed():
    argv = ["--model", "m", "--attention-backend", "x", "--tp", "2"]
    assert with_backend(argv, "triton") == ["--model", "m", "--tp", "2", "--attention-backend",
                                            "triton"]  # fmt: skip
    assert with_backend(argv, "auto") == ["--model", "m", "--tp", "2"]


def test_only_real_registry_keys_are_backends():
    assert backends_named("use flashinfer or fa3, not flash attention", KEYS) == [
        "flashinfer", "fa3",
    ]  # fmt: skip
    assert backends_named("Let SGLang auto-select the backend", KEYS) == ["auto"]


def test_record_without_launch_command_is_rejected():
    with pytest.raises(ScenarioError):
        build_scenarios({"exampleFix": "# before\nserver_args.attention_backend = 'x'"}, KEYS)
