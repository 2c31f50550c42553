import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.matching import MatchIndex, PatternEntry, TokenSetSearch, match_error
from app.matching.clean import clean_lines
from app.matching.services import (
    CLASS_DIFFERENT,
    CLASS_EXACT,
    CLASS_NAME,
    CLASS_UNKNOWN,
    MAX_MODULE_READERS,
    MAX_RARE_READERS,
    MAX_SCORED_HITS,
    PER_SITE_KIND,
    class_agreement,
    file_named,
    paste_words,
    path_suffix_hit,
)

pytestmark = pytest.mark.unit

SEED = "trtllm_mla backend can only be used with MLA models."
SEED_PATTERN = r"trtllm_mla backend can only be used with MLA models\."
SEED_PATH = "python/sglang/srt/layers/attention/attention_registry.py"


def seed_entry(record_id="seed", **kw):
    values = dict(error_class="ValueError", file_path=SEED_PATH, line_number=75, error_message=SEED)
    values.update(kw)
    return PatternEntry(record_id, SEED_PATTERN, **values)


@pytest.fixture
def index():
    return MatchIndex(
        [
            seed_entry(),
            PatternEntry(
                "mha",
                r"trtllm_mha backend can only be used with non-MLA models\.",
                "ValueError",
                SEED_PATH,
                280,
                "trtllm_mha backend can only be used with non-MLA models.",
            ),
            PatternEntry(
                "weights",
                r"Failed to load weights for .+?",
                "RuntimeError",
                "python/sglang/srt/model_loader/loader.py",
                420,
                "Failed to load weights for {name}",
            ),
            PatternEntry(
                "keyerr",
                r"['\"]?model\.layers\..+?\.weight_scale['\"]?",
                "KeyError",
                "python/sglang/srt/model_loader/loader.py",
                412,
                "model.layers.{i}.weight_scale",
            ),
        ]
    )


@pytest.mark.parametrize(
    "name", ["TP0_TRACEBACK", "ISSUE_BODY", "JSON_LOG", "ANSI_CRLF", "COMPOSE"]
)
def test_seed_found_from_every_paste_shape(index, samples, name):
    result = match_error(getattr(samples, name), index)
    assert not result.fallback
    assert result.matches[0].record_id == "seed"


def test_explanation_of_a_pattern_match(index, samples):
    result = match_error(samples.TP0_TRACEBACK, index)
    (top,) = result.matches
    why = top.why
    assert why.kind == "pattern"
    assert why.pattern == SEED_PATTERN
    assert why.span == (0, len(SEED)) and why.matched_text == SEED and why.whole_message
    assert why.exception_role == "last" and why.exception_class == "ValueError"
    assert why.class_agreement == CLASS_EXACT
    assert why.frame is not None and why.frame.line == 75
    assert why.frame.function == "create_trtllm_mla_backend"
    assert why.line_distance == 0
    assert 0.9 < top.score <= 1.0
    payload = json.loads(json.dumps(result.to_dict()))
    assert payload["matches"][0]["why"]["frame"]["file"].endswith("attention_registry.py")


def test_chain_reports_which_exception_matched(index, samples):
    result = match_error(samples.CHAINED_CAUSE, index)
    roles = {m.record_id: m.why.exception_role for m in result.matches}
    assert roles == {"weights": "last", "keyerr": "root"}
    keyerr = next(m for m in result.matches if m.record_id == "keyerr")
    assert keyerr.why.frame is not None and keyerr.why.frame.line == 412


@pytest.mark.parametrize(
    "message",
    [
        "trtllm_mha backend can only be used with non-MLA models!",
        "ValueError: trtllm_mla backend can only be used with MLA model.",
        f"ValueError: The {SEED}",
        f"ValueError: warning '{SEED}' was ignored",
    ],
)
def test_near_misses_are_not_pattern_matches(index, message):
    result = match_error(message, index)
    assert all(m.why.kind == "text" for m in result.matches)
    assert result.fallback


# Cut inside its last word, and half-way (less only its period, it is the whole message:
# test_a_title_without_the_messages_final_period_is_a_whole_match).
@pytest.mark.parametrize("cut", [len(SEED) - 3, 30])
def test_a_message_cut_off_matches_as_a_prefix_below_pattern_matches(index, cut):
    result = match_error(f"ValueError: {SEED[:cut]}", index)
    assert [m.record_id for m in result.matches] == ["seed"]
    assert result.matches[0].why.kind == "prefix"
    assert 0.4 <= result.matches[0].score < 0.5
    assert result.answer["evidence"] == "prefix"
    assert any("cut off" in s for s in result.answer["unknown"])
    assert not match_error(f"ValueError: {SEED[:10]}", index).matches[:1] or (
        match_error(f"ValueError: {SEED[:10]}", index).matches[0].why.kind != "prefix"
    )


def test_near_miss_of_a_sibling_record_picks_the_sibling(index):
    result = match_error(
        "ValueError: trtllm_mha backend can only be used with non-MLA models.", index
    )
    assert [m.record_id for m in result.matches] == ["mha"]


def test_wrapped_message_matches_as_a_segment(index):
    result = match_error(f"RuntimeError: Capture cuda graph failed: {SEED}", index)
    (top,) = result.matches
    assert top.record_id == "seed"
    assert not top.why.whole_message
    assert top.why.matched_text == SEED
    assert top.why.class_agreement == CLASS_DIFFERENT


def test_ranking_records_sharing_a_message(samples):
    # Distinct repos keep these distinct raise sites (one site would give one result).
    index = MatchIndex(
        [
            seed_entry("other-class", error_class="RuntimeError", repo="a/1"),
            seed_entry("qualified", error_class="sglang.errors.ValueError", repo="a/2"),
            seed_entry("far-line", line_number=300, repo="a/3"),
            seed_entry("near-line", line_number=77, repo="a/4"),
            seed_entry("other-file", file_path="python/sglang/srt/server_args.py", repo="a/5"),
            seed_entry("no-class", error_class=None, repo="a/6"),
        ]
    )
    result = match_error(samples.TP0_TRACEBACK, index)
    assert [m.record_id for m in result.matches] == [
        "near-line",  # class exact, frame in file, 2 lines off
        "far-line",  # class exact, frame in file, 225 lines off
        "qualified",  # same last dotted component only
        "no-class",  # unknown class
        "other-class",
        # Class exact, but no frame in its file: the innermost frame is a `raise` in
        # attention_registry.py, so the error was raised there, not here.
        "other-file",
    ]
    assert all(m.why.kind == "pattern" for m in result.matches)
    scores = [m.score for m in result.matches]
    assert scores == sorted(scores, reverse=True) and scores[0] > scores[1] > scores[2]


def test_whole_message_outranks_segment_and_specific_outranks_generic():
    index = MatchIndex(
        [
            PatternEntry("inner", SEED_PATTERN, "ValueError"),
            PatternEntry("outer", r"Capture cuda graph failed: .+?", "ValueError"),
            PatternEntry("generic", r"Capture .+? failed: .+?", "ValueError"),
        ]
    )
    result = match_error(f"ValueError: Capture cuda graph failed: {SEED}", index)
    assert [m.record_id for m in result.matches] == ["outer", "generic", "inner"]


def test_injected_text_search_is_used_only_without_pattern_match(index):
    calls = []

    def text_search(query, limit):
        calls.append(query)
        return [("weights", 0.8), ("not-indexed", 0.6)]

    result = match_error("ValueError: totally unrelated words here", index, text_search=text_search)
    assert result.fallback
    assert [m.record_id for m in result.matches] == ["weights", "not-indexed"]
    assert result.matches[0].why.kind == "text"
    assert result.matches[0].why.similarity == 0.8
    assert result.matches[0].score < 0.5
    calls.clear()
    match_error(f"ValueError: {SEED}", index, text_search=text_search)
    assert calls == []


def test_default_text_search_finds_close_wording(index):
    result = match_error("the trtllm_mla backend may only be used with MLA models", index)
    assert result.fallback
    assert result.matches[0].record_id == "seed"


def test_a_message_that_goes_on_differently_is_a_prefix_match_by_characters_shared(index):
    # The template's start, then the writer's own words (a reworded end, an issue title).
    result = match_error("trtllm_mla backend may only be used with MLA models", index)
    top = result.matches[0]
    assert (top.record_id, top.why.kind, top.why.cut) == ("seed", "prefix", False)
    assert top.why.matched_text == "trtllm_mla backend "
    assert top.why.specificity == len("trtllm_mla backend ")
    assert not result.fallback
    assert "goes on differently" in " ".join(result.answer["known"])
    # Too little shared, or only the last word differs: not a prefix match.
    for text in ("trtllm_mla was used with MLA models and failed", f"{SEED[:-1]}!"):
        assert all(m.why.kind != "prefix" for m in match_error(text, index).matches), text


def test_a_long_shared_start_outranks_a_short_pattern_matched_whole():
    short = PatternEntry(
        "short", r"Cannot find .+?", "RuntimeError", "triton/knobs.py", 10, "Cannot find {}"
    )
    long = PatternEntry(
        "long",
        r"Cannot find any of .+? in the model's quantization config\.",
        "ValueError",
        "sglang/srt/layers/quantization/base_config.py",
        120,
        "Cannot find any of {keys} in the model's quantization config.",
    )
    index = MatchIndex([short, long])
    title = "[Bug] ValueError: Cannot find any of ['quant_method'] when using online quantization"
    ranked = [m.record_id for m in match_error(title, index).matches]
    assert ranked == ["long", "short"]
    # The short pattern still answers alone when nothing else shares more.
    assert [m.record_id for m in match_error("Cannot find libcuda.so", index).matches] == ["short"]


def test_a_cut_message_whose_template_starts_with_a_short_literal_is_found():
    entry = PatternEntry(
        "tp",
        r"TP rank .+? could finish the model loading, but there are other ranks that didn't"
        r" finish loading\. .+?",
        "ValueError",
        "sglang/srt/model_executor/model_runner.py",
        300,
        "TP rank {self.tp_rank} could finish the model loading, but there are other ranks that"
        " didn't finish loading. {hint}",
    )
    result = match_error(
        "ValueError: TP rank 1 could finish the model loading, but there are other ranks th",
        MatchIndex([entry]),
    )
    assert [(m.record_id, m.why.kind, m.why.cut) for m in result.matches] == [
        ("tp", "prefix", True)
    ]


def test_a_template_of_only_the_interpreters_words_is_no_evidence():
    generic = PatternEntry(
        "torch-generic",
        r".+?\(\) got an unexpected keyword argument '.+?'",
        "TypeError",
        "torch/_utils.py",
        50,
        "{}() got an unexpected keyword argument '{}'",
    )
    local = PatternEntry(
        "in-make-layers",
        r"Unsupported layer type .+?",
        "ValueError",
        "python/sglang/srt/utils.py",
        412,
        "Unsupported layer type {t}",
        function="make_layers",
    )
    paste = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3/site-packages/sglang/srt/utils.py", line 410, in make_layers\n'
        "    layer = layer_fn(idx=idx, prefix=prefix)\n"
        "TypeError: Phi3SmallModel.__init__.<locals>.<lambda>() got an unexpected keyword"
        " argument 'idx'\n"
    )
    index = MatchIndex([generic, local])
    ranked = match_error(paste, index).matches
    assert [(m.record_id, m.why.kind) for m in ranked] == [("in-make-layers", "frame")]
    # Without frames nothing says where it came from, and the answer says so.
    alone = match_error(paste.rsplit("\n", 2)[-2], index)
    assert alone.matches == ()
    assert any("Paste the whole traceback" in u for u in alone.answer["unknown"])
    # A frame in the generic template's own file makes it the answer again.
    in_torch = paste.replace("sglang/srt/utils.py", "torch/_utils.py").replace("410", "50")
    assert [m.record_id for m in match_error(in_torch, index).matches][0] == "torch-generic"


def _getattr_entry(
    record_id: str,
    message: str,
    function: str,
    path: str = "python/sglang/srt/managers/schedule_batch.py",
    line: int = 120,
    repo: str = "sgl-project/sglang",
) -> PatternEntry:
    """An AttributeError site whose pattern is its template, each `{placeholder}` any text."""
    pattern = "".join(
        ".+?" if part.startswith("{") else re.escape(part)
        for part in re.split(r"(\{[^}]*\})", message)
        if part
    )
    return PatternEntry(
        record_id, pattern, "AttributeError", path, line, message, function=function, repo=repo
    )


