"""Guided moves: the flags and values a raise site's guards test, read from source."""

from __future__ import annotations

import json
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from repro.explore import _scenario as E
from repro.explore._guide import (
    MODEL_HINTS,
    PLATFORM_HINTS,
    Target,
    context,
    hinted,
    moves,
    patches,
    repaired_moves,
    targets,
)
from repro.explore._scenario import DELETE
from repro.explore._space import MODEL_TOKEN, Flag

HOOK = """
def attn_dp_enabled_of(cfg):
    return cfg.enable_dp_attention and cfg.dp_size > 1


def handle(cfg, server_args):
    if not cfg.enable_feature:
        return
    backend = server_args.attention_backend or cfg.prefill_attention_backend
    if backend == "trtllm_mha" and get_platform().is_hip:
        raise ValueError("trtllm is not supported on ROCm")
    if attn_dp_enabled_of(cfg):
        assert cfg.page_size >= 64, "page size must be at least 64 with DP attention"
    if getattr(cfg, "draft_model_path") is not None and cfg.use_mla_backend:
        raise ValueError("draft model with MLA")
"""

FLAGS = {
    "enable_feature": Flag("--enable-feature", "bool", False, (), "enable_feature"),
    "attention_backend": Flag(
        "--attention-backend", "choice", None, ("fa3", "trtllm_mha", "triton"), "attention_backend"
    ),
    "prefill_attention_backend": Flag(
        "--prefill-attention-backend",
        "choice",
        None,
        ("fa3", "triton"),
        "prefill_attention_backend",
    ),  # fmt: skip
    "enable_dp_attention": Flag("--enable-dp-attention", "bool", False, (), "enable_dp_attention"),
    "dp_size": Flag("--dp-size", "int", 1, (), "dp_size"),
    "page_size": Flag("--page-size", "int", None, (), "page_size"),
    "draft_model_path": Flag("--draft-model-path", "str", None, (), "draft_model_path"),
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    hook = tmp_path / "sglang" / "srt" / "arg_groups" / "some_hook.py"
    hook.parent.mkdir(parents=True)
    hook.write_text(textwrap.dedent(HOOK))
    return tmp_path


@pytest.mark.unit
def test_guards_name_flags_through_locals_helpers_getattr_and_early_returns(root):
    found = {t.line: t for t in targets(root, FLAGS)}
    rocm, dp, draft = found[11], found[13], found[15]
    # The early return on enable_feature guards every raise after it.
    assert all("enable_feature" in t.dests for t in (rocm, dp, draft))
    # A local assigned from two flags, compared with a constant.
    assert {"attention_backend", "prefill_attention_backend"} <= set(rocm.dests)
    assert "trtllm_mha" in rocm.values["attention_backend"]
    # A helper of the same files: its reads count, and its constants give values.
    assert {"enable_dp_attention", "dp_size", "page_size"} <= set(dp.dests)
    assert 2 in dp.values["dp_size"] and 64 in dp.values["page_size"]
    assert "draft_model_path" in draft.dests  # getattr with a constant name


@pytest.mark.unit
def test_moves_set_every_guarded_flag_with_the_compared_values(root):
    found = {t.line: t for t in targets(root, FLAGS)}
    rocm = moves(found[11], FLAGS, limit=8)
    # The guards' conjunction first: the early return's flag and the compared value.
    assert "--enable-feature" in rocm[0] and "trtllm_mha" in rocm[0]
    dp = moves(found[13], FLAGS, limit=8)
    first = dp[0]
    assert "--enable-dp-attention" in first and "--dp-size" in first
    assert first[first.index("--dp-size") + 1] == "2"
    # A flag that names a model path is given the scenario's own model directory.
    draft = moves(found[15], FLAGS, limit=8)
    assert any(MODEL_TOKEN in m for m in draft)
    assert len(moves(found[13], FLAGS, limit=3)) == 3


@pytest.mark.unit
def test_guard_words_choose_platforms_and_models(root):
    found = {t.line: t for t in targets(root, FLAGS)}
    platforms = ["hopper", "blackwell", "ampere", "mi300", "cpu"]
    assert hinted(found[11].text, PLATFORM_HINTS, platforms) == ["mi300"]
    assert hinted(found[13].text, PLATFORM_HINTS, platforms) == []
    models = ["qwen__Qwen2.5-7B", "deepseek-ai__DeepSeek-V2-Lite"]
    assert hinted(found[15].text, MODEL_HINTS, models) == ["deepseek-ai__DeepSeek-V2-Lite"]


def _flag(name: str, kind: str, default: object = None, choices: tuple = ()) -> Flag:
    return Flag(name, kind, default, choices, name[2:].replace("-", "_"))


@pytest.mark.unit
def test_a_function_name_gives_the_setting_it_runs_under():
    flags = [
        _flag("--speculative-algorithm", "str"),
        _flag("--enable-lora", "bool", False),
        _flag("--attention-backend", "choice", "auto", ("auto", "fa3")),
        _flag("--speculative-num-steps", "int"),
    ]
    by_dest = {f.dest: f for f in flags}
    vocab = {"speculative_algorithm": {"EAGLE", "NGRAM"}}
    assert context("_handle_eagle_family", by_dest, vocab) == [["--speculative-algorithm", "EAGLE"]]
    assert context("check_lora_server_args", by_dest, vocab) == [["--enable-lora"]]
    assert context("_resolve_auto_params", by_dest, vocab) == []  # "auto" names nothing
    assert context("handle_fa3_fallback", by_dest, vocab) == [["--attention-backend", "fa3"]]
    values = {"speculative_num_steps": (0,)}
    eagle = Target("f.py", 1, ("speculative_num_steps",), values, "", "_handle_eagle_family")
    first = moves(eagle, by_dest, limit=4, vocab=vocab)[0]
    assert first == ("--speculative-algorithm", "EAGLE", "--speculative-num-steps", "0")


CONFIG_CLASS = """
from transformers import PretrainedConfig


class BeamConfig(PretrainedConfig):
    model_type = "beam"

    def __init__(self, num_hidden_layers=2, layer_types=None, **kwargs):
        if num_hidden_layers <= 0:
            raise ValueError("num_hidden_layers must be positive")
        super().__init__(**kwargs)


def check(model_config, cfg):
    hf_config = model_config.hf_config
    if hf_config.architectures[0] in ("LagunaForCausalLM",) and cfg.page_size > 1:
        raise ValueError("Laguna needs page size 1")
    if hf_config.get("sliding_window") is None:
        raise ValueError("no sliding window")
"""


@pytest.mark.unit
def test_config_keys_and_config_classes_become_config_json_edits(tmp_path):
    path = tmp_path / "sglang" / "srt" / "configs" / "beam.py"
    path.parent.mkdir(parents=True)
    path.write_text(textwrap.dedent(CONFIG_CLASS))
    found = {t.line: t for t in targets(tmp_path, {"page_size": FLAGS["page_size"]})}
    beam, laguna, window = found[10], found[17], found[19]
    # A config class's __init__: its parameters are config.json keys, and every edit
    # selects the class by its model_type.
    assert patches(beam, 4)[0] == (("model_type", '"beam"'), ("num_hidden_layers", "0"))
    # A key read off hf_config: compared with a constant (architectures: a list of one).
    assert ("architectures", '["LagunaForCausalLM"]') in patches(laguna, 4)[0]
    assert "page_size" in laguna.dests
    # A key compared with nothing usable is removed, or set to 0.
    assert patches(window, 4) == [(("sliding_window", DELETE),), (("sliding_window", "0"),)]


@pytest.mark.unit
def test_a_config_edit_is_a_copy_of_the_shipped_directory(tmp_path, monkeypatch):
    monkeypatch.setattr(E, "PATCHED_DIR", tmp_path / "patched")
    scenario = E.Scenario("hopper", "qwen__Qwen2.5-7B", ("--tp-size", "2"),
                          (("num_attention_heads", "0"), ("sliding_window", DELETE)))  # fmt: skip
    directory = scenario.model_dir()
    shipped = json.loads((E.MODEL_CONFIGS_DIR / "qwen__Qwen2.5-7B" / "config.json").read_text())
    edited = json.loads((directory / "config.json").read_text())
    assert edited["num_attention_heads"] == 0 and "sliding_window" not in edited
    edited_keys = ("num_attention_heads", "sliding_window")
    assert {k: v for k, v in edited.items() if k not in edited_keys} == {
        k: v for k, v in shipped.items() if k not in edited_keys
    }
    assert scenario.model_dir() == directory  # made once
    assert scenario.argv()[:2] == ["--model-path", str(directory)]
    assert scenario.command().endswith(
        "--device cuda  # config.json edited: num_attention_heads=0, sliding_window removed"
    )
    assert scenario.edits() == {"num_attention_heads": 0, "sliding_window": None}
    assert scenario.key != replace(scenario, patch=()).key
    undone = scenario.without_edit(("sliding_window", DELETE))
    assert undone.patch == (("num_attention_heads", "0"),) and undone.extra == scenario.extra


@pytest.mark.unit
def test_moves_avoid_refused_fragments_and_use_known_strings():
    flags = [
        _flag("--cuda-graph-config", "str"),
        _flag("--speculative-algorithm", "str"),
        _flag("--max-ep-size", "int"),
    ]
    by_dest = {f.dest: f for f in flags}
    guards = Target("f.py", 1, ("cuda_graph_config", "speculative_algorithm", "max_ep_size"),
                    {"max_ep_size": (2,)}, "", "handle_elastic_ep")  # fmt: skip
    vocab = {"speculative_algorithm": {"NGRAM", "EAGLE"}}
    found = moves(guards, by_dest, limit=8, vocab=vocab, bad={("--cuda-graph-config", "x")})
    # The JSON flag's "x" was refused by the parser on its own: it is left out rather
    # than sinking every combination; a free string takes what other guards compare.
    assert found[0] == ("--speculative-algorithm", "EAGLE", "--max-ep-size", "2")
    assert not any("--cuda-graph-config" in m for m in found)
    # With and without the function's context, alternately.
    by_dest["enable_elastic_ep"] = _flag("--enable-elastic-ep", "bool", False)
    found = moves(guards, by_dest, limit=4, vocab=vocab)
    assert found[0][:1] == ("--enable-elastic-ep",) and found[1][:1] != ("--enable-elastic-ep",)


@pytest.mark.unit
def test_a_move_stopped_by_another_check_is_repaired_through_that_checks_flags():
    flags = [
        _flag("--enable-kv-cache-sharding", "bool", False),
        _flag("--page-size", "int"),
        _flag("--attention-backend", "choice", None, ("fa3", "triton", "flashinfer")),
    ]
    by_dest = {f.dest: f for f in flags}
    # The move for a page-size guard stopped at a check that reads the backend and the
    # sharding flag: retry with the flag it set removed, and with the backend changed.
    blocker = Target("kv_shard_hook.py", 100, ("enable_kv_cache_sharding", "attention_backend"),
                     {"attention_backend": ("fa3",)})  # fmt: skip
    move = [("--page-size", "1"), ("--enable-kv-cache-sharding",)]
    sharding, backend = repaired_moves(move, blocker, by_dest, bad=set())
    assert sharding == [[("--page-size", "1")]]
    assert backend[0] == [*move, ("--attention-backend", "fa3")]
    refused = {("--attention-backend", "fa3")}
    backend = repaired_moves(move, blocker, by_dest, refused)[1]
    assert [*move, ("--attention-backend", "fa3")] not in backend
