"""Run the real held-out set through ``POST /api/v1/match`` and report top-1/top-3 by kind.

Each case (``tests/matching/corpus/heldout/*.txt``) is an error text copied from a public
issue thread, labelled with its kind and its raise site as ``{repo, file, function,
messageContains}`` (``a | b`` lists alternatives: files move and functions are renamed
between releases). A result is at the right site when the record's fields agree, at its
newest location or at any pinned release's location of the site (`site.locations`: a site
merged across releases that moved is the labelled one at the writer's release;
`--latest-only` checks the newest alone): the
repo, a file path ending in one of the files, the enclosing function (the record's
``function`` field, the corpus site's function, else the ``def`` above its line in its
source excerpt; not checked when none is known) and the message: for implicit errors only
when it names the import that failed (``cannot import name 'x'``), as other interpreter
words name data (a key, an index). So it works with any corpus: nothing depends on record
ids.

    .venv/bin/python bench/heldout.py --db sqlite:////tmp/corpus.db
    .venv/bin/python bench/heldout.py --url http://127.0.0.1:8000
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import ms, timed  # noqa: E402
from tests.matching.heldout import Case, load_cases  # noqa: E402

KINDS = ("raise", "assert", "implicit", "dependency", "client")
# An import of several names is one statement, but the name that failed picks its line: a
# result that names another import (of the same file) is not the site.
_IMPORT_NAMED = "cannot import name "
SGLANG = "sgl-project/sglang"
_DEF = re.compile(r"\s*(?:async\s+)?def\s+(\w+)")

Fetch = Callable[[str, dict[str, Any] | None], dict[str, Any]]


def enclosing_function(record: dict[str, Any]) -> str | None:
    """The record's function: its own field, the corpus site's (`Class.method` -> `method`),
    else the nearest `def` above its line (which a nested `def` can fool)."""
    if record.get("function"):
        return str(record["function"])
    why = (record.get("site") or {}).get("whyFired") or {}
    if why.get("function"):
        return str(why["function"]).rsplit(".", 1)[-1]
    source, start, line = (
        record.get("sourceCode"),
        record.get("sourceCodeStart"),
        record.get("lineNumber"),
    )
    if not source or not isinstance(start, int) or not isinstance(line, int):
        return None
    lines = source.split("\n")[: max(0, line - start + 1)]
    if not lines:
        return None
    raise_indent = len(lines[-1]) - len(lines[-1].lstrip())
    for text in reversed(lines):
        m = _DEF.match(text)
        if m and len(text) - len(text.lstrip()) < raise_indent:
            return m.group(1)
    return None


def _places(record: dict[str, Any], latest_only: bool) -> list[tuple[str, str | None]]:
    """(file, function) of the record: its own, then (unless ``latest_only``) each pinned
    release's location of the site (a site merged across releases moved files or
    functions; the label names it at the writer's release)."""
    places = [((record.get("filePath") or "").replace("\\", "/"), enclosing_function(record))]
    if not latest_only:
        for loc in (record.get("site") or {}).get("locations") or []:
            function = str(loc.get("function") or "").rsplit(".", 1)[-1] or None
            places.append((str(loc.get("filePath") or "").replace("\\", "/"), function))
    return places


def _in_place(case: Case, path: str, function: str | None) -> bool:
    """A file among the case's, in one of its functions (when both are known)."""
    return any(path == f or path.endswith("/" + f) for f in case.files) and not (
        case.functions and function is not None and function not in case.functions
    )


