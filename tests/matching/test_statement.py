"""The innermost frame's own statement names the value an interpreter-worded error is about:
on real pastes from the held-out sets, through the parser and ``POST /api/v1/match``."""

from __future__ import annotations

import pytest

from app.matching import parse_error
from app.matching.statement import explain
from tests.matching.heldout import FRESH_DIR, HELDOUT_DIR, SIXTH_DIR, THIRD_DIR, parse_case

pytestmark = pytest.mark.unit


def _case(directory, prefix):
    return parse_case(next(directory.glob(f"{prefix}-*.txt")))


def _said(text):
    return explain(parse_error(text).exceptions[0])


@pytest.mark.parametrize(
    ("directory", "prefix", "sentence"),
    [
        (
            SIXTH_DIR,
            "905",
            "On that line (`prefix_rid = backend.cache_prefix(prefix)`), `backend` was a"
            " `Runtime`, which has no attribute `cache_prefix`.",
        ),
        (
            HELDOUT_DIR,
            "102",
            "On that line (`req_pool_indices_cpu = req_pool_indices.cpu().numpy()`),"
            " `req_pool_indices` was None, so it has no `cpu`.",
        ),
        (
            HELDOUT_DIR,
            "208",
            "`self.shared_experts.gate_up_proj.quant_method` was a"
            " `CompressedTensorsLinearMethod`, which has no attribute `quant_config`.",
        ),
        (
            HELDOUT_DIR,
            "302",
            "`self.rid_to_state` has no key '5e25b243e77743e6b3711ae7206ffdf3'.",
        ),
        (THIRD_DIR, "603", "`self.ongoing_write_through` has no key 37."),
        (FRESH_DIR, "519", "`result.output` was None."),
    ],
)
def test_a_real_paste_s_statement_names_the_value(directory, prefix, sentence):
    said = _said(_case(directory, prefix).text)
    assert said is not None and said.endswith(sentence)


def _framed(source, line):
    return (
        "Traceback (most recent call last):\n"
        '  File "/x/sglang/srt/managers/scheduler.py", line 10, in run\n'
        f"    {source}\n{line}\n"
    )


@pytest.mark.parametrize(
    ("source", "line", "sentence"),
    [
        (
            "n = len(batch.reqs)",
            "TypeError: object of type 'NoneType' has no len()",
            "`batch.reqs` was None.",
        ),
        (
            "cfg = transformers.AutoThing",
            "AttributeError: module 'transformers' has no attribute 'AutoThing'",
            "`transformers` was the module `transformers`, which has no attribute `AutoThing`.",
        ),
        (
            "return Cls.build(x)",
            "AttributeError: type object 'Cls' has no attribute 'build'",
            "`Cls` was the class `Cls`, which has no attribute `build`.",
        ),
    ],
)
def test_each_interpreter_wording_names_its_value(source, line, sentence):
    said = _said(_framed(source, line))
    assert said is not None and said.endswith(sentence)


@pytest.mark.parametrize(
    ("source", "line"),
    [
        # Two different values read `.pool`: the line does not say which was None.
        ("a = x.pool or y.pool", "AttributeError: 'NoneType' object has no attribute 'pool'"),
        # The attribute only inside a string literal.
        ('log("x.pool is unset")', "AttributeError: 'NoneType' object has no attribute 'pool'"),
        # Two lookups on the line.
        ("a = d[k] + e[k]", "KeyError: 'k'"),
        # A lone store raises no KeyError.
        ("d[k] = v", "KeyError: 'k'"),
        # Two `len()` calls.
        ("n = len(a) + len(b)", "TypeError: object of type 'NoneType' has no len()"),
        # Not a wording of the interpreter's this module reads.
        ("x.pool.alloc(3)", "RuntimeError: out of memory"),
    ],
)
def test_a_line_that_does_not_single_out_a_value_says_nothing(source, line):
    assert _said(_framed(source, line)) is None


def test_without_a_source_line_nothing_is_said():
    text = (
        "Traceback (most recent call last):\n"
        '  File "/x/sglang/api.py", line 51, in flush_cache\n'
        "AttributeError: 'Runtime' object has no attribute 'flush_cache'\n"
    )
    assert _said(text) is None


def test_the_answer_names_the_value(corpus_app, client):
    """Through the API: the sentence is among what is known."""
    text = _case(SIXTH_DIR, "917").text
    resp = client.post("/api/v1/match", json={"text": text, "limit": 3})
    assert resp.status_code == 200
    known = resp.get_json()["answer"]["known"]
    assert (
        "On that line (`return backend.flush_cache()`), `backend` was a `Runtime`, which has"
        " no attribute `flush_cache`." in known
    )


def test_a_hostile_source_line_is_not_read():
    """A frame line longer than any statement (spaces after `len(`) is left alone: no
    quadratic regex over it, and nothing said."""
    line = "n = len(" + " " * 200_000
    assert _said(_framed(line, "TypeError: object of type 'NoneType' has no len()")) is None


def test_a_hostile_paste_through_the_api_is_answered(client):
    text = _framed(
        "x = len(" + " " * 100_000 + "a)", "TypeError: object of type 'NoneType' has no len()"
    )
    resp = client.post("/api/v1/match", json={"text": text, "limit": 3})
    assert resp.status_code == 200
    assert not any(k.startswith("On that line") for k in resp.get_json()["answer"]["known"])


def test_a_frame_answer_in_a_function_without_raise_sites_says_so(corpus_app, client):
    """Through the API: a frame in a known file, in a function with no raise site of its
    own, is answered with the file's sites, and the answer says the function has none."""
    text = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.11/site-packages/sglang/srt/layers/attention/'
        'attention_registry.py", line 90, in lookup_backend\n'
        "    backend = table[name]\n"
        "IndexError: list index out of range\n"
    )
    resp = client.post("/api/v1/match", json={"text": text, "limit": 3})
    assert resp.status_code == 200
    body = resp.get_json()
    assert body["matches"] and body["answer"]["evidence"] == "frame"
    assert any(
        "No raise site is recorded in lookup_backend; shown:" in k for k in body["answer"]["known"]
    )
