"""Run a record's harness, store the run, keep the latest verdicts, flag regressions.

No Flask here. ``repro`` (the harness side) takes plain data and returns plain data; this
module turns a record row into that data and the report back into rows.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import delete, select

from app.db import DbSession, utcnow
from app.records.models import Record
from app.records.services import record_to_dict
from app.repro import sweep
from app.repro.models import DONE, FAILED, INVALID, RUNNING, HarnessLink, ReproLatest, ReproRun
from app.repro.reports import safe_fixes
from repro.harnesses import HARNESSES, harness_by_rule
from repro.paths import scrub
from repro.runner import COMPLETED, ENV_MISSING, TIMEOUT
from repro.vocabulary import PLATFORM_LABELS, FixOutcome, Platform, TriggerOutcome
from repro.worker import HARD_TIME_LIMIT_S

REPRODUCED = TriggerOutcome.REPRODUCED.value
FIXED = FixOutcome.FIXED.value
# The nightly default: the two platforms the seed's harness was written for.
DEFAULT_PLATFORMS = (Platform.BLACKWELL.value, Platform.HOPPER.value)
LOG_TAIL_CHARS = 8000
# A run still ``running`` this long after it started has outlived the worker's hard
# time limit (plus delivery retries): nothing will ever finish it.
OVERDUE_AFTER_S = HARD_TIME_LIMIT_S + 600


class ReproError(ValueError):
    """A run cannot be set up (unknown record, no harness, unknown platform)."""


@dataclass(frozen=True)
class RunTarget:
    record_id: str
    harness: str
    env: str
    platforms: tuple[str, ...]


def sync_links(session: DbSession, links: dict[str, dict[str, Any]]) -> tuple[int, list[str]]:
    """Replace the harness links with ``links``; ids not in the store are returned."""
    known = set(session.scalars(select(Record.id).where(Record.id.in_(list(links)))))
    session.execute(delete(HarnessLink))
    for record_id, link in links.items():
        if record_id not in known:
            continue
        session.add(
            HarnessLink(
                record_id=record_id,
                harness=link["harness"],
                env=link["env"],
                platforms=list(link.get("platforms") or DEFAULT_PLATFORMS),
                expected=dict(link.get("expected") or {}),
            )
        )
    session.flush()
    return len(known), sorted(set(links) - known)


def target_for(session: DbSession, record_id: str) -> RunTarget:
    """The harness a record runs under: its link, else the harness whose rule matches."""
    link = session.get(HarnessLink, record_id)
    if link is not None:
        return RunTarget(record_id, link.harness, link.env, tuple(link.platforms))
    row = session.get(Record, record_id)
    if row is None:
        raise ReproError(f"no record with id {record_id!r}")
    # The service's links are the harness_links table; only the rule is left to apply.
    info = harness_by_rule(record_to_dict(row))
    if info is None:
        raise ReproError(f"no harness applies to record {record_id!r}")
    return RunTarget(record_id, info.name, info.env, DEFAULT_PLATFORMS)


def harnessed_targets(session: DbSession) -> list[RunTarget]:
    """Every record with a harness link, for the nightly run."""
    return [
        RunTarget(link.record_id, link.harness, link.env, tuple(link.platforms))
        for link in session.scalars(select(HarnessLink).order_by(HarnessLink.record_id))
    ]


def create_run(
    session: DbSession,
    record_id: str,
    platform: str,
    *,
    origin: str = "cli",
    job_id: str | None = None,
) -> ReproRun:
    target = target_for(session, record_id)
    info = HARNESSES.get(target.harness)
    if info is not None and platform not in info.platforms:
        raise ReproError(
            f"platform {platform!r} is not one of {', '.join(info.platforms)} for {info.name}"
        )
    run = ReproRun(
        record_id=record_id,
        harness=target.harness,
        env=target.env,
        platform=platform,
        origin=origin,
        job_id=job_id,
        fixes=[],
        regressions=[],
    )
    session.add(run)
    session.flush()
    return run


def payload_for(session: DbSession, run: ReproRun, repeats: int) -> dict[str, Any]:
    row = session.get(Record, run.record_id)
    if row is None:
        raise ReproError(f"no record with id {run.record_id!r}")
    return {
        "record": record_to_dict(row),
        "options": {"platform": run.platform, "repeats": repeats, "scenario_timeout_s": 60.0},
    }


def _fix_summary(fix: dict[str, Any]) -> dict[str, Any]:
    error = fix.get("error") or None
    return {
        "scenario": fix.get("scenario"),
        "backend": fix.get("backend"),
        "source": fix.get("source"),
        "command": fix.get("command"),
        "outcome": fix.get("outcome"),
        "flaky": fix.get("flaky", False),
        "caveat": fix.get("caveat"),
        "error": None
        if error is None
        else {k: error.get(k) for k in ("class", "message", "file", "line", "function")},
    }


def record_report(
    session: DbSession, run: ReproRun, report: dict[str, Any], worker: str | None = None
) -> ReproRun:
    """Store a runner report on ``run`` and update the latest verdicts."""
    report = scrub(report)  # a remote worker's report names files as the runner does
    result = report.get("result") or {}
    outcome = report.get("outcome")
    run.run_outcome = outcome
    run.duration_s = report.get("duration_s")
    run.message = report.get("message") or None
    log = result.get("log_tail") or report.get("stderr_tail") or ""
    if isinstance(log, list):
        log = "\n".join(str(line) for line in log)
    run.log_tail = str(log)[-LOG_TAIL_CHARS:]
    run.finished_at = utcnow()
    run.worker = worker or run.worker
    if outcome == COMPLETED:
        trigger = result.get("trigger") or {}
        platform = result.get("platform") or {}
        run.status = DONE
        run.trigger_outcome = trigger.get("outcome")
        run.trigger = {k: v for k, v in trigger.items() if k not in {"frames"}}
        run.fixes = [_fix_summary(f) for f in result.get("fixes") or []]
        run.drift = result.get("drift")
        run.platform_info = platform
        run.simulated = platform.get("simulated")
        run.upstream_version = result.get("sglang_version") or (
            (platform.get("packages") or {}).get("sglang")
        )
        _update_latest(session, run)
    elif outcome == ENV_MISSING:
        run.status = INVALID
        run.trigger_outcome = None
    else:
        run.status = FAILED
        run.trigger_outcome = outcome
    session.flush()
    return run


def _update_latest(session: DbSession, run: ReproRun) -> None:
    latest = session.get(ReproLatest, (run.record_id, run.platform))
    fixes = {f["scenario"]: f["outcome"] for f in run.fixes if f.get("scenario")}
    regressions: list[dict[str, Any]] = []
    if latest is not None:
        if latest.trigger_outcome == REPRODUCED and run.trigger_outcome != REPRODUCED:
            regressions.append({"what": "trigger", "was": REPRODUCED, "now": run.trigger_outcome})
        for scenario, was in (latest.fix_outcomes or {}).items():
            now = fixes.get(scenario)
            if was == FIXED and now != FIXED:
                regressions.append({"what": scenario, "was": FIXED, "now": now})
    else:
        latest = ReproLatest(record_id=run.record_id, platform=run.platform)
        session.add(latest)
    run.regressions = regressions
    latest.run_id = run.id
    latest.trigger_outcome = run.trigger_outcome or "UNKNOWN"
    latest.fix_outcomes = fixes
    latest.regressed = bool(regressions)


def sweep_overdue(
    session: DbSession, now: dt.datetime | None = None, after_s: float = OVERDUE_AFTER_S
) -> list[ReproRun]:
    """Fail runs left ``running`` past the hard time limit (a worker died or lost the
    report), so no run stays ``running`` for ever; returns the runs it closed."""
    now = now or utcnow()
    cutoff = now - dt.timedelta(seconds=after_s)
    overdue = list(
        session.scalars(
            select(ReproRun).where(ReproRun.status == RUNNING, ReproRun.started_at < cutoff)
        )
    )
    for run in overdue:
        run.status = FAILED
        run.run_outcome = TIMEOUT
        run.trigger_outcome = TIMEOUT
        run.finished_at = now
        run.message = (
            f"no report {after_s:g}s after the run started (worker hard limit "
            f"{HARD_TIME_LIMIT_S}s); closed by the overdue sweep"
        )
    session.flush()
    return overdue


def expected_mismatches(
    session: DbSession, runs: Iterable[ReproRun]
) -> dict[int, dict[str, str | None]]:
    """Run id -> ``{"expected", "observed"}`` for finished runs whose trigger outcome
    differs from the record's ``HarnessLink.expected`` on that platform."""
    out: dict[int, dict[str, str | None]] = {}
    links: dict[str, HarnessLink | None] = {}
    for run in runs:
        if run.status not in (DONE, FAILED):
            continue
        if run.record_id not in links:
            links[run.record_id] = session.get(HarnessLink, run.record_id)
        link = links[run.record_id]
        expected = (link.expected or {}).get(run.platform) if link is not None else None
        if expected and expected != run.trigger_outcome:
            out[run.id] = {"expected": expected, "observed": run.trigger_outcome}
    return out


