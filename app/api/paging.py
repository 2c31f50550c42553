"""One pagination shape for every list: ``items``, ``total``, ``page``, ``perPage``, ``next``,
and RFC 8288 ``Link`` headers (``first``, ``prev``, ``next``, ``last``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Response, jsonify, request
from pydantic import BaseModel

from app.links import link
from app.params import int_arg

PAGING_PARAMS = ("page", "per_page")


@dataclass(frozen=True)
class Paging:
    page: int
    per_page: int

    @classmethod
    def from_args(cls, default: int, high: int, alias: str | None = None) -> Paging:
        """``page`` and ``per_page`` (or its older ``alias``) from the query string."""
        per_page = int_arg(request.args, "per_page", default, 1, high)
        if alias and alias in request.args and "per_page" not in request.args:
            per_page = int_arg(request.args, alias, default, 1, high)
        return cls(int_arg(request.args, "page", 1, 1, 10_000), per_page)


def _page_url(page: int) -> str:
    args: dict[str, Any] = request.args.to_dict(flat=False)
    args["page"] = [str(page)]
    return link(str(request.endpoint), args, external=True, **(request.view_args or {}))


def page_body(paging: Paging, total: int, items: list[Any]) -> dict[str, Any]:
    has_next = paging.page * paging.per_page < total
    return {
        "items": items,
        "total": total,
        "page": paging.page,
        "perPage": paging.per_page,
        "next": _page_url(paging.page + 1) if has_next else None,
    }


def paged_response(model: BaseModel, paging: Paging, total: int) -> Response:
    """``model`` as JSON with the page's ``Link`` header."""
    response = jsonify(model.model_dump(mode="json", exclude_unset=True))
    last = max(1, -(-total // paging.per_page))
    rels = {"first": 1, "last": last}
    if paging.page > 1:
        rels["prev"] = min(paging.page - 1, last)
    if paging.page < last:
        rels["next"] = paging.page + 1
    response.headers["Link"] = ", ".join(
        f'<{_page_url(page)}>; rel="{rel}"' for rel, page in rels.items()
    )
    return response
