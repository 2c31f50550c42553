"""`flask corpus build` end to end on two real sglang releases (0.4.3 and 0.4.6): one
record per raise site, old wordings still match, curated records attach, filters work."""

from __future__ import annotations

import gzip
import json
import re

import pytest
from sqlalchemy import select

from app.corpus.build import is_test_code
from app.corpus.catalog import build_index, forget
from app.corpus.models import RecordLocation
from app.corpus.pins import DEFAULT_PINS
from app.extensions import db
from tests.conftest import import_envelopes, make_envelope
from tests.corpus.wheels import sglang_wheel, small_pins
from tests.helpers import post_match_page

pytestmark = pytest.mark.integration

OLD_WORDING = (
    "ValueError: Initial test run failed - Please make sure benchmark arguments are "
    "correctly specified. Error: connection refused"
)
NEW_WORDING = (
    "ValueError: Warmup failed - Please make sure benchmark arguments are correctly "
    "specified. Error: connection refused"
)
CURATED_ID = "c0ffee0000000001"


@pytest.fixture
def built(app, runner, tmp_path, seed_envelope):
    curated = make_envelope(
        seed_envelope,
        CURATED_ID,
        filePath="python/sglang/srt/distributed/utils.py",
        lineNumber=76,
        errorMessage="Invalid partition string: {partition_list_str}",
        messagePattern=r"Invalid partition string: .+",
    )
    return runner, _build_with(runner, tmp_path, curated)


def _build_with(runner, tmp_path, curated):
    """Import one curated record, then build and load 0.4.3 and 0.4.6: it takes one site."""
    import_envelopes(runner, tmp_path / "curated.jsonl", [curated])
    pins = small_pins(tmp_path, ("0.4.3", "0.4.6"))
    result = runner.invoke(args=["corpus", "build", "--pins", str(pins)])
    assert result.exit_code == 0, result.output
    assert "1 attached to curated records" in result.output
    return pins


def test_build_is_idempotent(built):
    runner, pins = built
    again = runner.invoke(args=["corpus", "build", "--pins", str(pins)])
    assert again.exit_code == 0, again.output
    assert "corpus reused" in again.output and "already loaded: nothing to do" in again.output


def test_old_wording_matches_the_site_with_its_release_range(built, client):
    body = client.post("/api/v1/match", json={"text": OLD_WORDING, "limit": 3}).get_json()
    top = body["matches"][0]
    assert top["errorMessage"].startswith("Warmup failed - Please make sure")
    assert top["curated"] is False and top["repo"] == "sgl-project/sglang"
    assert top["releases"] == {"first": "0.4.3", "last": "0.4.6"}
    # No release asked for and no frames: the paste's wording says where it was raised.
    assert top["at"]["release"] == "0.4.3" and top["at"]["filePath"].endswith("bench_serving.py")
    answer = client.post("/api/v1/match", json={"text": NEW_WORDING}).get_json()
    newer = answer["matches"][0]
    assert newer["id"] == top["id"] and newer["at"]["release"] == "0.4.6"
    assert not any(note.startswith("the message is worded as") for note in answer["notes"])
    page = post_match_page(client, OLD_WORDING)
    assert page.status_code == 200
    assert "the releases after 0.4.3 word it otherwise" in page.get_data(as_text=True)
    assert (
        "the message is worded as sgl-project/sglang 0.4.3 words it (of the pinned releases); "
        "the releases after 0.4.3 word it otherwise"
    ) in body["notes"]
    older = client.post(
        "/api/v1/match", json={"text": OLD_WORDING, "limit": 3, "version": "0.4.3"}
    ).get_json()["matches"][0]
    assert older["id"] == top["id"]
    assert older["at"]["release"] == "0.4.3" and older["at"]["filePath"].endswith(
        "bench_serving.py"
    )
    site = client.get(f"/api/v1/records/{top['id']}").get_json()["site"]
    assert site["summary"].startswith("raised in 0.4.3 – 0.4.6; message reworded in 0.4.6")
    assert site["whyFired"]["source"] == "code"
    assert "not curated" in site["whyFired"]["label"]
    assert [loc["release"] for loc in site["locations"]] == ["0.4.3", "0.4.6"]
    assert site["locations"][0]["githubUrl"].startswith(
        "https://github.com/sgl-project/sglang/blob/v0.4.3/python/sglang/bench_serving.py#L"
    )


def test_curated_record_is_the_one_result_for_its_site(built, client):
    text = "ValueError: Invalid partition string: 3,4"
    matches = client.post("/api/v1/match", json={"text": text, "limit": 10}).get_json()["matches"]
    assert [m["id"] for m in matches] == [CURATED_ID]
    assert matches[0]["curated"] is True and matches[0]["solutions"]
    assert matches[0]["releases"] == {"first": "0.4.3", "last": "0.4.6"}
    record = client.get(f"/api/v1/records/{CURATED_ID}").get_json()
    assert record["draft"] is False
    assert record["site"]["whyFired"]["condition"] == "partition_list_str is not None"
    drafts_only = client.post("/api/v1/match", json={"text": text, "curated": False}).get_json()[
        "matches"
    ]
    assert drafts_only == []


def test_filters_and_compact_fields(built, client):
    elsewhere = client.post(
        "/api/v1/match", json={"text": OLD_WORDING, "repo": "huggingface/transformers"}
    ).get_json()
    assert elsewhere["matches"] == []
    gone = client.post("/api/v1/match", json={"text": OLD_WORDING, "version": "0.5.23"})
    assert gone.get_json()["matches"] == []
    bad = client.post("/api/v1/match", json={"text": OLD_WORDING, "version": "0.4 ; drop"})
    assert bad.status_code == 422
    hits = client.get("/api/v1/search", query_string={"q": "partition string"}).get_json()
    assert hits["items"][0]["curated"] is True and hits["items"][0]["at"]["release"] == "0.4.6"
    compact = client.get("/api/v1/records", query_string={"compact": 1, "per_page": 5}).get_json()[
        "items"
    ]
    assert all({"curated", "repo", "releases", "at"} <= set(item) for item in compact)


