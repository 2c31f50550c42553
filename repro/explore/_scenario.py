"""One launch scenario and what its run says: the part of the explorer that decides
answers (a change here invalidates the sweep cache; see ``code_hash``).

Imported inside the sglang environment for running; importable without it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from repro.explore._space import MODEL_TOKEN
from repro.harnesses import _classify as C
from repro.harnesses._models import MODEL_CONFIGS_DIR
from repro.harnesses._simulate import SIMULATED
from repro.paths import public_path

STAGES = ("parse", "model_lookup", "resolve", "check", "publish", "runner_setup", "construct")
LAUNCHED, SITE, GPU, HARNESS = "LAUNCHED", "SITE", "NEEDS_GPU", "HARNESS_ERROR"
DELETE = "@delete"  # a config.json edit's value: the key removed
# Model config directories with an edited config.json (Scenario.patch).
PATCHED_DIR = Path(tempfile.gettempdir()) / "errata-sweep-models"


@dataclass(frozen=True)
class Scenario:
    platform: str
    model: str  # directory name under data/model-configs
    extra: tuple[str, ...] = ()
    patch: tuple[tuple[str, str], ...] = ()  # config.json edits: (key, JSON value or DELETE)

    @property
    def key(self) -> str:
        parts: list[Any] = [self.platform, self.model, list(self.extra)]
        return json.dumps(parts + [[list(p) for p in self.patch]] if self.patch else parts)

    def argv(self) -> list[str]:
        path = str(MODEL_CONFIGS_DIR / self.model)
        extra = [path if t == MODEL_TOKEN else t for t in self.extra]
        return ["--model-path", str(self.model_dir()), *extra]

    def model_dir(self) -> Path:
        """The shipped config directory, or a copy with ``patch`` applied to its
        ``config.json`` (made once per patch, under the temp directory)."""
        source = MODEL_CONFIGS_DIR / self.model
        if not self.patch:
            return source
        digest = hashlib.sha256(json.dumps(self.patch).encode()).hexdigest()[:12]
        target = PATCHED_DIR / f"{self.model}~{digest}"
        if (target / "config.json").is_file():
            return target
        PATCHED_DIR.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=PATCHED_DIR))
        for item in source.iterdir():
            if item.is_file():
                shutil.copy2(item, staging / item.name)
        config = json.loads((source / "config.json").read_text())
        for key, value in self.patch:
            if value == DELETE:
                config.pop(key, None)
            else:
                config[key] = json.loads(value)
        (staging / "config.json").write_text(json.dumps(config, indent=1))
        try:
            staging.rename(target)
        except OSError:  # another worker made it first
            shutil.rmtree(staging, ignore_errors=True)
        return target

    def without_edit(self, edit: tuple[str, str]) -> Scenario:
        """The same scenario with one config.json edit undone."""
        return replace(self, patch=tuple(p for p in self.patch if p != edit))

    def edits(self) -> dict[str, Any]:
        """The config.json edits as shown to users (a removed key is ``None``)."""
        return {k: None if v == DELETE else json.loads(v) for k, v in self.patch}

    def command(self) -> str:
        import shlex

        device = "cuda" if self.platform in SIMULATED else "cpu"
        extra = [self.model if t == MODEL_TOKEN else t for t in self.extra]
        args = ["--model-path", self.model, *extra, "--device", device]
        line = shlex.join(["python", "-m", "sglang.launch_server", *args])
        if not self.patch:
            return line
        edits = ", ".join(f"{k} removed" if v == DELETE else f"{k}={v}" for k, v in self.patch)
        return f"{line}  # config.json edited: {edits}"


def _platform(name: str) -> dict[str, Any]:
    simulated = name in SIMULATED
    return {"name": name, "simulated": simulated, "server_device": "cuda" if simulated else "cpu"}


def job(scenario: Scenario) -> Any:
    def run() -> dict[str, Any]:
        from repro.harnesses._sglang_steps import run_scenario

        return run_scenario(scenario.argv(), _platform(scenario.platform), "cpu")

    return run


def verdict(answer: dict[str, Any], simulated: bool) -> tuple[str, tuple[str, int] | None]:
    """What one run did: launched, raised at an sglang site, needs a GPU, or harness."""
    if "fork_error" in answer:
        return HARNESS, None
    error = answer.get("error")
    if not error:
        return LAUNCHED, None
    if error.get("stage") in ("model_lookup", "runner_setup") or C.harness_fault(error):
        return HARNESS, None
    if C.needs_gpu(error) or C.simulation_gap(error, simulated):
        return GPU, None
    if not error.get("in_sglang"):
        return HARNESS if error.get("stage") == "construct" else "EXTERNAL", None
    return SITE, (public_path(str(error["file"])), int(error["line"]))


def compact(answer: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        k: answer[k] for k in ("fork_error", "detail", "resolved_backends") if k in answer
    }
    error = answer.get("error")
    if error:
        keep = ("class", "qualname", "file", "line", "function", "stage", "in_sglang", "code")
        out["error"] = {k: error.get(k) for k in keep}
        out["error"]["file"] = public_path(str(error.get("file")))
        out["error"]["message"] = public_path(str(error.get("message", "")))[:400]
    else:
        out["error"] = None
    return out
