import traceback

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.matching.parse import (
    ROLE_BODY,
    ROLE_CHAINED,
    ROLE_CONTEXT,
    ROLE_LAST,
    ROLE_PLAIN,
    ROLE_ROOT,
    parse_error,
)

pytestmark = pytest.mark.unit

SEED = "trtllm_mla backend can only be used with MLA models."


def by_role(parsed, role):
    return [e for e in parsed.exceptions if e.role == role]


def own(parsed):
    """The exceptions of the paste's tracebacks, not what the text beside them says."""
    return [e for e in parsed.exceptions if e.role != ROLE_CONTEXT]


def test_plain_message_with_and_without_class():
    only = parse_error(f"ValueError: {SEED}").exceptions
    assert [(e.error_class, e.message, e.role) for e in only] == [("ValueError", SEED, ROLE_PLAIN)]
    bare = parse_error(SEED).exceptions
    assert [(e.error_class, e.message) for e in bare] == [(None, SEED)]


def test_tp0_prefixed_traceback(samples):
    parsed = parse_error(samples.TP0_TRACEBACK)
    exc, *beside = parsed.exceptions
    assert exc.role == ROLE_LAST
    assert exc.error_class == "ValueError"
    assert exc.message == SEED  # the later "Received sigquit" log line is not absorbed
    assert [f.line for f in exc.frames] == [2700, 1710, 75]
    last = exc.frames[-1]
    assert last.file.endswith("sglang/srt/layers/attention/attention_registry.py")
    assert last.function == "create_trtllm_mla_backend"
    assert last.source == 'raise ValueError("trtllm_mla backend can only be used with MLA models.")'
    assert exc.frames[0].source.startswith("scheduler = Scheduler(")  # caret line skipped
    # The lines beside the traceback are read too, last: the log's words before its header
    # and the line after it.
    assert [e.role for e in beside] == [ROLE_CONTEXT]
    assert beside[0].message == (
        "Scheduler hit an exception:\n"
        "Received sigquit from a child process. It usually means the child failed."
    )


def test_direct_cause_chain_gives_root_and_last(samples):
    parsed = parse_error(samples.CHAINED_CAUSE)
    (root,) = by_role(parsed, ROLE_ROOT)
    (last,) = by_role(parsed, ROLE_LAST)
    assert root.error_class == "KeyError"
    assert root.message == "'model.layers.0.mlp.gate_up_proj.weight_scale'"
    assert root.frames[-1].line == 412
    assert last.error_class == "RuntimeError"
    assert last.message.startswith("Failed to load weights for model.layers.0")
    assert [f.line for f in last.frames] == [801, 420]
    assert parsed.exceptions[0] is last  # last first, root cause next


def test_during_handling_chain_and_qualified_class(samples):
    parsed = parse_error(samples.DURING_HANDLING)
    assert by_role(parsed, ROLE_ROOT)[0].error_class == "ModuleNotFoundError"
    last = by_role(parsed, ROLE_LAST)[0]
    assert last.error_class == "torch.OutOfMemoryError"
    assert last.message == "CUDA out of memory. Tried to allocate 2.00 GiB."


def test_three_link_chain_marks_the_middle(samples):
    text = samples.CHAINED_CAUSE + "\n" + samples.DURING_HANDLING.split("\n\n", 1)[1]
    roles = sorted(e.role for e in parse_error(text).exceptions)
    assert roles == sorted([ROLE_ROOT, ROLE_CHAINED, ROLE_LAST])


def test_multiline_message(samples):
    (exc,) = parse_error(samples.MULTILINE).exceptions
    assert exc.message == ("Unknown quantization method: fp5.\nSupported methods: awq, fp8, gptq.")


def test_markdown_fenced_traceback_in_issue_body(samples):
    (exc,) = own(parse_error(samples.ISSUE_BODY))
    assert (exc.error_class, exc.message) == ("ValueError", SEED)
    assert exc.frames[-1].line == 75


def test_json_log_line_with_escaped_traceback(samples):
    (exc,) = own(parse_error(samples.JSON_LOG))
    assert (exc.error_class, exc.message) == ("ValueError", SEED)
    assert exc.frames[-1].function == "create_trtllm_mla_backend"