def test_record_page_shows_the_history_and_derived_why(built, client):
    body = client.post("/api/v1/match", json={"text": OLD_WORDING}).get_json()
    page = client.get(f"/records/{body['matches'][0]['id']}").get_data(as_text=True)
    assert "Across releases" in page and "derived from the code, not curated" in page
    assert "raised in 0.4.3 – 0.4.6" in page


FRAMES_043 = (
    "Traceback (most recent call last):\n"
    '  File "/usr/lib/python3/dist-packages/sglang/bench_serving.py", line 151, '
    "in async_request_openai_completions\n"
    '    data = response["choices"]\n'
    "KeyError: 'choices'\n"
)


def test_frames_say_which_release_and_what_the_function_raises(built, client):
    body = client.post("/api/v1/match", json={"text": FRAMES_043}).get_json()
    evidence = body["evidence"]
    assert evidence["fits"]["sgl-project/sglang"]["releases"] == ["0.4.3"]
    frame = evidence["frame"]
    assert frame["release"] == "0.4.3" and frame["atRaiseSite"] is True
    assert frame["githubUrl"] == (
        "https://github.com/sgl-project/sglang/blob/v0.4.3/python/sglang/bench_serving.py#L151"
    )
    assert any(
        r["errorMessage"].startswith("OpenAI Completions API URL")
        for r in frame["recordsInFunction"]
    )
    assert "the frames fit sgl-project/sglang 0.4.3 (of the pinned releases)" in body["notes"]
    unknown = client.post("/api/v1/match", json={"text": "KeyError: 'zzz'"}).get_json()
    assert unknown["notes"][0] == "no record's message pattern matches this error"


def test_a_curated_record_imported_later_takes_over_its_site(
    built, client, tmp_path, seed_envelope
):
    runner, pins = built
    text = "AssertionError: OpenAI Completions API URL must end with 'completions'."
    before = client.post("/api/v1/match", json={"text": text}).get_json()["matches"]
    assert [m["curated"] for m in before] == [False]
    later = make_envelope(
        seed_envelope,
        "c0ffee0000000002",
        filePath="python/sglang/bench_serving.py",
        errorClass="AssertionError",
        errorMessage="OpenAI Completions API URL must end with 'completions'.",
        messagePattern=r"OpenAI Completions API URL must end with 'completions'\.",
    )
    import_envelopes(runner, tmp_path / "later.jsonl", [later])
    again = runner.invoke(args=["corpus", "build", "--pins", str(pins)])
    assert again.exit_code == 0, again.output
    assert "2 attached to curated records, 1 removed, 1 renamed" in again.output
    forget()  # the catalog is rechecked at most every 2 s; do not wait for it
    after = client.post("/api/v1/match", json={"text": text}).get_json()["matches"]
    assert [(m["id"], m["curated"]) for m in after] == [("c0ffee0000000002", True)]
    # The draft's id now leads to the curated record that took its site.
    moved = client.get(f"/api/v1/records/{before[0]['id']}")
    assert moved.status_code == 301
    assert moved.headers["Location"].endswith("/api/v1/records/c0ffee0000000002")


def _frame(path: str, line: int, function: str, source: str) -> str:
    return (
        f'  File "/usr/local/lib/python3.10/dist-packages/sglang/{path}", line {line}, '
        f"in {function}\n    {source}\n"
    )


LOOKUP_0_4_6 = (
    "Traceback (most recent call last):\n"
    + _frame("srt/model_executor/model_runner.py", 441, "load_model", "self.model = get_model(")
    + _frame("srt/models/deepseek_v2.py", 1719, "load_weights", "param = params_dict[name]")
    + "KeyError: 'model.layers.3.mlp.experts.w2_weight_scale_inv'\n"
)


def _top(client, text: str) -> dict:
    body = client.post("/api/v1/match", json={"text": text, "limit": 5}).get_json()
    assert body["matches"], body
    return body


def test_a_lookup_on_the_frames_line_is_the_raise_site(built, client):
    body = _top(client, LOOKUP_0_4_6)
    top = body["matches"][0]
    assert top["why"]["kind"] == "statement"
    assert top["errorClass"] == "KeyError" and top["at"]["release"] == "0.4.6"
    record = client.get(f"/api/v1/records/{top['id']}").get_json()
    assert record["filePath"].endswith("srt/models/deepseek_v2.py")
    why = record["site"]["whyFired"]
    assert why["function"].endswith("load_weights") and why["form"] == "lookup"
    assert any("plain statement" in k or "statement" in k for k in body["answer"]["known"])
    # The same line with another class is not this statement's error.
    other = LOOKUP_0_4_6.replace("KeyError:", "TypeError:")
    assert _top(client, other)["matches"][0]["why"]["kind"] != "statement"


