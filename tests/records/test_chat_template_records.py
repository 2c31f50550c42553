"""The curated records of chat-template errors (`data/records/chat-templates.jsonl`): what a
model's chat template raises while sglang renders a chat request's messages.

The words are the template's own (`raise_exception('System role not supported')`) or
jinja2's (`'dict object' has no attribute 'function'`); neither is drafted from code, and
users paste them as tracebacks, issue titles and the 400 bodies their clients got.
"""

from __future__ import annotations

import pytest

from tests.records.conftest import RECORDS, import_curated, top_match

pytestmark = pytest.mark.integration

CHAT_RECORDS = RECORDS / "chat-templates.jsonl"

# Real pastes, as written (sources in the comments).
PASTES = {
    # sgl-project/sglang#1342 (title)
    "system-role-title": (
        "jinja2.exceptions.TemplateError: System role not supported",
        "chat-template-system-role-not-supported",
    ),
    # infiniflow/ragflow#11021 (the client's log line)
    "roles-alternate-400-body": (
        "ERROR: Error code: 400 - {'object': 'error', 'message': 'Conversation roles must "
        "alternate user/assistant/user/assistant/... Conversation roles must alternate "
        "user/assistant/user/assistant/...', 'type': 'BadRequestError', 'param': None, "
        "'code': 400}",
        "chat-template-roles-must-alternate",
    ),
    # run-llama/llama_index#11731 (title)
    "roles-alternate-title": (
        "[Bug]: TemplateError: Conversation roles must alternate user/assistant/user/assistant/...",
        "chat-template-roles-must-alternate",
    ),
    # sgl-project/sglang#9891 (title)
    "undefined-attribute-title": (
        "[Bug] jinja2.exceptions.UndefinedError: 'dict object' has no attribute 'function'",
        "jinja2-undefined-has-no-attribute",
    ),
    # oobabooga/textgen#6675 (title)
    "undefined-name-title": (
        "granite 2.1 w llama.cpp jinja error jinja2.exceptions.UndefinedError: "
        "'strftime_now' is undefined",
        "jinja2-undefined-name",
    ),
    # vllm-project/vllm#15147 (title)
    "undefined-name-prose": (
        "[Bug]: Error running ShieldGemma: 'guideline' is undefined",
        "jinja2-undefined-name",
    ),
}


@pytest.fixture
def chat_template_records(app, runner):
    import_curated(runner, CHAT_RECORDS)
    return app


@pytest.mark.parametrize("name", sorted(PASTES))
def test_each_paste_finds_its_chat_template_record(chat_template_records, client, name):
    text, slug = PASTES[name]
    top, record = top_match(client, text)
    assert record["slug"] == slug
    assert top["curated"] is True
    assert top["repo"] in ("huggingface/transformers", "pallets/jinja")
    assert any("--chat-template" in s for s in top["solutions"])


def test_pythons_own_attribute_error_is_not_jinjas(chat_template_records, client):
    """jinja2 quotes the value's type with `object` inside the quotes; Python outside."""
    text = "AttributeError: 'dict' object has no attribute 'function'"
    body = client.post("/api/v1/match", json={"text": text}).get_json()
    assert all(m["repo"] != "pallets/jinja" for m in body["matches"])