def test_json_message_does_not_run_into_the_next_log_line(samples):
    text = (
        "web-1  | " + samples.JSON_LOG.replace('\\n"}', '"}') + 'web-1  | {"msg": "GET /health"}\n'
    )
    (exc,) = own(parse_error(text))
    assert exc.message == SEED


def test_ansi_colours_and_crlf(samples):
    (exc,) = parse_error(samples.ANSI_CRLF).exceptions
    assert (exc.error_class, exc.message) == ("ValueError", SEED)
    assert exc.frames[-1].line == 75


def test_compose_and_logging_prefixes(samples):
    (exc,) = own(parse_error(samples.COMPOSE))
    assert (exc.error_class, exc.message) == ("ValueError", SEED)
    assert exc.frames[0].file.endswith("/a.py")


@pytest.mark.parametrize(
    "line",
    [
        f"ERROR:root:ValueError: {SEED}",
        f"2026-12-01 09:14:03,123 - sglang.srt.server - ERROR - ValueError: {SEED}",
        f"E   ValueError: {SEED}",
        f"[rank0]: ValueError: {SEED}",
        f"[2026-12-01 09:14:03 DP0 TP1] ValueError: {SEED}",
        f"ERROR 2025-04-07T19:13:52.317869663Z ValueError: {SEED}",
    ],
)
def test_single_prefixed_lines(line):
    first = parse_error(line).exceptions[0]
    assert (first.error_class, first.message) == ("ValueError", SEED)


def test_pytest_failure_block():
    text = (
        "    def test_backend():\n"
        ">       create_trtllm_mla_backend(runner)\n"
        f"E       ValueError: {SEED}\n\n"
        "tests/test_backend.py:12: ValueError\n"
    )
    found = [(e.error_class, e.message) for e in parse_error(text).exceptions]
    assert ("ValueError", SEED) in found


def _raise_seed():
    raise ValueError(SEED)


def _group() -> str:
    errors: list[Exception] = []
    for fn in (_raise_seed, lambda: {}["missing"]):
        try:
            fn()
        except Exception as exc:  # collected into the group below
            errors.append(exc)
    try:
        raise ExceptionGroup("startup failed", errors)
    except ExceptionGroup as group:
        return "".join(traceback.format_exception(group))


def test_exception_group_sub_exceptions():
    found = {(e.error_class, e.message) for e in parse_error(_group()).exceptions}
    assert ("ValueError", SEED) in found
    assert ("KeyError", "'missing'") in found
    assert ("ExceptionGroup", "startup failed (2 sub-exceptions)") in found


def test_real_chained_traceback_from_python():
    try:
        try:
            _raise_seed()
        except ValueError as exc:
            raise RuntimeError("Scheduler failed to start") from exc
    except RuntimeError as outer:
        text = "".join(traceback.format_exception(outer))
    parsed = parse_error(text)
    assert [(e.role, e.error_class) for e in parsed.exceptions] == [
        (ROLE_LAST, "RuntimeError"),
        (ROLE_ROOT, "ValueError"),
    ]
    root = parsed.exceptions[1]
    assert root.frames[-1].function == "_raise_seed"
    assert root.frames[-1].source == "raise ValueError(SEED)"


def test_class_from_raise_source_when_exception_line_is_missing():
    text = (
        "Traceback (most recent call last):\n"
        '  File "/x/sglang/srt/a.py", line 9, in f\n'
        "    raise sglang.srt.errors.SchedulerError(msg) from e\n"
    )
    (exc,) = parse_error(text).exceptions
    assert exc.error_class == "sglang.srt.errors.SchedulerError"


def test_nul_bytes_and_invalid_utf8_bytes():
    raw = b"\xff\xfeValue\x00Error: trtllm_mla backend\x00 can only be used with MLA models."
    parsed = parse_error(raw)
    assert any("trtllm_mla backend" in e.message for e in parsed.exceptions)


def test_one_megabyte_of_a_is_capped():
    parsed = parse_error("a" * 1_000_000)
    assert parsed.truncated
    assert len(parsed.exceptions[0].message) <= 16_384


def test_huge_log_keeps_the_traceback(samples):
    noise = "[2026-12-01 09:14:03 TP0] Decode batch. #running-req: 1, #token: 55\n" * 20_000
    parsed = parse_error(noise + samples.TP0_TRACEBACK + noise)
    assert parsed.truncated
    assert parsed.exceptions[0].message == SEED