def test_an_import_statement_answers_for_the_name_that_failed(built, client):
    head = "Traceback (most recent call last):\n" + _frame(
        "srt/models/deepseek_v2.py",
        97,
        "<module>",
        "from sgl_kernel import awq_dequantize, bmm_fp8, merge_state_v2",
    )
    failed = head + (
        "ImportError: cannot import name 'bmm_fp8' from 'sgl_kernel' "
        "(/usr/local/lib/python3.10/dist-packages/sgl_kernel/__init__.py)\n"
    )
    top = _top(client, failed)["matches"][0]
    assert top["errorMessage"] == "cannot import name 'bmm_fp8' from 'sgl_kernel'"
    assert top["why"]["kind"] in {"statement", "pattern"}
    # A missing package fails the whole statement: one result for it, not one per name.
    missing = _top(client, head + "ModuleNotFoundError: No module named 'sgl_kernel'\n")
    first = missing["matches"][0]
    assert first["why"]["kind"] == "statement" and first["count"] >= 3
    assert not any(m["errorMessage"].endswith("from 'sgl_kernel'") for m in missing["matches"][1:])
    # Without frames, the message alone finds the site by its pattern.
    title = "[Bug] ImportError: cannot import name 'merge_state_v2' from 'sgl_kernel'"
    assert _top(client, title)["matches"][0]["errorMessage"].endswith(
        "'merge_state_v2' from 'sgl_kernel'"
    )


def test_a_plain_import_answers_no_module_named(built, client):
    text = (
        "Traceback (most recent call last):\n"
        + _frame("bench_one_batch.py", 57, "<module>", "import torch.distributed as dist")
        + "ModuleNotFoundError: No module named 'torch'\n"
    )
    top = _top(client, text)["matches"][0]
    assert top["errorMessage"] == "No module named 'torch.distributed'"
    assert top["errorClass"] == "ModuleNotFoundError"
    assert top["at"]["filePath"].endswith("sglang/bench_one_batch.py")
    # Without a frame, the message finds the files that import the module (`import
    # zmq.asyncio` fails the same way when zmq is missing).
    title = _top(client, "ModuleNotFoundError: No module named 'zmq'")
    found = {m["errorMessage"].removesuffix("'") for m in title["matches"]}
    assert all(f == "No module named 'zmq" or f.startswith("No module named 'zmq.") for f in found)
    assert any(
        m["at"]["filePath"].endswith("managers/tokenizer_manager.py") for m in title["matches"]
    )


def test_a_bare_assert_is_found_by_its_condition(built, client):
    text = "AssertionError: assert num_heads % attn_tp_size == 0"
    top = _top(client, text)["matches"][0]
    assert top["errorMessage"] == "assert num_heads % attn_tp_size == 0"
    assert top["errorClass"] == "AssertionError"


def test_the_match_page_explains_a_statement_match(built, client):
    page = post_match_page(client, LOOKUP_0_4_6)
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "innermost frame is on this very statement" in html


def test_a_message_reported_to_the_client_matches_when_cut_off(built, client):
    text = "[Error]Input length (160062 tokens) exceeds the maximum allowed length (59862 tokens)."
    top = _top(client, text)["matches"][0]
    assert top["errorMessage"].startswith("Input length ({len(req.origin_input_ids)} tokens)")
    record = client.get(f"/api/v1/records/{top['id']}").get_json()
    assert record["site"]["whyFired"]["form"] == "reported"
    assert record["site"]["whyFired"]["function"] == "validate_input_length"


def test_a_line_of_the_error_log_finds_the_call_that_logged_it(built, client):
    """No exception line: what the launch wrote to its log when a scheduler died."""
    text = (
        "[2025-03-01 10:00:00] Rank 0 scheduler is dead. Please check if there are relevant "
        "logs.\n[2025-03-01 10:00:01] Exit code: -9"
    )
    top = _top(client, text)["matches"][0]
    assert top["errorMessage"] == (
        "Rank {i} scheduler is dead. Please check if there are relevant logs."
    )
    assert top["errorClass"] == "logging.ERROR"
    record = client.get(f"/api/v1/records/{top['id']}").get_json()
    assert record["site"]["whyFired"]["form"] == "logged"
    assert record["site"]["summary"].startswith("logged in 0.4.3 – 0.4.6")
    page = client.get(f"/records/{top['id']}").get_data(as_text=True)
    assert "Logged at" in page and "Raised at" not in page


def test_a_message_a_helper_raises_and_a_kernel_call_answer_through_the_api(built, client):
    """A message passed to `assert_pkg_version` is raised in srt/utils.py; a flashinfer
    wrapper built with another signature fails at sglang's call."""
    text = (
        "Exception: flashinfer_python is installed with version 0.1.6, which is less than "
        "the minimum required version 0.2.1.post1. Please uninstall the old version and "
        "reinstall the latest version by following the instructions at "
        "https://docs.flashinfer.ai/installation.html."
    )
    top = _top(client, text)["matches"][0]
    assert top["at"]["filePath"].endswith("sglang/srt/utils.py")
    assert top["errorMessage"].startswith("flashinfer_python is installed with version {")
    text = (
        "TypeError: BatchPrefillWithPagedKVCacheWrapper.__init__() got an unexpected keyword "
        "argument 'backend'"
    )
    found = _top(client, text)["matches"]
    assert found and all(m["errorClass"] == "TypeError" for m in found)
    assert found[0]["at"]["filePath"].endswith("layers/attention/flashinfer_backend.py")


ATTRIBUTE_PASSED_ON_046 = (
    "Traceback (most recent call last):\n"
    '  File "/usr/lib/python3/dist-packages/sglang/srt/model_executor/model_runner.py", '
    "line 469, in load_model\n"
    "    self.model.get_attention_sliding_window_size()\n"
    '  File "/usr/lib/python3/dist-packages/sglang/srt/models/minicpmv.py", line 1119, '
    "in __getattr__\n"
    "    return getattr(self.minicpmv, name)\n"
    "AttributeError: 'MiniCPMV2_6' object has no attribute "
    "'get_attention_sliding_window_size'\n"
)


