"""``POST /api/v1/match`` with real-looking pastes."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.unit  # besides the database backend, no service

SEED = "1760fbb64ae487e4"

SGLANG_LOG = """\
[2026-12-01 09:14:03 TP0] Scheduler hit an exception: Traceback (most recent call last):
[2026-12-01 09:14:03 TP0]   File "/usr/local/lib/python3.12/dist-packages/sglang/srt/managers/scheduler.py", line 2650, in run_scheduler_process
[2026-12-01 09:14:03 TP0]     scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, moe_ep_rank, pp_rank, dp_rank)
[2026-12-01 09:14:03 TP0]   File "/usr/local/lib/python3.12/dist-packages/sglang/srt/layers/attention/attention_registry.py", line 97, in create_trtllm_mla_backend
[2026-12-01 09:14:03 TP0]     raise ValueError("trtllm_mla backend can only be used with MLA models.")
[2026-12-01 09:14:03 TP0] ValueError: trtllm_mla backend can only be used with MLA models.
"""  # noqa: E501

CHAINED = """\
Traceback (most recent call last):
  File "/opt/venv/lib/python3.11/site-packages/sglang/srt/mem_cache/memory_pool.py", line 212, in __init__
    self.k_buffer = torch.empty(shape, dtype=dtype, device=device)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 12.50 GiB

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/opt/venv/lib/python3.11/site-packages/sglang/launch_server.py", line 14, in <module>
    launch_server(server_args)