def start(session: DbSession, run: ReproRun, worker: str | None = None) -> None:
    run.status = RUNNING
    run.started_at = utcnow()
    run.attempts = (run.attempts or 0) + 1
    run.worker = worker
    session.flush()


def latest_verdicts(
    session: DbSession, record_ids: Iterable[str]
) -> dict[str, dict[str, dict[str, Any]]]:
    """record id -> platform -> summary of the newest finished run."""
    ids = list(record_ids)
    if not ids:
        return {}
    # Plain columns, not ORM entities: this runs on every match answer (~4x cheaper).
    rows = session.execute(
        select(
            ReproLatest.record_id,
            ReproLatest.regressed,
            *(getattr(ReproRun, name) for name in RunFacts.__annotations__),
        )
        .join(ReproRun, ReproRun.id == ReproLatest.run_id)
        .where(ReproLatest.record_id.in_(ids))
    ).all()
    expected = {
        record_id: dict(exp or {})
        for record_id, exp in session.execute(
            select(HarnessLink.record_id, HarnessLink.expected).where(
                HarnessLink.record_id.in_({row.record_id for row in rows})
            )
        )
    }
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for row in rows:
        verdict = summary(row, row.regressed)
        want = expected.get(row.record_id, {}).get(row.platform)
        verdict["expected"] = want
        verdict["expectedMismatch"] = bool(want) and want != row.trigger_outcome
        out.setdefault(row.record_id, {})[row.platform] = verdict
    return out