@pytest.mark.parametrize(
    ("message", "found"),
    [
        ("AttributeError: 'Req' object has no attribute 'foo'", True),
        ("AttributeError: 'ChunkedReq' object has no attribute 'foo'", True),  # a subclass
        ("AttributeError: 'NoneType' object has no attribute 'evict'", False),
        ("AttributeError: 'str' object has no attribute 'eos_token_id'", False),
        ("Error in request: 'NoneType' object has no attribute 'schema_'", False),
    ],
)
def test_a_getattr_naming_its_own_class_fits_no_builtin_type(message, found):
    quoted = _getattr_entry(
        "req-getattr", "'{type(self).__name__}' object has no attribute '{name}'", "Req.__getattr__"
    )
    bare = _getattr_entry(
        "bare-getattr", "{type(self).__name__} has no attribute {name}", "Data.__getattr__"
    )
    ids = [m.record_id for m in match_error(message, MatchIndex([quoted, bare])).matches]
    assert ("req-getattr" in ids) is found
    assert "bare-getattr" not in ids  # its value would be "'Req' object"


MODULE_SITES = [
    _getattr_entry(rid, message, function, path, 10, "x/y")
    for rid, message, path, function in (
        (
            "torch-mod",
            "module '{__name__}' has no attribute '{name}'",
            "torch/__init__.py",
            "__getattr__",
        ),
        (
            "args-mod",
            "module {__name__} has no attribute {name}",
            "python/sglang/srt/server_args.py",
            "__getattr__",
        ),
        (
            "lazy",
            "module {self.__name__} has no attribute {name}",
            "src/transformers/utils/import_utils.py",
            "_LazyModule.__getattr__",
        ),
    )
]


@pytest.mark.parametrize(
    ("module", "found"),
    [
        ("torch", ["torch-mod"]),
        ("sglang.srt.server_args", ["args-mod"]),
        ("transformers.models.auto", ["lazy"]),  # a lazy module of its package
        ("vllm._custom_ops", []),  # no module's `__getattr__` of these is vllm's
        ("sglang.srt.utils", []),
    ],
)
def test_a_modules_getattr_raised_only_its_own_modules_error(module, found):
    """`module 'X' has no attribute 'y'` from a module's `__getattr__` (PEP 562) names that
    module: the site fits only the module its file is (or, a lazy module's class, its
    package); for any other module Python worded it, and the answer says so."""
    paste = f"[Bug] AttributeError: module '{module}' has no attribute 'silu_and_mul'"
    result = match_error(paste, MatchIndex(MODULE_SITES))
    assert [m.record_id for m in result.matches] == found
    if not found:
        assert any("Python words this message itself" in u for u in result.answer["unknown"])


def test_a_modules_getattr_no_frame_is_in_did_not_raise_a_tracebacks_error():
    framed = (
        "Traceback (most recent call last):\n"
        '  File "/x/sglang/srt/layers/quantization/fp8.py", line 51, in apply\n'
        "    return torch.float8_e4m3fnuz\n"
        "AttributeError: module 'torch' has no attribute 'float8_e4m3fnuz'"
    )
    assert match_error(framed, MatchIndex(MODULE_SITES)).matches == ()
    inside = framed.replace("/x/sglang/srt/layers/quantization/fp8.py", "/x/torch/__init__.py")
    assert [m.record_id for m in match_error(inside, MatchIndex(MODULE_SITES)).matches] == [
        "torch-mod"
    ]


def test_a_getattr_of_the_class_the_message_names_goes_first():
    """Of two `__getattr__` that word the message alike, the one of the class the paste
    names raised it (the other only for its own class's instances)."""
    entries = [
        _getattr_entry(rid, "'{type(self).__name__}' object has no attribute '{name}'", fn)
        for rid, fn in (("a-req", "Req.__getattr__"), ("b-item", "MultimodalDataItem.__getattr__"))
    ]
    index = MatchIndex(entries)
    for cls, first in (("MultimodalDataItem", "b-item"), ("Req", "a-req")):
        paste = f"AttributeError: '{cls}' object has no attribute 'pixel_values'"
        result = match_error(paste, index)
        assert result.matches[0].record_id == first
        assert not any("words it alike" in u for u in result.answer["unknown"])


def test_a_frameless_call_misfit_says_which_sites_word_it_for_their_own_callables():
    # sglang #8165's title: `HiRadixCache.__init__() got an unexpected keyword argument ...`.
    # torch's `Module.__init__` and triton's `{cls.__name__}.__init__` word it for their own
    # classes, torch's `_get_async_or_non_blocking` for a callable it checks: none is where a
    # call to HiRadixCache went wrong, and the answer says so.
    def entry(rid, message, function):
        return replace(_getattr_entry(rid, message, function), error_class="TypeError")

    index = MatchIndex(
        [
            entry(
                "module",
                "{type(self).__name__}.__init__() got an unexpected keyword argument '{key}'",
                "Module.__init__",
            ),
            entry(
                "triton",
                "{cls.__name__}.__init__() got an unexpected keyword argument '{k}'",
                "_aggregate.__init__",
            ),
            entry(
                "utils",
                "{function_name}() got an unexpected keyword argument '{argument}'",
                "_get_async_or_non_blocking",
            ),
        ]
    )
    title = (
        "[Bug] HiRadixCache.__init__() got an unexpected keyword argument"
        " 'token_to_kv_pool_allocator'"
    )
    (note,) = [u for u in match_error(title, index).answer["unknown"] if "alike" in u]
    assert "arguments do not fit the callee's signature" in note
    assert all(n in note for n in ("Module", "_aggregate", "_get_async_or_non_blocking"))
    assert "`HiRadixCache`" in note
    # The class they word it for is no such note; a statement site (a call of this very
    # callee through `**kwargs`) is a candidate, not an alike wording.
    own = "TypeError: Module.__init__() got an unexpected keyword argument 'foo'"
    assert not any("alike" in u for u in match_error(own, index).answer["unknown"])
    call = replace(
        entry("call", "{callee}() got an unexpected keyword argument '{keyword}'", "load"),
        statement="model = cls(**kwargs)",
    )
    framed = MatchIndex([call, *index.entries()])
    plain = "TypeError: from_pretrained() got an unexpected keyword argument 'gguf_file'"
    assert not any("alike" in u for u in match_error(plain, framed).answer["unknown"])


def test_a_matched_warning_brings_the_raises_of_the_function_that_logs_it():
    # sglang #40797: `_adjust_embedding_length` warns of a token mismatch, then raises; the
    # log stops above the raise. After the warning: that function's raises, not another's.
    path = "python/sglang/srt/managers/mm_utils.py"

    def site(rid, message, cls, function, line, releases=5):
        return replace(
            _getattr_entry(rid, message, function, path, line),
            error_class=cls,
            releases=releases,
        )

    index = MatchIndex(
        [
            site(
                "warn",
                "Number of tokens in multimodal embedding does not match those in"
                " the input text. Got {a} tokens in the text but {b} tokens.",
                "logging.WARNING",
                "_adjust_embedding_length",
                10,
            ),
            site(
                "raise",
                "Insufficient multimodal embedding length: {a} vs {b}.",
                "RuntimeError",
                "_adjust_embedding_length",
                20,
            ),
            site("old", "Embedding is empty", "ValueError", "_adjust_embedding_length", 5, 1),
            site("error", "Embedding failed: {e}", "logging.ERROR", "_adjust_embedding_length", 30),
            site("other", "Bad image", "ValueError", "get_embedding_and_mask", 40),
        ]
    )
    paste = (
        "[2026-09-15 13:53:07 TP0] Number of tokens in multimodal embedding does not match"
        " those in the input text. Got 279 tokens in the text but 260 tokens."
    )
    result = match_error(paste, index)
    assert [(m.record_id, m.why.kind) for m in result.matches] == [
        ("warn", "pattern"),
        ("raise", "beside"),
        ("old", "beside"),
    ]
    assert any("if a crash followed" in line for line in result.answer["known"])
    # A logged error is its own answer: no raise comes after it.
    error = match_error("Embedding failed: CUDA error", index)
    assert [m.why.kind for m in error.matches] == ["pattern"]


def test_a_getattr_no_frame_is_in_did_not_raise_a_traceback_s_error():
    """With its traceback, `'Runtime' object has no attribute 'flush_cache'` came from the
    statement on the innermost frame: a `__getattr__` elsewhere would have been a frame."""
    getattr_site = _getattr_entry(
        "req-getattr", "'{type(self).__name__}' object has no attribute '{name}'", "Req.__getattr__"
    )
    index = MatchIndex([getattr_site])
    message = "AttributeError: 'Runtime' object has no attribute 'flush_cache'"
    framed = (
        "Traceback (most recent call last):\n"
        '  File "/x/sglang/api.py", line 51, in flush_cache\n'
        "    return backend.flush_cache()\n" + message
    )
    result = match_error(framed, index)
    assert result.matches == ()
    assert any("Python words this message itself" in u for u in result.answer["unknown"])
    # Without a traceback nothing says where: the `__getattr__` stays a candidate, and the
    # answer says it raised this only for a `Req`, which the paste does not say `Runtime` is.
    alone = match_error(message, index)
    assert [m.record_id for m in alone.matches] == ["req-getattr"]
    (said,) = [u for u in alone.answer["unknown"] if "words it alike" in u]
    assert "its own class (Req)" in said and "only if `Runtime` is that class" in said
    own = match_error("AttributeError: 'Req' object has no attribute 'flush_cache'", index)
    assert [m.record_id for m in own.matches] == ["req-getattr"]
    assert not any("words it alike" in u for u in own.answer["unknown"])
    # A frame in its file makes it the answer.
    inside = framed.replace("api.py", "managers/schedule_batch.py")
    assert [m.record_id for m in match_error(inside, index).matches][:1] == ["req-getattr"]


@pytest.mark.parametrize(
    ("message", "template", "cls"),
    [
        # Python 3.10+ adds its guess at the name meant (sglang issue 1391).
        (
            "'LlamaTokenizerFast' object has no attribute 'tokenizer'. Did you mean: '_tokenizer'?",
            "'{type(self).__name__}' object has no attribute '{name}'",
            "AttributeError",
        ),
        # `input_ids.index(...)` in a model's pad_input_ids (sglang issue 161), against
        # torch's dynamo polyfill that words `list.index` alike.
        ("32000 is not in list", "{item} is not in {type(iterator)}", "ValueError"),
    ],
)
def test_an_interpreter_worded_error_under_a_frame_is_not_a_dependencys_alike_site(
    message, template, cls
):
    entry = replace(
        _getattr_entry("alike", template, "polyfill", "torch/_dynamo/polyfills/__init__.py"),
        error_class=cls,
        repo="pytorch/pytorch",
    )
    index = MatchIndex([entry])
    framed = (
        "Traceback (most recent call last):\n"
        '  File "/x/sglang/srt/models/llava.py", line 63, in pad_input_ids\n'
        "    offset = input_ids.index(self.config.image_token_index)\n"
        f"{cls}: {message}"
    )
    assert match_error(framed, index).matches == ()
    # A frame in its file makes it the answer.
    inside = framed.replace("sglang/srt/models/llava.py", "torch/_dynamo/polyfills/__init__.py")
    assert [m.record_id for m in match_error(inside, index).matches] == ["alike"]


def test_a_title_that_quotes_a_messages_first_sentence_finds_it_as_a_cut():
    # sglang issue 2193: `[Question] RuntimeError: Initialization failed`, of "Initialization
    # failed. Please see the error messages above." (21 characters, under MIN_PREFIX_CHARS).
    message = "Initialization failed. Please see the error messages above."
    entry = PatternEntry(
        "init", re.escape(message), "RuntimeError", "python/sglang/srt/server.py", 684, message
    )
    index = MatchIndex([entry])
    for title in ("[Question] RuntimeError: Initialization failed", "Initialization failed."):
        (hit,) = match_error(title, index).matches
        assert (hit.record_id, hit.why.kind) == ("init", "prefix"), title
    # A cut as short that ends inside a sentence is no evidence.
    assert not any(m.why.kind == "prefix" for m in match_error("Initialization fai", index).matches)
    assert not match_error("Initialization", index).matches or all(
        m.why.kind != "prefix" for m in match_error("Initialization", index).matches
    )


