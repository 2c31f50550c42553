"""Worker reports, trusted only as far as they deserve (docs/security.md).

A report is validated with strict schemas before anything is stored: only the fields the
service shows survive, each with its type. A job is started and finished only with the
secret it was dispatched with, by one token; the run's worker is that token, not free
text; only a token registered as a GPU worker may report real hardware. No Flask here.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from app.repro.models import ReproRun
from repro.runner import COMPLETED, ENV_MISSING, HARNESS_ERROR, TIMEOUT
from repro.vocabulary import Platform as PlatformName

Text = Annotated[str, StringConstraints(max_length=20_000, pattern=r"^[^\x00]*$")]
Name = Annotated[str, StringConstraints(max_length=500, pattern=r"^[^\x00]*$")]
Outcome = Annotated[str, StringConstraints(pattern=r"^[A-Z][A-Z_]{0,39}$")]
Count = Annotated[int, Field(ge=0, le=1_000_000)]
Seconds = Annotated[float, Field(ge=0, le=1e6)]


class ReportError(ValueError):
    """The body is not a valid report; ``errors`` lists ``(field, reason)``."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        super().__init__("; ".join(f"{f}: {r}" for f, r in errors))
        self.errors = errors


class Forbidden(PermissionError):
    """The token or secret may not act on this job."""


class _Part(BaseModel):
    """A harness sub-object: strict types; unknown keys are dropped, never stored."""

    model_config = ConfigDict(strict=True, extra="ignore", populate_by_name=True)


class ErrorInfo(_Part):
    class_: Name | None = Field(None, alias="class")
    message: Text | None = None
    file: Name | None = None
    line: Count | None = None
    function: Name | None = None
    stage: Name | None = None


class Scenario(_Part):
    scenario: Name
    outcome: Outcome
    source: Name | None = None
    backend: Name | None = None
    command: Text | None = None
    flaky: bool = False
    caveat: Text | None = None
    error: ErrorInfo | None = None
    repeats: Count | None = None
    outcomes: list[Outcome] = Field(default_factory=list, max_length=100)
    duration_s: Seconds | None = None
    wall_s: Seconds | None = None


class Trigger(Scenario):
    scenario: Name = "trigger"


class Platform(_Part):
    name: Name
    simulated: bool
    device: Name | None = None
    sm: Name | int | float | list[int] | None = None
    cuda: Name | None = None
    driver: Name | None = None
    torch: Name | None = None
    python: Name | None = None
    cuda_available: bool | None = None
    packages: dict[Name, Name] = Field(default_factory=dict, max_length=200)


class DriftSite(_Part):
    file: Name | None = None
    line: Count | None = None
    function: Name | None = None
    class_: Name | None = Field(None, alias="class")
    message: Text | None = None
    class_matches: bool | None = None


class Drift(_Part):
    status: Name | None = None
    moved: bool | None = None
    note: Text | None = None
    record: DriftSite | None = None
    installed: DriftSite | None = None
    observed: DriftSite | None = None


class HarnessResult(_Part):
    harness: Name | None = None
    sglang_version: Name | None = None
    record_id: Name | None = None
    platform: Platform | None = None
    trigger: Trigger | None = None
    fixes: list[Scenario] = Field(default_factory=list, max_length=100)
    drift: Drift | None = None
    log_tail: list[Text] | Text | None = Field(None)


class RunnerReport(_Part):
    outcome: Literal["COMPLETED", "ENV_MISSING", "HARNESS_ERROR", "TIMEOUT"]
    duration_s: Seconds | None = None
    message: Text | None = None
    stderr_tail: list[Text] | Text | None = None
    result: HarnessResult | None = None


class JobStart(BaseModel):
    """``POST /api/v1/jobs/<id>/start``: the job's secret; ``worker`` is a label only."""

    model_config = ConfigDict(strict=True, extra="forbid")
    secret: Annotated[str, StringConstraints(min_length=16, max_length=200)]
    worker: Name | None = None


class JobResult(JobStart):
    """``POST /api/v1/jobs/<id>/result``: the secret and the runner's report."""

    report: RunnerReport


assert {COMPLETED, ENV_MISSING, HARNESS_ERROR, TIMEOUT} == set(
    RunnerReport.model_fields["outcome"].annotation.__args__  # type: ignore[union-attr]
)


def _errors(exc: ValidationError) -> list[tuple[str, str]]:
    return [
        (".".join(str(p) for p in e["loc"]) or "(body)", e["msg"])
        for e in exc.errors(include_url=False, include_input=False)
    ][:20]


def parse_start(data: Any) -> JobStart:
    try:
        return JobStart.model_validate(data)
    except ValidationError as exc:
        raise ReportError(_errors(exc)) from None


def parse_result(data: Any) -> JobResult:
    try:
        return JobResult.model_validate(data)
    except ValidationError as exc:
        raise ReportError(_errors(exc)) from None


def report_dict(report: RunnerReport) -> dict[str, Any]:
    """The validated report as stored (dataset-style keys, ``class`` included)."""
    return report.model_dump(mode="json", by_alias=True)


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def new_job_secret(run: ReproRun) -> str:
    """A fresh secret for a dispatched job; only its hash is kept on the run."""
    secret = secrets.token_urlsafe(32)
    run.secret_hash = _hash(secret)
    return secret


class WorkerToken(Protocol):
    """What a report check reads of the API token that sent it (``app.auth.models``)."""

    id: int
    name: str
    scope: str
    gpu: bool


def worker_label(token: WorkerToken) -> str:
    return f"{token.name} (token {token.id})"


def authorize(run: ReproRun, token: WorkerToken, secret: str) -> None:
    """Raise :class:`Forbidden` unless ``token`` holding ``secret`` may act on ``run``."""
    if run.secret_hash is None or not hmac.compare_digest(run.secret_hash, _hash(secret)):
        raise Forbidden("the job secret does not match the one this job was dispatched with")
    if run.worker_token_id is not None and run.worker_token_id != token.id:
        raise Forbidden("another worker token started this job")


def check_claims(run: ReproRun, token: WorkerToken, report: RunnerReport) -> None:
    """Real GPU hardware only from GPU worker tokens; the platform must be the job's.

    A `cpu` run is not simulated and not a GPU either: any worker may report it."""
    platform = report.result.platform if report.result is not None else None
    claims_real = run.platform == PlatformName.REAL or (
        platform is not None and not platform.simulated and platform.name != PlatformName.CPU
    )
    if claims_real and not token.gpu and token.scope != "admin":
        raise Forbidden("only a token registered as a GPU worker may report real hardware")
    if platform is not None and platform.name != run.platform:
        raise ReportError([("report.result.platform.name", f"this job runs on {run.platform!r}")])


def safe_fixes(fixes: Any) -> list[dict[str, Any]]:
    """Stored fix summaries that follow the schema (older rows may not): the rest dropped."""
    out: list[dict[str, Any]] = []
    for fix in fixes if isinstance(fixes, list) else []:
        try:
            out.append(Scenario.model_validate(fix).model_dump(mode="json", by_alias=True))
        except ValidationError:
            continue
    return out