def test_an_attribute_error_passed_on_by_getattr_answers_at_the_caller(built, client):
    """`MiniCPMV.__getattr__` forwards every missing name: its frame is the attribute
    protocol, not where the error is; the caller's frame (`load_model`) answers."""
    body = client.post("/api/v1/match", json={"text": ATTRIBUTE_PASSED_ON_046}).get_json()
    top = body["matches"][0]
    assert top["why"]["kind"] == "frame"
    assert top["at"]["filePath"].endswith("srt/model_executor/model_runner.py")
    assert not any(m["at"]["filePath"].endswith("models/minicpmv.py") for m in body["matches"])


def _answers_a_title(client, title, first, known, page_says):
    """A frameless title's first match is ``first`` (its kind, the end of its file's path,
    its function), a sentence of the answer holds ``known``, and the match page, asked as a
    browser does, says ``page_says``."""
    kind, path, function = first
    body = client.post("/api/v1/match", json={"text": title, "limit": 5}).get_json()
    top = body["matches"][0]
    assert top["kind"] == kind
    assert top["at"]["filePath"].endswith(path)
    record = client.get(f"/api/v1/records/{top['id']}").get_json()
    assert record["site"]["whyFired"]["function"] == function
    assert any(known in line for line in body["answer"]["known"])
    page = post_match_page(client, title)
    assert page.status_code == 200
    assert page_says in page.get_data(as_text=True)


def test_a_title_naming_a_class_and_its_missing_attribute_finds_its_readers(built, client):
    """sglang #4127's title: no frame, but the class and the attribute; the methods of
    `Scheduler` that read `self.token_to_kv_pool`, the one the title quotes first."""
    title = (
        "[Bug] self.token_to_kv_pool.available_size(): AttributeError: 'Scheduler' object "
        "has no attribute 'token_to_kv_pool' with Qwen/QwQ-32B on SGLang v0.4.3.post3"
    )
    _answers_a_title(
        client,
        title,
        ("attribute", "srt/managers/scheduler.py", "Scheduler.check_memory"),
        "no traceback frame",
        "a method of that class that reads that attribute of",
    )
    # An attribute no method reads, or a class that has none, gets no such answer.
    for text in (
        "AttributeError: 'Scheduler' object has no attribute 'zz_not_read'",
        "AttributeError: 'NoSuchThing' object has no attribute 'token_to_kv_pool'",
    ):
        body = client.post("/api/v1/match", json={"text": text}).get_json()
        assert all(m["kind"] != "attribute" for m in body["matches"]), text


def test_a_title_naming_a_module_and_its_missing_attribute_finds_its_readers(built, client):
    """sglang #3392's title (ROCm, vllm 0.7.2): 0.4.3's `fused_experts_impl` calls
    `ops.silu_and_mul` after `from vllm import _custom_ops as ops`; the answer names it,
    says what that means, and the page says why; a module no function reads names none."""
    title = "[Bug] AttributeError: module 'vllm._custom_ops' has no attribute 'silu_and_mul'"
    _answers_a_title(
        client,
        title,
        ("reader", "layers/moe/fused_moe_triton/fused_moe.py", "fused_experts_impl"),
        "names a module and an attribute",
        "or that very module's attribute",
    )
    other = "AttributeError: module 'vllm._custom_ops' has no attribute 'zz_not_read'"
    body = client.post("/api/v1/match", json={"text": other}).get_json()
    assert all(m["kind"] != "reader" for m in body["matches"])


def test_a_keyword_the_function_put_in_a_mapping_answers_at_that_call(built, client):
    """`kwargs["gguf_file"] = model` then `AutoConfig.from_pretrained(..., **kwargs)`: the
    message names the class called, not the code's words; the keyword finds the call."""
    text = "TypeError: PretrainedConfig.__init__() got an unexpected keyword argument 'gguf_file'"
    found = _top(client, text)["matches"]
    top = found[0]
    assert top["at"]["filePath"].endswith("sglang/srt/hf_transformers_utils.py")
    assert top["errorMessage"] == "{callee}() got an unexpected keyword argument '{keyword}'"
    assert top["why"]["kind"] == "pattern" and top["errorClass"] == "TypeError"
    # A keyword no function of the release puts in a mapping finds no such call.
    text = "TypeError: PretrainedConfig.__init__() got an unexpected keyword argument 'zzz_q'"
    body = client.post("/api/v1/match", json={"text": text, "limit": 10}).get_json()
    assert not any(m["errorMessage"] == top["errorMessage"] for m in body["matches"])


def test_an_asserts_expression_quoted_alone_answers_with_that_assert(built, client):
    """An issue title that quotes the assert, not its message (sglang #3436)."""
    body = _top(client, "How to solve assert numerator % denominator == 0")
    top = body["matches"][0]
    assert top["why"]["kind"] == "assertion"
    assert top["at"]["filePath"].endswith("srt/distributed/utils.py")
    assert top["errorMessage"] == "{numerator} is not divisible by {denominator}"
    assert any("assert's own message" in line for line in body["answer"]["unknown"])
    # The match page says so too.
    text = "assert numerator % denominator == 0"
    page = post_match_page(client, text)
    assert page.status_code == 200
    assert "this assert's expression" in page.get_data(as_text=True)
    # A bare assert's older expression (0.4.3) finds its site, now worded otherwise (0.4.6).
    old = _top(client, "[Bug] assert self.being_chunked_req is None, with chunked prefill")
    top = old["matches"][0]
    assert top["why"]["kind"] == "assertion"
    assert top["errorMessage"] == "assert self.chunked_req is None"
    # Words that only start an expression are not enough.
    short = client.post("/api/v1/match", json={"text": "assert numerator ok"}).get_json()
    assert not [m for m in short["matches"] if m["why"]["kind"] == "assertion"]