def test_a_title_without_the_messages_final_period_is_a_whole_match():
    # sglang issues 6281 and 4756: `[Bug] GGUF model with architecture qwen3 is not supported
    # yet`, transformers' message less its period, which a short template of torch's
    # (`.+? not supported yet`) matches whole: the longer template is the answer.
    gguf = "GGUF model with architecture {architecture} is not supported yet."
    weak = "{cur_node_orig.op} not supported yet"
    index = MatchIndex(
        [
            PatternEntry(
                "gguf",
                r"GGUF model with architecture .+? is not supported yet\.",
                "ValueError",
                "src/transformers/modeling_gguf_pytorch_utils.py",
                431,
                gguf,
            ),
            PatternEntry(
                "weak", r".+? not supported yet", "AssertionError", "torch/ao/x.py", 438, weak
            ),
        ]
    )
    for title in (
        "[Bug] GGUF model with architecture qwen3 is not supported yet",
        "GGUF model with architecture deepseek2 is not supported yet.",
        "ValueError: GGUF model with architecture qwen3 is not supported yet",
    ):
        first = match_error(title, index).matches[0]
        assert (first.record_id, first.why.kind, first.why.whole_message) == (
            "gguf",
            "pattern",
            True,
        ), title
    # Cut inside the template's words, it is still a cut-off message, not a whole one.
    (hit,) = match_error("GGUF model with architecture qwen3 is not supp", index).matches
    assert (hit.record_id, hit.why.kind) == ("gguf", "prefix")
    # Without the template's own words the short pattern is all there is.
    assert [m.record_id for m in match_error("Op foo not supported yet", index).matches] == ["weak"]


def test_a_template_on_a_later_line_of_a_message_ranks_as_a_detail_of_its_head():
    # sglang issue (heldout 070): sgl-kernel's `CRITICAL: Could not load any common_ops
    # library!` lists each attempt's ImportError below it; the loader's raise is the site,
    # the `undefined symbol` record (alone, the error of older loaders) comes after it.
    critical = (
        "[sgl_kernel] CRITICAL: Could not load any common_ops library!\n\n"
        "Attempted locations:\n{attempts}"
    )
    symbol = "{library}common_ops.abi3.so: undefined symbol: {symbol}"
    index = MatchIndex(
        [
            PatternEntry(
                "critical",
                r"\[sgl_kernel\] CRITICAL: Could not load any common_ops library!\n\n"
                r"Attempted locations:\n(?s:.+?)",
                "ImportError",
                "sgl_kernel/load_utils.py",
                192,
                critical,
            ),
            PatternEntry(
                "symbol",
                r"\S*common_ops[\w.-]*\.so: undefined symbol: \S+",
                "ImportError",
                "sgl_kernel/__init__.py",
                13,
                symbol,
            ),
        ]
    )
    lines = (
        "ImportError: [sgl_kernel] CRITICAL: Could not load any common_ops library!\n"
        "Attempted locations:\n1. Architecture-specific pattern: /x/sgl_kernel/sm100/common_ops.*\n"
        "Error details from previous import attempts:\n"
        "- ImportError: /x/sgl_kernel/sm100/common_ops.abi3.so: undefined symbol: _ZNK3c10\n"
    )
    for text in (lines, lines.replace("ImportError: [", "ImportError:\n[", 1)):
        assert [m.record_id for m in match_error(text, index).matches][:2] == [
            "critical",
            "symbol",
        ]
    alone = (
        "ImportError: /x/sgl_kernel/common_ops.abi3.so: undefined symbol: cuGreenCtxStreamCreate"
    )
    assert match_error(alone, index).matches[0].record_id == "symbol"


def test_the_error_a_reported_line_quotes_whole_ranks_above_the_line():
    # sglang issue 15665: the scheduler reports the KVTransferError it caught; the error's
    # raise (its reason kept by `record_failure`) is where it came from, the line next.
    def entry(rid, template, pattern, cls, path):
        return PatternEntry(rid, pattern, cls, path, 10, template)

    reported = (
        "Prefill transfer failed for request rank={self.tp_rank} req.rid={req.rid} "
        "req.bootstrap_room={req.bootstrap_room} with exception {e}"
    )
    reported_rx = (
        r"Prefill transfer failed for request rank=.+? req\.rid=.+? "
        r"req\.bootstrap_room=.+? with exception .+?"
    )
    raised = "KVTransferError(bootstrap_room={self.bootstrap_room}): Aborted by AbortReq."
    raised_rx = r"KVTransferError\(bootstrap_room=.+?\): Aborted by AbortReq\."
    paste = (
        "[2025-12-19 10:38:57 TP0] Prefill transfer failed for request rank=0 "
        "req.rid='80bdec0faeed44e1b49a15bcec9b44b1' req.bootstrap_room=8528272782182837149 "
        "with exception KVTransferError(bootstrap_room=8528272782182837149): Aborted by AbortReq."
    )
    for cls, promoted in (
        ("BadRequestError", True),
        ("logging.WARNING", True),
        ("RuntimeError", False),
    ):
        index = MatchIndex(
            [
                entry("line", reported, reported_rx, cls, "srt/disaggregation/prefill.py"),
                entry("raise", raised, raised_rx, "KVTransferError", "srt/disaggregation/conn.py"),
                entry("short", "Aborted by AbortReq.", r"Aborted by AbortReq\.", "X", "srt/s.py"),
            ]
        )
        ids = [m.record_id for m in match_error(paste, index).matches]
        if promoted:
            assert ids[:2] == ["raise", "line"], cls
        else:  # a raise that wraps the error (`raise RuntimeError(f"... {e}")`) was raised
            assert ids[0] == "line" and "raise" not in ids[:1], cls


def test_a_quoted_error_of_a_log_that_repeats_it_per_rank_after_a_warning_ranks_first():
    # sglang issues 9266 and 12688: every rank logs the same failure, the last line is cut
    # off, and a warning may come first: the lines are one error, the one the line quotes.
    reported = (
        "Decode transfer failed for request rank={self.tp_rank} "
        "decode_req.req.rid={decode_req.req.rid} with exception {e}"
    )
    reported_rx = (
        r"Decode transfer failed for request rank=.+? decode_req\.req\.rid=.+? with exception .+?"
    )
    raised = "KVTransferError(bootstrap_room={self.bootstrap_room}): Aborted by AbortReq."
    raised_rx = r"KVTransferError\(bootstrap_room=.+?\): Aborted by AbortReq\."
    warned = "Some requests fail to receive KV Cache transfer done signal after bootstrapping."
    index = MatchIndex(
        [
            PatternEntry("line", reported_rx, "BadRequestError", "d.py", 10, reported),
            PatternEntry("raise", raised_rx, "KVTransferError", "conn.py", 10, raised),
            PatternEntry("warn", re.escape(warned), "logging.WARNING", "d.py", 5, warned),
        ]
    )
    line = (
        "[2025-11-05 16:39:09 TP{rank}] Decode transfer failed for request rank={rank} "
        "decode_req.req.rid='78fde411d57a4d7791b63963eac74968' with exception "
        "KVTransferError(bootstrap_room=4793981895866140836): Aborted by AbortReq."
    )
    ranks = "\n".join(line.format(rank=r) for r in range(4))
    cut = line.format(rank=5)[:90]
    for paste in (
        f"{ranks}\n{cut}\n",
        f"[2025-11-05 16:39:08 TP0] {warned}\n{ranks}\n",
    ):
        ids = [m.record_id for m in match_error(paste, index).matches]
        assert ids[0] == "raise", paste


def test_a_quoted_error_the_paste_cuts_off_is_the_template_it_starts_not_the_generic_one():
    # sgl-project/sglang issue 23272: the log is cut inside the reason the line quotes; the
    # template that words that reason, not `KVTransferError(...): {failure_reason}`.
    reported = "Prefill transfer failed for request rank={rank} with exception {e}"
    reported_rx = r"Prefill transfer failed for request rank=.+? with exception .+?"
    generic = "KVTransferError(bootstrap_room={self.bootstrap_room}): {failure_reason}"
    generic_rx = r"KVTransferError\(bootstrap_room=.+?\): .+?"
    chunk = (
        "KVTransferError(bootstrap_room={self.bootstrap_room}): Failed to send kv chunk of "
        "{kv_chunk.room} to {req.endpoint}:{req.dst_port}"
    )
    chunk_rx = r"KVTransferError\(bootstrap_room=.+?\): Failed to send kv chunk of .+? to .+?:.+?"
    index = MatchIndex(
        [
            PatternEntry("line", reported_rx, "BadRequestError", "p.py", 10, reported),
            PatternEntry("generic", generic_rx, "KVTransferError", "conn.py", 20, generic),
            PatternEntry("chunk", chunk_rx, "KVTransferError", "conn.py", 20, chunk),
        ]
    )
    paste = (
        "[2026-04-30 16:02:26] Session 172.20.0.9:15004 failed.\n"
        "[2026-04-30 16:02:26] Prefill transfer failed for request rank=0 with exception "
        "KVTransferError(bootstrap_room=6721395813317762539): "
        "Failed to send kv chunk of 672139581331"
    )
    assert match_error(paste, index).matches[0].record_id == "chunk"


def test_the_error_a_logged_line_quotes_is_the_one_the_traceback_after_it_locates():
    # sglang issue 9887 (heldout 035): `Error in request: {e}` logs the TypeError of a call
    # with a keyword the tokenizer lacks; several calls are such sites (`call` statement
    # sites), and the traceback after the line names the file of the one that raised.
    logged = "Error in request: {e}"
    call = "{callee}() got an unexpected keyword argument '{keyword}'"

    def site(rid, keywords, path):
        pattern = r"[\w.]+[(][)] got an unexpected keyword argument '(?:" + keywords + ")'"
        return PatternEntry(
            rid, pattern, "TypeError", path, 7, call, statement="x.apply_chat_template("
        )

    index = MatchIndex(
        [
            PatternEntry("line", r"Error in request: .+?", "logging.ERROR", "o/base.py", 9, logged),
            # The more specific pattern (a longer list of keywords), in no frame's file.
            site("parser", "stream_reasoning|force_reasoning|reasoning_effort", "p/r.py"),
            site("chat", "tools|reasoning_effort", "o/serving_chat.py"),
        ]
    )
    paste = (
        '[2025-08-26 10:36:30] INFO:     127.0.0.1:55274 - "POST /v1/chat/completions '
        'HTTP/1.1" 500 Internal Server Error\n'
        "[2025-08-26 10:38:03] Error in request: TiktokenTokenizer.apply_chat_template() "
        "got an unexpected keyword argument 'reasoning_effort'\n"
    )
    frames = (
        "Traceback (most recent call last):\n"
        '  File "/sgl/python/sglang/o/serving_chat.py", line 7, in _apply_template\n'
    )
    assert match_error(paste, index).matches[0].record_id == "parser"
    assert match_error(paste + frames, index).matches[0].record_id == "chat"


def test_a_title_that_completes_a_message_then_adds_its_own_words_finds_that_message():
    # sgl-project/sglang issue 27109's title: the assert's whole message, then the writer's
    # words; the asserts whose messages go on differently after it come after.
    def assertion(rid, message, path):
        return PatternEntry(rid, re.escape(message), "AssertionError", path, 10, message)

    index = MatchIndex(
        [
            assertion("w1", "Hidden size mismatch w1", "python/sglang/srt/layers/moe/cutlass.py"),
            assertion("w2", "Hidden size mismatch w2", "python/sglang/srt/layers/moe/cutlass.py"),
            assertion("fused", "Hidden size mismatch", "python/sglang/srt/layers/moe/fused.py"),
        ]
    )
    title = (
        "[Bug] DeepSeek-V4-Pro Multi-Node PP2 TP8 Fails with AssertionError: Hidden size "
        "mismatch in Triton MoE Kernel"
    )
    result = match_error(title, index)
    assert [m.record_id for m in result.matches][0] == "fused"
    assert result.matches[0].why.kind == "prefix"


def test_log_lines_each_rank_repeats_are_one_line_and_frames_are_kept():
    text = "\n".join(
        [
            "[2025-08-17 08:49:33 TP0 EP0] Prefill bootstrap failed for request rank=0 id=9a1f",
            "[2025-08-17 08:49:33 TP7 EP7] Prefill bootstrap failed for request rank=7 id=9a1f",
            '[2025-08-17 08:49:34 TP0] File "/x/a.py", line 10, in forward',
            '[2025-08-17 08:49:34 TP0] File "/x/a.py", line 12, in forward',
            "[2025-08-17 08:49:33 TP3 EP3] Prefill boo",
        ]
    )
    lines = [line.text for line in clean_lines(text)[0]]
    assert lines == [
        "Prefill bootstrap failed for request rank=0 id=9a1f",
        'File "/x/a.py", line 10, in forward',
        'File "/x/a.py", line 12, in forward',
    ]


