import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.matching.index import MatchIndex, PatternEntry, file_key, template_overlap
from app.matching.literals import extract, required_runs

pytestmark = pytest.mark.unit

SEED = "trtllm_mla backend can only be used with MLA models."
SEED_PATTERN = r"trtllm_mla backend can only be used with MLA models\."


def entry(record_id, pattern, **kw):
    return PatternEntry(record_id, pattern, **kw)


@pytest.mark.parametrize(
    ("pattern", "best"),
    [
        (SEED_PATTERN, SEED.casefold()[:32]),  # keys are capped to keep the automaton small
        (r"Unsupported socket type: .+?", "unsupported socket type: "),
        (r"bs\+1=.+? exceeds BATCH_BLOCK=.+?; bump it", " exceeds batch_block="),
        (r"colou?r scheme not found", "r scheme not found"),  # the optional 'u' is dropped
        (r"(?:alpha|beta) backend failed to start", " backend failed to start"),
        (r"['\"]?missing key['\"]?", "missing key"),
        (r"(?i)Cannot Allocate", "cannot allocate"),
        (r"abc+defg", "defg"),
        (r"ab+cd", None),  # runs shorter than 3 characters are not worth prefiltering
        (r"\d+", None),
        (r"(foo|bar)", None),
    ],
)
def test_required_literal(pattern, best):
    assert extract(pattern).best == best


def test_required_runs_skip_optional_groups():
    runs = required_runs(r"needed(?:optional)?also (?:x){2}")
    assert "optional" not in runs
    assert "needed" in runs and "x" in runs


def test_an_alternations_least_alternative_counts_toward_specificity():
    """A pattern that names the callee and then one of several wordings is more specific
    than one that takes any callee and names the wording: the alternation's text is
    required too, as its shortest alternative."""
    named = r"Wrapper[(][)] (?:got an unexpected keyword argument '[^']+'|takes [0-9]+ args)"
    any_callee = r"[A-Za-z_]+[(][)] got an unexpected keyword argument '(?:backend|mode)'"
    assert extract(named).specificity == len("Wrapper() ") + len("takes  args")
    assert extract(any_callee).specificity == len("() got an unexpected keyword argument ''mode")
    assert extract(named).best == "wrapper() "  # the prefilter keeps a text every match has


def test_a_quoted_choice_of_words_is_the_prefilter():
    """Thousands of `X() got an unexpected keyword argument '(?:a|b)'` patterns share their
    text: a message reaches one only through one of its quoted words."""
    spread = r"[A-Za-z_]+[(][)] got an unexpected keyword argument '(?:backend|Mode)'"
    assert extract(spread).any_of == ("'backend'", "'mode'")
    index = MatchIndex([entry("s", spread), entry("t", r"f[(][)] got an unexpected keyword .+")])
    assert index.candidates("f() got an unexpected keyword argument 'port'") == [1]
    assert index.candidates("f() got an unexpected keyword argument 'Mode'") == [0, 1]
    found = index.search("g() got an unexpected keyword argument 'Mode'")
    assert [h.entry.record_id for h in found if h.whole] == ["s"]
    assert extract(r"argument '(?:a|b)' here").any_of == ()  # not at the end: not read


def test_unparseable_python_pattern_is_always_verified():
    index = MatchIndex([entry("a", r"\pL+ failed")])  # RE2 syntax Python's re rejects
    assert index.always_verified == 1
    assert [h.entry.record_id for h in index.search("Éé failed")] == ["a"]


def test_pattern_re2_cannot_compile_never_matches_and_never_raises():
    index = MatchIndex([entry("look", r"(?=trtllm)trtllm_mla backend"), entry("ok", SEED_PATTERN)])
    assert [h.entry.record_id for h in index.search(SEED)] == ["ok"]
    assert index.invalid_patterns() == ["look"]


def test_whole_message_and_segments():
    index = MatchIndex([entry("seed", SEED_PATTERN)])

    def hit(message):
        hits = index.search(message)
        return None if not hits else (hits[0].whole, message[hits[0].start : hits[0].end])

    assert hit(SEED) == (True, SEED)
    assert hit(f"  {SEED}\n") == (True, SEED)
    assert hit(f"Capture cuda graph failed: {SEED}") == (False, SEED)
    assert hit(f"{SEED} Use flashinfer instead.") == (False, SEED)
    assert hit(f"Backend check failed.\n{SEED}\nSee docs.") == (False, SEED)
    # The pattern text inside a longer, different sentence is not a match.
    assert hit(f"The {SEED}") is None
    assert hit(f"warning '{SEED}' was ignored") is None
    assert hit(f"not_{SEED}") is None
    assert hit("trtllm_mha backend can only be used with non-MLA models.") is None