def test_deeply_repeated_prefixes():
    prefix = "[2026-12-01 09:14:03 TP0] " * 50_000
    parsed = parse_error(prefix + "ValueError: " + SEED)
    assert parsed.exceptions  # bounded prefix passes: no hang, no error
    parsed = parse_error(("sglang-1  | " * 3) + "ValueError: " + SEED)
    assert (parsed.exceptions[0].error_class, parsed.exceptions[0].message) == ("ValueError", SEED)


def test_many_traceback_headers_without_frames():
    parsed = parse_error("Traceback (most recent call last):\n" * 50_000)
    assert all(e.error_class is None for e in parsed.exceptions)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=2_000) | st.binary(max_size=2_000))
def test_never_raises(raw):
    parsed = parse_error(raw)
    assert isinstance(parsed.to_dict(), dict)


NOISE_LINES = [
    "Traceback (most recent call last):",
    '  File "a.py", line 1, in f',
    "    x()",
    "ValueError: boom",
    "",
    "The above exception was the direct cause of the following exception:",
    "```",
    "E   ",
    "\x1b[31m",
]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(NOISE_LINES), max_size=40))
def test_never_raises_on_traceback_shaped_noise(lines):
    parse_error("\n".join(lines))


def test_a_traceback_whose_quotes_github_made_curly_is_read():
    text = (
        "`Traceback (most recent call last):\n"
        "  File \u201c/opt/venv/lib/python3.10/site-packages/sglang/srt/constrained/__init__.py"
        "\u201d, line 4, in <module>\n"
        "    from outlines.fsm.json_schema import build_regex_from_object\n"
        "ImportError: cannot import name \u2018build_regex_from_object\u2019 from "
        "\u2018outlines.fsm.json_schema\u2019 (/opt/venv/outlines/fsm/json_schema.py)`"
    )
    (exc,) = parse_error(text).exceptions
    assert exc.error_class == "ImportError"
    assert exc.message.startswith("cannot import name 'build_regex_from_object' from '")
    assert exc.frames[-1].line == 4 and exc.frames[-1].function == "<module>"


def test_curly_quotes_in_prose_without_a_frame_are_kept():
    (exc,) = parse_error("ValueError: the \u201cmodel\u201d is missing").exceptions
    assert exc.message == "the \u201cmodel\u201d is missing"


NEWEST_FIRST = """\
ERROR 2025-04-07T19:13:52.318307161Z [2025-04-07 19:13:52] Received sigquit from a child process.
ERROR 2025-04-07T19:13:52.317869663Z KeyError: 'model.layers.55.mlp.gate_up_proj.input_scale'
ERROR 2025-04-07T19:13:52.317867517Z param = params_dict[name]
ERROR 2025-04-07T19:13:52.317865848Z File "/sgl/python/sglang/srt/models/llama.py", line 508, in load_weights
ERROR 2025-04-07T19:13:52.317863702Z model.load_weights(weights)
ERROR 2025-04-07T19:13:52.317862033Z File "/sgl/python/sglang/srt/model_loader/loader.py", line 370, in load_model
ERROR 2025-04-07T19:13:52.317860000Z Traceback (most recent call last):
"""  # noqa: E501


OLDEST_FIRST_FRAMES = [("load_model", 370), ("load_weights", 508)]


def test_a_newest_first_log_is_read_oldest_first():
    # Cloud log viewers list lines newest first, level before the timestamp.
    exc = parse_error(NEWEST_FIRST).exceptions[0]
    assert exc.error_class == "KeyError"
    assert exc.message == "'model.layers.55.mlp.gate_up_proj.input_scale'"
    assert [(f.function, f.line) for f in exc.frames] == [
        ("load_model", 370),
        ("load_weights", 508),
    ]
    assert exc.frames[-1].source == "param = params_dict[name]"


def test_a_log_in_time_order_is_not_reversed():
    lines = NEWEST_FIRST.splitlines()
    exc = parse_error("\n".join(lines[::-1])).exceptions[0]  # oldest first: as written
    assert [(f.function, f.line) for f in exc.frames] == [
        ("load_model", 370),
        ("load_weights", 508),
    ]
    same_time = "\n".join(f"2025-04-07 19:13:52 {line.split('Z ', 1)[1]}" for line in lines)
    # All in one second: nothing says the order is backwards, so it is read as it is.
    assert parse_error(same_time).exceptions[0].frames[0].function == "load_weights"


