"""The shared words: platforms, run statuses and outcomes, defined once.

``app/`` and ``repro/`` both import this module (``repro`` never imports ``app``); enums,
``click.Choice`` values, request validation and the OpenAPI document derive from it.
"""

from __future__ import annotations

from enum import StrEnum


class Platform(StrEnum):
    """Where a harness runs: a simulated GPU, plain CPU, or the real device."""

    BLACKWELL = "blackwell"
    HOPPER = "hopper"
    AMPERE = "ampere"
    MI300 = "mi300"
    CPU = "cpu"
    REAL = "real"


class RunStatus(StrEnum):
    """A job's life (kept apart from what the harness and the upstream code did)."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    INVALID = "invalid"


class RunOutcome(StrEnum):
    """What the harness process did."""

    COMPLETED = "COMPLETED"
    HARNESS_ERROR = "HARNESS_ERROR"
    TIMEOUT = "TIMEOUT"
    ENV_MISSING = "ENV_MISSING"


class TriggerOutcome(StrEnum):
    """What the upstream code did when the trigger ran."""

    REPRODUCED = "REPRODUCED"
    DIFFERENT_ERROR = "DIFFERENT_ERROR"
    NOT_REPRODUCED = "NOT_REPRODUCED"
    HARNESS_ERROR = "HARNESS_ERROR"
    TIMEOUT = "TIMEOUT"
    NEEDS_GPU = "NEEDS_GPU"


class FixOutcome(StrEnum):
    """What a record's fix did."""

    FIXED = "FIXED"
    FIX_FAILS = "FIX_FAILS"
    FIX_BREAKS = "FIX_BREAKS"


PLATFORMS: tuple[str, ...] = tuple(p.value for p in Platform)
SIMULATED_PLATFORMS: tuple[str, ...] = (
    Platform.BLACKWELL.value,
    Platform.HOPPER.value,
    Platform.AMPERE.value,
    Platform.MI300.value,
)
DEFAULT_PLATFORM = Platform.BLACKWELL.value
PLATFORM_LABELS = {
    "blackwell": "Blackwell",
    "hopper": "Hopper",
    "ampere": "Ampere",
    "mi300": "MI300",
    "cpu": "CPU",
    "real": "GPU",
}
STATUSES: tuple[str, ...] = tuple(s.value for s in RunStatus)
RUN_OUTCOMES: tuple[str, ...] = tuple(o.value for o in RunOutcome)
TRIGGER_OUTCOMES: tuple[str, ...] = tuple(o.value for o in TriggerOutcome)
FIX_OUTCOMES: tuple[str, ...] = tuple(o.value for o in FixOutcome)