RuntimeError: Scheduler failed to start
"""  # noqa: E501


def post(client, text, **kw):
    return client.post("/api/v1/match", json={"text": text, **kw})


def record_calls(monkeypatch, owner, name, argument):
    """Each call of ``owner.name`` from now on appends its positional ``argument``."""
    calls = []
    real = getattr(owner, name)
    monkeypatch.setattr(owner, name, lambda *a, **kw: calls.append(a[argument]) or real(*a, **kw))
    return calls


def test_sglang_log_matches_seed_with_why(corpus_app, client):
    body = post(client, SGLANG_LOG).get_json()
    top = body["matches"][0]
    assert top["id"] == SEED
    assert top["kind"] == "pattern"
    assert top["why"]["classAgreement"] == "exact"
    assert top["why"]["frame"]["line"] == 97
    assert top["href"].endswith(f"/records/{SEED}")
    assert top["solutions"]


def test_chained_traceback_finds_root_cause(corpus_app, client):
    body = post(client, CHAINED).get_json()
    assert body["matches"][0]["id"] == "a000000000000003"
    assert body["matches"][0]["why"]["exception"]["role"] == "root"


def test_json_log_line(corpus_app, client):
    line = json.dumps({"level": "error", "msg": SGLANG_LOG})
    body = post(client, f"some preamble\n{line}\n").get_json()
    assert body["matches"][0]["id"] == SEED


def test_near_miss_is_not_a_pattern_match(corpus_app, client):
    body = post(client, "trtllm_mha backend can only be used with non-MLA models.").get_json()
    assert all(m["kind"] != "pattern" for m in body["matches"])
    assert body["fallback"] is True


def test_compact_match(corpus_app, client):
    body = client.post("/api/v1/match?compact=1", json={"text": SGLANG_LOG}).get_json()
    assert "why" not in body["matches"][0] and "parsed" not in body


@pytest.mark.parametrize(
    ("kwargs", "status"),
    [
        ({"data": "not json", "content_type": "text/plain"}, 415),
        ({"data": "{bad", "content_type": "application/json"}, 400),
        ({"json": {"text": ""}}, 422),
        ({"json": {"text": 5}}, 422),
        ({"json": {"txt": "x"}}, 422),
        ({"json": ["text"]}, 422),
        ({"json": {"text": "x", "limit": 0}}, 422),
        ({"json": {"text": "a" * (300 * 1024)}}, 413),
        ({"data": "x" * (11 * 1024 * 1024), "content_type": "application/json"}, 413),
    ],
)
def test_bad_match_requests(corpus_app, client, kwargs, status):
    response = client.post("/api/v1/match", **kwargs)
    assert response.status_code == status
    assert response.mimetype == "application/problem+json"


def test_openapi_document(corpus_app, client):
    spec = client.get("/api/v1/openapi.json").get_json()
    assert spec["openapi"].startswith("3.1")
    assert {
        "/api/v1/records",
        "/api/v1/records/{record_id}",
        "/api/v1/match",
        "/api/v1/search",
    } <= set(spec["paths"])
    assert "MatchRequest" in spec["components"]["schemas"]
    assert client.get("/api/v1/docs").status_code == 200


@pytest.mark.parametrize(
    "raw",
    [
        # What the fast decoder takes, and what only the standard one does (a UTF-16
        # body): each is read as the same JSON would be.
        '{"text": "ValueError: café \u2018x\u2019 \\u00e9"}'.encode(),
        '{"text": "ValueError: utf-16 body"}'.encode("utf-16"),
    ],
)
def test_match_reads_and_writes_json_as_the_standard_library(corpus_app, client, raw):
    response = client.post("/api/v1/match", data=raw, content_type="application/json")
    assert response.status_code == 200, response.get_data()[:300]
    body = json.loads(response.get_data())
    sent = json.loads(raw)["text"]
    assert body["parsed"]["exceptions"][0]["message"] == sent.split(": ", 1)[1]
    assert response.mimetype == "application/json"
    assert response.get_data().endswith(b"\n")


def test_match_answer_keeps_the_apis_key_order(corpus_app, client):
    body = post(client, SGLANG_LOG).get_data(as_text=True)
    keys = list(json.loads(body))
    assert keys[:4] == ["matches", "fallback", "notes", "answer"]


def test_match_refuses_a_lone_surrogate_with_the_field(corpus_app, client):
    # orjson refuses the escape; the standard decoder reads it and the schema refuses it.
    raw = b'{"text": "ValueError: \\ud800 lone"}'
    response = client.post("/api/v1/match", data=raw, content_type="application/json")
    assert response.status_code == 422
    assert response.get_json()["errors"][0]["field"] == "text"


def test_a_repeated_paste_is_answered_from_the_memo_and_never_from_a_stale_catalog(
    corpus_app, client, runner, tmp_path, seed_envelope, monkeypatch
):
    from app.answers import services as answers
    from app.corpus import catalog as catalog_module
    from tests.conftest import import_envelopes, make_envelope

    calls = record_calls(monkeypatch, answers, "match_error", 0)
    first = post(client, SGLANG_LOG)
    again = post(client, SGLANG_LOG)
    assert first.get_data() == again.get_data()
    assert again.get_json()["matches"][0]["id"] == SEED
    assert len(calls) == 1  # ranked once; the second answer came from the worker's memo
    # A limit or a filter asks for another ranking (or for more of it), not the memo's.
    assert len(post(client, SGLANG_LOG, limit=2).get_json()["matches"]) <= 2
    assert len(calls) == 2

    near = "trtllm_mha backend can only be used with non-MLA models."
    assert post(client, near).get_json()["fallback"] is True
    import_envelopes(
        runner,
        tmp_path / "more.jsonl",
        [
            make_envelope(
                seed_envelope,
                "a000000000000099",
                slug="trtllm-mha",
                errorMessage=near,
                messagePattern=r"trtllm_mha backend can only be used with non-MLA models\.",
            )
        ],
    )
    monkeypatch.setattr(catalog_module, "CHECK_INTERVAL", 0.0)  # the next request checks
    body = post(client, near).get_json()
    assert body["fallback"] is False
    assert body["matches"][0]["id"] == "a000000000000099"


def test_an_answer_given_again_is_sent_as_built_until_its_links_or_verdicts_change(
    corpus_app, client, monkeypatch
):
    from app.api import serialize
    from app.corpus import catalog as catalog_module
    from tests.helpers import store_finished_run

    built = record_calls(monkeypatch, serialize, "match_response", 1)  # compact or not
    first = post(client, SGLANG_LOG)
    again = post(client, SGLANG_LOG)
    assert first.get_data() == again.get_data() and built == [False]
    assert first.get_json()["matches"][0]["repro"] is None
    compact = client.post("/api/v1/match?compact=1", json={"text": SGLANG_LOG})
    assert "why" not in compact.get_json()["matches"][0] and built == [False, True]

    # Its links name the public URL: another one, another body.
    corpus_app.config["ERRATA_PUBLIC_URL"] = "https://errata.example"
    moved = post(client, SGLANG_LOG).get_json()["matches"][0]["href"]
    assert moved.startswith("https://errata.example/") and len(built) == 3

    # A verdict for the matched record: the answer is built again and shows it.
    store_finished_run(
        corpus_app,
        SEED,
        "hopper",
        harness="sglang_attention_backend",
        env="sglang-0.5.23",
        trigger_outcome="REPRODUCED",
        fixes=[],
        trigger={"outcome": "REPRODUCED"},
        regressions=[],
    )
    monkeypatch.setattr(catalog_module, "CHECK_INTERVAL", 0.0)  # the next request checks
    shown = post(client, SGLANG_LOG).get_json()["matches"][0]["repro"]
    assert shown["hopper"]["trigger"] == "REPRODUCED" and len(built) == 4
    post(client, SGLANG_LOG)
    assert len(built) == 5  # with a verdict in it, never given again: verdicts change


def test_prose_that_holds_a_long_message_mid_sentence_finds_it(corpus_app, client):
    text = "why would trtllm_mla backend can only be used with MLA models. come up for Qwen?"
    body = post(client, text, limit=3).get_json()
    top = body["matches"][0]
    assert (top["id"], top["kind"]) == (SEED, "pattern")
    assert top["why"]["matchedText"].startswith("trtllm_mla backend can only be used")
    # Under a class the message keeps the segment rule: mid-sentence is no match.
    classed = post(client, "ValueError: why would " + text[10:], limit=3).get_json()
    assert all(m["id"] != SEED or m["kind"] != "pattern" for m in classed["matches"])


def test_a_traceback_cut_before_its_exception_line_says_so_through_the_api(corpus_app, client):
    text = (
        "Traceback (most recent call last):\n"
        '  File "/x/sglang/srt/managers/scheduler.py", line 2650, in run_scheduler_process\n'
        "    scheduler = Scheduler(server_args)\n"
        "                ^^^^^^^^^^^^^^^^^^^^^^\n"
    )
    resp = post(client, text, limit=3)
    assert resp.status_code == 200
    body = resp.get_json()
    assert body["parsed"]["exceptions"][0]["message"] == ""
    assert any("ends before its exception line" in u for u in body["answer"]["unknown"])
