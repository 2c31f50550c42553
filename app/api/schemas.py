"""Request and response schemas of the REST API v1; the OpenAPI document is built from them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.records.schemas import RecordV2
from app.repro.reports import JobResult, JobStart  # noqa: F401 (OpenAPI)


class Links(BaseModel):
    self: str
    html: str = Field(description="The record's page; stable, for an LSP diagnostic's href")
    github: str | None = Field(description="The raise site on GitHub at the pinned commit")


class RecordOut(RecordV2):
    """A record in the dataset's field names, plus where it came from and links."""

    model_config = ConfigDict(strict=False, extra="forbid", frozen=True)

    datasetVersion: str
    draft: bool
    links: Links
    repro: dict[str, Any] | None = Field(
        default=None, description="Latest reproducer verdicts per platform, if any run"
    )


class RecordCompact(BaseModel):
    """``compact=1``: what a plugin or an agent needs to show a hint."""

    id: str
    errorClass: str
    errorMessage: str
    severity: str
    solutions: list[str]
    href: str


class FacetValue(BaseModel):
    value: str
    count: int


class RecordPage(BaseModel):
    items: list[RecordOut | RecordCompact]
    page: int
    perPage: int
    total: int
    next: str | None = None
    facets: dict[str, list[FacetValue]] | None = None


class SearchHit(BaseModel):
    id: str
    score: float
    errorClass: str
    errorMessage: str
    severity: str
    repo: str
    filePath: str
    href: str


class SearchResponse(BaseModel):
    query: str
    total: int
    items: list[SearchHit]


class MatchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(
        min_length=1,
        description="A message, a traceback or a log excerpt (at most 256 KiB)",
    )
    limit: int = Field(default=5, ge=1, le=50)


class MatchWhy(BaseModel):
    model_config = ConfigDict(extra="allow")

    kind: Literal["pattern", "text"]
    pattern: str | None = None
    span: list[int] | None = None
    matchedText: str | None = None
    exception: str | None = None
    frame: dict[str, Any] | None = None
    classAgrees: bool | None = None


class MatchItem(BaseModel):
    id: str
    kind: Literal["pattern", "text"]
    score: float
    errorMessage: str
    errorClass: str
    solutions: list[str]
    why: MatchWhy | None = None
    href: str
    repro: dict[str, Any] | None = None


class MatchResponse(BaseModel):
    parsed: dict[str, Any] | None = Field(
        default=None, description="What was read from the text: exceptions and frames"
    )
    matches: list[MatchItem]


class Problem(BaseModel):
    """RFC 9457 problem details."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str | None = None


class RecordWrite(BaseModel):
    """One dataset line: the record (schema v2), its dataset version, a draft flag."""

    record: RecordV2
    datasetVersion: str
    draft: bool = False


class RecordWritten(RecordOut):
    result: Literal["created", "updated", "unchanged"]


class RunOut(BaseModel):
    """One reproducer run (a job's row)."""

    model_config = ConfigDict(extra="allow")

    id: int
    jobId: str | None
    recordId: str
    platform: str
    status: Literal["queued", "running", "done", "failed", "invalid"]
    triggerOutcome: str | None
    runOutcome: str | None


class RunList(BaseModel):
    items: list[RunOut]
    limit: int
    offset: int


class RecordRuns(RunList):
    recordId: str
    latest: dict[str, Any]


class Regression(BaseModel):
    recordId: str
    platform: str
    regressions: list[dict[str, Any]]
    run: RunOut


class RegressionList(BaseModel):
    items: list[Regression]
    total: int


class RunRequest(BaseModel):
    platform: Literal["blackwell", "hopper", "cpu", "real"] = "blackwell"


class ModerationRequest(BaseModel):
    reason: str = Field(min_length=1, max_length=2000, pattern=r"^[^\x00]*$")


class Retracted(BaseModel):
    id: str
    retracted: bool
    retractedAt: str | None
    reason: str | None


class JobState(BaseModel):
    model_config = ConfigDict(extra="allow")

    jobId: str
    status: str