def test_a_frames_answer_is_its_innermost_function_then_the_message_it_starts():
    # sglang PR thread (JSON-escaped quotes): the assert in `_delete_tombstone_leaf` whose
    # message the cut paste starts, not a record of an outer frame's function next to its line.
    path = "python/sglang/srt/mem_cache/hi_mamba_radix_cache.py"

    def site(rid, message, function, line, cls="AssertionError"):
        return PatternEntry(rid, re.escape(message), cls, path, line, message, function=function)

    index = MatchIndex(
        [
            site("outer", "Mamba value should not be None here.", "HiMamba._insert_helper", 865),
            site("other", "leaf node has children", "HiMamba._delete_tombstone_leaf", 639),
            site(
                "it", "parent does not have child key, {key}", "HiMamba._delete_tombstone_leaf", 643
            ),
        ]
    )
    frames = (
        'File \\"/w/sglang/python/sglang/srt/mem_cache/hi_mamba_radix_cache.py\\", line 863,'
        " in _insert_helper\n  self._inc_hit_count(new_node, chunked)\n"
        'File \\"/w/sglang/python/sglang/srt/mem_cache/hi_mamba_radix_cache.py\\", line 603,'
        ' in _delete_tombstone_leaf\n  assert v == node, f\\"parent does not have child key\\"\n'
    )
    result = match_error(frames + "AssertionError: parent does not have", index)
    assert [m.record_id for m in result.matches] == ["it", "other", "outer"]
    assert all(m.why.kind == "frame" for m in result.matches)
    # A message no record of the function starts: the function's records, nearest the
    # innermost frame's line first, then the outer function's.
    other = match_error(frames + "AssertionError: something else", index)
    assert [m.record_id for m in other.matches] == ["other", "it", "outer"]


def test_no_match_at_all(index):
    result = match_error("\x00\x00", index)
    assert result.matches == () and result.fallback


def test_token_set_search_skips_placeholders():
    search = TokenSetSearch([PatternEntry("w", "", error_message="Failed to load weights {name}")])
    assert search("Failed to load weights", 5) == [("w", 1.0)]
    assert search("name name", 5) == []


@pytest.mark.parametrize(
    ("parsed", "record", "expected"),
    [
        ("ValueError", "ValueError", CLASS_EXACT),
        ("torch.OutOfMemoryError", "torch.OutOfMemoryError", CLASS_EXACT),
        ("torch.cuda.OutOfMemoryError", "torch.OutOfMemoryError", CLASS_NAME),
        ("OutOfMemoryError", "torch.OutOfMemoryError", CLASS_NAME),
        ("RuntimeError", "ValueError", CLASS_DIFFERENT),
        (None, "ValueError", CLASS_UNKNOWN),
        # A paste cut off inside the class name still names it; a whole name never does.
        ("AssertionErro", "AssertionError", CLASS_NAME),
        ("Asse", "AssertionError", CLASS_DIFFERENT),
        ("ValueError", "ValueErrorWithContext", CLASS_DIFFERENT),
    ],
)
def test_class_agreement(parsed, record, expected):
    assert class_agreement(parsed, record) == expected


@pytest.mark.parametrize(
    ("frame", "hit"),
    [
        ("/usr/lib/python3.11/site-packages/sglang/srt/layers/attention/attention_registry.py", 5),
        ("C:\\venv\\Lib\\site-packages\\sglang\\srt\\layers\\attention\\attention_registry.py", 5),
        ("/tmp/attention/attention_registry.py", 2),
        ("/tmp/other/attention_registry.py", 0),
        ("/usr/lib/sglang/srt/layers/attention/other.py", 0),
    ],
)
def test_path_suffix_hit(frame, hit):
    assert path_suffix_hit(frame, SEED_PATH) == hit


def test_trailing_spaces_before_newlines_lost_in_copy_still_match():
    pattern = r"Error in layers\.py - LoRA[ \t]*\nCurrent codebase does not support .+?"
    index = MatchIndex([PatternEntry("lora", pattern, "ValueError")])
    for sep in (" \n", "\n"):
        text = (
            "Traceback (most recent call last):\n"
            '  File "/x/sglang/srt/lora/layers.py", line 3, in f\n'
            "    raise ValueError(msg)\n"
            f"ValueError: Error in layers.py - LoRA{sep}Current codebase does not support x\n"
        )
        result = match_error(text, index)
        assert [m.record_id for m in result.matches] == ["lora"]
        assert result.matches[0].why.whole_message


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=500) | st.binary(max_size=500))
def test_match_error_never_raises(raw):
    index = MatchIndex([seed_entry(), PatternEntry("any", r"\w+ failed", error_message="x failed")])
    result = match_error(raw, index)
    assert isinstance(result.to_dict(), dict)


def test_entry_from_seed_record_matches_the_paste(samples):
    root = Path(__file__).resolve().parents[2]
    line = (root / "data/records/sglang.jsonl").read_text().splitlines()[0]
    record = json.loads(line)["record"]
    index = MatchIndex([PatternEntry.from_record(record)])
    (top,) = match_error(samples.TP0_TRACEBACK, index).matches
    assert top.record_id == record["id"] == "1760fbb64ae487e4"
    assert top.why.line_distance == 0 and top.why.class_agreement == CLASS_EXACT


def test_one_raise_site_gives_one_result_led_by_the_curated_record(samples):
    # The drafts of one site over several releases, and the curated record of that site.
    drafts = [
        seed_entry(f"draft-{v}", line_number=70 + v, is_draft=True, repo="sgl-project/sglang")
        for v in range(7)
    ]
    curated = seed_entry("curated", line_number=40, is_draft=False, repo="sgl-project/sglang")
    other = PatternEntry(
        "mha",
        r"trtllm_mla backend can only be used with MLA models\.",
        "ValueError",
        "python/sglang/srt/layers/attention/other.py",
        10,
        "trtllm_mla backend can only be used with MLA models.",
        is_draft=True,
        repo="sgl-project/sglang",
    )
    index = MatchIndex([*drafts, curated, other])
    result = match_error(samples.TP0_TRACEBACK, index, limit=50)
    assert [m.record_id for m in result.matches] == ["curated", "mha"]
    top = result.matches[0]
    assert top.count == 8 and set(top.same_site) == {d.record_id for d in drafts}
    assert top.to_dict()["count"] == 8
    assert result.answer["evidence"] == "pattern"


def test_ties_are_broken_by_evidence_not_by_id(samples):
    # Same message, two files: the one the traceback's frame is in wins whatever the ids.
    for near_id, far_id in (("a", "z"), ("z", "a")):
        index = MatchIndex(
            [
                seed_entry(far_id, file_path="python/sglang/srt/elsewhere.py"),
                seed_entry(near_id),
            ]
        )
        result = match_error(samples.TP0_TRACEBACK, index)
        assert [m.record_id for m in result.matches] == [near_id, far_id]


def test_an_error_without_a_record_is_answered_from_its_innermost_known_frame(index, samples):
    paste = (
        # As GitHub renders it: no header, no indentation.
        'File "/usr/lib/python3.11/site-packages/sglang/srt/model_executor/model_runner.py", '
        "line 801, in load_model\n"
        "self.model = get_model(model_config=self.model_config)\n"
        'File "/usr/lib/python3.11/site-packages/sglang/srt/model_loader/loader.py", '
        "line 415, in load_weights\n"
        "param.weight_loader(param, loaded_weight)\n"
        "AttributeError: 'NoneType' object has no attribute 'weight_loader'\n"
    )
    result = match_error(paste, index)
    assert result.parsed.exceptions[0].error_class == "AttributeError"
    assert len(result.parsed.exceptions[0].frames) == 2
    assert result.matches and all(m.why.kind == "frame" for m in result.matches)
    assert [m.record_id for m in result.matches] == ["keyerr", "weights"]  # 3 lines, 5 lines
    assert result.answer["evidence"] == "frame"
    assert "loader.py" in " ".join(result.answer["known"])
    assert result.answer["unknown"]


def test_no_match_says_why(index):
    result = match_error("SomethingError: nothing in the catalog looks like this", index)
    assert result.matches == ()
    assert result.answer["evidence"] is None
    assert result.answer["unknown"] and "No record matches" in result.answer["unknown"][0]


def test_a_dependency_error_says_which_package_raised_it_and_the_last_sglang_frame(index):
    paste = (
        "Traceback (most recent call last):\n"
        '  File "/opt/venv/lib/python3.11/site-packages/sglang/srt/hf_transformers_utils.py", '
        "line 120, in get_config\n"
        "    config = AutoConfig.from_pretrained(model)\n"
        '  File "/opt/venv/lib/python3.11/site-packages/transformers/utils/hub.py", '
        "line 421, in cached_file\n"
        "    raise EnvironmentError(\n"
        "OSError: You are trying to access a gated repo.\n"
    )
    answer = match_error(paste, index).answer
    assert "Raised in transformers (hub.py:421 in cached_file)." in answer["known"]
    assert (
        "The last sglang frame: srt/hf_transformers_utils.py:120 in get_config."
        in (answer["known"])
    )
    assert answer["evidence"] is None and answer["unknown"]


def test_one_message_in_several_functions_goes_to_the_one_the_paste_names():
    entries = [
        PatternEntry(
            f"r{i}",
            r"Cache flush failed after updating weights",
            "AssertionError",
            "python/sglang/srt/managers/scheduler.py",
            100 * i,
            "Cache flush failed after updating weights",
            function=f"Scheduler.{name}",
        )
        for i, name in enumerate(
            ["update_weights_from_disk", "update_weights_from_tensor", "update_weights_from_ipc"]
        )
    ]
    index = MatchIndex(entries)
    text = '[Bug] "Cache flush failed after updating weights" in update_weights_from_tensor'
    assert match_error(text, index).matches[0].record_id == "r1"
    plain = match_error("Cache flush failed after updating weights", index).matches
    assert {m.record_id for m in plain} == {"r0", "r1", "r2"}


def _statement_entries():
    path = "python/sglang/srt/models/qwen3.py"
    return [
        PatternEntry(
            "lookup",
            ".+",
            "KeyError",
            path,
            493,
            "{name}",
            function="Qwen3ForCausalLM.load_weights",
            statement="param = params_dict[name]",
            frame_only=True,
        ),
        PatternEntry(
            "other",
            r"Unexpected weight .+?",
            "ValueError",
            path,
            480,
            "Unexpected weight {name}",
            function="Qwen3ForCausalLM.load_weights",
        ),
        PatternEntry(
            "generic",
            r"'?.+?'?",
            "KeyError",
            "python/sglang/srt/utils.py",
            10,
            "{key}",
            function="get",
        ),
    ]


def test_a_frame_on_a_statement_site_is_its_raise_site():
    index = MatchIndex(_statement_entries())
    text = (
        '  File "/x/site-packages/sglang/srt/models/qwen3.py", line 501, in load_weights\n'
        "    param = params_dict[name]\n"
        "            ~~~~~~~~~~~^^^^^^\n"
        "KeyError: 'midlayer.self_attn.qkv_proj.weight'\n"
    )
    result = match_error(text, index)
    assert result.matches[0].record_id == "lookup"
    assert result.matches[0].why.kind == "statement"
    assert result.answer["evidence"] == "statement"
    # Another class on the same line, or the lookup's pattern alone, is no evidence.
    other = match_error(text.replace("KeyError", "TypeError"), index)
    assert all(m.why.kind != "statement" for m in other.matches)
    bare = match_error("KeyError: 'midlayer.self_attn.qkv_proj.weight'", index)
    assert all(m.record_id != "lookup" for m in bare.matches)


def _module_import(record_id, module, path, line):
    head, *rest = module.split(".")
    pattern = f"No module named '{head}" + "".join(f"(?:\\.{p}" for p in rest)
    return PatternEntry(
        record_id,
        pattern + ")?" * len(rest) + "'",
        "ModuleNotFoundError",
        path,
        line,
        f"No module named '{module}'",
        repo="sgl-project/sglang",
        function="<module>",
        statement="import pybase64, decord.bridge",
    )


