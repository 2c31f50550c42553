"""The dataset's record schema (v2), as pydantic models.

Field names are the dataset's own (camelCase). The same models validate the importer's
lines and, later, API writes, so there is one definition of a valid record.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)

from app.records.regex_safety import PatternRejected, check_pattern

MAX_TEXT = 100_000
MAX_SHORT = 500
MAX_PATTERN = 4_000
MAX_LIST = 200
MAX_LINE = 2**31 - 1  # the columns are 32-bit INTEGER on PostgreSQL


Severity = Literal["critical", "error", "warning", "info"]
SEVERITIES: tuple[str, ...] = ("critical", "error", "warning", "info")


def _no_nul(value: str) -> str:
    if "\x00" in value:
        raise ValueError("contains a NUL character")
    return value


def _valid_pattern(value: str) -> str:
    try:
        check_pattern(value)
    except PatternRejected as exc:
        raise ValueError(str(exc)) from None
    return value


def _iso_datetime(value: str) -> str:
    try:
        dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError("is not an ISO 8601 date-time") from None
    return value


Text = Annotated[str, StringConstraints(max_length=MAX_TEXT), AfterValidator(_no_nul)]
Short = Annotated[str, StringConstraints(max_length=MAX_SHORT), AfterValidator(_no_nul)]
NonEmptyShort = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_SHORT), AfterValidator(_no_nul)
]
Timestamp = Annotated[str, StringConstraints(max_length=64), AfterValidator(_iso_datetime)]
Pattern = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_PATTERN),
    AfterValidator(_no_nul),
    AfterValidator(_valid_pattern),
]
Tag = Annotated[str, StringConstraints(min_length=1, max_length=100, pattern=r"^[^\s\x00]+$")]


class RecordV2(BaseModel):
    """One error raise site in an upstream project (dataset schema v2)."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    id: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
    repo: Annotated[
        str, StringConstraints(pattern=r"^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$")
    ]
    slug: NonEmptyShort
    errorCode: Short | None = None
    errorMessage: Annotated[
        str, StringConstraints(min_length=1, max_length=MAX_TEXT), AfterValidator(_no_nul)
    ]
    messagePattern: Pattern
    errorType: Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_-]{0,63}$")]
    errorClass: Annotated[
        str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
    ]
    httpStatus: Annotated[int, Field(ge=100, le=599)] | None = None
    severity: Severity
    filePath: Annotated[
        str,
        StringConstraints(min_length=1, max_length=1000, pattern=r"^[^/\s\x00][^\x00]*$"),
    ]
    lineNumber: Annotated[int, Field(ge=1, le=MAX_LINE)]
    sourceCode: Text | None = None
    sourceCodeStart: Annotated[int, Field(ge=1, le=MAX_LINE)] | None = None
    sourceCodeEnd: Annotated[int, Field(ge=1, le=MAX_LINE)] | None = None
    githubUrl: (
        Annotated[str, StringConstraints(max_length=2000, pattern=r"^https://github\.com/\S+$")]
        | None
    ) = None
    documentation: Text | None = None
    triggerScenarios: Text | Annotated[list[Text], Field(max_length=MAX_LIST)] | None = None
    commonSituations: Text | None = None
    solutions: Annotated[list[Text], Field(max_length=MAX_LIST)] = []
    exampleFix: Text | None = None
    handlingStrategy: Short | None = None
    validationCode: Text | None = None
    typeGuard: Text | None = None
    tryCatchPattern: Text | None = None
    preventionTips: Annotated[list[Text], Field(max_length=MAX_LIST)] = []
    tags: Annotated[list[Tag], Field(max_length=MAX_LIST)] = []
    backgroundTag: Short | None = None
    analyzedSha: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{7,40}$")]
    analyzedAt: Timestamp
    schemaVersion: Literal[2]

    @model_validator(mode="after")
    def _line_inside_snippet(self) -> RecordV2:
        start, end = self.sourceCodeStart, self.sourceCodeEnd
        if start is not None and end is not None and start > end:
            raise ValueError("sourceCodeStart is after sourceCodeEnd")
        return self


class Envelope(BaseModel):
    """One JSONL line: the record, the dataset version it came from, a draft flag."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    record: RecordV2
    datasetVersion: Timestamp
    draft: bool = False


RECORD_FIELDS: tuple[str, ...] = tuple(RecordV2.model_fields)
