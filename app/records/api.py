"""REST API v1: record reads."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request, url_for
from sqlalchemy import func, select

from app.errors import problem
from app.extensions import db
from app.records import services
from app.records.models import Record

bp = Blueprint("api_records", __name__, url_prefix="/api/v1")

MAX_PAGE_SIZE = 200


def record_links(row: Record) -> dict[str, Any]:
    return {
        "self": url_for("api_records.get_record", record_id=row.id, _external=True),
        "html": url_for("records.record_page", record_id=row.id, _external=True),
        "github": row.github_url,
    }


def record_payload(row: Record) -> dict[str, Any]:
    body = services.record_to_dict(row)
    body["datasetVersion"] = row.dataset_version
    body["draft"] = row.is_draft
    body["links"] = record_links(row)
    return body


@bp.get("/records/<record_id>")
def get_record(record_id: str) -> Response:
    row = services.get_record(db.session, record_id)
    if row is None:
        return problem(404, "Not Found", f"No record with id {record_id!r}.")
    return jsonify(record_payload(row))


@bp.get("/records")
def list_records() -> Response:
    try:
        page = int(request.args.get("page", "1"))
        per_page = int(request.args.get("per_page", "50"))
    except ValueError:
        return problem(400, "Bad Request", "page and per_page must be integers.")
    if page < 1 or not 1 <= per_page <= MAX_PAGE_SIZE:
        return problem(
            400, "Bad Request", f"page must be >= 1 and per_page between 1 and {MAX_PAGE_SIZE}."
        )
    total = db.session.scalar(select(func.count()).select_from(Record)) or 0
    rows = db.session.scalars(
        select(Record).order_by(Record.id).offset((page - 1) * per_page).limit(per_page)
    )
    return jsonify(
        {
            "items": [record_payload(r) for r in rows],
            "page": page,
            "perPage": per_page,
            "total": total,
        }
    )