def test_an_issue_titles_clause_after_the_message_ends_a_segment():
    # "[Bug] <message> when using run_batch": the message, then the writer's own words.
    index = MatchIndex([entry("a", r"(?:CUDA error: )?device-side assert triggered")])
    text = "device-side assert triggered when using run_batch"
    (hit,) = index.search(text)
    assert (text[hit.start : hit.end], hit.whole) == ("device-side assert triggered", False)
    # Only those clause words end one: the message must still end where the words begin.
    assert index.search("device-side assert triggered twice") == []


def test_head_clause_before_colon_matches():
    index = MatchIndex([entry("h", r"Failed to load model")])
    (hit,) = index.search("Failed to load model: /models/x")
    assert (hit.start, hit.end, hit.whole) == (0, 20, False)


def test_prefilter_does_not_verify_every_pattern():
    entries = [entry(f"r{i}", rf"backend number {i} failed: .+?") for i in range(5_000)]
    index = MatchIndex(entries + [entry("seed", SEED_PATTERN)])
    assert index.candidates(SEED) == [5_000]
    assert len(index.candidates("backend number 17 failed: boom")) < 20
    assert [h.entry.record_id for h in index.search("backend number 17 failed: boom")] == ["r17"]


def test_case_insensitive_pattern_is_found_through_folded_prefilter():
    index = MatchIndex([entry("ci", r"(?i)cuda out of memory")])
    assert [h.entry.record_id for h in index.search("CUDA Out Of Memory")] == ["ci"]


def test_empty_index_and_empty_message():
    assert MatchIndex([]).search(SEED) == []
    assert MatchIndex([entry("seed", SEED_PATTERN)]).search("   ") == []


words = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
    min_size=1,
    max_size=12,
).filter(lambda s: s.strip() == s and s.strip())


@settings(max_examples=200, deadline=None)
@given(st.lists(words, min_size=1, max_size=5), st.lists(words, min_size=1, max_size=5))
def test_prefilter_never_loses_a_match_the_naive_loop_finds(literals, fillers):
    pattern = ".+?".join(re.escape(lit) for lit in literals)
    message = " ".join(
        lit + (" " + fillers[i % len(fillers)] + " " if i < len(literals) - 1 else "")
        for i, lit in enumerate(literals)
    )
    index = MatchIndex([entry("p", pattern)])
    naive = index.naive_search(message)
    assert naive == ["p"]
    assert "p" in {h.entry.record_id for h in index.search(message)}


