"""``POST /api/v1/match``: paste an error, get the records it is, best first, with the why."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, jsonify, request
from pydantic import ValidationError

from app.api.blueprint import bp
from app.api.records import flag, record_href
from app.api.schemas import MatchRequest
from app.errors import problem
from app.extensions import db, limiter
from app.matching import match_error
from app.records.match_index import get_catalog
from app.repro.services import latest_verdicts

MAX_TEXT_BYTES = 256 * 1024


def match_payload(text: str, limit: int, compact: bool = False) -> dict[str, Any]:
    """Match ``text`` against the store and build the response body."""
    catalog = get_catalog(db.session, str(db.engine.url))
    result = match_error(text, catalog.index, limit=limit)
    ids = [m.record_id for m in result.matches]
    verdicts = latest_verdicts(db.session, [i for i in ids if i in catalog.with_verdicts])
    items = []
    for m in result.matches:
        entry = catalog.index.get(m.record_id)
        if entry is None:
            continue
        item: dict[str, Any] = {
            "id": entry.record_id,
            "kind": m.why.kind,
            "score": round(m.score, 4),
            "errorMessage": entry.error_message,
            "errorClass": entry.error_class,
            "solutions": catalog.solutions.get(entry.record_id, []),
            "href": record_href(entry.record_id),
            "repro": verdicts.get(entry.record_id) or None,
        }
        if not compact:
            item["why"] = m.why.to_dict()
        items.append(item)
    body: dict[str, Any] = {"matches": items, "fallback": result.fallback}
    if result.incomplete:
        body["incomplete"] = "the verification budget ran out; some patterns were not tried"
    if not compact:
        body["parsed"] = result.parsed.to_dict()
    return body


def match_limit() -> str:
    return str(current_app.config["ERRATA_MATCH_RATE_LIMIT"])


@bp.post("/match")
@limiter.limit(match_limit)
def match() -> Response:
    if not request.is_json:
        return problem(415, "Unsupported Media Type", 'Send JSON: {"text": "..."}.')
    if (request.content_length or 0) > current_app.config["MAX_CONTENT_LENGTH"]:
        return problem(413, "Content Too Large", "The body is too large.")
    data = request.get_json(silent=True)
    if data is None:
        return problem(400, "Bad Request", "The body is not valid JSON.")
    try:
        body = MatchRequest.model_validate(data)
    except ValidationError as exc:
        errors = [
            {"field": ".".join(str(p) for p in e["loc"]) or "(body)", "reason": e["msg"]}
            for e in exc.errors(include_url=False, include_input=False)
        ]
        return problem(
            422, "Unprocessable Content", "The body does not follow MatchRequest.", errors=errors
        )
    if len(body.text.encode("utf-8", "surrogatepass")) > MAX_TEXT_BYTES:
        return problem(413, "Content Too Large", f"text is over {MAX_TEXT_BYTES} bytes.")
    return jsonify(match_payload(body.text, body.limit, flag(request.args, "compact")))
