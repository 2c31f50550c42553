"""Every raise form, on real code: the sglang 0.4.3 wheel (pinned, SHA-256 checked)."""

from __future__ import annotations

import pytest

from app.corpus.draft import draft_release
from app.drafts.extract import Placeholder
from app.drafts.records import instantiate, message_pattern
from app.drafts.scan import FORMS, raise_sites, scan
from app.drafts.services import parse_source
from app.drafts.sources import iter_python_files
from app.matching import MatchIndex, PatternEntry, parse_error
from tests.corpus.wheels import pinned_wheel, sglang_wheel

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def sites():
    """`(package path, line) -> site` for the whole 0.4.3 wheel, plus its classes."""
    found, classes = {}, []
    for path, data in iter_python_files(sglang_wheel("0.4.3")):
        tree = parse_source(data)
        if tree is None:
            continue
        text = data.decode("utf-8", "replace")
        for site in raise_sites(tree, text):
            found[(path, site.line)] = site
        classes += [(path, c) for c in scan(tree, text)[1]]
    return found, classes


def _matches(site, message):
    pattern = message_pattern(site.parts, site.error_class)
    index = MatchIndex([PatternEntry("r", pattern, site.error_class)])
    return any(h.whole for h in index.search(message))


# (file, line, form, class, message start, raise-from?)
CASES = [
    (
        "sglang/bench_serving.py",
        151,
        "assert",
        "AssertionError",
        "OpenAI Completions API URL must end with 'completions'.",
        False,
    ),
    (
        "sglang/srt/hf_transformers_utils.py",
        174,
        "variable",
        "RuntimeError",
        "Failed to load the tokenizer. If the tokenizer is a custom tokenizer",
        True,
    ),
    (
        "sglang/srt/_custom_ops.py",
        45,
        "%",
        "NotImplementedError",
        "Error in calling custom op {fn.__name__}: {e}\nNot implemented or built",
        True,
    ),
    (
        "sglang/srt/distributed/utils.py",
        76,
        ".format()",
        "ValueError",
        "Invalid partition string: {partition_list_str}",
        True,
    ),
    (
        "sglang/srt/utils.py",
        470,
        "+",
        "Exception",
        "{pkg} is installed with version {installed_version}, which is less than",
        False,
    ),
    (
        "sglang/bench_one_batch.py",
        484,
        "implicit concatenation",
        "ValueError",
        "Provide --model-path for running the tests or provide --result-filename",
        False,
    ),
]


@pytest.mark.parametrize(("path", "line", "form", "cls", "start", "chained"), CASES)
def test_each_raise_form_is_drafted_and_matches(sites, path, line, form, cls, start, chained):
    from app.drafts.records import render_message

    site = sites[0][(path, line)]
    assert (site.form, site.error_class, site.chained) == (form, cls, chained)
    assert render_message(site.parts).startswith(start)
    names = {p.name for p in site.parts if isinstance(p, Placeholder)}
    message = instantiate(site.parts, dict.fromkeys(names, "qwen-7b")).strip()
    assert _matches(site, message), message
    assert not _matches(site, "Something else entirely: " + "x" * 5)


def test_code_context_of_a_site(sites):
    found = sites[0]
    tokenizer = found[("sglang/bench_one_batch.py", 484)]
    assert tokenizer.function == "main"
    assert tokenizer.condition == "not server_args.model_path"
    assert "server_args.model_path" in tokenizer.reads
    asserted = found[("sglang/bench_serving.py", 151)]
    assert asserted.function == "async_request_openai_completions"
    assert asserted.condition == "not api_url.endswith('completions')"
    variable = found[("sglang/srt/hf_transformers_utils.py", 174)]
    assert variable.docstring == "Gets a tokenizer for the given model name via Huggingface."


def test_project_exception_classes_keep_their_bases(sites):
    classes = {c.name: (path, c.bases) for path, c in sites[1]}
    assert classes["StopTracing"] == ("sglang/lang/tracer.py", ("Exception",))


def test_release_counts_by_form_and_server_flags():
    draft = draft_release(sglang_wheel("0.4.3"), "python/", ("sglang/"))
    assert set(draft.forms) <= set(FORMS)
    assert draft.forms["assert"] > draft.drafted["assert"] > 100  # asserts with a message
    assert draft.forms["no message"] > 0 and "no message" not in draft.drafted
    assert sum(draft.drafted.values()) == len(draft.sites)
    (site,) = [s for s in draft.sites if s["path"] == "python/sglang/bench_one_batch.py"]
    assert site["flags"] == ["--model-path"]
    flagged = {f for s in draft.sites for f in s["flags"]}
    assert {"--grammar-backend", "--disable-radix-cache"} <= flagged


