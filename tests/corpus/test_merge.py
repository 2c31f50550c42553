"""One record per raise site across releases: moves, rewordings, release order."""

from __future__ import annotations

import pytest

from app.corpus.history import Location, at_release, history, version_key
from app.corpus.merge import merge_releases
from app.drafts.scan import FORM_UNBOUND, FORM_UNSET

pytestmark = pytest.mark.unit


def site(path, function, message, line=10, cls="ValueError"):
    return {"path": path, "function": function, "parts": [message], "line": line, "cls": cls}


def test_moved_reworded_and_new_sites_chain_by_message_and_function():
    old = [
        site("a/backends.py", "create", "trtllm_mla needs an MLA model", 75),
        site("a/backends.py", "create", "Too many heads", 80),
        site("a/models/llama.py", "load_weights", "Unexpected key"),
        site("a/models/qwen.py", "load_weights", "Unexpected key"),
    ]
    moved = [
        site("a/registry.py", "create", "trtllm_mla needs an MLA model", 97),
        site("a/backends.py", "create", "Too many attention heads", 81),
        site("a/models/llama.py", "load_weights", "Unexpected key"),
        site("a/models/qwen.py", "load_weights", "Unexpected key"),
        site("a/backends.py", "create", "A brand new error"),
    ]
    chains = merge_releases([("0.4.6", old), ("0.5.5", moved), ("0.5.17", moved)])
    assert len(chains) == 5
    by_first = {c.first["parts"][0]: c for c in chains}
    mla = by_first["trtllm_mla needs an MLA model"]
    assert [(v, s["path"]) for v, s in mla.locations] == [
        ("0.4.6", "a/backends.py"),
        ("0.5.5", "a/registry.py"),
        ("0.5.17", "a/registry.py"),
    ]
    heads = by_first["Too many heads"]
    assert heads.latest["parts"] == ["Too many attention heads"]
    # Same message and function in two files stay two sites.
    keys = [c.latest["path"] for c in chains if c.first["parts"] == ["Unexpected key"]]
    assert sorted(keys) == ["a/models/llama.py", "a/models/qwen.py"]


def test_a_check_split_out_in_its_file_stays_its_site_not_a_copy_elsewhere():
    # sglang 0.5.x: fp8.py's create_weights check moved into validate_block_quant_shapes,
    # while multimodal_gen gained a copy of the class with the old function's name.
    msg = "Weight output_partition_size = {} is not divisible by block_n = {}."
    srt, mm = "srt/quantization/fp8.py", "multimodal_gen/quantization/fp8.py"
    old = [site(srt, "Fp8LinearMethod.create_weights", msg, 200)]
    new = [
        site(mm, "Fp8LinearMethod.create_weights", msg, 221),
        site(srt, "Fp8LinearMethod.validate_block_quant_shapes", msg, 606),
    ]
    chains = merge_releases([("0.4.6", old), ("0.5.5", new)])
    assert sorted((c.first["path"], c.latest["path"], len(c.locations)) for c in chains) == [
        (mm, mm, 1),
        (srt, srt, 2),
    ]


def test_two_statement_forms_at_one_call_are_two_sites_not_a_rewording():
    """sglang 0.1.12's `RMSNorm(..., eps=...)` of vllm (a kernel call: `unexpected keyword
    argument`) and 0.5.5's `RMSNorm(..., **kwargs)` in the same function (a keyword given
    twice): alike messages of two errors, not one reworded."""
    path, function = "srt/models/qwen2.py", "Qwen2Model.__init__"
    call = {
        **site(path, function, "RMSNorm() got an unexpected keyword argument '", 224, "TypeError"),
        "form": "call",
    }
    twice = {
        **site(
            path, function, "RMSNorm() got multiple values for keyword argument '", 317, "TypeError"
        ),
        "form": "keyword twice",
    }
    chains = merge_releases([("0.1.12", [call]), ("0.5.5", [twice])])
    assert sorted((c.first["form"], len(c.locations)) for c in chains) == [
        ("call", 1),
        ("keyword twice", 1),
    ]
    # A raise reworded from one message form to another still continues its chain.
    literal = {**site(path, function, "Too many heads", 80), "form": "literal"}
    fstring = {**site(path, function, "Too many attention heads", 81), "form": "f-string"}
    (chain,) = merge_releases([("0.4.6", [literal]), ("0.5.5", [fstring])])
    assert len(chain.locations) == 2


def test_two_callers_messages_at_one_helpers_raise_are_two_sites():
    """sglang's `failure_exception` raises whatever `record_failure` kept: "Aborted by
    AbortReq." in 0.5.1 and "Aborted by decode-side abort notification." in 0.5.17 are two
    callers' errors (alike by their class's wording), not one reworded; the same text in a
    later release continues its own chain."""
    path, function = "srt/disaggregation/conn.py", "Sender.failure_exception"
    head = "KVTransferError(bootstrap_room={}): "

    def helper(text, line):
        return {**site(path, function, head + text, line, "KVTransferError"), "form": "helper call"}

    chains = merge_releases(
        [
            ("0.5.1", [helper("Aborted by AbortReq.", 1190)]),
            ("0.5.17", [helper("Aborted by decode-side abort.", 2801)]),
            ("0.5.23", [helper("Aborted by decode-side abort.", 2452)]),
        ]
    )
    assert sorted(len(c.locations) for c in chains) == [1, 2]


