"""Browser pages for records."""

from __future__ import annotations

from flask import Blueprint, abort, render_template, request
from sqlalchemy import func, select

from app.extensions import db
from app.records import services
from app.records.models import Record

bp = Blueprint("records", __name__)

PAGE_SIZE = 50


@bp.get("/")
def index() -> str:
    page = request.args.get("page", "1")
    page_number = int(page) if page.isdigit() and int(page) > 0 else 1
    total = db.session.scalar(select(func.count()).select_from(Record)) or 0
    rows = db.session.scalars(
        select(Record)
        .order_by(Record.repo, Record.id)
        .offset((page_number - 1) * PAGE_SIZE)
        .limit(PAGE_SIZE)
    ).all()
    return render_template(
        "index.html", records=rows, total=total, page=page_number, page_size=PAGE_SIZE
    )


@bp.get("/records/<record_id>")
def record_page(record_id: str) -> str:
    row = services.get_record(db.session, record_id)
    if row is None:
        abort(404, description=f"No record with id {record_id!r}.")
    return render_template("record.html", record=row, data=services.record_to_dict(row))
