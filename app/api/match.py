"""``POST /api/v1/match``: paste an error, get the records it is, best first, with the why."""

from __future__ import annotations

from flask import Response, current_app, request
from pydantic import ValidationError

from app.answers import services as answers
from app.api import serialize
from app.api.fastjson import json_bytes, read_json
from app.api.schemas import MatchRequest
from app.corpus.answers import MatchFilters
from app.errors import problem
from app.extensions import db, limiter
from app.links import record_page_url
from app.params import flag


def match_limit() -> str:
    return str(current_app.config["ERRATA_MATCH_RATE_LIMIT"])


@limiter.limit(match_limit)
def match() -> Response:
    if not request.is_json:
        return problem(415, "Unsupported Media Type", 'Send JSON: {"text": "..."}.')
    if (request.content_length or 0) > current_app.config["MAX_CONTENT_LENGTH"]:
        return problem(413, "Content Too Large", "The body is too large.")
    data = read_json()
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
    compact = flag(request.args, "compact")
    try:
        sent = answers.match_body(
            db.session,
            str(db.engine.url),
            body.text,
            body.limit,
            record_page_url,
            MatchFilters(body.repo, body.version, body.curated),
            lambda answer: json_bytes(serialize.match_response(answer, compact)),
            variant=compact,
        )
    except answers.TextTooLarge as exc:
        return problem(413, "Content Too Large", str(exc))
    return Response(sent, mimetype="application/json")