@pytest.mark.parametrize(
    ("form", "cls", "wording"),
    [
        (FORM_UNSET, "AttributeError", "'TokenizerManager' object has no attribute '{}'"),
        (FORM_UNBOUND, "NameError", "name '{}' is not defined"),
    ],
)
def test_another_attribute_a_method_may_lack_is_another_site(form, cls, wording):
    """`self.executor` read in 0.1.12 and `self.tokenizer` read in 0.3.0 at one method are
    two errors, alike only by the interpreter's wording (and so are two unbound names)."""
    path, function = "srt/managers/tokenizer_manager.py", "TokenizerManager.get_pixel_values"

    def unset(attr, line):
        return {**site(path, function, wording.format(attr), line, cls), "form": form}

    chains = merge_releases(
        [
            ("0.1.12", [unset("executor", 129)]),
            ("0.3.0", [unset("tokenizer", 140)]),
            ("0.3.3", [unset("tokenizer", 151)]),
        ]
    )
    assert sorted(len(c.locations) for c in chains) == [1, 2]


def test_a_method_moved_out_to_a_module_function_of_another_file_keeps_its_site():
    msg = "Prefill out of memory. Try to lower your batch size.\nTry to allocate {} tokens."
    old = [site("srt/schedule_batch.py", "ScheduleBatch.alloc_paged_extend", msg, 1028)]
    new = [site("srt/mem_cache/allocation.py", "alloc_paged_extend", msg, 246)]
    (chain,) = merge_releases([("0.5.1", old), ("0.5.17", new)])
    assert [s["path"] for _, s in chain.locations] == [
        "srt/schedule_batch.py",
        "srt/mem_cache/allocation.py",
    ]


def test_history_summary_says_range_move_and_rewording():
    locs = [
        Location("0.4.6", "a/backends.py", 75, "create", "Old words"),
        Location("0.4.10", "a/backends.py", 77, "create", "Old words"),
        Location("0.5.5", "a/registry.py", 97, "create", "Old words"),
        Location("0.5.17", "a/registry.py", 99, "create", "New words"),
        Location("0.5.23", "a/registry.py", 99, "create", "New words"),
    ]
    summary = history(list(reversed(locs))).summary()
    assert summary == (
        "raised in 0.4.6 – 0.5.23; moved in 0.5.5; message reworded in 0.5.17 (before: Old words)"
    )
    assert at_release(locs, "0.4.10").line_number == 77
    assert at_release(locs, "0.5.7").release == "0.5.5"  # newest pinned release before it
    assert at_release(locs, "0.3.0") is None
    assert history([]) is None


def test_version_order_is_numeric():
    versions = ["0.5.10", "0.4.10", "0.5.1", "0.4.6", "0.5.10.post1"]
    assert sorted(versions, key=version_key) == [
        "0.4.6",
        "0.4.10",
        "0.5.1",
        "0.5.10",
        "0.5.10.post1",
    ]


def test_a_site_moved_to_another_folder_and_reworded_at_once_keeps_its_site():
    # sglang 0.1.12 -> 0.1.18: router/model_runner.py's "Not enought memory." became
    # controller/model_runner.py's "Not enough memory.", one step.
    old_msg = "Not enought memory. Please try to increase --mem-fraction-static."
    new_msg = "Not enough memory. Please try to increase --mem-fraction-static."
    function = "ModelRunner.init_memory_pool"
    old = [site("srt/managers/router/model_runner.py", function, old_msg, 338, "RuntimeError")]
    new = [site("srt/managers/controller/model_runner.py", function, new_msg, 356, "RuntimeError")]
    (chain,) = merge_releases([("0.1.12", old), ("0.1.18", new)])
    assert chain.latest["parts"] == [new_msg]
    # Less alike, or another file name, or a chain that went on in its own folder: a
    # new site (a copy of the code elsewhere, not the old one moved).
    other = [site("srt/managers/controller/model_runner.py", function, "Out of memory.", 356)]
    assert len(merge_releases([("0.1.12", old), ("0.1.18", other)])) == 2
    renamed = [site("srt/managers/controller/runner.py", function, new_msg, 356, "RuntimeError")]
    assert len(merge_releases([("0.1.12", old), ("0.1.18", renamed)])) == 2
    both = [*old, *new]
    chains = merge_releases([("0.1.12", old), ("0.1.18", both)])
    assert sorted(len(c.locations) for c in chains) == [1, 2]