def at_site(
    case: Case,
    record: dict[str, Any],
    matched_pattern: str | None = None,
    latest_only: bool = False,
) -> bool:
    """True when the record is the case's raise site (see the module docstring).

    ``matched_pattern`` is the pattern the match reports (``why.pattern``): a site merged
    across releases matches an older wording of its message by that wording's pattern.
    """
    if (record.get("repo") or "").lower() != case.repo.lower():
        return False
    if not any(_in_place(case, path, function) for path, function in _places(record, latest_only)):
        return False
    if not case.message_contains or (
        case.kind == "implicit" and not case.message_contains.startswith(_IMPORT_NAMED)
    ):
        return True  # the interpreter's words name data (a key, an index), not the site
    cls = str(record.get("errorClass") or "").rsplit(".", 1)[-1]
    if _unworded(record) and cls and re.search(rf"\b{re.escape(cls)}\b", case.text):
        # `raise ConnectionError(e, request=request)`: the statement words no message (it
        # wraps another error's), so none can be checked; its class, as the paste names it
        # (its exception line, or the frame's source line), tells it from the function's
        # other raises.
        return True
    older = [] if latest_only else (record.get("site") or {}).get("locations") or []
    text = "\n".join(
        (
            record.get("errorMessage") or "",
            record.get("messagePattern") or "",
            matched_pattern or "",
            *(str(loc.get("errorMessage") or "") for loc in older),
        )
    )
    return case.message_contains in text or case.message_contains in text.replace("\\", "")


def _unworded(record: dict[str, Any]) -> bool:
    why = (record.get("site") or {}).get("whyFired") or {}
    return why.get("form") == "unworded raise"


@dataclass
class Outcome:
    case: Case
    rank: int | None  # 1-based rank of the first result at the site
    answered: bool  # the answer says what is known or what is not
    detail: str
    # the answer's frame evidence is the labelled file and function (not a record: not
    # counted in top-1/top-3)
    framed: bool = False


def frame_at_site(case: Case, body: dict[str, Any]) -> bool:
    """True when the answer's innermost known frame (`evidence.frame`) is in the case's
    repo, one of its files and (when labelled) one of its functions."""
    frame = (body.get("evidence") or {}).get("frame") or {}
    path = str(frame.get("filePath") or "").replace("\\", "/")
    if not path or str(frame.get("repo") or "").lower() != case.repo.lower():
        return False
    # A frame without a function fails a labelled one ("" is in no case's functions).
    return _in_place(case, path, str(frame.get("function") or "").rsplit(".", 1)[-1])


def run_case(case: Case, fetch: Fetch, limit: int, latest_only: bool = False) -> Outcome:
    body = fetch("/api/v1/match", {"text": case.text, "limit": limit})
    answer = body.get("answer") or {}
    answered = bool(answer.get("known") or answer.get("unknown"))
    seen: list[str] = []
    framed = frame_at_site(case, body)
    for pos, item in enumerate(body.get("matches", [])[:limit], start=1):
        record = fetch(f"/api/v1/records/{item['id']}", None)
        if at_site(case, record, (item.get("why") or {}).get("pattern"), latest_only):
            return Outcome(case, pos, answered, item["kind"], framed)
        seen.append(
            f"{item['kind']} {record.get('repo')}:{record.get('filePath')}:"
            f"{enclosing_function(record)}"
        )
    if not seen:
        why = "; ".join(answer.get("unknown") or []) or "no matches"
        return Outcome(case, None, answered, why, framed)
    return Outcome(case, None, answered, " | ".join(seen[:3]), framed)


def in_process(db_url: str) -> Fetch:
    from app import create_app

    app = create_app(
        {"SQLALCHEMY_DATABASE_URI": db_url, "RATELIMIT_ENABLED": False, "TESTING": True}
    )
    client = app.test_client()

    def fetch(path: str, payload: dict[str, Any] | None) -> dict[str, Any]:
        resp = client.post(path, json=payload) if payload is not None else client.get(path)
        if resp.status_code != 200:
            raise SystemExit(f"{path}: HTTP {resp.status_code} {resp.get_data(as_text=True)}")
        return dict(resp.get_json())

    return fetch