@pytest.fixture(scope="module")
def statements():
    """The 0.4.3 wheel's statement sites by (path, line)."""
    draft = draft_release(sglang_wheel("0.4.3"), "python/", ("sglang/",), (), statements=True)
    sites = {
        (s["path"], s["line"]): s
        for s in draft.sites
        if s["form"]
        in (
            "bare assert",
            "import",
            "lookup",
            "reported",
            "logged",
            "call",
            "keyword twice",
            "keywords from a mapping",
        )
    }
    return draft, sites


def test_statement_sites_of_a_real_release(statements):
    draft, sites = statements
    model = "python/sglang/srt/models/deepseek_v2.py"
    lookup = sites[(model, 920)]
    assert (lookup["form"], lookup["cls"], lookup["statement"]) == (
        "lookup",
        "KeyError",
        "param = params_dict[name]",
    )
    assert lookup["function"] == "DeepseekV2ForCausalLM.load_weights"
    imported = sites[(model, 64)]
    assert imported["message"] == "cannot import name 'bmm_fp8' from 'sgl_kernel'"
    assert imported["condition"] == "is_cuda_available()"  # imported only on CUDA
    index = MatchIndex([PatternEntry("i", imported["pattern"], "ImportError")])
    pasted = "cannot import name 'bmm_fp8' from 'sgl_kernel' (/venv/sgl_kernel/__init__.py)"
    assert any(h.whole for h in index.search(pasted))
    bare = sites[(model, 225)]
    assert bare["message"] == "assert num_heads % tp_size == 0"
    assert bare["condition"] == "not (num_heads % tp_size == 0)"
    # Relative and standard-library imports are not sites: they do not fail on users.
    assert not any(
        s["form"] == "import" and s["message"].endswith(("from 'os'", "from 'typing'"))
        for s in sites.values()
    )
    assert draft.statements["bare assert"] > 300 and draft.statements["import"] > 300


def test_a_plain_import_of_another_package_is_a_site(statements):
    _, sites = statements
    site = sites[("python/sglang/bench_one_batch.py", 57)]
    assert (site["form"], site["cls"], site["statement"]) == (
        "import",
        "ModuleNotFoundError",
        "import torch.distributed as dist",
    )
    assert site["message"] == "No module named 'torch.distributed'"
    index = MatchIndex([PatternEntry("i", site["pattern"], "ModuleNotFoundError")])
    for missing in ("torch", "torch.distributed"):  # whichever part is not installed
        assert any(h.whole for h in index.search(f"No module named '{missing}'"))
    assert not index.search("No module named 'torchvision'")
    # An import inside a `try:` that catches its failure never reaches the user.
    assert ("python/sglang/lang/backend/anthropic.py", 11) not in sites
    assert ("python/sglang/srt/model_parallel.py", 12) not in sites
    assert not any(s["message"] == "No module named 'os'" for s in sites.values())


def test_a_message_reported_to_the_client_is_a_site(statements):
    _, sites = statements
    site = sites[("python/sglang/srt/managers/utils.py", 33)]
    assert site["form"] == "reported" and site["function"] == "validate_input_length"
    assert site["message"].startswith("Input length ({len(req.origin_input_ids)} tokens) exceeds")
    assert (
        site["condition"]
        == "(len(req.origin_input_ids) >= max_req_input_len) and (not allow_auto_truncate)"
    )
    # `err_msg = ...; raise RuntimeError(err_msg)` is a raise site, not a reported message.
    assert not any(
        s["form"] == "reported" and s["path"].endswith("hf_transformers_utils.py")
        for s in sites.values()
    )