def test_a_quoted_message_loses_its_double_quotes_not_a_keys_repr():
    quoted = parse_error('Error: "Cannot use chat template functions"').exceptions[0]
    assert quoted.message == "Cannot use chat template functions"
    assert parse_error("KeyError: 'model.layers.0.w'").exceptions[0].message == "'model.layers.0.w'"
    inner = parse_error('ValueError: "a" is not "b"').exceptions[0]
    assert inner.message == '"a" is not "b"'


COLLAPSED = (
    "[2025-06-15 15:53:39] Scheduler hit an exception: Traceback (most recent call last):"
    '   File "/usr/lib/python3.11/site-packages/transformers/models/auto/configuration_auto.py",'
    " line 872, in __getitem__     raise KeyError(key) KeyError: 'mineru2_qwen'  During"
    " handling of the above exception, another exception occurred:  Traceback (most recent"
    ' call last):   File "/usr/lib/python3.11/site-packages/sglang/srt/managers/scheduler.py",'
    " line 260, in __init__     self.init_tokenizer() ValueError: no tokenizer"
)


def test_a_traceback_collapsed_onto_one_line_is_cut_back_into_lines():
    parsed = parse_error(COLLAPSED)
    root = by_role(parsed, ROLE_ROOT)[0]
    assert (root.error_class, root.message) == ("KeyError", "'mineru2_qwen'")
    assert [(f.function, f.line, f.source) for f in root.frames] == [
        ("__getitem__", 872, "raise KeyError(key)")
    ]
    last = by_role(parsed, ROLE_LAST)[0]
    assert (last.error_class, last.message) == ("ValueError", "no tokenizer")
    assert last.frames[-1].function == "__init__"


def test_a_frame_flattened_with_its_source_and_error_onto_one_line_is_cut_back():
    # GitHub flattened a quoted traceback into one paragraph (sgl-project/sglang#3812).
    text = (
        '> File "venv/lib/python3.10/site-packages/sglang/srt/models/deepseek_v2.py", line'
        " 920, in load_weights param = params_dict[name] KeyError:"
        " 'model.layers.3.mlp.experts.w2_weight_scale_inv'"
    )
    exc = parse_error(text).exceptions[0]
    assert (exc.error_class, exc.message) == (
        "KeyError",
        "'model.layers.3.mlp.experts.w2_weight_scale_inv'",
    )
    assert [(f.function, f.line, f.source) for f in exc.frames] == [
        ("load_weights", 920, "param = params_dict[name]")
    ]
    # Two frames on the line: each keeps its own source.
    two = 'File "a.py", line 3, in main run(x) File "b.py", line 9, in run y = d[k] KeyError: 1'
    exc = parse_error(two).exceptions[0]
    assert [(f.function, f.source) for f in exc.frames] == [("main", "run(x)"), ("run", "y = d[k]")]
    assert (exc.error_class, exc.message) == ("KeyError", "1")
    # A frame line as Python prints it is left alone.
    plain = 'File "a.py", line 3, in main\nValueError: x'
    assert parse_error(plain).exceptions[0].frames[0].function == "main"


def test_an_error_body_cut_off_before_its_closing_quote_is_still_read():
    text = (
        '{"object":"error","message":"Decode handshake failed for request rank=0: '
        "Could not fetch prefill parallel info from bootstrap_addr: 10.160.1."
    )
    bodies = [e.message for e in parse_error(text).exceptions if e.role == ROLE_BODY]
    assert bodies == [
        "Decode handshake failed for request rank=0: Could not fetch prefill parallel "
        "info from bootstrap_addr: 10.160.1."
    ]


def test_a_body_whose_message_is_its_status_code_is_read_from_its_type():
    # Some sglang releases swapped create_error_response's arguments.
    text = (
        "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': '400', "
        "'type': 'Failed to parse fc related info to json format!', 'param': None, 'code': 400}"
    )
    bodies = [e.message for e in parse_error(text).exceptions if e.role == ROLE_BODY]
    assert bodies == ["Failed to parse fc related info to json format!"]
    # A status code with no type beside it stays what the body said; another body is its own.
    text = '{"message": "404"} {"type": "NotFoundError", "message": "no such model"}'
    bodies = [e.message for e in parse_error(text).exceptions if e.role == ROLE_BODY]
    assert bodies == ["404", "no such model"]