def test_a_self_documented_value_in_a_title_answers_with_its_assert(built, client):
    """sglang #4094: the warmup assert's `f"{res=}, {res.text=}"` cut after its first value,
    then the writer's words."""
    title = "[Bug] AssertionError: res=<Response [503]> Process was always killed automactically"
    body = _top(client, title)
    top = body["matches"][0]
    assert top["why"]["kind"] == "prefix"
    assert top["at"]["filePath"].endswith("srt/entrypoints/http_server.py")
    assert top["errorMessage"] == "res={res}, res.text={res.text}"
    assert body["answer"]["evidence"] == "prefix"
    # The same words under another class are not that assert.
    other = client.post("/api/v1/match", json={"text": title.replace("Assertion", "Value")})
    assert all(m["errorMessage"] != top["errorMessage"] for m in other.get_json()["matches"])


def test_a_weight_name_keyerror_without_frames_answers_with_the_loaders_lookups(built, client):
    """An issue title quoting only the KeyError (sglang #6054): the `params_dict[name]`
    lookups of the model the title names come first, and the answer says what is unknown."""
    title = (
        "[Bug] load Deepseek V3 bf16 error: KeyError: "
        "'model.layers.3.mlp.shared_experts.down_proj.weight_scale'"
    )
    body = _top(client, title)
    assert body["answer"]["evidence"] == "key"
    top = body["matches"][0]
    assert top["why"]["kind"] == "key" and top["errorClass"] == "KeyError"
    assert "/models/deepseek" in top["at"]["filePath"]
    record = client.get(f"/api/v1/records/{top['id']}").get_json()
    assert record["site"]["whyFired"]["function"].endswith("load_weights")
    assert any("no traceback frame" in u for u in body["answer"]["unknown"])
    # A KeyError of another key is no weight's name: nothing is claimed.
    other = client.post("/api/v1/match", json={"text": "KeyError: 'mineru2_qwen'"}).get_json()
    assert all(m["why"]["kind"] != "key" for m in other["matches"])
    assert other["answer"]["evidence"] != "key"
    page = post_match_page(client, title)
    assert page.status_code == 200
    assert "quotes a checkpoint tensor's name and has no frame" in page.get_data(as_text=True)


def test_a_keyword_given_twice_and_a_swapped_error_body_answer_through_the_api(built, client):
    """`ServerArgs(*args, log_level=log_level, **kwargs)` in Runtime.__init__ (FastChat
    passed log_level twice), and a body whose message is its status code (sglang #4658)."""
    text = (
        "TypeError: sglang.srt.server_args.ServerArgs() got multiple values for keyword "
        "argument 'log_level'"
    )
    top = _top(client, text)["matches"][0]
    assert top["why"]["kind"] == "pattern" and top["errorClass"] == "TypeError"
    assert top["at"]["filePath"].endswith("lang/backend/runtime_endpoint.py")
    text = (
        "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': '400', "
        "'type': 'Failed to parse fc related info to json format!', 'param': None, 'code': 400}"
    )
    top = _top(client, text)["matches"][0]
    assert top["at"]["filePath"].endswith("srt/openai_api/adapter.py")
    assert top["errorMessage"] == "Failed to parse fc related info to json format!"


def test_a_title_naming_a_class_finds_the_methods_that_read_the_attribute_of_one_held(
    built, client
):
    """No method of `ModelConfig` reads `self.context_len`; methods that hold one as
    `self.model_config` read `self.model_config.context_len`: those answer."""
    title = "[Bug] AttributeError: 'ModelConfig' object has no attribute 'context_len'"
    body = client.post("/api/v1/match", json={"text": title, "limit": 10}).get_json()
    held = [m for m in body["matches"] if m["kind"] == "attribute"]
    assert held and body["matches"][0]["kind"] == "attribute"
    files = {m["at"]["filePath"].rsplit("/", 1)[-1] for m in held}
    assert "tokenizer_manager.py" in files, files


def test_an_unworded_raise_answers_a_frame_on_it_and_a_title_naming_its_file(built, client):
    """`raise NotImplementedError()` has no message to draft: a traceback whose innermost
    frame is on it, or an issue title naming its class and file (sglang #8050's form),
    finds it."""
    text = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.10/site-packages/sglang/srt/lora/utils.py", line 106,'
        " in get_hidden_dim\n"
        "    raise NotImplementedError()\n"
        "NotImplementedError\n"
    )
    body = _top(client, text)
    top = body["matches"][0]
    assert top["why"]["kind"] == "statement" and top["errorClass"] == "NotImplementedError"
    assert top["at"]["filePath"].endswith("srt/lora/utils.py")
    assert top["errorMessage"] == "raise NotImplementedError()"
    assert any("built at run time" in k for k in body["answer"]["known"])
    page = post_match_page(client, text).get_data(as_text=True)
    assert "whose message is built at run time" in page
    title = "[Bug] NotImplementedError in function_call_parser.py (structure_info) with tools"
    body = _top(client, title)
    assert body["answer"]["evidence"] == "named"
    top = body["matches"][0]
    assert top["why"]["kind"] == "named" and top["errorClass"] == "NotImplementedError"
    assert top["at"]["filePath"].endswith("srt/function_call_parser.py")
    record = client.get(f"/api/v1/records/{top['id']}").get_json()
    assert record["site"]["whyFired"]["function"].endswith("structure_info")
    page = post_match_page(client, title)
    assert page.status_code == 200
    assert "it names this record's file and its class" in page.get_data(as_text=True)