def test_an_exception_class_that_words_its_message_on_real_triton():
    """triton's OutOfResources builds its message in `__str__`; the compiler constructs it
    inside `raise_(...)`, not a `raise` statement."""
    wheel, release = pinned_wheel("triton")
    draft = draft_release(wheel, release.path_prefix, release.include, release.exclude)
    sites = [
        s
        for s in draft.sites
        if s["form"] == "class message" and s["path"].endswith("triton/compiler/compiler.py")
    ]
    shared = [s for s in sites if "shared memory" in s["message"]]
    assert len(shared) == 1 and shared[0]["function"].endswith("_init_handles")
    assert shared[0]["message"].startswith("out of resource: shared memory, Required: {")
    pasted = (
        "out of resource: shared memory, Required: 106496, Hardware limit: 101376. "
        "Reducing block sizes or `num_stages` may help."
    )
    index = MatchIndex([PatternEntry("o", shared[0]["pattern"], "OutOfResources")])
    assert any(h.whole for h in index.search(pasted))
    assert draft.forms["class message"] >= 3


def test_a_call_of_a_kernel_package_is_a_site_of_its_signature_errors(statements):
    """flashinfer's wrappers change their keywords between releases; a build that lacks one
    raises a TypeError at sglang's call (its own line, as a traceback's frame shows it)."""
    _, sites = statements
    model = "python/sglang/srt/layers/attention/flashinfer_backend.py"
    site = sites[(model, 164)]
    assert (site["form"], site["cls"], site["function"]) == (
        "call",
        "TypeError",
        "FlashInferAttnBackend.__init__",
    )
    assert site["statement"] == "BatchPrefillWithPagedKVCacheWrapper("
    index = MatchIndex([PatternEntry("c", site["pattern"], "TypeError")])
    for pasted in (
        "BatchPrefillWithPagedKVCacheWrapper.__init__() got an unexpected keyword argument "
        "'backend'",
        "__init__() missing 1 required positional argument: 'float_workspace_buffer'",
    ):
        assert any(h.whole for h in index.search(pasted)) is pasted.startswith("Batch")
    # Calls of sglang's own functions, and of the standard library, are not such sites.
    assert not any(
        s["form"] == "call" and s["message"].startswith(("print(", "getattr("))
        for s in sites.values()
    )


def test_a_message_written_to_the_log_is_a_site(statements):
    """What a user pastes from the server's log when no exception line follows: the
    launch's `Rank 0 scheduler is dead`, a `logger.error` with lazy `%` arguments, a
    `logger.exception` worded across lines and a `logger.warning`; a message variable or a
    bare exception is not."""
    _, sites = statements
    engine = "python/sglang/srt/entrypoints/engine.py"
    dead = sites[(engine, 436)]
    assert (dead["form"], dead["cls"], dead["function"]) == (
        "logged",
        "logging.ERROR",
        "_launch_subprocesses",
    )
    assert dead["message"] == "Rank {i} scheduler is dead. Please check if there are relevant logs."
    index = MatchIndex([PatternEntry("d", dead["pattern"], dead["cls"])])
    pasted = (
        "[2025-03-01 10:00:00] Rank 0 scheduler is dead. Please check if there are relevant logs."
    )
    (logged,) = parse_error(pasted).exceptions  # the log line's prefix is not its message
    assert any(h.whole for h in index.search(logged.message))
    sigquit = sites[(engine, 330)]
    assert sigquit["function"] == "_set_envs_and_config.sigquit_handler"
    weights = "python/sglang/srt/model_loader/weight_utils.py"
    assert sites[(weights, 766)]["message"] == "File or directory '{filename}' not found."
    nvlink = "python/sglang/srt/distributed/device_communicators/custom_all_reduce.py"
    assert sites[(nvlink, 75)]["message"] == (
        "NVLink detection failed. This is normal if your machine has no NVLink equipped."
    )
    # `logger.exception(e)` has no text of its own, `f"Error: {e}"` too little to tell, and
    # `f"Initialization failed. warmup error: {last_traceback}"` comes before the traceback
    # of another error, whose own site is the answer.
    http = "python/sglang/srt/entrypoints/http_server.py"
    assert not {(http, 141), (http, 198), (http, 558)} & set(sites)
    # A message that ends with the caught exception's words is the line the log shows when
    # nothing is raised after it: the line a user pastes.
    parser = sites[("python/sglang/srt/function_call_parser.py", 303)]
    assert (parser["form"], parser["cls"]) == ("logged", "logging.ERROR")
    assert parser["message"] == "Error in parse_streaming_increment: {e}"
    index = MatchIndex([PatternEntry("p", parser["pattern"], parser["cls"])])
    pasted = "[2025-02-20 09:00:01] Error in parse_streaming_increment: Expecting value: line 1"
    (logged,) = parse_error(pasted).exceptions
    assert any(h.whole for h in index.search(logged.message))
    # A warning is logged too: what came before a crash, or what a user asks about.
    scheduler = "python/sglang/srt/managers/scheduler.py"
    ignored = sites[(scheduler, 607)]
    assert (ignored["form"], ignored["cls"]) == ("logged", "logging.WARNING")
    assert ignored["message"].startswith("The SGLang server is not configured to enable custom")
    assert "--enable-custom-logits-processor" in ignored["message"]


