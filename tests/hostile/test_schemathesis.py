"""The OpenAPI document against the app, in-process: schemathesis generates requests for
every operation (with an admin token for the authenticated ones) on a seeded corpus and
checks no 5xx, documented status codes, content types and response schemas."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from app.api.docs import openapi_document
from tests.hostile.conftest import HOSTILE, make_token

pytestmark = pytest.mark.unit  # besides the database backend, no service

# Bodies whose validity the JSON Schema cannot fully say (a messagePattern must be safe, an
# ISO timestamp must parse, a runner report must carry a known outcome): a schema-valid body
# may still be refused with a documented 4xx there, so only that one check is left out.
SEMANTIC_BODIES = {
    ("/api/v1/records", "POST"),
    ("/api/v1/records/{record_id}", "PUT"),
    ("/api/v1/jobs/{job_id}/result", "POST"),
}
OPERATIONS = [
    (path, method.upper()) for path, ops in openapi_document()["paths"].items() for method in ops
]


def test_document_is_valid_openapi() -> None:
    from openapi_spec_validator import validate

    validate(openapi_document())


@pytest.mark.parametrize(("path", "method"), OPERATIONS, ids=[f"{m} {p}" for p, m in OPERATIONS])
def test_operation_conforms(corpus_app, runner, path: str, method: str) -> None:
    token = make_token(runner, "admin")
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", corpus_app)
    operation = schema[path][method]
    # Schemathesis sends requests' default `Accept-Encoding: gzip` but its WSGI transport does
    # not decode what it asked for; an HTTP client would. Bodies are checked uncompressed.
    headers = {"Authorization": f"Bearer {token}", "Accept-Encoding": "identity"}

    @settings(HOSTILE, max_examples=25)
    @given(case=operation.as_strategy())
    def check(case) -> None:
        case.call_and_validate(headers=headers, excluded_checks=excluded)

    excluded = [positive_data_acceptance] if (path, method) in SEMANTIC_BODIES else []

    check()