def test_a_curated_record_takes_the_site_of_its_wording_not_a_wildcard(
    app, runner, tmp_path, db_session, seed_envelope
):
    from sqlalchemy import select

    from app.records.models import Record

    # The wording of 0.4.3 - 0.4.6; the file also raises a message that is all placeholder
    # (`raise ...(name)` from 0.4.4), which fits any text.
    curated = make_envelope(
        seed_envelope,
        "c0ffee0000000003",
        filePath="python/sglang/srt/model_executor/model_runner.py",
        errorClass="RuntimeError",
        errorMessage="Not enough memory. Please try to increase --mem-fraction-static.",
        messagePattern=r"Not enough memory\. Please try to increase --mem-fraction-static\.",
    )
    _build_with(runner, tmp_path, curated)
    forget()
    text = "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."
    top = app.test_client().post("/api/v1/match", json={"text": text}).get_json()["matches"][0]
    assert (top["id"], top["releases"]) == (
        "c0ffee0000000003",
        {"first": "0.4.3", "last": "0.4.6"},
    )
    drafts = db_session.scalars(
        select(Record.error_message).where(
            Record.file_path == "python/sglang/srt/model_executor/model_runner.py",
            Record.is_draft.is_(True),
        )
    ).all()
    assert "{name}" in drafts  # still its own draft


def test_the_curated_sglang_records_import(runner, app):
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "data" / "records" / "sglang-curated.jsonl"
    result = runner.invoke(args=["records", "import", str(path)])
    assert result.exit_code == 0, result.output
    count = len(path.read_text(encoding="utf-8").splitlines())
    assert f"{count} created" in result.output and " 0 invalid" in result.output


def test_a_site_renamed_by_an_older_pinned_release_redirects_its_old_id(app, runner, tmp_path):
    # A merged site is named by its oldest wording: pinning 0.4.3 beside 0.4.6 renames the
    # benchmark warmup site (0.4.3 words it `Initial test run failed`).
    text = (
        "ValueError: Warmup failed - Please make sure benchmark arguments are correctly "
        "specified. Error: connection refused"
    )
    client = app.test_client()
    ids = []
    for versions in (("0.4.6",), ("0.4.3", "0.4.6")):
        pins = small_pins(tmp_path, versions)
        result = runner.invoke(args=["corpus", "build", "--pins", str(pins)])
        assert result.exit_code == 0, result.output
        forget()
        ids.append(client.post("/api/v1/match", json={"text": text}).get_json()["matches"][0]["id"])
    old, new = ids
    assert old != new
    assert "renamed (their old ids redirect)" in result.output
    api = client.get(f"/api/v1/records/{old}?compact=1")
    assert api.status_code == 301
    assert api.headers["Location"].endswith(f"/api/v1/records/{new}?compact=1")
    page = client.get(f"/records/{old}")
    assert page.status_code == 301 and page.headers["Location"].endswith(f"/records/{new}")
    assert client.get(f"/records/{old}", follow_redirects=True).status_code == 200
    assert client.get("/api/v1/records/0000000000000000").status_code == 404


def test_an_error_body_the_client_got_finds_the_response_that_sent_it(app, runner, tmp_path):
    """What a client shows of sglang's HTTP errors: the API-key middleware's
    `{"error": "Unauthorized"}` and FastAPI's `{"detail": "..."}` of an HTTPException."""
    files = (
        "sglang/srt/utils/auth.py",
        "sglang/multimodal_gen/runtime/entrypoints/openai/image_api.py",
    )
    pins = small_pins(tmp_path, ("0.5.23",), include=files)
    result = runner.invoke(args=["corpus", "build", "--pins", str(pins)])
    assert result.exit_code == 0, result.output
    forget()
    client = app.test_client()
    pastes = {
        '**return**: {"error":"Unauthorized"}\n'
        'INFO:     10.0.0.7:58648 - "POST /v1/responses HTTP/1.1" 401 Unauthorized': (
            "python/sglang/srt/utils/auth.py",
            "Unauthorized",
        ),
        'curl: {"detail":"Image not found"}': (
            "python/sglang/multimodal_gen/runtime/entrypoints/openai/image_api.py",
            "Image not found",
        ),
    }
    for text, (path, message) in pastes.items():
        (first, *_) = client.post("/api/v1/match?compact=1", json={"text": text}).get_json()[
            "matches"
        ]
        assert (first["at"]["filePath"], first["errorMessage"]) == (path, message), text


def test_upstreams_own_tests_are_not_records(app, runner, tmp_path):
    """0.4.3's `build_eagle_tree.py` checks its kernel in `test_build_tree_kernel` (asserts
    such as `tree mask has error.`): what pytest would collect is no user's error, and its
    records only crowded the text search; the module's own sites stay."""
    pins = small_pins(tmp_path, ("0.4.3",), include=("sglang/srt/speculative/build_eagle_tree.py",))
    result = runner.invoke(args=["corpus", "build", "--pins", str(pins)])
    assert result.exit_code == 0, result.output
    with app.app_context():
        functions = set(db.session.scalars(select(RecordLocation.function)))
    assert functions and "<module>" in functions
    assert not any(f.startswith("test_") for f in functions), functions
    assert [is_test_code(f) for f in ("test_x", "TestEagle.setUp", "test_x.inner")] == [True] * 3
    assert not any(is_test_code(f) for f in ("Tester.run", "latest_test", "build_tree_kernel"))
    # Any code of a test module: its helpers too (`_wait_for_health` of
    # multimodal_gen/test/server/ascend/test_glm_image_distributed.py).
    for path in ("sglang/test/test_utils.py", "x/unit_test.py", "x/conftest.py"):
        assert is_test_code("_wait_for_health", path), path
    for path in ("sglang/srt/testing.py", "x/test/utils.py", "x/latest.py", "x/test_x/a.py"):
        assert not is_test_code("_wait_for_health", path), path


