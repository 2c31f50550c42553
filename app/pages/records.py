"""Browser pages: search with facets, a record, paste-a-traceback."""

from __future__ import annotations

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from werkzeug.datastructures import MultiDict

from app.answers import services as answers
from app.corpus.answers import match_filters
from app.corpus.services import site_view
from app.extensions import db, limiter
from app.links import link, record_page_url
from app.params import BadParameter
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


def _known(args: MultiDict[str, str]) -> dict[str, list[str]]:
    """The search's own parameters (links carry nothing else a visitor put in the URL)."""
    return {name: args.getlist(name) for name in queries.QUERY_PARAMS if name in args}


def _toggle_url(args: MultiDict[str, str], name: str, value: str) -> str:
    """The current search with facet ``name=value`` switched on or off, back to page 1."""
    params = _known(args)
    values = params.get(name, [])
    params[name] = [v for v in values if v != value] if value in values else [*values, value]
    params.pop("page", None)
    return link("records.index", params)


def search_limit() -> str:
    return str(current_app.config["ERRATA_SEARCH_RATE_LIMIT"])


def match_limit() -> str:
    return str(current_app.config["ERRATA_MATCH_RATE_LIMIT"])


@bp.get("/")
@limiter.limit(search_limit)
def index() -> str | tuple[str, int]:
    try:
        query = queries.parse_query(request.args)
    except BadParameter as exc:
        return render_template("error.html", status=400, title="Bad Request", detail=str(exc)), 400
    result = answers.find_records(db.session, query, with_facets=True, with_verdicts=False).result
    page_args = _known(request.args)
    return render_template(
        "index.html",
        query=query,
        result=result,
        args=request.args,
        toggle_url=lambda name, value: _toggle_url(request.args, name, value),
        page_url=lambda page: link("records.index", {**page_args, "page": [str(page)]}),
        severities=SEVERITIES,
    )


@bp.get("/records/<record_id>")
def record_page(record_id: str) -> ResponseReturnValue:
    detail = answers.get_record(db.session, record_id)
    if detail is None:
        moved = answers.renamed(db.session, record_id)
        if moved is not None:  # renamed by a corpus load: the same raise site
            return redirect(url_for("records.record_page", record_id=moved), 301)
        abort(404, description=f"No record with id {record_id!r}.")
    row, latest = detail.record, detail.verdicts
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
        sweep=repro_services.sweep_for_record(db.session, row.id),
        target=target,
        record=row,
        data=data,
        source=source,
        fix=presenters.split_example_fix(row.example_fix),
        code_html=presenters.code_html,
        site=site_view(db.session, row.id),
    )


@bp.route("/match", methods=["GET", "POST"])
@limiter.limit(match_limit, methods=["POST"])
def match_page() -> str | tuple[str, int]:
    if request.method == "POST":
        verify_csrf()
    text = request.form.get("text", "") if request.method == "POST" else ""
    filters = match_filters(request.form if request.method == "POST" else request.args)
    result: answers.MatchAnswer | None = None
    status = 200
    error = None
    if request.method == "POST":
        if not text.strip():
            error, status = "Paste an error message, a traceback or a log excerpt.", 400
        elif answers.text_size(text) > answers.MAX_TEXT_BYTES:
            error, status = f"That is over {answers.MAX_TEXT_BYTES // 1024} KiB; paste less.", 413
        else:
            result = answers.match(
                db.session, str(db.engine.url), text, 10, record_page_url, filters
            )
    return (
        render_template("match.html", text=text, result=result, error=error, filters=filters),
        status,
    )


@bp.get("/pygments.css")
def pygments_css() -> Response:
    response = Response(presenters.pygments_css(), mimetype="text/css")
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response
