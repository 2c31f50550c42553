"""The OpenAPI document matches the routes both ways, and every live response of every
operation (errors included) validates against it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from app import create_app
from app.matching.services import CLASS_DIFFERENT, CLASS_EXACT, CLASS_NAME, CLASS_UNKNOWN

pytestmark = pytest.mark.unit

SEED = "1760fbb64ae487e4"
DEAD_BROKER = "redis://127.0.0.1:1/0"
# A record no harness covers (another file, another message).
UNHARNESSED = {
    "filePath": "python/sglang/srt/other.py",
    "errorMessage": "an error no harness reproduces",
    "messagePattern": "an error no harness reproduces",
    "sourceCode": None,
    "sourceCodeStart": None,
    "sourceCodeEnd": None,
    "githubUrl": None,
}
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/x/site-packages/sglang/srt/layers/attention/x.py", line 10, in f\n'
    "ValueError: nothing here matches this made-up message\n"
)


def _document(client) -> dict[str, Any]:
    doc = client.get("/api/v1/openapi.json").get_json()
    validate(doc)
    return doc


def _rules(app) -> set[tuple[str, str]]:
    out = set()
    for rule in app.url_map.iter_rules():
        if not rule.endpoint.startswith("api."):
            continue
        path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)
        out |= {(path, m.lower()) for m in rule.methods or () if m not in {"HEAD", "OPTIONS"}}
    return out


def test_document_and_routes_agree_both_ways(app, client):
    doc = _document(client)
    documented = {(p, m) for p, ops in doc["paths"].items() for m in ops}
    served = _rules(app)
    assert served - documented == set(), "routes missing from the document"
    assert documented - served == set(), "documented paths that no route serves"
    for ops in doc["paths"].values():
        for op in ops.values():
            assert op["tags"] and op["operationId"] and "400" in op["responses"]


def test_class_agreement_enum_is_the_matchers(client):
    schema = _document(client)["components"]["schemas"]["MatchWhy"]
    assert set(schema["properties"]["classAgreement"]["enum"]) == {
        CLASS_EXACT,
        CLASS_NAME,
        CLASS_DIFFERENT,
        CLASS_UNKNOWN,
    }


class Checker:
    """Validates each response against the operation the app routed it to."""

    def __init__(self, app, client) -> None:
        self.app, self.client = app, client
        self.doc = _document(client)
        self.seen: set[tuple[str, str, str]] = set()

    def __call__(self, method: str, path: str, expect: int, **kwargs: Any) -> Any:
        response = self.client.open(path, method=method, **kwargs)
        assert response.status_code == expect, (method, path, response.get_data(as_text=True))
        adapter = self.app.url_map.bind("errata.test")
        endpoint, _ = adapter.match(path.split("?")[0], method=method)
        rule = next(r for r in self.app.url_map.iter_rules(endpoint))
        doc_path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)
        op = self.doc["paths"][doc_path][method.lower()]
        declared = op["responses"].get(str(response.status_code))
        assert declared is not None, f"{method} {path}: {response.status_code} not declared"
        self.seen.add((doc_path, method.lower(), str(response.status_code)))
        content = declared.get("content")
        if content is None:
            assert not response.get_data(), (method, path)
            return response
        assert response.mimetype in content, (method, path, response.mimetype)
        schema = content[response.mimetype]["schema"]
        if response.mimetype.endswith("json"):
            body = response.get_json()
            validator = Draft202012Validator({**schema, "components": self.doc["components"]})
            errors = sorted(validator.iter_errors(body), key=str)
            assert not errors, f"{method} {path}: {errors[0].message} at {list(errors[0].path)}"
        for header in declared.get("headers", {}):
            if header in {"ETag", "Cache-Control", "Link"}:
                assert header in response.headers, (method, path, header)
        return response


def _job_secret(app, job_id: str) -> str:
    from sqlalchemy import select

    from app.extensions import db
    from app.jobs import services as jobs
    from app.repro.models import ReproRun

    with app.app_context():
        run = db.session.scalar(select(ReproRun).where(ReproRun.job_id == job_id))
        secret = str(jobs.job_message(db.session, run, repeats=1)["secret"])
        db.session.commit()
        db.session.remove()
    return secret


def _token(runner, scope: str) -> dict[str, str]:
    result = runner.invoke(args=["tokens", "create", "--name", f"t-{scope}", "--scope", scope])
    assert result.exit_code == 0, result.output
    return {"Authorization": f"Bearer {result.stdout.strip()}"}


def test_every_operation_answers_as_documented(seeded, app, client, runner):
    assert runner.invoke(args=["repro", "links"]).exit_code == 0
    app.config["ERRATA_BROKER_URL"] = DEAD_BROKER
    write, worker = _token(runner, "write"), _token(runner, "worker")
    check = Checker(app, client)
    record = client.get(f"/api/v1/records/{SEED}").get_json()
    line = {
        k: v
        for k, v in record.items()
        if k not in {"datasetVersion", "draft", "href", "links", "repro", "site"}
    }
    envelope = {"record": line, "datasetVersion": record["datasetVersion"]}

    check("GET", "/api/v1/records", 200)
    check("GET", "/api/v1/records?compact=true&facets=true&per_page=1", 200)
    check("GET", "/api/v1/records?severity=fatal", 400)
    check("GET", "/api/v1/records?nope=1", 400)
    etag = check("GET", f"/api/v1/records/{SEED}", 200).headers["ETag"]
    check("GET", f"/api/v1/records/{SEED}", 304, headers={"If-None-Match": etag})
    check("GET", f"/api/v1/records/{SEED}?compact=1", 200)
    check("GET", "/api/v1/records/missing", 404)
    check("GET", "/api/v1/search?q=mla", 200)
    check("GET", "/api/v1/search?q=", 400)
    check("POST", "/api/v1/match", 200, json={"text": record["errorMessage"]})
    check("POST", "/api/v1/match", 200, json={"text": TRACEBACK})
    check("POST", "/api/v1/match?compact=true", 200, json={"text": TRACEBACK})
    check("POST", "/api/v1/match", 422, json={"text": ""})
    check("POST", "/api/v1/match", 415, data="x")
    check("POST", "/api/v1/match", 413, json={"text": "x" * (300 * 1024)})
    check("POST", "/api/v1/records", 401, json=envelope)
    check("POST", "/api/v1/records", 403, json=envelope, headers=worker)
    check("POST", "/api/v1/records", 409, json=envelope, headers=write)
    check("POST", "/api/v1/records", 415, data="x", headers=write)
    check("POST", "/api/v1/records", 422, json={"record": {}}, headers=write)
    created = {**envelope, "record": {**line, "id": "openapi-check"}}
    check("POST", "/api/v1/records", 201, json=created, headers=write)
    check("PUT", f"/api/v1/records/{SEED}", 200, json=envelope, headers=write)
    check("PUT", "/api/v1/records/other", 422, json=envelope, headers=write)
    check(
        "PUT",
        "/api/v1/records/openapi-put",
        201,
        headers=write,
        json={**envelope, "record": {**line, **UNHARNESSED, "id": "openapi-put"}},
    )
    failed = check("POST", f"/api/v1/records/{SEED}/runs", 503, json={}, headers=write).get_json()
    check("POST", "/api/v1/records/missing/runs", 404, json={}, headers=write)
    check("POST", "/api/v1/records/openapi-put/runs", 422, json={}, headers=write)
    check("POST", f"/api/v1/records/{SEED}/runs", 400, json={"platform": "tpu"}, headers=write)
    job = failed["jobId"]
    secret = _job_secret(app, job)  # what the broker would have delivered to the worker
    start = {"worker": "w", "secret": secret}
    check("POST", f"/api/v1/jobs/{job}/start", 200, json=start, headers=worker)
    check("POST", "/api/v1/jobs/none/start", 404, json=start, headers=worker)
    check("POST", f"/api/v1/jobs/{job}/start", 422, json={}, headers=worker)
    check("POST", f"/api/v1/jobs/{job}/start", 403, json={"secret": "x" * 43}, headers=worker)
    report = {"worker": "w", "secret": secret, "report": {"outcome": "TIMEOUT"}}
    check("POST", f"/api/v1/jobs/{job}/result", 200, json=report, headers=worker)
    check("POST", "/api/v1/jobs/none/result", 404, json=report, headers=worker)
    admin = _token(runner, "admin")
    reason = {"reason": "checked by hand: the harness was misconfigured"}
    run_id = failed["runId"]
    check("POST", f"/api/v1/runs/{run_id}/invalidate", 200, json=reason, headers=admin)
    check("POST", "/api/v1/runs/999999/invalidate", 404, json=reason, headers=admin)
    check("POST", f"/api/v1/runs/{run_id}/invalidate", 403, json=reason, headers=write)
    check("POST", "/api/v1/records/openapi-put/retract", 200, json=reason, headers=admin)
    check("POST", "/api/v1/records/missing/retract", 404, json=reason, headers=admin)
    check("GET", "/api/v1/records/openapi-put", 410)
    check("GET", f"/api/v1/records/{SEED}/runs", 200)
    check("GET", f"/api/v1/records/{SEED}/runs?limit=1", 200)
    check("GET", "/api/v1/records/missing/runs", 404)
    check("GET", "/api/v1/runs?status=done&platform=blackwell", 200)
    check("GET", "/api/v1/runs", 200)
    check("GET", "/api/v1/runs?status=paused", 400)
    check("GET", "/api/v1/regressions", 200)
    check("GET", "/api/v1/health", 200)
    check("GET", "/api/v1/ready", 200)
    check("GET", "/api/v1/openapi.json", 200)
    check("GET", "/api/v1/docs", 200)
    documented = {(p, m) for p, ops in check.doc["paths"].items() for m in ops}
    assert {(p, m) for p, m, _ in check.seen} == documented


@pytest.mark.committed  # a second app, with its own engine, reads the seeded rows
def test_rate_limited_answer_is_documented(seeded, database_url, app):
    limited = create_app(
        {
            "TESTING": True,
            "SQLALCHEMY_DATABASE_URI": database_url,
            "SERVER_NAME": "errata.test",
            "ERRATA_MATCH_RATE_LIMIT": "1/minute",
        }
    )
    check = Checker(limited, limited.test_client())
    check("POST", "/api/v1/match", 200, json={"text": "x"})
    response = check("POST", "/api/v1/match", 429, json={"text": "x"})
    assert response.headers["Retry-After"]