def test_a_warning_logged_before_a_crash_answers_a_log_cut_before_its_error(app, runner, tmp_path):
    """sglang #40797: compose logs of the warning `_adjust_embedding_length` writes before
    it raises, then a traceback cut above the raise. The warning's own record answers,
    class `logging.WARNING`, and its record page says where it was logged."""
    pins = small_pins(tmp_path, ("0.5.23",), include=("sglang/srt/managers/mm_schedule.py",))
    result = runner.invoke(args=["corpus", "build", "--pins", str(pins)])
    assert result.exit_code == 0, result.output
    forget()
    client = app.test_client()
    warning = (
        "Number of tokens in multimodal embedding does not match those in the input text."
        " Got 279 tokens in the text but 260 tokens from multimodal embeddings."
    )
    text = (
        f"sglang_service-1  | [2026-09-15 13:53:07 TP2] {warning}\n"
        f"sglang_service-1  | [2026-09-15 13:53:07 TP0] {warning}\n"
        "sglang_service-1  | [2026-09-15 13:53:07 TP0] Scheduler hit an exception: Traceback"
        " (most recent call last):\n"
        'sglang_service-1  |   File "/sgl-workspace/sglang/python/sglang/srt/managers/'
        'scheduler.py", line 4947, in run_scheduler_process\n'
        "sglang_service-1  |     scheduler.run_event_loop()\n"
    )
    body = client.post("/api/v1/match", json={"text": text, "limit": 3}).get_json()
    top = body["matches"][0]
    assert (top["errorClass"], top["kind"]) == ("logging.WARNING", "pattern")
    assert top["errorMessage"].startswith("Number of tokens in multimodal embedding")
    record = client.get(f"/api/v1/records/{top['id']}").get_json()
    assert record["site"]["whyFired"]["function"] == "_adjust_embedding_length"
    assert record["site"]["whyFired"]["form"] == "logged"
    assert "Logged at" in client.get(f"/records/{top['id']}").get_data(as_text=True)
    # After it, the raise of that function: where the crash most likely came from.
    after = body["matches"][1]
    assert after["kind"] == "beside"
    assert after["errorMessage"].startswith("Insufficient multimodal embedding length")
    assert any("if a crash followed" in line for line in body["answer"]["known"])
    page = post_match_page(client, text).get_data(as_text=True)
    assert "the function that logs it" in page


def test_a_narrowed_build_does_not_stand_in_for_the_whole_release(app, runner, tmp_path):
    """Drafts are cached per wheel and per what is scanned: a pins file that includes one
    file of a release (as tests write) must not leave its drafts as the whole release's."""
    cache = tmp_path / "cache"  # empty, but for the wheels: the narrow build drafts first
    cache.mkdir()
    (cache / "wheels").symlink_to(sglang_wheel("0.4.3").parent)
    app.config["ERRATA_CACHE_DIR"] = str(cache)
    counts = []
    for name, include in (("narrow", ("sglang/srt/utils.py",)), ("whole", ())):
        (tmp_path / name).mkdir()
        pins = small_pins(tmp_path / name, ("0.4.3",), include=include)
        result = runner.invoke(args=["corpus", "build", "--pins", str(pins), "--no-load"])
        assert result.exit_code == 0, result.output
        counts.append(int(re.search(r"corpus \w+: (\d+) raise sites", result.output)[1]))
    narrow, whole = counts
    assert 0 < narrow < whole / 10


def test_the_index_holds_each_sites_lines_at_every_pinned_release(app, runner, tmp_path):
    """A traceback's frame is measured against the line the site had at each release (a
    traceback from 0.4.3 has 0.4.3's lines), so the index entry keeps them all."""
    pins = small_pins(tmp_path, ("0.4.3", "0.4.6"))
    result = runner.invoke(args=["corpus", "build", "--pins", str(pins)])
    assert result.exit_code == 0, result.output
    with app.app_context():
        index = build_index(db.session)
        rows = db.session.execute(
            select(RecordLocation.record_id, RecordLocation.file_path, RecordLocation.line_number)
        ).all()
    lines: dict[tuple[str, str], set[int]] = {}
    for record_id, path, line in rows:
        lines.setdefault((record_id, path), set()).add(line)
    entries = [e for e in index.entries() if (e.record_id, e.file_path) in lines]
    assert entries
    for entry in entries:
        assert {entry.line_number, *entry.lines} == lines[(entry.record_id, entry.file_path)]
    assert sum(1 for e in entries if e.lines) > 100  # sites that moved within their file