class RunFacts(Protocol):
    """What a verdict summary reads from a run (a ``ReproRun`` or a row of its columns)."""

    id: int
    platform: str
    env: str
    simulated: bool | None
    trigger_outcome: str | None
    fixes: list[dict[str, Any]]
    upstream_version: str | None
    finished_at: dt.datetime | None


def upstream_label(run: RunFacts) -> str:
    """``sglang 0.5.23`` from the env name and the version the harness reported."""
    package = run.env.rsplit("-", 1)[0] if "-" in run.env else run.env
    return f"{package} {run.upstream_version}" if run.upstream_version else run.env


def summary(run: RunFacts, regressed: bool = False) -> dict[str, Any]:
    fixes = safe_fixes(run.fixes)  # a stored run is never trusted to have the schema
    proven = [f.get("command") for f in fixes if f.get("outcome") == FIXED]
    return {
        "reproduced": run.trigger_outcome == REPRODUCED,
        "fixProven": bool(proven),
        "provenFixes": [c for c in proven if c],
        "runId": run.id,
        "platform": run.platform,
        "platformLabel": PLATFORM_LABELS.get(run.platform, run.platform),
        "simulated": run.simulated,
        "trigger": run.trigger_outcome,
        "fixes": {f["backend"] or f["scenario"]: f["outcome"] for f in fixes},
        "upstreamVersion": run.upstream_version,
        "upstream": upstream_label(run),
        "finishedAt": _iso(run.finished_at),
        "regressed": regressed,
    }


def _iso(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def runs_for(
    session: DbSession, record_id: str, limit: int = 50, offset: int = 0
) -> list[ReproRun]:
    return list(
        session.scalars(
            select(ReproRun)
            .where(ReproRun.record_id == record_id)
            .order_by(ReproRun.id.desc())
            .limit(limit)
            .offset(offset)
        )
    )


def sweep_for_record(session: DbSession, record_id: str) -> dict[str, Any]:
    """What the explorer proved for this record's raise site: per site, the minimal
    trigger command, its platform and model config, the outcome on each platform and
    the proven fixes (``reproduced`` / ``fixProven`` as in the match answer)."""
    row = session.get(Record, record_id)
    if row is None:
        return {"sites": [], "reproduced": False, "fixProven": False}
    sites = [
        {
            "upstream": s["upstream"],
            "file": s["file"],
            "line": s["line"],
            "function": s.get("function"),
            "errorClass": s.get("class"),
            "message": s.get("message"),
            "trigger": s.get("trigger"),
            "reproduced": bool(s.get("reproduced")),
            "repeats": s.get("repeats"),
            "platforms": s.get("platforms"),
            "fixes": s.get("fixes") or [],
            "provenFixes": s.get("fixed") or [],
        }
        for s in sweep.findings(row.repo, row.file_path, row.message_pattern, row.error_message)
    ]
    return {
        "sites": sites,
        "reproduced": any(s["reproduced"] for s in sites),
        "fixProven": any(s["reproduced"] and s["provenFixes"] for s in sites),
    }
