"""The OpenAPI document of this API, made from the route table."""

from __future__ import annotations

from functools import cache
from typing import Any

from app.api.openapi import document
from app.api.routes import ROUTES


@cache
def openapi_document() -> dict[str, Any]:
    return document(ROUTES)