def test_a_file_the_repository_keeps_elsewhere_links_there(app, runner, client, tmp_path):
    """triton's wheel places `third_party/nvidia/backend/compiler.py` at
    `triton/backends/nvidia/compiler.py`: records and frames keep the installed path (what
    a traceback shows) and link to the repository's (the pins' `links`)."""
    data = json.loads(DEFAULT_PINS.read_text())
    (triton,) = [p for p in data["packages"] if p["name"] == "triton"]
    triton["include"] = ["triton/backends/"]
    pins = tmp_path / "pins.json"
    pins.write_text(json.dumps({"packages": [triton]}))
    result = runner.invoke(args=["corpus", "build", "--pins", str(pins)])
    assert result.exit_code == 0, result.output
    installed = "python/triton/backends/nvidia/compiler.py"
    tag = triton["releases"][0]["version"]
    linked = (
        f"https://github.com/triton-lang/triton/blob/v{tag}/third_party/nvidia/backend/compiler.py"
    )
    with app.app_context():
        rid, line, function = db.session.execute(
            select(RecordLocation.record_id, RecordLocation.line_number, RecordLocation.function)
            .where(RecordLocation.file_path == installed)
            .limit(1)
        ).one()
    record = client.get(f"/api/v1/records/{rid}").get_json()
    assert record["filePath"] == installed
    assert record["githubUrl"].startswith(linked + "#L")
    assert all(loc["githubUrl"].startswith(linked + "#L") for loc in record["site"]["locations"])
    frame = (
        "Traceback (most recent call last):\n"
        f'  File "/venv/lib/python3.12/site-packages/triton/backends/nvidia/compiler.py", '
        f"line {line}, in {function.rsplit('.', 1)[-1]}\n"
        "    raise x\n"
        "RuntimeError: zzz unmatched zzz\n"
    )
    evidence = client.post("/api/v1/match", json={"text": frame}).get_json()["evidence"]
    assert evidence["frame"]["githubUrl"] == f"{linked}#L{line}"


def _corpus_lines(output: str) -> list[str]:
    path = output.strip().splitlines()[-1].strip()
    assert path.endswith(".jsonl.gz"), output
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return fh.read().splitlines()


def test_releases_drafted_in_parallel_give_the_same_corpus(app, runner, tmp_path):
    """`--jobs 2` drafts the two releases in two processes; the corpus is line for line the
    one a single process builds, and the drafts it cached are reused by the next build."""
    include = ("sglang/srt/distributed/", "sglang/srt/configs/")
    outputs = []
    for jobs in ("2", "1"):
        cache = tmp_path / f"cache-{jobs}"
        cache.mkdir()
        (cache / "wheels").symlink_to(sglang_wheel("0.4.3").parent)
        app.config["ERRATA_CACHE_DIR"] = str(cache)
        (tmp_path / jobs).mkdir()
        pins = small_pins(tmp_path / jobs, ("0.4.3", "0.4.6"), include=include)
        args = ["corpus", "build", "--pins", str(pins), "--no-load", "--jobs", jobs]
        result = runner.invoke(args=args)
        assert result.exit_code == 0, result.output
        assert "corpus built" in result.output
        assert len(list((cache / "drafts").glob("*.json.gz"))) == 2
        outputs.append(result.output)
    parallel, single = (_corpus_lines(o) for o in outputs)
    assert len(parallel) > 20
    assert parallel == single


def test_a_bad_jobs_value_is_a_clear_error(runner):
    result = runner.invoke(args=["corpus", "build", "--no-load", "--jobs", "0"])
    assert result.exit_code == 2
    assert "Invalid value for '--jobs'" in result.output


def test_a_getattr_of_another_class_is_answered_as_alike_wording(app, runner, client, tmp_path):
    """sglang 0.4.10's `MultimodalDataItem.__getattr__` words `'X' object has no attribute
    'y'` as Python does: for a title naming another class, the answer says it raised this
    only for its own class (or a subclass), not that the message is known."""
    pins = small_pins(tmp_path, ("0.4.10",), include=("sglang/srt/managers/schedule_batch.py",))
    result = runner.invoke(args=["corpus", "build", "--pins", str(pins)])
    assert result.exit_code == 0, result.output
    title = "[Bug] AttributeError: 'TokenizerManager' object has no attribute 'executor'"
    body = client.post("/api/v1/match?compact=1", json={"text": title}).get_json()
    assert [m["at"]["filePath"] for m in body["matches"]] == [
        "python/sglang/srt/managers/schedule_batch.py"
    ]
    (said,) = [u for u in body["answer"]["unknown"] if "words it alike" in u]
    assert "(MultimodalDataItem)" in said and "only if `TokenizerManager` is that class" in said
    own = "AttributeError: 'MultimodalDataItem' object has no attribute 'pixel_values'"
    body = client.post("/api/v1/match?compact=1", json={"text": own}).get_json()
    assert body["matches"][0]["at"]["filePath"] == "python/sglang/srt/managers/schedule_batch.py"
    assert not any("words it alike" in u for u in body["answer"]["unknown"])


def test_a_kernel_name_only_cuda_machines_import_is_answered_where_it_is_read(built, client):
    """sglang #3590's comment (EAGLE on a machine where `is_cuda_available()` was false):
    0.4.3's build_eagle_tree.py imports `sgl_build_tree_kernel` only on CUDA and calls it in
    `build_tree_kernel`; Python 3.10+'s guess after the message changes nothing."""
    text = (
        "NameError: name 'sgl_build_tree_kernel' is not defined. Did you mean: 'build_tree_kernel'?"
    )
    body = client.post("/api/v1/match", json={"text": text, "limit": 3}).get_json()
    top = body["matches"][0]
    assert (top["kind"], top["at"]["filePath"]) == (
        "pattern",
        "python/sglang/srt/speculative/build_eagle_tree.py",
    )
    why = client.get(f"/api/v1/records/{top['id']}").get_json()["site"]["whyFired"]
    assert why["function"] == "build_tree_kernel"
    assert "not is_cuda_available()" in why["condition"]
    # Its frame names the very statement.
    framed = (
        "Traceback (most recent call last):\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/speculative/build_eagle_tree.py",'
        " line 149, in build_tree_kernel\n    sgl_build_tree_kernel(\n" + text
    )
    body = client.post("/api/v1/match", json={"text": framed, "limit": 3}).get_json()
    assert body["matches"][0]["id"] == top["id"]