def test_a_frame_after_the_writers_words_on_its_line_is_read():
    text = (
        '3. the sglang error log is:File "/usr/lib/python3.10/site-packages/transformers/'
        'tokenization_utils_fast.py", line 539, in _batch_encode_plus\n'
        "    encodings = self._tokenizer.encode_batch(\n"
        "TypeError: TextEncodeInput must be Union[TextInputSequence, Tuple[InputSequence, "
        "InputSequence]]"
    )
    (exc,) = own(parse_error(text))
    assert exc.error_class == "TypeError"
    assert [(f.line, f.function) for f in exc.frames] == [(539, "_batch_encode_plus")]


@pytest.mark.parametrize(
    "tail",
    ['",  line398, in load_weights', '",line398, in load_weights', '", line 398,in load_weights'],
)
def test_a_frame_whose_spacing_the_paste_changed_is_read(tail):
    # sglang issue thread: `",  line398, in load_weights` (a space moved), and variants.
    path = "/sgl-workspace/sglang/python/sglang/srt/models/qwen2.py"
    text = f"  File \"{path}{tail}\n    param = params_dict[name]\nKeyError: 'lm_head.weight'"
    (exc,) = own(parse_error(text))
    assert exc.error_class == "KeyError"
    assert [(f.line, f.function) for f in exc.frames] == [(398, "load_weights")]


def test_frames_whose_start_the_paste_lost_are_read():
    # sglang issue 21352: the frames copied from the middle of their paths on, with no
    # `File "`; a path with a space, or no `.py"`, is no such frame.
    text = (
        'sglang/multimodal_gen/utils.py", line 169, in parse_args\n'
        "   args = self._pull_args_from_config(args)\n"
        'sglang/multimodal_gen/utils.py", line 298, in _pull_args_from_config\n'
        "   command =  args_before_config[0]\n"
        "IndexError: list index out of range"
    )
    (exc,) = own(parse_error(text))
    assert exc.error_class == "IndexError"
    assert [(f.file, f.line, f.function) for f in exc.frames] == [
        ("sglang/multimodal_gen/utils.py", 169, "parse_args"),
        ("sglang/multimodal_gen/utils.py", 298, "_pull_args_from_config"),
    ]
    prose = 'see my notes.txt", line 3, in the log\nIndexError: list index out of range'
    assert not own(parse_error(prose))[0].frames
    spaced = 'my dir/utils.py", line 3, in f\nIndexError: list index out of range'
    assert not own(parse_error(spaced))[0].frames


def test_a_servers_error_and_fastapis_detail_bodies_are_read():
    # A string under "error" (sglang's API-key middleware) or "detail" (FastAPI's
    # HTTPException); OpenAI's "error" object is read through its "message".
    text = '**return**: {"error":"Unauthorized"}\nHTTP 404 {"detail": "Image not found"}'
    bodies = [e.message for e in parse_error(text).exceptions if e.role == ROLE_BODY]
    assert bodies == ["Unauthorized", "Image not found"]
    text = '{"error": {"message": "model not found", "type": "invalid_request_error"}}'
    bodies = [e.message for e in parse_error(text).exceptions if e.role == ROLE_BODY]
    assert bodies == ["model not found"]


def test_a_frame_in_inline_code_over_two_lines_is_read():
    text = (
        '`File "/ws/sglang/python/sglang/srt/model_loader/weight_utils.py", line 535, in '
        "default_weight_loader\n      assert param.size() == loaded_weight.size()`"
    )
    (frame,) = [f for e in parse_error(text).exceptions for f in e.frames]
    assert (frame.line, frame.function) == (535, "default_weight_loader")
    assert frame.source == "assert param.size() == loaded_weight.size()"
    # Balanced inline code inside a message keeps its backticks.
    msg = "OutOfResources: Reducing block sizes or `num_stages` may help."
    assert parse_error(msg).exceptions[0].message.endswith("`num_stages` may help.")


