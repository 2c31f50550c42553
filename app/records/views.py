"""Browser pages: search with facets, a record, paste-a-traceback."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, render_template, request, url_for
from werkzeug.datastructures import MultiDict

from app.api.match import MAX_TEXT_BYTES, match_limit, match_payload
from app.api.records import BadParameter, parse_query, search_limit
from app.extensions import db, limiter
from app.records import presenters, queries, services
from app.records.schemas import SEVERITIES
from app.repro import services as repro_services
from app.security import verify_csrf

bp = Blueprint("records", __name__)


@bp.app_template_filter("pkgpath")
def package_path(path: str | None) -> str:
    """``/…/site-packages/sglang/srt/x.py`` -> ``sglang/srt/x.py`` (where a package starts)."""
    if not path:
        return ""
    for marker in ("site-packages/", "dist-packages/"):
        if marker in path:
            return path.rsplit(marker, 1)[1]
    return path


def _toggle_url(args: MultiDict[str, str], name: str, value: str) -> str:
    """The current search with facet ``name=value`` switched on or off, back to page 1."""
    params: dict[str, Any] = args.to_dict(flat=False)
    values = params.get(name, [])
    params[name] = [v for v in values if v != value] if value in values else [*values, value]
    params.pop("page", None)
    return url_for("records.index", **params)


@bp.get("/")
@limiter.limit(search_limit)
def index() -> str | tuple[str, int]:
    try:
        query = parse_query(request.args)
    except BadParameter as exc:
        return render_template("error.html", status=400, title="Bad Request", detail=str(exc)), 400
    result = queries.find(db.session, query, with_facets=True)
    page_args: dict[str, Any] = request.args.to_dict(flat=False)
    return render_template(
        "index.html",
        query=query,
        result=result,
        args=request.args,
        toggle_url=lambda name, value: _toggle_url(request.args, name, value),
        page_url=lambda page: url_for("records.index", **{**page_args, "page": [str(page)]}),
        severities=SEVERITIES,
    )


@bp.get("/records/<record_id>")
def record_page(record_id: str) -> str:
    row = services.get_record(db.session, record_id)
    if row is None:
        abort(404, description=f"No record with id {record_id!r}.")
    if row.retracted_at is not None:
        abort(410, description=f"Record {record_id!r} was retracted: {row.retracted_reason}")
    data = services.record_to_dict(row)
    source = (
        presenters.source_html(
            row.source_code, row.source_code_start, row.line_number, row.file_path
        )
        if row.source_code
        else None
    )
    latest = repro_services.latest_verdicts(db.session, [row.id]).get(row.id, {})
    runs = repro_services.runs_for(db.session, row.id, limit=20)
    latest_runs = {r.platform: r for r in runs if latest.get(r.platform, {}).get("runId") == r.id}
    try:
        target: repro_services.RunTarget | None = repro_services.target_for(db.session, row.id)
    except repro_services.ReproError:
        target = None
    return render_template(
        "record.html",
        latest=latest,
        latest_runs=latest_runs,
        runs=runs,
        target=target,
        record=row,
        data=data,
        source=source,
        fix=presenters.split_example_fix(row.example_fix),
        code_html=presenters.code_html,
    )


@bp.route("/match", methods=["GET", "POST"])
@limiter.limit(match_limit, methods=["POST"])
def match_page() -> str | tuple[str, int]:
    if request.method == "POST":
        verify_csrf()
    text = request.form.get("text", "") if request.method == "POST" else ""
    result = None
    status = 200
    error = None
    if request.method == "POST":
        if not text.strip():
            error, status = "Paste an error message, a traceback or a log excerpt.", 400
        elif len(text.encode("utf-8", "surrogatepass")) > MAX_TEXT_BYTES:
            error, status = f"That is over {MAX_TEXT_BYTES // 1024} KiB; paste less.", 413
        else:
            result = match_payload(text, limit=10)
    return render_template("match.html", text=text, result=result, error=error), status


@bp.get("/pygments.css")
def pygments_css() -> Response:
    response = Response(presenters.pygments_css(), mimetype="text/css")
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response
