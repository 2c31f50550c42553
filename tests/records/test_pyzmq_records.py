"""The curated record of pyzmq's `Address already in use (addr='...')` (`data/records/
pyzmq.jsonl`): a ZeroMQ port sglang derives from `--port` that another process holds.

pyzmq re-raises libzmq's error with the address appended; nothing in sglang's code words
it, so no drafted record has it.
"""

from __future__ import annotations

import pytest

from tests.records.conftest import RECORDS, import_curated, top_match

pytestmark = pytest.mark.integration

# Real pastes, as written (sources in the comments).
PASTES = {
    # sgl-project/sglang#4599 (the PR's description; its elision is the author's)
    "dp-attention-bench": (
        "DP attention is enabled. The chunked prefill size is adjusted to 4096 to avoid MoE "
        "kernel issues.\nserver_args=ServerArgs(..., schedule_conservativeness=0.09, ...)\n\n"
        "... a bunch of lines ...\n\n"
        "zmq.error.ZMQError: Address already in use (addr='tcp://127.0.0.1:30236')"
    ),
    # vllm-project/vllm#7196 (title)
    "title": "[Bug]: ZMQError: Address already in use (addr='tcp://127.0.0.1:5570')",
}


@pytest.fixture
def pyzmq_records(app, runner):
    import_curated(runner, RECORDS / "pyzmq.jsonl")
    return app


@pytest.mark.parametrize("name", sorted(PASTES))
def test_each_paste_finds_the_address_in_use_record(pyzmq_records, client, name):
    top, record = top_match(client, PASTES[name])
    assert record["slug"] == "zmq-bind-address-already-in-use"
    assert (top["curated"], top["repo"]) == (True, "zeromq/pyzmq")
    assert any("--port" in s for s in top["solutions"])


def test_pythons_own_address_in_use_is_at_most_similar_text(pyzmq_records, client):
    """A plain socket's OSError (uvicorn's port) names no ZeroMQ address: the record is no
    pattern match for it, only text alike with a class that differs."""
    text = "OSError: [Errno 98] Address already in use"
    body = client.post("/api/v1/match", json={"text": text}).get_json()
    zmq = [m for m in body["matches"] if m["repo"] == "zeromq/pyzmq"]
    assert all((m["kind"], m["why"]["classAgreement"]) == ("text", "different") for m in zmq)