def test_a_frame_on_a_plain_import_names_the_module_that_failed():
    path = "python/sglang/utils.py"
    index = MatchIndex(
        [
            _module_import("pybase64", "pybase64", path, 12),
            _module_import("decord", "decord.bridge", path, 12),
            _module_import("elsewhere", "pybase64", "python/sglang/srt/utils/common.py", 40),
        ]
    )
    text = (
        'File "/venv/lib/python3.11/site-packages/sglang/utils.py", line 12, in <module>\n'
        "    import pybase64, decord.bridge\n"
        "ModuleNotFoundError: No module named 'decord'\n"
    )
    result = match_error(text, index)
    top = result.matches[0]
    assert (top.record_id, top.why.frame.line, top.why.line_distance) == ("decord", 12, 0)
    assert "pybase64" not in {m.record_id for m in result.matches[:1]}
    # Without a frame the message still finds every file that imports the module.
    bare = match_error("ModuleNotFoundError: No module named 'pybase64'", index)
    assert {m.record_id for m in bare.matches} == {"pybase64", "elsewhere"}
    assert all(m.why.kind == "pattern" for m in bare.matches)


def test_a_message_thousands_of_sites_raise_still_answers_the_frames_file():
    # A message raised alike in thousands of places (`No module named 'torch'` has every
    # `import torch`): only the likeliest hits are scored, and a site in a file the
    # traceback names is always among them.
    entries = [
        PatternEntry(
            f"s{i:04d}",
            r"CUDA error: out of memory",
            "RuntimeError",
            f"python/sglang/srt/m{i:04d}/mod.py",
            30,
            "CUDA error: out of memory",
            function="run",
        )
        for i in range(MAX_SCORED_HITS * 2)
    ]
    index = MatchIndex(entries)
    last = entries[-1].file_path
    text = (
        f'  File "/venv/site-packages/sglang/{last.removeprefix("python/sglang/")}", line 31,'
        " in run\n    check()\nRuntimeError: CUDA error: out of memory\n"
    )
    result = match_error(text, index)
    assert result.matches[0].record_id == entries[-1].record_id
    bare = match_error("RuntimeError: CUDA error: out of memory", index, limit=5)
    assert [m.record_id for m in bare.matches] == [e.record_id for e in entries[:5]]


def test_of_thousands_of_alike_sites_the_one_whose_file_the_paste_names_comes_first():
    # Past the frames, the paste's own words decide between sites raising one message
    # alike, even for a site last in the tie order of more sites than a search scores.
    entries = [
        PatternEntry(
            f"s{i:04d}",
            r"No module named 'torch'",
            "ModuleNotFoundError",
            f"python/sglang/srt/m{i:04d}/mod.py",
            3,
            "No module named 'torch'",
            function="<module>",
            releases=2,
        )
        for i in range(PER_SITE_KIND * 4)
    ]
    entries.append(
        PatternEntry(
            "named",
            r"No module named 'torch'",
            "ModuleNotFoundError",
            "python/sglang/srt/models/glm4v_moe.py",
            3,
            "No module named 'torch'",
            function="<module>",
            releases=1,  # last in the tie order
        )
    )
    index = MatchIndex(entries)
    text = "[Bug] glm4v_moe will not load\nModuleNotFoundError: No module named 'torch'"
    assert match_error(text, index).matches[0].record_id == "named"
    plain = match_error("ModuleNotFoundError: No module named 'torch'", index, limit=3)
    assert [m.record_id for m in plain.matches] == ["s0000", "s0001", "s0002"]


def _arch_entries():
    head = "Model architectures {architectures} "
    return [
        PatternEntry(
            rid,
            r"Model architectures .+ " + tail.replace(".", r"\.") + r" .+",
            "ValueError",
            "python/sglang/srt/models/registry.py",
            line,
            head + tail + " {rest}",
            function=function,
        )
        for rid, tail, line, function in (
            ("inspect", "failed to be inspected. Please check the logs for more details.", 70, "f"),
            ("unsupported", "are not supported for now. Supported architectures:", 75, "g"),
        )
    ]


def test_a_message_that_goes_on_differently_ranks_by_how_far_it_follows_the_template():
    """Both templates share `Model architectures {x} `; the paste then carries one's next
    words before it ends in the writer's own ("for now?")."""
    index = MatchIndex(_arch_entries())
    for text in (
        "`Model architectures ['LlavaNextForConditionalGeneration'] are not supported for now? `",
        "[Bug] New model: \"Model architectures ['DeciLMForCausalLM'] are not supported for now.\"",
    ):
        ranked = [m.record_id for m in match_error(text, index).matches]
        assert ranked[0] == "unsupported", text


def test_a_frame_with_the_records_whole_path_outranks_a_same_named_file_elsewhere():
    """sglang has two `distributed/device_communicators/pynccl_wrapper.py`: the traceback's
    path says which one raised."""
    entries = [
        PatternEntry(
            rid,
            r"NCCL error: .+",
            "RuntimeError",
            f"python/sglang/{root}/distributed/device_communicators/pynccl_wrapper.py",
            line,
            "NCCL error: {error_str}",
            function="NCCL_CHECK",
        )
        for rid, root, line in (("gen", "multimodal_gen/runtime", 330), ("srt", "srt", 340))
    ]
    text = (
        'File "/env/lib/python3.10/site-packages/sglang/srt/distributed/'
        'device_communicators/pynccl_wrapper.py", line 329, in NCCL_CHECK\n'
        '    raise RuntimeError(f"NCCL error: {error_str}")\n'
        "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)"
    )
    ranked = match_error(text, MatchIndex(entries)).matches
    assert [m.record_id for m in ranked] == ["srt", "gen"]


def test_a_frame_whose_folders_the_writer_cut_reads_as_the_one_file_of_its_name():
    """`File ".../flashattention_backend.py"`: one file of that name is known, so the frame
    is in it; a name two folders have (`utils.py`) stays unknown."""
    entries = [
        PatternEntry(
            "fa",
            r"assert not get_global_server_args\(\)\.disable_chunked_prefix_cache",
            "AssertionError",
            "python/sglang/srt/layers/attention/flashattention_backend.py",
            830,
            "assert not get_global_server_args().disable_chunked_prefix_cache",
            function="FlashAttentionBackend.forward_extend",
        ),
        *(
            PatternEntry(f"u{k}", r"bad value", "ValueError", f"python/sglang/{d}/utils.py", 10)
            for k, d in enumerate(("srt", "lang"))
        ),
    ]
    text = (
        'File ".../flashattention_backend.py", line 832, in forward_extend\n'
        "    assert not get_global_server_args().disable_chunked_prefix_cache\n"
        "AssertionError"
    )
    result = match_error(text, MatchIndex(entries))
    assert [m.record_id for m in result.matches][:1] == ["fa"]
    assert result.matches[0].why.frame is not None
    assert result.parsed.exceptions[0].frames[0].file == ".../flashattention_backend.py"
    ambiguous = 'File "…/utils.py", line 10, in check\n    x()\nKeyError: 3'
    assert not match_error(ambiguous, MatchIndex(entries)).matches


def test_the_pastes_own_words_naming_a_file_break_a_tie():
    """One call in several files raises the same TypeError; the title names the model."""
    entries = [
        PatternEntry(
            rid,
            r"gptq_marlin_gemm\(\) got an unexpected keyword argument '[^']+'",
            "TypeError",
            f"python/sglang/srt/layers/quantization/{name}.py",
            50,
            "gptq_marlin_gemm() got an unexpected keyword argument '{keyword}'",
        )
        for rid, name in (("awq", "awq"), ("fp8", "marlin_utils_fp8"), ("gptq", "gptq"))
    ]
    text = (
        "[Bug] Qwen3-VL-235B-A22B-Thinking-FP8 TypeError: gptq_marlin_gemm() got an "
        "unexpected keyword argument 'b_bias'"
    )
    assert match_error(text, MatchIndex(entries)).matches[0].record_id == "fp8"
    # The message's own words name no file: without the title, the tie falls to the path.
    bare = "TypeError: gptq_marlin_gemm() got an unexpected keyword argument 'b_bias'"
    assert match_error(bare, MatchIndex(entries)).matches[0].record_id == "awq"


def test_a_log_line_naming_a_module_path_names_its_file():
    words = paste_words(
        "Ignore import error when loading sglang.srt.models.glm4v_moe: No module named 'x'",
        ["Ignore import error when loading sglang.srt.models.glm4v_moe: No module named 'x'"],
    )
    named = [
        file_named(words, f"python/sglang/srt/models/{name}.py")
        for name in ("glm4v_moe", "glm4v", "llama")
    ]
    assert named[0] > named[1] > named[2] == 0
    # The module ends a sentence (sglang's registry, 0.4.8: `... gemma3n_mm. cannot ...`).
    line = (
        "Ignore import error when loading sglang.srt.models.gemma3n_mm. cannot import name "
        "'Gemma3nAudioConfig' from 'transformers'"
    )
    words = paste_words(line, [line])
    assert file_named(words, "python/sglang/srt/models/gemma3n_mm.py") > file_named(
        words, "python/sglang/srt/models/gemma3n_audio.py"
    )


def test_a_quoted_asserts_expression_finds_that_assert_and_says_how():
    entry = PatternEntry(
        "d",
        r".+? is not divisible by .+?",
        "AssertionError",
        "srt/distributed/utils.py",
        23,
        "{} is not divisible by {}",
        assertion="numerator % denominator == 0",
    )
    index = MatchIndex([entry, PatternEntry("o", r"other .+", "ValueError")])
    for text in (
        "How to solve assert numerator % denominator == 0",
        "`assert numerator % denominator == 0` fails with tp=3",
    ):
        result = match_error(text, index)
        (match,) = result.matches
        assert (match.record_id, match.why.kind) == ("d", "assertion")
        assert match.why.matched_text.startswith("numerator % denominator == 0")
        assert any("assert's own message" in u for u in result.answer["unknown"])
    # The message itself, when pasted, is a whole-message pattern match as before.
    whole = match_error("AssertionError: 7 is not divisible by 2", index).matches[0]
    assert whole.why.kind == "pattern"
    # Too short a start of an expression is no evidence.
    assert not match_error("assert numerator", index).matches


def test_a_quoted_assert_line_whose_message_is_another_sites_is_not_that_assert():
    # sglang issue thread: `assert stream is not None, "PCG capture stream is not set"`;
    # a test helper asserts the same expression with its own message.
    def site(rid, message):
        return PatternEntry(
            rid,
            re.escape(message).replace(r"\{file_path\}", ".+?"),
            "AssertionError",
            f"srt/{rid}.py",
            10,
            message,
            assertion="stream is not None",
        )

    index = MatchIndex(
        [
            site("media", "Media file has no audio stream: {file_path}"),
            site("pcg", "PCG capture stream is not set"),
        ]
    )
    text = 'assert stream is not None, "PCG capture stream is not set"\nAssertionError: PCG'
    kinds = {(m.record_id, m.why.kind) for m in match_error(text, index).matches}
    assert ("pcg", "assertion") in kinds and not any(rid == "media" for rid, _ in kinds)
    # The expression alone, or with the writer's own words after a comma, fits both.
    for text in ("assert stream is not None fails", "assert stream is not None, with PCG"):
        assert {m.record_id for m in match_error(text, index).matches} == {"media", "pcg"}


def test_a_traceback_raised_in_a_known_frame_puts_a_dependencys_alike_message_below():
    # sglang 0.5.0rc0's serving_chat.py raised "Expected 2 output messages ...", a message no
    # pinned release has; torch words "Expected {} ... got {}" alike. The innermost frame is
    # the `raise`, in a file the catalog knows: the error came from there.
    text = (
        "Traceback (most recent call last):\n"
        '  File "/w/sglang/python/sglang/srt/entrypoints/openai/serving_chat.py", line 785,'
        " in _build_chat_response\n"
        "    raise ValueError(\n"
        "ValueError: Expected 2 output messages (reasoning and final), but got 3."
    )
    chat = "python/sglang/srt/entrypoints/openai/serving_chat.py"
    index = MatchIndex(
        [
            PatternEntry(
                "torch",
                r"Expected .+? messages .+?, but got .+?",
                "ValueError",
                "torch/distributed/x.py",
                10,
                "Expected {} messages {}, but got {}",
            ),
            PatternEntry(
                "chat",
                r"Unknown role: .+",
                "ValueError",
                chat,
                790,
                "Unknown role: {}",
                function="OpenAIServingChat._build_chat_response",
            ),
        ]
    )
    assert [m.record_id for m in match_error(text, index).matches] == ["chat", "torch"]
    # Without the frame, the dependency's pattern is all there is, and it comes first.
    bare = "ValueError: Expected 2 output messages (reasoning and final), but got 3."
    assert match_error(bare, index).matches[0].record_id == "torch"