def test_a_message_reported_after_its_status_is_the_bodys_type(statements):
    """`create_error_response(HTTPStatus.BAD_REQUEST, "Failed to parse ...")` passes the
    status as the message: the client's body carries the text as its `type`."""
    _, sites = statements
    site = sites[("python/sglang/srt/openai_api/adapter.py", 1096)]
    assert site["form"] == "reported"
    assert site["message"] == "Failed to parse fc related info to json format!"


def test_a_keyword_beside_a_mapping_of_keywords_is_a_site_of_its_duplicate(statements):
    """`ServerArgs(*args, log_level=log_level, **kwargs)` raises `TypeError: ...ServerArgs()
    got multiple values for keyword argument 'log_level'` when kwargs holds it too."""
    _, sites = statements
    site = sites[("python/sglang/lang/backend/runtime_endpoint.py", 358)]
    assert (site["form"], site["cls"], site["function"]) == (
        "keyword twice",
        "TypeError",
        "Runtime.__init__",
    )
    assert (
        site["statement"] == "self.server_args = ServerArgs(*args, log_level=log_level, **kwargs)"
    )
    index = MatchIndex([PatternEntry("k", site["pattern"], "TypeError")])
    for pasted, found in (
        (
            "sglang.srt.server_args.ServerArgs() got multiple values for keyword argument "
            "'log_level'",
            True,
        ),
        ("ServerArgs.__init__() got multiple values for keyword argument 'log_level'", True),
        ("ServerArgs() got multiple values for keyword argument 'port'", False),
        ("ServerArgs() got an unexpected keyword argument 'log_level'", False),
    ):
        assert any(h.whole for h in index.search(pasted)) is found, pasted
    # `super().__init__(tie_word_embeddings=..., **kwargs)`: the interpreter names the base.
    config = sites[("python/sglang/srt/configs/dbrx.py", 276)]
    index = MatchIndex([PatternEntry("c", config["pattern"], "TypeError")])
    pasted = (
        "transformers.configuration_utils.PretrainedConfig.__init__() got multiple values for "
        "keyword argument 'tie_word_embeddings'"
    )
    assert any(h.whole for h in index.search(pasted))
    # A subscripted callee (a triton kernel's launch) is named by no such message.
    launches = "python/sglang/srt/layers/attention/triton_ops/decode_attention.py"
    assert (launches, 442) not in sites and (launches, 555) not in sites


def test_a_call_through_a_mapping_the_function_fills_is_a_site_of_its_keys(statements):
    """`AutoConfig.from_pretrained(model, revision=revision, **kwargs)` after
    `kwargs["gguf_file"] = model`: a callee without that keyword (another release's, or
    one chosen at run time) raises `TypeError: X() got an unexpected keyword argument`."""
    draft, _ = statements
    spread = {
        (s["path"], s["line"]): s for s in draft.sites if s["form"] == "keywords from a mapping"
    }
    site = spread[("python/sglang/srt/hf_transformers_utils.py", 67)]
    assert (site["cls"], site["function"]) == ("TypeError", "get_config")
    assert site["statement"] == "config = AutoConfig.from_pretrained("
    index = MatchIndex([PatternEntry("m", site["pattern"], "TypeError")])
    for pasted, found in (
        ("from_pretrained() got an unexpected keyword argument 'gguf_file'", True),
        ("PretrainedConfig.__init__() got an unexpected keyword argument 'revision'", True),
        ("a.b.Loader() got an unexpected keyword argument 'trust_remote_code'", True),
        ("from_pretrained() got an unexpected keyword argument 'device_map'", False),
        ("from_pretrained() got multiple values for keyword argument 'gguf_file'", False),
    ):
        assert any(h.whole for h in index.search(pasted)) is found, pasted
    # A triton kernel's launch (`kernel[grid](**extra)`) is worded by no such message.
    launches = "python/sglang/srt/layers/attention/triton_ops/decode_attention.py"
    assert (launches, 442) not in spread and (launches, 555) not in spread
    assert draft.statements["keywords from a mapping"] > 10


