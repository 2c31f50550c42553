"""Links the pages and the API hand out: built from known parameters only, absolute ones
on ``ERRATA_PUBLIC_URL`` when it is set (never on a client's Host header then)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlencode

from flask import current_app, request, url_for

# Characters a URL path segment keeps as they are: an id made only of them is the same
# in every record page URL but for itself, so one URL template serves them all.
_PLAIN_ID = re.compile(r"[A-Za-z0-9._~-]+")
_SLOT = "0errata0slot0"


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
    """The record's page: stable and absolute, for an LSP diagnostic's href. An answer
    links many records: the URL is built once per host and the id put in its place."""
    if not _PLAIN_ID.fullmatch(record_id):
        return link("records.record_page", external=True, record_id=record_id)
    head, tail = record_page_url_template()
    return head + record_id + tail


def record_page_url_template() -> tuple[str, str]:
    """A record page URL split where its id goes, kept per app for each of the few things
    it depends on (the public URL, else the request's scheme, host and script root)."""
    env = request.environ
    key = (
        current_app.config.get("ERRATA_PUBLIC_URL"),
        env.get("wsgi.url_scheme"),
        env.get("HTTP_HOST"),
        env.get("SERVER_NAME"),
        env.get("SERVER_PORT"),
        env.get("SCRIPT_NAME"),
    )
    cache: dict[tuple[Any, ...], tuple[str, str]] = current_app.extensions.setdefault(
        "errata_record_urls", {}
    )
    found = cache.get(key)
    if found is None:
        url = link("records.record_page", external=True, record_id=_SLOT)
        head, _, tail = url.partition(_SLOT)
        if len(cache) >= 64:  # the Host header is the client's: never grow without bound
            cache.clear()
        found = cache[key] = (head, tail)
    return found