def _weight_lookup(record_id, path, context):
    return PatternEntry(
        record_id,
        "['\"]?.+?['\"]?",
        "KeyError",
        path,
        400,
        "{name}",
        repo="sgl-project/sglang",
        function="Model.load_weights",
        statement="param = params_dict[name]",
        frame_only=True,
        context=frozenset(context),
    )


def test_a_weight_name_keyerror_without_frames_ranks_the_loaders_lookups():
    index = MatchIndex(
        [
            _weight_lookup("llama", "python/sglang/srt/models/llama.py", ["gate_up_proj"]),
            _weight_lookup(
                "deepseek",
                "python/sglang/srt/models/deepseek_v2.py",
                ["shared_experts", "gate_up_proj"],
            ),
            _weight_lookup("qwen", "python/sglang/srt/models/qwen2.py", ["rotary_emb"]),
        ]
    )
    key = "'model.layers.19.mlp.shared_experts.gate_up_proj.input_scale'"
    result = match_error(f"[Bug] KeyError: {key}", index)
    assert result.answer["evidence"] == "key"
    # The tensor shares two names with deepseek's code, one with llama's, none with qwen's.
    assert [m.record_id for m in result.matches] == ["deepseek", "llama"]
    # The model a title names comes first.
    named = match_error(f"[Bug] llama 3 fails to load: KeyError: {key}", index)
    assert named.matches[0].record_id == "llama"
    # The writer's words may follow the quoted name, and name the model there.
    after = match_error(f"[Bug] KeyError: {key} when loading Llama 3 fp8", index)
    assert after.answer["evidence"] == "key" and after.matches[0].record_id == "llama"
    # Unquoted, the name is the whole message or it is no weight's name.
    assert match_error(f"KeyError: {key.strip(chr(39))}", index).answer["evidence"] == "key"
    unquoted = f"KeyError: {key.strip(chr(39))} when loading"
    assert not match_error(unquoted, index).matches
    # With a frame, the frame says where; a key that names no weight claims nothing.
    framed = match_error(
        'Traceback (most recent call last):\n  File "/x/train.py", line 3, in main\n'
        f"    w = weights[name]\nKeyError: {key}\n",
        index,
    )
    assert all(m.why.kind != "key" for m in framed.matches)
    assert not match_error("KeyError: 'shared_experts'", index).matches
    assert not match_error("KeyError: 'a.b.c'", index).matches


def test_an_attribute_error_passed_on_by_getattribute_is_answered_at_its_caller():
    # transformers' PretrainedConfig.__getattribute__ passes the missing name on: the
    # statement that read it is sglang's, one frame out.
    config = "python/sglang/srt/configs/model_config.py"
    utils = "src/transformers/configuration_utils.py"
    index = MatchIndex(
        [
            PatternEntry(
                "sglang-init",
                r"User-specified context_length \(.+?\) is greater",
                "ValueError",
                config,
                171,
                "User-specified context_length ({n}) is greater",
                repo="sgl-project/sglang",
                function="ModelConfig.__init__",
            ),
            PatternEntry(
                "transformers-init",
                r"Missing required field - '.+?'",
                "TypeError",
                utils,
                163,
                "Missing required field - '{name}'",
                repo="huggingface/transformers",
                function="PreTrainedConfig.__init__",
            ),
        ]
    )
    text = (
        "Traceback (most recent call last):\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/configs/model_config.py", line 93,'
        " in __init__\n"
        "    self.hf_text_config.hidden_size // self.hf_text_config.num_attention_heads,\n"
        '  File "/usr/local/lib/python3.10/dist-packages/transformers/configuration_utils.py",'
        " line 210, in __getattribute__\n"
        "    return super().__getattribute__(key)\n"
        "AttributeError: 'InternVLChatConfig' object has no attribute 'hidden_size'\n"
    )
    result = match_error(text, index)
    assert [m.record_id for m in result.matches] == ["sglang-init"]
    assert result.matches[0].why.kind == "frame"
    # Another class raised in `__getattribute__` is that frame's own error.
    other = match_error(text.replace("AttributeError", "TypeError"), index)
    assert other.matches[0].record_id == "transformers-init"


def test_a_self_documented_value_cut_or_followed_by_the_writers_words_finds_its_site():
    warmup = PatternEntry(
        "warmup",
        r"res=.+?, res\.text=.+?",
        "AssertionError",
        "python/sglang/srt/entrypoints/http_server.py",
        2376,
        "res={res}, res.text={res.text}",
        function="_execute_server_warmup",
    )
    other = PatternEntry(
        "other",
        r"result=.+? is not ready",
        "AssertionError",
        "python/sglang/srt/x.py",
        10,
        "result={result} is not ready",
    )
    index = MatchIndex([warmup, other])
    title = "[Bug] AssertionError: res=<Response [503]> Process was always killed automactically"
    result = match_error(title, index)
    assert [m.record_id for m in result.matches] == ["warmup"]
    assert result.matches[0].why.kind == "prefix"
    assert match_error("AssertionError: res=<Response [503]>", index).matches[0].record_id == (
        "warmup"
    )
    # Another class, no class, another name, or prose: no evidence.
    for text in (
        "ValueError: res=<Response [503]> Process was killed",
        "res=<Response [503]> Process was killed",
        "AssertionError: resp=<Response [503]>",
        "AssertionError: re=1",
        "AssertionError: res = 1",
    ):
        assert all(m.record_id != "warmup" for m in match_error(text, index).matches), text
    # The whole message still matches as a pattern.
    whole = match_error("AssertionError: res=<Response [502]>, res.text=''", index)
    assert whole.matches[0].why.kind == "pattern"


def _method_record(record_id, function, message, releases=1):
    return PatternEntry(
        record_id,
        message.replace("(", "[(]").replace(")", "[)]"),
        "ValueError",
        "python/sglang/srt/managers/scheduler.py",
        100,
        message,
        is_draft=True,
        repo="sgl-project/sglang",
        function=function,
        releases=releases,
    )


READERS = {
    "token_to_kv_pool": (
        (
            "check",
            "Scheduler.check_memory",
            ("token_to_kv_pool", "token_to_kv_pool.available_size"),
        ),
        ("batch", "Scheduler.get_next_batch", ("token_to_kv_pool", "token_to_kv_pool.free")),
        ("other", "TpWorker.get_pool", ("token_to_kv_pool",)),
    ),
    "tp_size": (("tp", "TransformersForCausalLM.tensor_parallel", ("tp_size",)),),
    "kv_head_num": (
        ("send", "NixlKVManager.send_kvcache_slice", ("kv_args", "kv_args.kv_head_num")),
        ("draft", "Drafter.prepare", ("draft_kv_args.kv_head_num",)),
        ("unrelated", "Cache.alloc", ("config.kv_head_num",)),
    ),
}
ATTRIBUTE_INDEX = MatchIndex(
    [
        _method_record("check", "Scheduler.check_memory", "KV cache pool leak detected"),
        _method_record("batch", "Scheduler.get_next_batch", "Batch is empty", releases=9),
        _method_record("other", "TpWorker.get_pool", "No pool"),
        _method_record("tp", "TransformersForCausalLM.tensor_parallel", "TP plan wrong"),
        _method_record("send", "NixlKVManager.send_kvcache_slice", "Slice failed"),
        _method_record("draft", "Drafter.prepare", "No draft", releases=3),
        _method_record("unrelated", "Cache.alloc", "Out of pages"),
        PatternEntry("generic", "'.+?' object has no attribute '.+?'", "AttributeError"),
    ]
)


def _readers(attr):
    return READERS.get(attr, ())


def test_a_frameless_missing_attribute_finds_the_methods_that_read_it():
    title = (
        "[Bug] self.token_to_kv_pool.available_size(): AttributeError: 'Scheduler' object "
        "has no attribute 'token_to_kv_pool' with QwQ-32B"
    )
    result = match_error(title, ATTRIBUTE_INDEX, readers=_readers)
    ids = [m.record_id for m in result.matches]
    # The method whose `self.x.y` the paste quotes first, then the class's other reader;
    # another class's reader is not one, and the any-class pattern comes after.
    assert ids[:2] == ["check", "batch"] and "other" not in ids
    assert result.matches[0].why.kind == "attribute"
    assert "generic" not in ids[:2]
    assert any("no traceback frame" in line for line in result.answer["known"])
    # A class name retyped by hand still finds the class that reads it.
    retyped = "AttributeError: 'TransformersForCasualLM' object has no attribute 'tp_size'"
    assert match_error(retyped, ATTRIBUTE_INDEX, readers=_readers).matches[0].record_id == "tp"
    # The paste cut off before the attribute's closing quote.
    cut = "AttributeError: 'TransformersForCasualLM' object has no attribute 'tp_size"
    assert match_error(cut, ATTRIBUTE_INDEX, readers=_readers).matches[0].record_id == "tp"
    # With a frame, the frames answer; without the lookup, nothing changes.
    framed = (
        "Traceback (most recent call last):\n"
        '  File "/x/sglang/srt/managers/scheduler.py", line 100, in check_memory\n'
        "    x = 1\n"
        "AttributeError: 'Scheduler' object has no attribute 'token_to_kv_pool'\n"
    )
    assert all(
        m.why.kind != "attribute"
        for m in match_error(framed, ATTRIBUTE_INDEX, readers=_readers).matches
    )
    assert all(m.why.kind != "attribute" for m in match_error(title, ATTRIBUTE_INDEX).matches)


def test_a_frameless_missing_attribute_finds_the_methods_that_read_it_of_an_object_held():
    # `KVArgs` lacks `kv_head_num`: the methods that read `self.kv_args.kv_head_num` (or
    # `self.draft_kv_args....`), not one that reads it of another object (`self.config`).
    title = "[Bug] AttributeError: 'KVArgs' object has no attribute 'kv_head_num'"
    result = match_error(title, ATTRIBUTE_INDEX, readers=_readers)
    attributes = [m.record_id for m in result.matches if m.why.kind == "attribute"]
    assert sorted(attributes) == ["draft", "send"]
    assert result.matches[0].why.kind == "attribute"


def test_a_missing_attribute_no_method_of_its_class_reads_finds_its_few_readers():
    # sglang #1492: `'MiniCPM3ForCausalLM' object has no attribute 'get_module_name'`. No
    # method of that class reads it; the one function that reads an attribute of that name
    # (`self.base_model.get_module_name`) is where it came from, said as a weaker evidence.
    readers = {
        "get_module_name": (
            ("lora", "LoRAManager.init_loras", ("base_model", "base_model.get_module_name")),
        ),
        "shape": tuple(
            (f"s{i}", f"Layer{i}.forward", (f"x{i}.shape",)) for i in range(MAX_RARE_READERS + 1)
        ),
    }
    index = MatchIndex(
        [
            _method_record("lora", "LoRAManager.init_loras", "LoRA rank too large"),
            *(_method_record(f"s{i}", f"Layer{i}.forward", f"bad {i}") for i in range(9)),
            PatternEntry("generic", "'.+?' object has no attribute '.+?'", "AttributeError"),
        ]
    )
    title = "[Bug] AttributeError: 'MiniCPM3ForCausalLM' object has no attribute 'get_module_name'"
    result = match_error(title, index, readers=lambda a: readers.get(a, ()))
    assert [m.record_id for m in result.matches[:2]] == ["lora", "generic"]
    assert result.matches[0].why.kind == "reader"
    assert result.matches[0].why.class_agreement == "unknown"
    assert any("No method of that class reads" in line for line in result.answer["known"])
    assert any("Whether the object" in line for line in result.answer["unknown"])
    # An attribute many functions read names none of them.
    common = "AttributeError: 'Foo' object has no attribute 'shape'"
    kinds = {
        m.why.kind for m in match_error(common, index, readers=lambda a: readers.get(a, ())).matches
    }
    assert "reader" not in kinds
    # A reader of the named class itself is an `attribute` match, and the others drop out.
    own = "AttributeError: 'LoRAManager' object has no attribute 'base_model'"
    readers["base_model"] = readers["get_module_name"]
    found = match_error(own, index, readers=lambda a: readers.get(a, ())).matches
    assert found[0].record_id == "lora" and found[0].why.kind == "attribute"


