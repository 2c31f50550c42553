"""Turn a record into scenarios: the trigger command and the fix commands to try.

The trigger is the launch command in the "before" block of ``exampleFix``. Fixes are
the "after" command and, for each attention backend a solution names (matched against
the real registry keys handed in), the trigger's command with ``--attention-backend``
replaced; a solution that says to let sglang auto-select yields the command with the
flag removed. Standard library only, so it is testable without sglang.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any

BACKEND_FLAG = "--attention-backend"
AUTO = "auto"
_LAUNCH_MARKERS = ("sglang.launch_server", "sglang.launch_server.py")
_AUTO_PATTERNS = (
    r"\bauto[- ]?select",
    r"\blet (sglang|it) (choose|pick|select)",
    r"\bdefault backend\b",
    r"\bremove the (explicit )?--attention-backend",
)


class ScenarioError(ValueError):
    """The record does not carry a launch command this harness can run."""


@dataclass
class Scenario:
    """One launch to attempt: its argv (after the launcher prefix) and where it came from."""

    name: str
    role: str  # "trigger" or "fix"
    argv: list[str]
    backend: str  # the requested backend, or "auto" when the flag is absent
    source: str
    command: str = ""


def split_example_fix(text: str) -> dict[str, list[str]]:
    """Launch commands per section ("before", "after") of an exampleFix block."""
    sections: dict[str, list[str]] = {}
    current = "before"
    pending = ""
    for raw in (text or "").splitlines():
        line = raw.strip()
        heading = re.fullmatch(r"#+\s*(before|after)\b.*", line, flags=re.IGNORECASE)
        if heading:
            current = heading.group(1).lower()
            continue
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line, pending = pending + line, ""
        if _launch_index(shlex.split(line)) is not None:
            sections.setdefault(current, []).append(line)
    return sections


def _launch_index(tokens: list[str]) -> int | None:
    for i, token in enumerate(tokens):
        if token.endswith(_LAUNCH_MARKERS):
            return i + 1
        if token == "serve" and i > 0 and tokens[i - 1].endswith("sglang"):
            return i + 1
    return None


def launch_argv(command: str) -> list[str]:
    """The server arguments of a launch command, without ``python -m sglang.launch_server``."""
    tokens = shlex.split(command)
    start = _launch_index(tokens)
    if start is None:
        raise ScenarioError(f"not an sglang launch command: {command!r}")
    return tokens[start:]


def backend_of(argv: list[str]) -> str:
    for i, token in enumerate(argv):
        if token == BACKEND_FLAG and i + 1 < len(argv):
            return argv[i + 1]
        if token.startswith(BACKEND_FLAG + "="):
            return token.split("=", 1)[1]
    return AUTO


def with_backend(argv: list[str], backend: str) -> list[str]:
    """``argv`` with its ``--attention-backend`` replaced (removed for ``auto``)."""
    out: list[str] = []
    skip = False
    for token in argv:
        if skip:
            skip = False
            continue
        if token == BACKEND_FLAG:
            skip = True
            continue
        if token.startswith(BACKEND_FLAG + "="):
            continue
        out.append(token)
    return out if backend == AUTO else [*out, BACKEND_FLAG, backend]


def backends_named(text: str, registry_keys: list[str]) -> list[str]:
    """Registry keys that appear as whole tokens in a solution, in order of appearance."""
    keys = set(registry_keys)
    found: list[str] = []
    for token in re.findall(r"[A-Za-z0-9_]+", text):
        if token in keys and token not in found:
            found.append(token)
    if any(re.search(p, text, flags=re.IGNORECASE) for p in _AUTO_PATTERNS):
        found.append(AUTO)
    return found


def build_scenarios(record: dict[str, Any], registry_keys: list[str]) -> list[Scenario]:
    """The trigger scenario first, then the fix scenarios, one per distinct backend."""
    sections = split_example_fix(str(record.get("exampleFix") or ""))
    if not sections.get("before"):
        raise ScenarioError("record has no launch command in the exampleFix 'before' block")
    trigger_cmd = sections["before"][0]
    trigger_argv = launch_argv(trigger_cmd)
    trigger_backend = backend_of(trigger_argv)
    scenarios = [
        Scenario(
            name=f"trigger:{trigger_backend}",
            role="trigger",
            argv=trigger_argv,
            backend=trigger_backend,
            source="exampleFix.before",
            command=trigger_cmd,
        )
    ]
    seen = {trigger_backend}
    for cmd in sections.get("after", []):
        argv = launch_argv(cmd)
        backend = backend_of(argv)
        if backend in seen:
            continue
        seen.add(backend)
        scenarios.append(Scenario(f"fix:{backend}", "fix", argv, backend, "exampleFix.after", cmd))
    for index, solution in enumerate(record.get("solutions") or []):
        for backend in backends_named(str(solution), registry_keys):
            if backend in seen:
                continue
            seen.add(backend)
            argv = with_backend(trigger_argv, backend)
            scenarios.append(
                Scenario(
                    name=f"fix:{backend}",
                    role="fix",
                    argv=argv,
                    backend=backend,
                    source=f"solutions[{index}]",
                    command=_command(trigger_cmd, argv),
                )
            )
    return scenarios


def _command(template: str, argv: list[str]) -> str:
    tokens = shlex.split(template)
    start = _launch_index(tokens) or 0
    return shlex.join([*tokens[:start], *argv])