def test_frames_alone_are_no_message():
    # A frame quoted without its exception line: the frame says where; its lines are not
    # a message to match (a bare assert's source would match other files' asserts).
    text = (
        '`File "/ws/sglang/python/sglang/srt/model_loader/weight_utils.py", line 535, in '
        "default_weight_loader\n      assert param.size() == loaded_weight.size()`"
    )
    (exc,) = parse_error(text).exceptions
    assert (exc.message, exc.error_class, len(exc.frames)) == ("", None, 1)
    # Words of the writer's own beside the frames are still read as the message.
    text = 'Loading fails with a 400 here:\n  File "/x/sglang/srt/a.py", line 3, in f\n    g()'
    (exc,) = parse_error(text).exceptions
    assert exc.message == "Loading fails with a 400 here:"
    assert exc.frames[0].source == "g()"


def test_an_import_error_a_log_line_quotes_without_its_class_is_read():
    line = (
        "[2025-08-24 06:25:37 TP0] Ignore import error when loading sglang.srt.models.glm4v_moe:"
        " No module named 'transformers.models.glm4v_moe'"
    )
    first = parse_error(line + "\n" + line.replace("TP0", "TP7")).exceptions[0]
    assert first.error_class == "ModuleNotFoundError"
    assert first.message == "No module named 'transformers.models.glm4v_moe'"
    logged = "Failed to load x: cannot import name 'Qwen3Config' from 'transformers' (/p/t.py)"
    assert parse_error(logged).exceptions[0].error_class == "ImportError"
    # An exception line of its own is read as before, once.
    plain = parse_error("ModuleNotFoundError: No module named 'vllm'").exceptions
    assert [(e.error_class, e.message) for e in plain] == [
        ("ModuleNotFoundError", "No module named 'vllm'")
    ]


def test_rays_worker_prefixes_and_repeat_counts_are_not_part_of_the_message():
    # A verl review comment under Ray (verl-project/verl#1068): one line, deduplicated by Ray.
    text = "`ValueError: 'dummy_dtensor' is not a valid LoadFormat [repeated 6x across cluster]`"
    (exc,) = parse_error(text).exceptions
    assert (exc.error_class, exc.message) == (
        "ValueError",
        "'dummy_dtensor' is not a valid LoadFormat",
    )
    text = (
        "(RayWorkerWrapper pid=8123, ip=10.0.0.2) KeyError: 'x' [repeated 2x across cluster]"
        " (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log deduplication)"
    )
    assert [(e.error_class, e.message) for e in parse_error(text).exceptions][0] == (
        "KeyError",
        "'x'",
    )
    # The words mid-line are the message's own.
    text = "ValueError: got [repeated 6x across cluster] twice, then more"
    assert parse_error(text).exceptions[0].message.endswith("twice, then more")


def test_a_cpp_raise_site_is_the_innermost_frame():
    # PyTorch's c10::Error prints where its C++ raised, after the message (sglang#8296).
    text = (
        "Traceback (most recent call last):\n"
        '  File "/sgl/python/sglang/srt/managers/schedule_batch.py", line 1602, in get\n'
        "    seq_lens_cpu = self.seq_lens.cpu()\n"
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
        "\n"
        "Exception raised from c10_cuda_check_implementation at "
        "/pytorch/c10/cuda/CUDAException.cpp:43 (most recent call first):\n"
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f in libc10.so)\n"
    )
    exc = parse_error(text).exceptions[0]
    assert [f.file for f in exc.frames] == [
        "/sgl/python/sglang/srt/managers/schedule_batch.py",
        "/pytorch/c10/cuda/CUDAException.cpp",
    ]
    assert (exc.frames[-1].line, exc.frames[-1].function) == (43, "c10_cuda_check_implementation")
    # With no message and no Python frame, the C++ site alone is the paste's frame.
    (only,) = parse_error(
        "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/"
        "ProcessGroupNCCL.cpp:618 (most recent call first):"
    ).exceptions
    assert only.frames[-1].function == "checkTimeout"
    # A qualified C++ name keeps its last part; prose that says it without a site is none.
    qualified = parse_error("Exception raised from a::B::f at x.cpp:7").exceptions[0]
    assert qualified.frames[-1].function == "f"
    assert not parse_error("Exception raised from nowhere in particular").exceptions[0].frames


def test_the_diffusion_servers_log_prefix_is_not_the_message():
    """sglang's diffusion server stamps its lines without the year: `[12-11 17:52:52] `."""
    line = "[12-11 17:52:52] Rank 0 scheduler is dead. Please check if there are relevant logs."
    (exc,) = parse_error(line).exceptions
    assert exc.message == line.split("] ", 1)[1]