def test_a_frameless_missing_module_attribute_finds_the_functions_that_read_it():
    # sglang #3392 (ROCm): `module 'vllm._custom_ops' has no attribute 'silu_and_mul'`, read
    # by `ops.silu_and_mul(...)` in fused_experts_impl; a function reading another module's
    # `silu_and_mul` is not one, and an attribute read in many functions names none.
    readers = {
        "silu_and_mul": (
            ("moe", "fused_experts_impl", ("torch.empty", "vllm._custom_ops.silu_and_mul")),
            ("act", "SiluAndMul.forward_cuda", ("sgl_kernel.silu_and_mul",)),
        ),
        "float8_e4m3fn": tuple(
            (f"s{i}", f"f{i}", ("torch.float8_e4m3fn",)) for i in range(MAX_MODULE_READERS + 1)
        ),
    }
    index = MatchIndex(
        [
            _method_record("moe", "fused_experts_impl", "Hidden size mismatch"),
            _method_record("act", "SiluAndMul.forward_cuda", "Unsupported dtype"),
            *(_method_record(f"s{i}", f"f{i}", f"bad {i}") for i in range(9)),
        ]
    )

    def lookup(attr):
        return readers.get(attr, ())

    title = "[Bug] AttributeError: module 'vllm._custom_ops' has no attribute 'silu_and_mul'"
    result = match_error(title, index, readers=lookup)
    assert [m.record_id for m in result.matches] == ["moe"]
    assert result.matches[0].why.kind == "reader"
    assert any("names a module and an attribute" in line for line in result.answer["known"])
    assert any("pip show" in line for line in result.answer["unknown"])
    many = "AttributeError: module 'torch' has no attribute 'float8_e4m3fn'"
    assert not match_error(many, index, readers=lookup).matches
    # With a traceback, its frames answer instead.
    framed = (
        'File "/x/sglang/srt/layers/moe/fused_moe_triton/fused_moe.py", line 9, in f\n'
        "    ops.silu_and_mul(a, b)\n"
        "AttributeError: module 'vllm._custom_ops' has no attribute 'silu_and_mul'"
    )
    assert all(m.why.kind != "reader" for m in match_error(framed, index, readers=lookup).matches)


def test_a_message_that_starts_as_a_template_elsewhere_is_the_innermost_statements_own():
    """sglang #7690: `logit_bias[i, int(key)] = value` raised torch's IndexError, whose start
    a torch helper's own message shares (`index {index} out of bounds for ...`). The frame
    is a statement that raises nothing itself: the frame's function answers, not the
    helper; under a `raise` in the frame, the shared start still counts."""
    index = MatchIndex(
        [
            PatternEntry(
                "helper",
                r"index .+ out of bounds for infra_modes length .+",
                "IndexError",
                "torch/_ops.py",
                628,
                "index {index} out of bounds for infra_modes length {n}",
                repo="pytorch/pytorch",
                function="_ModeStackStateForPreDispatch.set",
            ),
            PatternEntry(
                "sampling",
                r"Unknown logit processor .+",
                "ValueError",
                "python/sglang/srt/sampling/sampling_batch_info.py",
                90,
                "Unknown logit processor {name}",
                repo="sgl-project/sglang",
                function="SamplingBatchInfo.from_schedule_batch",
            ),
        ]
    )
    frame = (
        "Traceback (most recent call last):\n"
        '  File "/sgl/python/sglang/srt/sampling/sampling_batch_info.py", line 98, in '
        "from_schedule_batch\n"
        "    {}\n"
        "IndexError: index 129280 is out of bounds for dimension 1 with size 129280\n"
    )
    ids = [
        m.record_id
        for m in match_error(frame.format("logit_bias[i, int(key)] = value"), index).matches
    ]
    assert ids == ["sampling"]
    raised = match_error(frame.format("raise IndexError(msg)"), index).matches
    assert "helper" in [m.record_id for m in raised]


def test_a_frame_in_a_file_moved_to_another_folder_of_the_package_finds_its_function():
    # The user's build keeps `swa_component.py` in `unified_cache_components/`; the pinned
    # releases have it in `unified_cache/components/`. Same package, same file name, same
    # function: the bare assert's record there.
    entries = [
        PatternEntry(
            "swa-assert",
            r"",
            "AssertionError",
            "python/sglang/srt/mem_cache/unified_cache/components/swa_component.py",
            448,
            "assert cd.host_value is not None or cd.value is not None",
            repo="sgl-project/sglang",
            function="SWAComponent.build_hicache_transfers",
            statement="assert cd.host_value is not None or cd.value is not None",
            frame_only=True,
        ),
        PatternEntry(
            "other-function",
            r"host pool is full",
            "RuntimeError",
            "python/sglang/srt/mem_cache/unified_cache/components/swa_component.py",
            300,
            "host pool is full",
            repo="sgl-project/sglang",
            function="SWAComponent.evict",
        ),
    ]
    index = MatchIndex(entries)
    frame = (
        '  File "/v/site-packages/sglang/srt/mem_cache/unified_cache_components/'
        'swa_component.py", line 448, in build_hicache_transfers\n'
        "    assert cd.host_value is not None or cd.value is not None\n"
        "AssertionError\n"
    )
    result = match_error("Traceback (most recent call last):\n" + frame, index)
    assert [m.record_id for m in result.matches][:1] == ["swa-assert"]
    # Another package's file of that name, or another function, is not the same place.
    elsewhere = frame.replace("sglang/srt/mem_cache", "myproj/cache")
    assert not match_error("Traceback (most recent call last):\n" + elsewhere, index).matches
    renamed = frame.replace("build_hicache_transfers", "load_back")
    assert all(
        m.record_id != "swa-assert"
        for m in match_error("Traceback (most recent call last):\n" + renamed, index).matches
    )


def _unworded(record_id, path, function, line):
    return PatternEntry(
        record_id,
        r"raise NotImplementedError\(\)",
        "NotImplementedError",
        path,
        line,
        "raise NotImplementedError()",
        repo="sgl-project/sglang",
        function=function,
        statement="raise NotImplementedError()",
        frame_only=True,
    )


DETECTOR = "python/sglang/srt/function_call/kimik2_detector.py"


def test_an_unworded_raise_is_found_through_its_frame_or_a_title_naming_its_file():
    index = MatchIndex(
        [
            _unworded("ebnf", DETECTOR, "KimiK2Detector.build_ebnf", 200),
            _unworded("info", DETECTOR, "KimiK2Detector.structure_info", 210),
            _unworded("other", "python/sglang/srt/lora/utils.py", "get_hidden_dim", 106),
            seed_entry(),
        ]
    )
    text = (
        "Traceback (most recent call last):\n"
        '  File "/x/sglang/srt/function_call/kimik2_detector.py", line 210, in structure_info\n'
        "    raise NotImplementedError()\n"
        "NotImplementedError\n"
    )
    result = match_error(text, index)
    assert (result.matches[0].record_id, result.matches[0].why.kind) == ("info", "statement")
    assert any("message is built at run time" in k for k in result.answer["known"])
    # An issue title naming the class and the file: that class's sites in that file.
    title = "[Bug] Kimi K2 failed function call with NotImplementedError in kimik2_detector.py"
    named = match_error(title, index)
    assert {m.record_id for m in named.matches} == {"ebnf", "info"}
    assert all(m.why.kind == "named" for m in named.matches)
    assert named.answer["evidence"] == "named"
    assert any("paste the whole traceback" in u for u in named.answer["unknown"])
    # The function it names too comes first.
    first = match_error(title + " (structure_info)", index).matches[0]
    assert first.record_id == "info"
    # Another class, or no file, claims nothing.
    assert not match_error(title.replace("NotImplementedError", "KeyError"), index).matches
    assert not match_error("NotImplementedError in the Kimi detector", index).matches


def test_a_file_name_that_many_folders_share_is_no_evidence():
    index = MatchIndex(
        [_unworded(f"u{i}", f"python/sglang/srt/pkg{i}/utils.py", "helper", 10) for i in range(5)]
    )
    assert not match_error("NotImplementedError in utils.py", index).matches
    # With a folder, the file is one again.
    found = match_error("NotImplementedError in srt/pkg3/utils.py", index).matches
    assert [m.record_id for m in found] == ["u3"]


def test_a_long_template_inside_a_sentence_of_prose_is_found():
    # sglang #4283's title asks about the assert's message mid-sentence.
    long = "dp_size must be 1 for update weights from distributed"
    index = MatchIndex(
        [
            PatternEntry(
                "assert", re.escape(long), "AssertionError", "python/sglang/a.py", 3, long
            ),
            PatternEntry("generic", r".+? must be .+?", "ValueError", "other/b.py", 9, "x"),
            PatternEntry("short", r"must be positive", "ValueError", "other/c.py", 9, "x"),
        ]
    )
    title = f"why {long} / tensor? Is dp_size==1 also required for update_weights_from_disk?"
    result = match_error(title, index)
    assert result.matches[0].record_id == "assert"
    assert result.matches[0].why.kind == "pattern"
    assert result.matches[0].why.matched_text == long
    # A short template inside a sentence is no evidence; nor is prose under a class, whose
    # message keeps the segment rule.
    short = match_error("why must be positive here?", index)
    assert all(m.record_id != "short" for m in short.matches)
    classed = match_error(f"ValueError: why {long} / tensor?", index)
    assert all(m.record_id != "assert" for m in classed.matches)


def test_an_unworded_raise_gives_way_to_the_message_drafted_at_its_line():
    # `raise ValueError(message)` in a raising helper: its calls' messages are drafted at
    # that raise, and the one the paste carries is the answer, not the bare statement.
    path = "python/sglang/srt/utils/common.py"
    index = MatchIndex(
        [
            PatternEntry(
                "unworded",
                r"raise ValueError\(message\)",
                "ValueError",
                path,
                4691,
                "raise ValueError(message)",
                repo="sgl-project/sglang",
                function="raise_error_or_warn",
                statement="raise ValueError(message)",
                frame_only=True,
            ),
            PatternEntry(
                "leak",
                r".+? memory leak detected! .+?",
                "ValueError",
                path,
                4691,
                "{pool_name} memory leak detected! {token_msg}",
                repo="sgl-project/sglang",
                function="raise_error_or_warn",
            ),
        ]
    )
    frame = (
        "Traceback (most recent call last):\n"
        '  File "/s/sglang/srt/utils/common.py", line 4691, in raise_error_or_warn\n'
        "    raise ValueError(message)\n"
    )
    leak = match_error(frame + "ValueError: pool memory leak detected! total=9", index)
    assert [m.record_id for m in leak.matches] == ["leak"]
    # A message no call drafted: the statement is what is known.
    other = match_error(frame + "ValueError: something else entirely", index)
    assert other.matches[0].record_id == "unworded"
    assert other.matches[0].why.kind == "statement"


def test_a_traceback_cut_before_its_exception_line_says_so():
    # A stored excerpt that stops at the frames (kvcache-ai/Mooncake #1400): the caret lines
    # are no message, and where the frames end is not where the error was raised.
    text = (
        "[2026-01-16 22:03:02 TP2] Scheduler hit an exception: Traceback (most recent call"
        " last):\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/utils.py", line 49,'
        " in poll_and_all_reduce\n"
        "    polls = [int(poller.poll()) for poller in pollers]\n"
        "                 ^^^^^^^^^^^^^\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/disaggregation/mooncake/conn.py",'
        " line 1120, in poll\n"
        "    status = self.kv_mgr.check_status(self.bootstrap_room)\n"
        "             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
    )
    index = MatchIndex(
        [
            PatternEntry(
                "in-conn",
                r"Unexpected status .+",
                "RuntimeError",
                "python/sglang/srt/disaggregation/mooncake/conn.py",
                1100,
                "Unexpected status {x}",
                function="MooncakeKVReceiver.poll",
            )
        ]
    )
    result = match_error(text, index)
    (exc,) = result.parsed.exceptions
    assert (exc.error_class, exc.message, len(exc.frames)) == (None, "", 2)
    assert result.matches[0].why.kind == "frame"
    assert result.answer["known"][0] == "Read a traceback of 2 frame(s)."
    assert any("ends before its exception line" in u for u in result.answer["unknown"])
    assert not any(k.startswith("Raised in") for k in result.answer["known"])
    assert any(k.startswith("The last frame shown is in sglang") for k in result.answer["known"])


def test_a_paste_naming_many_files_and_classes_reads_only_the_first_few():
    index = MatchIndex(
        [_unworded(f"u{i}", f"python/sglang/srt/m{i}/f{i}.py", f"fn{i}", 10) for i in range(10)]
    )
    names = " ".join(f"f{i}.py" for i in range(10))
    found = match_error(f"NotImplementedError in {names}", index).matches
    assert {m.record_id for m in found} == {"u0", "u1", "u2", "u3"}
    # A hostile paste (thousands of names) answers at once, from its first few.
    hostile = " ".join(f"E{i}Error in x{i}.py" for i in range(20_000))
    assert not match_error(hostile, index).matches


