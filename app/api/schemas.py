"""Request and response schemas of the REST API v1; the OpenAPI document is built from them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.records.schemas import RecordV2, Severity
from app.repro.reports import JobResult, JobStart  # noqa: F401 (the OpenAPI document)
from repro.vocabulary import DEFAULT_PLATFORM, Platform, RunStatus

HREF = "The record's page: stable, for an LSP diagnostic's href"
MatchKind = Literal[
    "pattern",
    "statement",
    "assertion",
    "prefix",
    "frame",
    "key",
    "attribute",
    "reader",
    "beside",
    "named",
    "text",
]
# app.matching's CLASS_* values (tests/api/test_openapi.py checks that they agree).
ClassAgreement = Literal["exact", "name", "different", "unknown"]


class Links(BaseModel):
    model_config = ConfigDict(extra="forbid")

    self: str = Field(description="This record in the API")
    github: str | None = Field(description="The raise site on GitHub at the pinned commit")


class RecordOut(RecordV2):
    """A record in the dataset's field names, plus where it came from and links."""

    model_config = ConfigDict(strict=False, extra="forbid", frozen=True)

    datasetVersion: str
    draft: bool
    href: str = Field(description=HREF)
    links: Links
    repro: dict[str, Any] | None = Field(
        default=None, description="Latest reproducer verdicts per platform, if any run"
    )
    site: dict[str, Any] | None = Field(
        default=None,
        description="The raise site across pinned releases: summary, per-release locations "
        "and the code-derived, machine-extracted 'why it fired'",
    )


class SiteFields(BaseModel):
    """Where a result stands: curated or draft, repo, release range, file and line."""

    curated: bool = False
    repo: str | None = None
    releases: dict[str, str] | None = Field(
        default=None, description="{first, last}: the pinned releases that have the site"
    )
    at: dict[str, Any] | None = Field(
        default=None,
        description="{release, filePath, lineNumber} at the user's release (or the newest); "
        "release is null for a record in no pinned release (a curated record of C++ code: "
        "its file and line at the commit it was read at)",
    )


class RecordCompact(SiteFields):
    """``compact=true``: what a plugin or an agent needs to show a hint."""

    model_config = ConfigDict(extra="forbid")

    id: str
    errorClass: str
    errorMessage: str
    severity: Severity
    solutions: list[str]
    href: str = Field(description=HREF)