def over_http(base: str) -> Fetch:
    def fetch(path: str, payload: dict[str, Any] | None) -> dict[str, Any]:
        data = None if payload is None else json.dumps(payload).encode()
        req = urllib.request.Request(base.rstrip("/") + path, data=data)
        req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=30) as resp:  # noqa: S310 (given by the user)
            return dict(json.load(resp))

    return fetch


def timing(db_url: str, cases: list[Case], rounds: int = 20) -> str:
    """Wall and CPU p50/p99 of `match_error` on the app's in-memory catalog, per paste."""
    import time

    from app import create_app
    from app.corpus.catalog import get_catalog
    from app.extensions import db
    from app.matching import match_error

    app = create_app({"SQLALCHEMY_DATABASE_URI": db_url, "TESTING": True})
    with app.app_context():
        index = get_catalog(db.session, str(db.engine.url)).index
    texts = [case.text for case in cases]
    # Warm first: RE2 compiles candidates on first use, text search is built.
    wall = timed(lambda text: match_error(text, index), texts, rounds, warmup=True)
    cpu = timed(lambda text: match_error(text, index), texts, rounds, clock=time.thread_time)
    return (
        f"match_error over {len(index)} records, {len(cases)} pastes x {rounds}: "
        f"wall {ms(wall)}; CPU {ms(cpu)}"
    )


def _row(label: str, outcomes: list[Outcome]) -> str:
    n = len(outcomes)
    if not n:
        return f"| {label} | 0 | - | - |"
    top1 = sum(1 for o in outcomes if o.rank == 1)
    top3 = sum(1 for o in outcomes if o.rank is not None and o.rank <= 3)
    return f"| {label} | {n} | {top1} ({100 * top1 / n:.0f} %) | {top3} ({100 * top3 / n:.0f} %) |"


def report(outcomes: list[Outcome]) -> str:
    lines = ["| kind | cases | top-1 | top-3 |", "|---|---:|---:|---:|"]
    for kind in KINDS:
        lines.append(_row(kind, [o for o in outcomes if o.case.kind == kind]))
    sglang = [o for o in outcomes if o.case.repo == SGLANG]
    lines.append(_row("sglang-raised", sglang))
    lines.append(_row("all", outcomes))
    answered = sum(1 for o in outcomes if o.answered)
    lines.append("")
    lines.append(f"answers that say what is known or not: {answered} of {len(outcomes)}")
    missed = [o for o in outcomes if o.rank is None or o.rank > 3]
    framed = [o for o in missed if o.framed]
    lines.append(
        f"misses whose frame evidence is the labelled file and function (no record; not"
        f" counted above): {len(framed)} of {len(missed)}"
    )
    lines.append("")
    lines.append("misses (not in the top 3):")
    for o in missed:
        mark = " [the frame evidence is the site]" if o.framed else ""
        lines.append(f"- {o.case.name} [{o.case.kind}]{mark} {o.detail}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--db", help="database URL: run the app in this process over it")
    where.add_argument("--url", help="base URL of a running Errata server")
    parser.add_argument("--cases", type=Path, default=None, help="directory of case files")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument(
        "--timing", action="store_true", help="with --db: also time match_error in-process"
    )
    parser.add_argument(
        "--ranks", action="store_true", help="also print each case's rank (to diff two runs)"
    )
    parser.add_argument(
        "--latest-only",
        action="store_true",
        help="a record is at the site only by its newest location (not any release's)",
    )
    args = parser.parse_args(argv)
    fetch = in_process(args.db) if args.db else over_http(args.url)
    cases = load_cases(args.cases) if args.cases else load_cases()
    outcomes = [run_case(case, fetch, args.limit, args.latest_only) for case in cases]
    print(report(outcomes))
    if args.ranks:
        print()
        print("ranks (- when not in the results):")
        print("\n".join(f"{o.case.name} {o.rank or '-'}" for o in outcomes))
    if args.timing and args.db:
        print()
        print(timing(args.db, cases))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
