"""Check simulated verdicts against known facts about sglang on real hardware.

Run inside the sglang env: ``python -m repro.explore.facts FACTS.json`` prints one JSON
object: per fact, what the simulated run did and whether that contradicts the fact.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from repro.explore._engine import Explorer
from repro.explore._scenario import GPU, HARNESS, LAUNCHED, Scenario, verdict
from repro.harnesses._simulate import SIMULATED


def judge(expect: str, answer: dict[str, Any], simulated: bool) -> tuple[str, bool]:
    """(what happened, whether it contradicts ``expect``). Unknown never contradicts."""
    kind, _ = verdict(answer, simulated)
    if kind in (GPU, HARNESS):
        happened = kind
    elif kind == LAUNCHED:
        happened = "launches"
    else:
        happened = "rejects"
    if expect.startswith("resolves:"):
        resolved = (answer.get("resolved_backends") or [None])[0]
        if resolved is None:
            return f"not resolved ({happened})", happened == "rejects"
        return f"resolves:{resolved}", resolved != expect.split(":", 1)[1]
    if happened in (GPU, HARNESS):
        return happened, False
    return happened, happened != expect


def check(facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from repro.explore.sweep import warm_imports

    warm_imports()
    platforms = sorted({f["platform"] for f in facts})
    models = sorted({f["model"] for f in facts})
    ex = Explorer(platforms=platforms, models=models, workers=2)
    scenarios = [Scenario(f["platform"], f["model"], tuple(f["flags"])) for f in facts]
    answers = ex.run(scenarios)
    out = []
    for fact, s in zip(facts, scenarios, strict=True):
        answer = answers[s.key]
        happened, contradicts = judge(fact["expect"], answer, s.platform in SIMULATED)
        error = answer.get("error") or {}
        out.append(
            {
                "id": fact["id"],
                "expect": fact["expect"],
                "observed": happened,
                "contradicts": contradicts,
                "command": s.command(),
                "error": {k: error.get(k) for k in ("class", "message", "file", "line", "stage")}
                if error
                else None,
            }
        )
    return out


def main(argv: list[str]) -> int:
    data = json.loads(Path(argv[0]).read_text())
    # sglang and its forks print to stdout; only the answer may go there.
    answer_fd = os.dup(1)
    os.dup2(2, 1)
    results = check(data["facts"])
    with os.fdopen(answer_fd, "w") as out:
        json.dump({"results": results}, out, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