def test_a_methods_reads_of_self_are_kept_with_its_sites(statements):
    """What a method reads of `self` (`self.x`, `self.x.y`): a frameless `'Scheduler'
    object has no attribute 'token_to_kv_pool'` is placed by it."""
    draft, _ = statements
    (site, *_) = [s for s in draft.sites if s["function"] == "Scheduler.check_memory"]
    assert {"token_to_kv_pool", "token_to_kv_pool.available_size", "tree_cache"} <= set(
        site["selfReads"]
    )


def test_a_functions_reads_of_imported_modules_are_kept_with_its_sites(statements):
    """`ops.silu_and_mul` with `from vllm import _custom_ops as ops` (0.4.3's fused_moe.py)
    is kept as `vllm._custom_ops.silu_and_mul`: what a frameless `module 'vllm._custom_ops'
    has no attribute 'silu_and_mul'` names (sglang #3392, on ROCm)."""
    draft, _ = statements
    reads = {
        r
        for s in draft.sites
        if s["function"] == "fused_experts_impl" and s["path"].endswith("fused_moe.py")
        for r in s["selfReads"]
    }
    assert {"vllm._custom_ops.silu_and_mul", "torch.empty"} <= reads
    # A name bound by no import (`silu_and_mul` from `sgl_kernel` is, but not as a module).
    assert not any(r.startswith(("intermediate_cache", "ops.")) for r in reads)


def test_a_deep_from_import_is_a_site_of_its_missing_submodule():
    """`from transformers.models.glm4v_moe.configuration_glm4v_moe import Glm4vMoeConfig`
    (sglang 0.5.1's glm4v_moe.py) fails on an older transformers with `No module named
    'transformers.models.glm4v_moe'`; a log line quotes only that (sglang #9561)."""
    draft = draft_release(sglang_wheel("0.5.1"), "python/", ("sglang/",), (), statements=True)
    model = "python/sglang/srt/models/glm4v_moe.py"
    (site,) = [
        s
        for s in draft.sites
        if s["path"] == model and s["message"].startswith("No module named 'transformers.")
    ]
    assert (site["form"], site["line"], site["function"]) == ("import", 7, "<module>")
    index = MatchIndex([PatternEntry("m", site["pattern"], "ModuleNotFoundError")])
    for missing, found in (
        ("transformers.models.glm4v_moe", True),
        ("transformers.models.glm4v_moe.configuration_glm4v_moe", True),
        ("transformers", False),  # a missing package: `import X`'s sites, thousands alike
        ("transformers.models.glm4v", False),
    ):
        hits = index.search(f"No module named '{missing}'")
        assert any(h.whole for h in hits) is found, missing
    # Two parts are no such site (`from vllm.utils import x`), nor is the standard library.
    deep = [s for s in draft.sites if s["statement"] and s["statement"].startswith("from ")]
    missing = [s["message"] for s in deep if s["cls"] == "ModuleNotFoundError"]
    assert missing and all(m.count(".") >= 2 for m in missing)
    assert not any(
        m.startswith(("No module named 'os.", "No module named 'sglang.")) for m in missing
    )


def test_an_http_exception_is_worded_by_its_detail():
    """`raise HTTPException(status_code=404, detail="Image not found")` (FastAPI): the
    detail is the message the client's body carries, as `{"detail": "..."}`."""
    draft = draft_release(
        sglang_wheel("0.5.23"),
        "python/",
        ("sglang/multimodal_gen/runtime/entrypoints/openai/image_api.py",),
        (),
    )
    by_line = {s["line"]: s for s in draft.sites if s["cls"].endswith("HTTPException")}
    assert by_line[619]["message"] == "Image not found"
    assert by_line[475]["message"] == "Field 'image' or 'url' is required"
    assert by_line[500]["message"] == "Failed to process image source: {str(e)}"


def test_an_error_response_body_is_a_reported_message():
    """The API-key middleware answers `JSONResponse(content={"error": "Unauthorized" if
    ... else "Forbidden"}, status_code=...)`: the body's text is a site; `Forbidden` has
    too little text of its own to be one."""
    draft = draft_release(
        sglang_wheel("0.5.23"), "python/", ("sglang/srt/utils/auth.py",), (), statements=True
    )
    reported = [s for s in draft.sites if s["form"] == "reported"]
    assert [s["message"] for s in reported] == ["Unauthorized"]
    assert reported[0]["function"].endswith("__call__")