class FacetValue(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: str
    count: int


class Page(BaseModel):
    """Every list answers in this shape; ``Link`` headers carry first/prev/next/last."""

    model_config = ConfigDict(extra="forbid")

    total: int
    page: int
    perPage: int
    next: str | None = Field(description="The next page, absent on the last")


class RecordPage(Page):
    items: list[RecordOut] | list[RecordCompact]
    facets: dict[str, list[FacetValue]] | None = None


class SearchHit(SiteFields):
    model_config = ConfigDict(extra="forbid")

    id: str
    score: float
    errorClass: str
    errorMessage: str
    severity: Severity
    repo: str
    filePath: str
    href: str = Field(description=HREF)


class SearchResponse(Page):
    query: str
    items: list[SearchHit]


class MatchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(
        min_length=1,
        description="A message, a traceback or a log excerpt (at most 256 KiB)",
    )
    limit: int = Field(default=5, ge=1, le=50)
    repo: str | None = Field(
        default=None, max_length=201, description="Only records of this repo (OWNER/NAME)"
    )
    version: str | None = Field(
        default=None,
        max_length=64,
        pattern=r"^[0-9A-Za-z.+-]+$",
        description="The release the error came from: only sites present in it",
    )
    curated: bool | None = Field(default=None, description="Only curated (true) or drafts")


class Span(BaseModel):
    model_config = ConfigDict(extra="forbid")

    start: int
    end: int


class FrameOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    file: str
    line: int | None
    function: str | None
    source: str | None


class WhyException(BaseModel):
    """Which exception of the pasted chain matched."""

    model_config = ConfigDict(extra="forbid")

    role: str = Field(
        description="last, root, chained, body (inside a client's error body), plain (no"
        " traceback) or context (text beside a traceback, ranked below its exceptions)"
    )
    errorClass: str | None
    message: str


class MatchWhy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: MatchKind
    pattern: str | None
    span: Span | None
    matchedText: str | None
    wholeMessage: bool
    exception: WhyException
    classAgreement: ClassAgreement
    frame: FrameOut | None
    lineDistance: int | None
    specificity: int
    similarity: float | None


class MatchItem(SiteFields):
    model_config = ConfigDict(extra="forbid")

    id: str
    kind: MatchKind
    count: int = Field(default=1, description="Records of this raise site that matched")
    sameSite: list[str] = Field(default_factory=list, description="The other ones' ids")
    score: float
    errorMessage: str
    errorClass: str
    solutions: list[str]
    why: MatchWhy | None = Field(default=None, description="Absent with compact=true")
    href: str = Field(description=HREF)
    repro: dict[str, Any] | None = None
    sweep: dict[str, bool] | None = Field(
        default=None,
        description="The config-space explorer on this raise site: reproduced / fixProven "
        "(absent when it did not reach the site)",
    )


class ParsedException(BaseModel):
    model_config = ConfigDict(extra="forbid")

    errorClass: str | None
    message: str
    role: str
    frames: list[FrameOut]


class Parsed(BaseModel):
    """What was read from the text: exceptions and frames."""

    model_config = ConfigDict(extra="forbid")

    exceptions: list[ParsedException]
    truncated: bool


class MatchResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    matches: list[MatchItem]
    fallback: bool = Field(description="True when no pattern matched: closest by text")
    parsed: Parsed | None = Field(default=None, description="Absent with compact=true")
    evidence: dict[str, Any] | None = Field(
        default=None,
        description="What the traceback frames say: releases they fit, innermost known frame",
    )
    notes: list[str] = Field(default_factory=list, description="What is known and what is not")
    answer: dict[str, Any] | None = Field(
        default=None, description="What is known and what is not: evidence, known, unknown"
    )
    incomplete: str | None = Field(
        default=None, description="Set when the per-request verification budget ran out"
    )


class FieldError(BaseModel):
    model_config = ConfigDict(extra="forbid")

    field: str
    reason: str


class Status(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Literal["ok", "ready"]


class Problem(BaseModel):
    """RFC 9457 problem details."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str | None = None
    errors: list[FieldError] | None = Field(default=None, description="422: each field's error")
    runId: int | None = Field(default=None, description="503 on a run: the stored run")
    jobId: str | None = None


class RecordWrite(BaseModel):
    """One dataset line: the record (schema v2), its dataset version, a draft flag."""

    record: RecordV2
    datasetVersion: str
    draft: bool = False


class RecordWritten(RecordOut):
    result: Literal["created", "updated", "unchanged"]


class RunOut(BaseModel):
    """One reproducer run (a job's row)."""

    model_config = ConfigDict(extra="forbid")

    id: int
    jobId: str | None
    recordId: str
    harness: str
    env: str
    platform: Platform
    simulated: bool | None
    origin: str
    status: RunStatus
    runOutcome: str | None = Field(
        description="COMPLETED, HARNESS_ERROR, TIMEOUT, ENV_MISSING or ENQUEUE_FAILED"
    )
    trigger: dict[str, Any] | None
    triggerOutcome: str | None
    fixes: list[dict[str, Any]]
    drift: dict[str, Any] | None
    platformInfo: dict[str, Any] | None
    upstream: str
    regressions: list[dict[str, Any]]
    message: str | None
    logTail: str | None = Field(None, description="The end of the harness's log")
    expectedMismatch: dict[str, Any] | None = Field(
        None, description="How this run differs from the harness link's expected outcome"
    )
    invalid: bool = Field(False, description="Invalidated by an admin: kept, never a verdict")
    invalidReason: str | None = None
    worker: str | None
    attempts: int
    durationS: float | None
    queuedAt: str | None
    startedAt: str | None
    finishedAt: str | None


class RunList(Page):
    items: list[RunOut]


class RecordRuns(RunList):
    recordId: str
    latest: dict[str, Any]
    sweep: dict[str, Any] | None = Field(
        None, description="The config-space sweep's minimal trigger, platforms and proven fixes"
    )


class Regression(BaseModel):
    model_config = ConfigDict(extra="forbid")

    recordId: str
    platform: Platform
    regressions: list[dict[str, Any]]
    run: RunOut


class RegressionList(Page):
    items: list[Regression]


class RunRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    platform: Platform = Platform(DEFAULT_PLATFORM)


class ModerationRequest(BaseModel):
    reason: str = Field(min_length=1, max_length=2000, pattern=r"^[^\x00]*$")


class Retracted(BaseModel):
    id: str
    retracted: bool
    retractedAt: str | None
    reason: str | None


class JobState(BaseModel):
    """A job's state after a worker's call (``finished``/``attempts`` on start,
    ``stored``/``triggerOutcome`` on result)."""

    model_config = ConfigDict(extra="forbid")

    jobId: str
    status: RunStatus
    finished: bool | None = None
    attempts: int | None = None
    stored: bool | None = None
    triggerOutcome: str | None = None
