"""JSON in and out of the match endpoint with orjson (the API's hottest path): the same
documents as the app's ``get_json``/``jsonify`` (keys in insertion order, a newline at the
end), for a fraction of the cost. What orjson refuses and the standard library takes (a
lone surrogate ``"\\ud800"``, ``NaN``, UTF-16 bodies) goes through Flask's own provider."""

from __future__ import annotations

from typing import Any

import orjson
from flask import current_app, request

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE


def read_json() -> Any:
    """The request body as JSON, or None when it is not JSON (as ``get_json(silent=True)``)."""
    try:
        return orjson.loads(request.get_data())
    except orjson.JSONDecodeError:
        return request.get_json(silent=True)


def json_bytes(body: Any) -> bytes:
    try:
        return orjson.dumps(body, option=_OPTIONS)
    except TypeError:  # a str orjson will not encode (a lone surrogate): Flask's encoder
        return (current_app.json.dumps(body) + "\n").encode("utf-8", "surrogatepass")
