"""Honest run bookkeeping: overdue runs close, reports name package-relative files,
log tails and expected-outcome mismatches show, explorer results reach the record."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from app.extensions import db
from app.repro import services, sweep
from app.repro.models import ReproRun
from tests.helpers import post_match_page

SEED = "1760fbb64ae487e4"
ENV_FILE = (
    "/root/.cache/errata/envs/sglang-0.5.23-c00234ee2a1a/lib/python3.11/site-packages/"
    "sglang/srt/layers/attention/attention_registry.py"
)


@pytest.fixture
def ctx(seeded):
    """The seeded app's context, for calling services directly."""
    with seeded.app_context():
        yield seeded


def _link(runner):
    result = runner.invoke(args=["repro", "links"])
    assert result.exit_code == 0, result.output


def _report(trigger_outcome: str) -> dict:
    error = {
        "class": "ValueError",
        "message": "trtllm_mla backend can only be used with MLA models.",
        "file": ENV_FILE,
        "line": 97,
        "function": "create_trtllm_mla_backend",
    }
    return {
        "outcome": "COMPLETED",
        "duration_s": 1.0,
        "result": {
            "sglang_version": "0.5.23",
            "platform": {"name": "blackwell", "simulated": True},
            "trigger": {"outcome": trigger_outcome, "error": error},
            "fixes": [{"scenario": "fix:triton", "backend": "triton", "outcome": "FIXED",
                       "command": "python -m sglang.launch_server --attention-backend triton"}],
            "drift": None,
            "log_tail": [f"INFO sglang: loaded {ENV_FILE}", "WARNING x: last line"],
        },
    }  # fmt: skip


@pytest.mark.integration
def test_report_is_stored_without_env_paths_and_shows_its_log(ctx, runner, client):
    _link(runner)
    run = services.create_run(db.session, SEED, "blackwell")
    services.record_report(db.session, run, _report("REPRODUCED"))
    db.session.commit()
    body = client.get(f"/api/v1/records/{SEED}/runs").get_json()
    assert ".cache/errata" not in json.dumps(body)
    item = body["items"][0]
    assert item["trigger"]["error"]["file"] == "sglang/srt/layers/attention/attention_registry.py"
    assert item["logTail"].endswith("WARNING x: last line")
    assert body["latest"]["blackwell"]["reproduced"] is True
    assert body["latest"]["blackwell"]["fixProven"] is True
    assert item["expectedMismatch"] is None
    page = client.get(f"/records/{SEED}").get_data(as_text=True)
    assert "WARNING x: last line" in page and ".cache/errata" not in page


@pytest.mark.integration
def test_expected_outcome_mismatch_is_flagged(ctx, runner, client):
    _link(runner)  # data/harnesses.json expects REPRODUCED on blackwell
    run = services.create_run(db.session, SEED, "blackwell")
    services.record_report(db.session, run, _report("NOT_REPRODUCED"))
    db.session.commit()
    body = client.get(f"/api/v1/records/{SEED}/runs").get_json()
    assert body["items"][0]["expectedMismatch"] == {
        "expected": "REPRODUCED",
        "observed": "NOT_REPRODUCED",
    }
    assert body["latest"]["blackwell"]["expectedMismatch"] is True
    page = " ".join(client.get(f"/records/{SEED}").get_data(as_text=True).split())
    assert "expected REPRODUCED, got NOT_REPRODUCED" in page


@pytest.mark.integration
def test_overdue_running_run_is_closed(ctx, runner, client):
    _link(runner)
    run = services.create_run(db.session, SEED, "hopper")
    services.start(db.session, run, "w1")
    fresh = services.create_run(db.session, SEED, "blackwell")
    services.start(db.session, fresh, "w2")
    run.started_at = services.utcnow() - dt.timedelta(seconds=services.OVERDUE_AFTER_S + 5)
    db.session.commit()
    closed = services.sweep_overdue(db.session)
    db.session.commit()
    assert [r.id for r in closed] == [run.id]
    stored = db.session.get(ReproRun, run.id)
    assert stored.status == "failed" and stored.run_outcome == "TIMEOUT"
    assert db.session.get(ReproRun, fresh.id).status == "running"
    result = runner.invoke(args=["repro", "sweep-overdue"])
    assert result.exit_code == 0 and "closed 0" in result.output


