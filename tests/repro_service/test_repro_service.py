"""The reproducer in the service: ``flask repro ...``, stored runs, pages and API."""

from __future__ import annotations

import copy

import pytest

from tests.conftest import import_envelopes

pytestmark = pytest.mark.unit  # the tests that run sglang add its marker

SEED = "1760fbb64ae487e4"


def link(runner):
    result = runner.invoke(args=["repro", "links"])
    assert result.exit_code == 0, result.output
    assert "linked 1 record" in result.output


@pytest.mark.sglang
def test_run_stores_verdicts_shown_on_page_and_api(seeded, runner, client, sglang_env):
    link(runner)
    result = runner.invoke(
        args=[
            "repro",
            "run",
            SEED,
            "--platform",
            "blackwell",
            "--platform",
            "hopper",
            "--repeats",
            "1",
        ]
    )
    assert result.exit_code == 0, result.output
    assert "trigger REPRODUCED on Blackwell (simulated), sglang 0.5.23" in result.output
    assert "trigger DIFFERENT_ERROR on Hopper (simulated)" in result.output

    runs = client.get(f"/api/v1/records/{SEED}/runs").get_json()
    assert [r["platform"] for r in runs["items"]] == ["hopper", "blackwell"]
    blackwell = runs["items"][1]
    assert blackwell["status"] == "done" and blackwell["simulated"] is True
    assert blackwell["drift"]["installed"]["line"] != 75  # moved since the record's commit
    assert {f["backend"]: f["outcome"] for f in blackwell["fixes"]}["fa3"] == "FIX_BREAKS"
    hopper_fixes = {f["backend"]: f["outcome"] for f in runs["items"][0]["fixes"]}
    assert hopper_fixes["fa3"] == "NEEDS_GPU"  # FA3 is Hopper's normal backend: never broken
    assert ".cache/errata" not in str(runs) and isinstance(blackwell["logTail"], str)
    assert runs["items"][0]["expectedMismatch"] is None  # harnesses.json: DIFFERENT_ERROR

    record = client.get(f"/api/v1/records/{SEED}").get_json()
    assert record["repro"]["blackwell"]["trigger"] == "REPRODUCED"
    assert record["repro"]["hopper"]["trigger"] == "DIFFERENT_ERROR"

    page = " ".join(client.get(f"/records/{SEED}").get_data(as_text=True).split())
    assert "Reproduced — Blackwell (simulated), sglang 0.5.23" in page
    assert "Different error — Hopper (simulated)" in page
    assert "Source drift: <strong>moved</strong>" in page
    assert "drift moved: record line 75, sglang 0.5.23 line 97" in result.output

    matched = client.post(
        "/api/v1/match",
        json={"text": "ValueError: trtllm_mla backend can only be used with MLA models."},
    ).get_json()["matches"][0]
    assert matched["repro"]["blackwell"]["trigger"] == "REPRODUCED"

    facet = client.get("/api/v1/records", query_string={"repro": "REPRODUCED"}).get_json()
    assert [i["id"] for i in facet["items"]] == [SEED]


@pytest.mark.sglang
def test_planted_regression_is_flagged(seeded, runner, client, tmp_path, seed_envelope, sglang_env):
    link(runner)
    first = runner.invoke(args=["repro", "run", SEED, "--platform", "blackwell", "--repeats", "1"])
    assert first.exit_code == 0 and "REPRODUCED" in first.output

    # The trigger now launches an MLA model: the real guard passes, the error is gone.
    changed = copy.deepcopy(seed_envelope)
    changed["record"]["exampleFix"] = changed["record"]["exampleFix"].replace(
        "--model qwen/Qwen2.5-7B --attention-backend trtllm_mla",
        "--model deepseek-ai/DeepSeek-V3 --attention-backend trtllm_mla",
    )
    import_envelopes(runner, tmp_path / "changed.jsonl", [changed])
    second = runner.invoke(args=["repro", "run", SEED, "--platform", "blackwell", "--repeats", "1"])
    assert "REGRESSION trigger: REPRODUCED ->" in second.output

    runs = client.get(f"/api/v1/records/{SEED}/runs").get_json()
    assert runs["items"][0]["regressions"][0]["what"] == "trigger"
    assert runs["latest"]["blackwell"]["regressed"] is True
    assert "regression" in client.get(f"/records/{SEED}").get_data(as_text=True)
    regressions = client.get("/api/v1/regressions").get_json()
    assert regressions["total"] == 1 and regressions["items"][0]["recordId"] == SEED
    runs_page = client.get("/runs").get_data(as_text=True)
    first_section = runs_page.index('id="regressions"')
    assert runs_page.index(SEED, first_section) < runs_page.index('id="runs"')
    assert "NOT_REPRODUCED" in client.get("/runs/matrix").get_data(as_text=True) or (
        "DIFFERENT_ERROR" in client.get("/runs/matrix").get_data(as_text=True)
    )


def test_missing_environment_is_an_invalid_run(seeded, runner, client, tmp_path, monkeypatch):
    monkeypatch.setenv("ERRATA_ENV_DIR", str(tmp_path / "no-envs"))
    link(runner)
    result = runner.invoke(args=["repro", "run", SEED, "--platform", "blackwell"])
    assert result.exit_code == 1
    assert "invalid" in result.output and "repro.envs.build" in result.output
    run = client.get(f"/api/v1/records/{SEED}/runs").get_json()["items"][0]
    assert run["status"] == "invalid" and run["runOutcome"] == "ENV_MISSING"
    assert run["triggerOutcome"] is None
    # An invalid run is not a verdict.
    assert client.get(f"/api/v1/records/{SEED}").get_json()["repro"] is None


def test_unknown_record_and_no_harness(corpus_app, runner):
    result = runner.invoke(args=["repro", "run", "nope"])
    assert result.exit_code != 0 and "no record with id 'nope'" in result.output
    result = runner.invoke(args=["repro", "run", "a000000000000003"])
    assert result.exit_code != 0 and "no harness applies" in result.output
    assert "Traceback" not in result.output


def test_runs_of_unknown_record_is_404(seeded, client):
    assert client.get("/api/v1/records/nope/runs").status_code == 404