def test_a_frame_is_nearest_the_line_a_site_had_at_its_own_release():
    """A traceback from an older release has its frames at that release's lines: a site
    that was on the frame's line then (`lines`) comes before one that is nearer now."""
    path = "python/sglang/srt/model_executor/model_runner.py"

    def site(record_id, message, line, lines=()):
        return PatternEntry(
            record_id,
            re.escape(message),
            "AssertionError",
            path,
            line,
            message,
            function="ModelRunner.__init__",
            lines=lines,
        )

    index = MatchIndex(
        [
            site("pp", "Pipeline Parallel is not compatible with this model.", 514, (426,)),
            site("dflash", "DFLASH requires target num_hidden_layers in config.", 499),
        ]
    )
    text = (
        "Traceback (most recent call last):\n"
        f'  File "/sgl-workspace/sglang/python/sglang/srt/{path[18:]}", line 426, in __init__\n'
        "    self.support_pp\n"
        "AssertionErro"
    )
    (first, second) = match_error(text, index).matches
    assert (first.record_id, first.why.line_distance) == ("pp", 0)
    assert first.why.class_agreement == CLASS_NAME
    assert (second.record_id, second.why.line_distance) == ("dflash", 73)


@pytest.mark.parametrize(
    ("function", "said"),
    [
        ("alloc", "the 1 in its function first, then those of the nearest lines."),
        ("free", "No raise site is recorded in free; shown: 1 raise site(s) of that file"),
    ],
)
def test_a_frame_answer_says_whether_its_function_has_a_raise_site(function, said):
    """The frame's answer names its function's raise sites only when there are some."""
    site = PatternEntry(
        "alloc-oom",
        r"Out of memory in the pool\.",
        "RuntimeError",
        "python/sglang/srt/mem_cache/pool.py",
        40,
        "Out of memory in the pool.",
        function="TokenPool.alloc",
        repo="sgl-project/sglang",
    )
    text = (
        "Traceback (most recent call last):\n"
        f'  File "/x/sglang/srt/mem_cache/pool.py", line 44, in {function}\n'
        "    x = self.slots[i]\n"
        "IndexError: list index out of range\n"
    )
    result = match_error(text, MatchIndex([site]))
    assert [m.record_id for m in result.matches] == ["alloc-oom"]
    assert any(said in k for k in result.answer["known"])


def _unset_read(record_id, path, function, line, statement):
    return PatternEntry(
        record_id,
        r"'ModelConfig' object has no attribute 'scaling'",
        "AttributeError",
        path,
        line,
        "'ModelConfig' object has no attribute 'scaling'",
        repo="sgl-project/sglang",
        function=function,
        statement=statement,
    )


def test_an_attribute_a_class_may_lack_is_read_where_the_traceback_says():
    # A method of ModelConfig reads `self.scaling`, which it sets only for some models; a
    # backend reads `model_config.scaling` from outside (sgl-project/sglang#29891).
    config = _unset_read(
        "config",
        "python/sglang/srt/configs/model_config.py",
        "ModelConfig.get_scaling",
        870,
        "return self.scaling",
    )
    backend = PatternEntry(
        "backend",
        "Only page_size=1 is supported",
        "ValueError",
        "python/sglang/srt/layers/attention/flashinfer_mla_backend.py",
        771,
        "Only page_size=1 is supported",
        repo="sgl-project/sglang",
        function="FlashInferMLAIndicesUpdaterDecode.__init__",
    )
    index = MatchIndex([config, backend])
    title = "AttributeError: 'ModelConfig' object has no attribute 'scaling'"
    assert match_error(title, index).matches[0].record_id == "config"
    traceback = (
        'File ".../sglang/srt/layers/attention/flashinfer_mla_backend.py", line 766, in '
        "__init__\n    self.scaling = model_runner.model_config.scaling\n"
        "AttributeError: 'ModelConfig' object has no attribute 'scaling'"
    )
    # The frame's function is where it was read; the class's own read is another place.
    assert [m.record_id for m in match_error(traceback, index).matches] == ["backend", "config"]
    inside = (
        'File ".../sglang/srt/configs/model_config.py", line 870, in get_scaling\n'
        "    return self.scaling\n"
        "AttributeError: 'ModelConfig' object has no attribute 'scaling'"
    )
    assert match_error(inside, index).matches[0].record_id == "config"


def test_a_frameless_missing_attribute_finds_the_read_that_may_find_it_unset_first():
    # GenerateReqInput sets `is_single` only when normalised (sgl-project/sglang#34113): its
    # unset-attribute site ranks above another method's raise that reads it too.
    wording = "'GenerateReqInput' object has no attribute 'is_single'"
    unset = PatternEntry(
        "unset",
        wording,
        "AttributeError",
        "python/sglang/srt/managers/io_struct.py",
        133,
        wording,
        repo="sgl-project/sglang",
        function="GenerateReqInput.contains_mm_input",
        statement="if self.is_single:",
    )
    other = _method_record("check", "GenerateReqInput._validate_inputs", "Either text is needed")
    # Another attribute a method that reads `is_single` may lack is not this error's site.
    rid = PatternEntry(
        "rid",
        "'GenerateReqInput' object has no attribute 'rid'",
        "AttributeError",
        "python/sglang/srt/managers/io_struct.py",
        200,
        "'GenerateReqInput' object has no attribute 'rid'",
        repo="sgl-project/sglang",
        function="GenerateReqInput.regenerate_rid",
        statement="return self.rid",
    )
    reads = (
        ("check", "GenerateReqInput._validate_inputs", ("is_single",)),
        ("unset", "GenerateReqInput.contains_mm_input", ("is_single",)),
        ("rid", "GenerateReqInput.regenerate_rid", ("is_single", "rid")),
    )
    result = match_error(
        f"AttributeError: {wording}",
        MatchIndex([other, unset, rid]),
        readers=lambda attr: reads if attr == "is_single" else (),
    )
    assert [m.record_id for m in result.matches] == ["unset", "check"]


def test_a_frameless_missing_attribute_ranks_reads_of_an_annotated_object_above_raises():
    # sgl-project/sglang issue 34972's sibling: `abort_request` reads `obj.is_single` of a
    # GenerateReqInput nobody normalised (typed.py): with no frame, a read of the very
    # wording ranks beside the class's own read, above the raises its methods are shown by.
    wording = "'GenerateReqInput' object has no attribute 'is_single'"

    def read(rid, path, function, statement):
        return PatternEntry(
            rid,
            wording,
            "AttributeError",
            path,
            133,
            wording,
            repo="sgl-project/sglang",
            function=function,
            statement=statement,
        )

    unset = read(
        "unset",
        "python/sglang/srt/managers/io_struct.py",
        "GenerateReqInput.contains_mm_input",
        "if self.is_single:",
    )
    abort = read(
        "abort",
        "python/sglang/srt/managers/tokenizer_manager.py",
        "TokenizerManager.create_abort_task.abort_request",
        "if obj.is_single:",
    )
    other = _method_record("check", "GenerateReqInput._validate_inputs", "Either text is needed")
    reads = (
        ("check", "GenerateReqInput._validate_inputs", ("is_single",)),
        ("unset", "GenerateReqInput.contains_mm_input", ("is_single",)),
    )
    index = MatchIndex([other, unset, abort])
    result = match_error(
        f"AttributeError: {wording}", index, readers=lambda a: reads if a == "is_single" else ()
    )
    assert [m.record_id for m in result.matches] == ["unset", "abort", "check"]
    assert any("Also shown: 1 read(s) of that attribute" in k for k in result.answer["known"])
    # With a frame, the frame says which read ran.
    traceback = (
        'File ".../sglang/srt/managers/tokenizer_manager.py", line 133, in abort_request\n'
        "    if obj.is_single:\n"
        f"AttributeError: {wording}"
    )
    assert match_error(traceback, index).matches[0].record_id == "abort"


def test_a_traceback_cut_inside_the_raise_line_finds_the_raise_its_source_quotes():
    # sgl-project/sglang issue 9603: the stored excerpt stops inside `raise ImportError("vl`,
    # the chained error's own frame; its message never made it into the paste.
    path = "python/sglang/srt/layers/quantization/fp8_kernel.py"
    required = "vllm is required when SGLANG_USE_AITER is set to False"
    index = MatchIndex(
        [
            PatternEntry(
                "raise",
                re.escape(required),
                "ImportError",
                path,
                66,
                required,
                function="<module>",
            ),
            PatternEntry(
                "other",
                r"vllm is not installed",
                "ImportError",
                path,
                90,
                "vllm is not installed",
                function="<module>",
            ),
            PatternEntry(
                "import",
                r"No module named 'vllm'",
                "ModuleNotFoundError",
                "python/x.py",
                3,
                "No module named 'vllm'",
                function="<module>",
                statement="import vllm",
            ),
        ]
    )
    frame = '  File "/w/sglang/python/sglang/srt/layers/quantization/fp8_kernel.py", line '
    paste = (
        "Traceback (most recent call last):\n"
        f"{frame}64, in <module>\n    import vllm._C\n"
        "ModuleNotFoundError: No module named 'vllm'\n\n"
        "During handling of the above exception, another exception occurred:\n\n"
        "Traceback (most recent call last):\n"
        f'{frame}66, in <module>\n    raise ImportError("vl'
    )
    assert match_error(paste, index).matches[0].record_id == "raise"
    # A raise of another class, or whose message starts otherwise, is not that line.
    other = paste.replace('ImportError("vl', 'ImportError("vllm is not')
    assert match_error(other, index).matches[0].record_id == "other"


def test_a_top_level_modules_weight_name_is_a_weight_name_too():
    # sgl-project/sglang#9747's title: the checkpoint's prefix stripped, two parts left.
    index = MatchIndex(
        [
            _weight_lookup("llama", "python/sglang/srt/models/llama.py", ["gate_up_proj"]),
            _weight_lookup("qwen3", "python/sglang/srt/models/qwen3.py", ["rotary_emb"]),
        ]
    )
    title = (
        "[Bug] Keyerror when start sgl serve for Qwen3-Embedding-4B : KeyError: "
        "'embed_tokens.weight' in version 0.4.6.post1"
    )
    result = match_error(title, index)
    assert result.answer["evidence"] == "key"
    assert result.matches[0].record_id == "qwen3"
    # Two parts that name no tensor are no weight's name.
    assert not match_error("KeyError: 'model.type' when loading Qwen3", index).matches


def test_pythons_guess_at_the_name_meant_does_not_hide_the_message():
    # Python 3.10+ appends `. Did you mean: 'x'?` to a NameError or AttributeError it words
    # (sgl-project/sglang#3590's comment): the template is the message before it.
    wording = "name 'sgl_build_tree_kernel' is not defined"
    entry = PatternEntry(
        "unbound",
        wording,
        "NameError",
        "python/sglang/srt/speculative/build_eagle_tree.py",
        149,
        wording,
        repo="sgl-project/sglang",
        function="build_tree_kernel",
        statement="sgl_build_tree_kernel(",
    )
    pasted = f"NameError: {wording}. Did you mean: 'build_tree_kernel'?"
    top = match_error(pasted, MatchIndex([entry])).matches[0]
    assert (top.record_id, top.why.kind, top.why.whole_message) == ("unbound", "pattern", True)
    # A writer's own "Did you mean" question is the writer's sentence after the message:
    # the template matches that sentence, not the whole message.
    asked = f"NameError: {wording}. Did you mean build_tree_kernel"
    why = match_error(asked, MatchIndex([entry])).matches[0].why
    assert (why.kind, why.whole_message) == ("pattern", False)


def test_a_message_written_without_a_stop_matches_before_the_writers_sentence():
    wording = "Cannot use FlashInfer backend with MLA"
    entry = PatternEntry(
        "mla", wording, "ValueError", "python/sglang/srt/server_args.py", 1, wording
    )
    index = MatchIndex([entry])
    titled = match_error(f"[Bug] ValueError: {wording}. How to fix?", index).matches[0]
    assert (titled.why.kind, titled.why.whole_message) == ("pattern", False)
    # The writer's full stop at the end: the whole message, its stop aside.
    stopped = match_error(f"ValueError: {wording}.", index).matches[0]
    assert (stopped.why.kind, stopped.why.whole_message) == ("pattern", True)
    # Another sentence that only starts the same is no match of the template.
    other = match_error(f"ValueError: {wording} v2. Try again", index).matches
    assert all(m.why.kind != "pattern" for m in other)