@pytest.mark.integration
def test_explorer_results_reach_the_record(seeded, client, tmp_path, monkeypatch):
    site = {
        "file": "sglang/srt/layers/attention/attention_registry.py",
        "line": 97,
        "function": "create_trtllm_mla_backend",
        "class": "ValueError",
        "message": "trtllm_mla backend can only be used with MLA models.",
        "template": "trtllm_mla backend can only be used with MLA models.",
        "trigger": {
            "command": "python -m sglang.launch_server --model-path qwen__Qwen2.5-7B "
            "--attention-backend trtllm_mla --device cuda",
            "platform": "blackwell",
            "model": "qwen__Qwen2.5-7B",
            "config": {"sliding_window": None, "num_hidden_layers": 2},
        },
        "repeats": [True, True, True],
        "reproduced": True,
        "platforms": {"blackwell": "REPRODUCED", "hopper": "DIFFERENT_ERROR"},
        "fixes": [
            {
                "change": "remove --attention-backend trtllm_mla",
                "outcome": "FIXED",
                "reached": "launched",
                "command": "python -m sglang.launch_server --model-path "
                "qwen__Qwen2.5-7B --device cuda",
            },
        ],  # fmt: skip
        "fixed": ["python -m sglang.launch_server --model-path qwen__Qwen2.5-7B --device cuda"],
    }
    data = {"repo": "sgl-project/sglang", "sglang_version": "0.5.23", "sites": [site]}
    (tmp_path / "sglang-0.5.23.json").write_text(json.dumps(data))
    monkeypatch.setattr(sweep, "SWEEP_DIR", tmp_path)
    body = client.get(f"/api/v1/records/{SEED}/runs").get_json()
    assert body["sweep"]["reproduced"] is True and body["sweep"]["fixProven"] is True
    found = body["sweep"]["sites"][0]
    assert found["trigger"]["command"].endswith("--attention-backend trtllm_mla --device cuda")
    assert found["provenFixes"] == site["fixed"]
    page = " ".join(client.get(f"/records/{SEED}").get_data(as_text=True).split())
    assert "Explorer: reproduced / fix proven" in page
    assert "remove --attention-backend trtllm_mla" in page
    # A trigger that needed config.json edits says which (a removed key, a set value).
    assert found["trigger"]["config"] == {"sliding_window": None, "num_hidden_layers": 2}
    assert 'edited (<span class="sweep-config"><code>sliding_window</code> removed, ' in page
    assert "<code>num_hidden_layers</code> = <code>2</code>" in page
    # The match answer says it for each match, in the API and on /match.
    text = "ValueError: trtllm_mla backend can only be used with MLA models."
    matches = client.post("/api/v1/match", json={"text": text}).get_json()["matches"]
    seed = next(m for m in matches if m["id"] == SEED)
    assert seed["sweep"] == {"reproduced": True, "fixProven": True}
    assert all(m["sweep"] is None for m in matches if m["id"] != SEED)
    html = post_match_page(client, text).get_data(as_text=True)
    page = " ".join(html.split())
    assert f'href="/records/{SEED}#sweep">reproduced / fix proven</a>' in page


@pytest.mark.unit
def test_a_sweep_listing_is_reused_for_a_while_then_read_again(tmp_path, monkeypatch):
    first = {"repo": "sgl-project/sglang", "sglang_version": "0.5.23", "sites": []}
    (tmp_path / "sglang-0.5.23.json").write_text(json.dumps(first))
    assert [s["meta"]["sglang_version"] for s in sweep.sweeps(tmp_path)] == ["0.5.23"]
    (tmp_path / "sglang-0.5.24.json").write_text(json.dumps({**first, "sglang_version": "0.5.24"}))
    assert len(sweep.sweeps(tmp_path)) == 1  # within LISTING_TTL: the listing is reused
    monkeypatch.setattr(sweep, "LISTING_TTL", 0.0)
    listed = sweep.sweeps(tmp_path)
    assert [s["meta"]["sglang_version"] for s in listed] == ["0.5.23", "0.5.24"]
    # Read again, unchanged: the very same list (answers built on it are still good).
    assert sweep.sweeps(tmp_path) is listed
    (tmp_path / "sglang-0.5.24.json").unlink()
    assert [s["meta"]["sglang_version"] for s in sweep.sweeps(tmp_path)] == ["0.5.23"]
    assert sweep.sweeps(tmp_path / "absent") == []