atoms = st.sampled_from(
    [
        "ab",
        "c",
        "D",
        " ",
        ":",
        r"\.",
        r"\(",
        "é",
        ".",
        "x?",
        "y*",
        "z+",
        r"\d",
        ".+?",
        "(?:q|r)",
        "[st]",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(atoms, min_size=1, max_size=12)
    .map("".join)
    .flatmap(lambda p: st.tuples(st.just(p), st.from_regex(p, fullmatch=True)))
)
def test_required_literal_is_in_every_match(pattern_and_text):
    pattern, text = pattern_and_text
    best = extract(pattern).best
    assert best is None or best in text.casefold()


@pytest.mark.parametrize("lead", ["", "Erreur \u00e0 l'appel\n"])
def test_ascii_and_unicode_messages_verify_alike(lead):
    # An ASCII message is verified with bytes patterns, any other with str ones: the same
    # hits, at the same character offsets, either way.
    index = MatchIndex([entry("seed", SEED_PATTERN)])
    message = f"{lead}Capture cuda graph failed: {SEED}"
    (hit,) = index.search(message)
    assert (message[hit.start : hit.end], hit.whole) == (SEED, False)


@pytest.mark.parametrize("lead", ["", "Erreur \u00e0 l'appel\n"])
def test_prefix_search_inner_keys_alike_for_ascii_and_unicode(lead):
    # Inner keys (a short-headed template's first long literal, an import's quoted name)
    # are found by one automaton pass over an ASCII message, word by word otherwise.
    index = MatchIndex(
        [
            entry("tp", r"TP rank \d+ could finish the model loading, but .+", **TP),
            entry(
                "imp",
                r"cannot import name 'is_valid_list_of_images' from .+",
                error_message="cannot import name 'is_valid_list_of_images' from "
                "'transformers.models.mllama.image_processing_mllama'",
                statement="from transformers.models.mllama.image_processing_mllama "
                "import is_valid_list_of_images",
            ),
        ]
    )
    cut = f"{lead}RuntimeError: TP rank 3 could finish the model loading, but there are other"
    assert [(h.entry.record_id, h.cut) for h in index.prefix_search(cut)] == [("tp", True)]
    title = (
        f"{lead}[Bug] ImportError: cannot import name 'is_valid_list_of_images' from "
        "transformers.models.mllama.image_processing_mllama please help"
    )
    assert [h.entry.record_id for h in index.prefix_search(title)] == ["imp"]


TP = {
    "error_message": "TP rank {tp_rank} could finish the model loading, but there are other "
    "ranks that didn't finish loading. It is likely due to unexpected failures (e.g., OOM) "
    "or a slow node."
}


def test_a_template_that_starts_with_its_value_matches_a_cut_off_message():
    # sglang's `f"{arch} has no SGlang implementation and the Transformers ..."`, as an
    # issue title cut it: the value is the first word, then the literal the text carries.
    template = (
        "{} has no SGlang implementation and the Transformers implementation is not "
        "compatible with SGLang."
    )
    pattern = ".+?" + re.escape(template[2:])
    entry = PatternEntry("a", pattern, "ValueError", error_message=template)
    index = MatchIndex([entry])
    (hit,) = index.prefix_search("Qwen3NextForCausalLM has no SGlang implementation")
    assert (hit.cut, hit.specificity) == (True, 29)
    assert template_overlap(template, "the Qwen3 model has no SGlang implementation") == (0, False)
    # Generic words after a value are not enough to go on differently from.
    other = "{} got an unexpected generation_mode={}. Supported options are only `text`"
    said = "Tokenizer.apply_chat_template() got an unexpected keyword argument 'reasoning_effort'"
    assert template_overlap(other, said) == (0, False)
    # A later placeholder and literal are read on as for any template.
    assert template_overlap(
        "{} is not supported by {} for now, sorry", "x is not supported by y for n"
    )[1]


def test_a_value_ending_in_the_next_literals_first_character_is_no_cut_of_it():
    # "... 'CUDA' backend." of "Capture cuda graph failed: {e}. Possible ...": the "." ends
    # the value; counted as the literal's start it put this template before others alike.
    template = "Capture cuda graph failed: {}. Possible solutions: lower --mem-fraction"
    long_value = "Capture cuda graph failed: Could not run 'sgl_kernel::rmsnorm' on CUDA."
    assert template_overlap(template, long_value) == (27, False)
    assert template_overlap(template, "Capture cuda graph failed: oops.") == (27, True)
    assert template_overlap(template, "Capture cuda graph failed: oops. Poss") == (33, True)


def test_a_search_capped_per_site_kind_returns_the_first_in_tie_order_and_the_frames_files():
    # 40 sites raise one message alike; another class of the same pattern is its own kind.
    sites = [
        entry(
            f"s{i:02d}",
            r"No module named 'torch'",
            error_class="ModuleNotFoundError",
            file_path=f"python/sglang/m{i:02d}/mod.py",
            releases=i % 3,  # more releases first in the tie order
        )
        for i in range(40)
    ]
    other = entry("imp", r"No module named 'torch'", error_class="ImportError", file_path="x/y.py")
    index = MatchIndex([*sites, other])
    everything = index.search("No module named 'torch'")
    assert {h.entry.record_id for h in everything} == {e.record_id for e in [*sites, other]}
    files = {file_key("python/sglang/m00/mod.py"), file_key("python/sglang/m39/mod.py")}
    capped = index.search("No module named 'torch'", per_site_kind=5, files=files)
    by_order = sorted(everything[:40], key=lambda h: h.order)
    first = [h.entry.record_id for h in by_order[:5]]
    ids = [h.entry.record_id for h in capped]
    assert [i for i in ids if i in first] == first  # in the tie order
    assert set(ids) == {*first, "s00", "s39", "imp"}
    assert all(index.get(i).releases == 2 for i in first)
    # The same search again (the group's first members are kept) gives the same hits.
    assert [
        h.entry.record_id
        for h in index.search("No module named 'torch'", per_site_kind=5, files=files)
    ] == ids


def test_alike_sites_of_several_wordings_are_capped_together_and_the_singled_out_kept():
    # Three wordings of one import (`torch`, `torch(?:\.nn)?`, ...) of 20 sites each: five
    # in all come back first in tie order, not five per wording, plus the sites a frame's
    # file, the message (a function) or the paste's words (a file) single out.
    wordings = [
        r"No module named 'torch'",
        r"No module named 'torch(?:\.nn)?'",
        r"No module named 'torch(?:\.cuda)?'",
    ]
    sites = [
        entry(
            f"w{w}s{i:02d}",
            pattern,
            error_class="ModuleNotFoundError",
            file_path=f"python/sglang/m{w}{i:02d}/mod.py",
            function="<module>",
            releases=(i + w) % 4,
        )
        for w, pattern in enumerate(wordings)
        for i in range(20)
    ]
    named = entry(
        "named",
        wordings[1],
        error_class="ModuleNotFoundError",
        file_path="python/sglang/srt/models/deepseek_v2.py",
        function="<module>",
    )
    mentioned = entry(
        "mentioned",
        wordings[2],
        error_class="ModuleNotFoundError",
        file_path="python/sglang/srt/model_loader/loader.py",
        function="DefaultModelLoader.prepare_weights_cache",
    )
    framed = entry(
        "framed", wordings[0], error_class="ModuleNotFoundError", file_path="python/x/y.py"
    )
    index = MatchIndex([*sites, named, mentioned, framed])
    message = "prepare_weights_cache: No module named 'torch'"
    everything = index.search(message)
    assert len(everything) == 63
    first = [h.entry.record_id for h in sorted(everything, key=lambda h: h.order)[:5]]
    asked: list[str] = []

    def words() -> frozenset[str]:
        asked.append("words")
        return frozenset({"deepseek", "deepseek_v2"})

    capped = index.search(message, per_site_kind=5, files={file_key("python/x/y.py")}, words=words)
    ids = {h.entry.record_id for h in capped}
    assert ids == {*first, "named", "mentioned", "framed"}
    assert asked  # read, since groups were over the cap
    # Under the cap, no group asks for the paste's words.
    asked.clear()
    assert len(index.search(message, per_site_kind=100, words=words)) == 63
    assert not asked


def test_the_lines_a_hit_touches_are_found_by_position():
    from app.matching.index import _segments

    seg = _segments("first line\n\n  second line  \nthird")
    (a, _, _, _), (b, _, _, _), (c, _, _, _) = seg.lines
    assert seg.touched([(0, 3)]) == [0]
    assert seg.touched([(3, b + 2)]) == [0, 1]  # across the blank line
    assert seg.touched([(b, b)]) == [1]  # an empty hit at a line's start
    assert seg.touched([(c + 1, c + 3), (0, 1)]) == [0, 2]
    assert seg.touched([(b - 2, b - 1)]) == []  # in the blank and the indent: no line


def test_a_worker_keeps_only_the_most_recently_used_compiled_patterns(monkeypatch):
    # Each compiled pattern holds its DFA's states: kept all, a worker answering varied
    # pastes grew without bound. Evicted ones are compiled again when next needed.
    import app.matching.index as index_module

    monkeypatch.setattr(index_module, "MAX_COMPILED", 3)
    words = ["alpha", "bravo", "charlie", "delta", "echo"]
    index = MatchIndex([entry(w, rf"{w} backend failed to start: \d+") for w in words])
    for _ in range(2):
        for w in words:
            hits = index.search(f"{w} backend failed to start: 12")
            assert [h.entry.record_id for h in hits] == [w]
            assert len(index._compiled_bytes) + len(index._compiled) <= 3
    index.search("echo backend failed to start: 1")  # the most recent stays
    assert list(index._compiled_bytes)[-1] == r"echo backend failed to start: \d+"
