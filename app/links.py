"""Links the pages and the API hand out: built from known parameters only, absolute ones
on ``ERRATA_PUBLIC_URL`` when it is set (never on a client's Host header then)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlencode

from flask import current_app, request, url_for


def absolute(path: str) -> str:
    """``path`` (from ``url_for``) on the public URL, or on this request's host."""
    base = str(current_app.config.get("ERRATA_PUBLIC_URL") or "").rstrip("/")
    if base:
        root = request.script_root if request else ""
        return base + (path[len(root) :] if root and path.startswith(root) else path)
    return request.host_url.rstrip("/") + path


def link(
    endpoint: str,
    query: Mapping[str, Iterable[str]] | None = None,
    external: bool = False,
    **values: Any,
) -> str:
    """URL of ``endpoint`` with path ``values`` and a query string built here, so query
    names such as ``_anchor`` or ``endpoint`` are plain parameters, never url_for's own."""
    path = url_for(endpoint, **values)
    pairs = [(name, v) for name, vs in (query or {}).items() for v in vs]
    url = f"{path}?{urlencode(pairs)}" if pairs else path
    return absolute(url) if external else url


def record_page_url(record_id: str) -> str:
    """The record's page: stable and absolute, for an LSP diagnostic's href."""
    return link("records.record_page", external=True, record_id=record_id)
