"""Outcome rules, kept apart as in SWE-bench: the trigger reproduces or not; each fix
fixes, fails, breaks something else, or needs a GPU to tell.

Works on plain error dicts ``{class, message, file, line, function, stage}`` (or None
when the backend constructed), so it is testable without sglang.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path
from typing import Any

from repro.harnesses._pattern import search
from repro.vocabulary import FixOutcome, TriggerOutcome

REPRODUCED = TriggerOutcome.REPRODUCED.value
DIFFERENT_ERROR = TriggerOutcome.DIFFERENT_ERROR.value
NOT_REPRODUCED = TriggerOutcome.NOT_REPRODUCED.value
HARNESS_ERROR = TriggerOutcome.HARNESS_ERROR.value
TIMEOUT = TriggerOutcome.TIMEOUT.value
NEEDS_GPU = TriggerOutcome.NEEDS_GPU.value
FIXED = FixOutcome.FIXED.value
FIX_FAILS = FixOutcome.FIX_FAILS.value
FIX_BREAKS = FixOutcome.FIX_BREAKS.value

# Modules that exist only as CUDA/ROCm wheels: failing to import one of them while
# constructing a backend means the code path needs a GPU build, not that it is broken.
GPU_ONLY_MODULES = (
    "flashinfer",
    "sgl_kernel",
    "flash_attn",
    "flash_mla",
    "flash_attn_interface",
    "sgl_fa",
    "tensorrt_llm",
    "deep_gemm",
    "deep_ep",
    "cutlass",
    "cuda",
    "aiter",
    "nvidia",
    "cudnn",
    "pynvml",
)
# Messages torch, triton and the CUDA runtime give when no usable GPU is present.
NO_GPU_MESSAGES = (
    r"Torch not compiled with CUDA enabled",
    r"No CUDA GPUs are available",
    r"Found no NVIDIA driver",
    r"CUDA driver version is insufficient",
    r"\bCUDA\b.*\bnot available\b",
    r"libcuda\.so",
    r"0 active drivers",
    r"no kernel image is available",
    r"Cannot access accelerator device when none is available",
    r"nvidia-smi not found",
    r"rocm-smi not found",
)


def _module_name(error: dict[str, Any]) -> str | None:
    match = re.search(r"No module named '([^']+)'", str(error.get("message", "")))
    return match.group(1) if match else None


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def gpu_import_of(source: str, name: str) -> str | None:
    """The GPU-only package that ``source`` imports ``name`` from, if any (the
    ``if is_flashinfer_available(): from flashinfer import X`` pattern)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            root = node.module.split(".")[0]
            if root in GPU_ONLY_MODULES and any(
                (alias.asname or alias.name) == name for alias in node.names
            ):
                return node.module
    return None


def _source_file(file: str) -> Path | None:
    """The file an error names: as given, or (reports name files relative to their
    package, ``sglang/srt/...``) inside the installed package."""
    path = Path(file)
    if path.is_file():
        return path
    if path.is_absolute() or not path.parts:
        return None
    try:
        spec = importlib.util.find_spec(path.parts[0])
    except (ImportError, ValueError):
        return None
    for location in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(location).parent / path
        if candidate.is_file():
            return candidate
    return None


def needs_gpu(error: dict[str, Any]) -> str | None:
    """Why this error means "needs a GPU here", or None if it does not."""
    if error.get("class") in {"ModuleNotFoundError", "ImportError"}:
        module = _module_name(error) or ""
        root = module.split(".")[0]
        if root in GPU_ONLY_MODULES:
            return f"GPU-only module {module!r} is not installed on this machine"
    if error.get("class") == "NameError" and error.get("file"):
        match = re.search(r"name '([^']+)' is not defined", str(error.get("message", "")))
        path = _source_file(str(error["file"]))
        if match and path is not None:
            source = gpu_import_of(path.read_text(), match.group(1))
            if source and not _installed(source.split(".")[0]):
                return (
                    f"{match.group(1)!r} comes from GPU-only module {source!r}, imported "
                    "under an availability guard, and that module is not installed"
                )
    message = str(error.get("message", ""))
    for pattern in NO_GPU_MESSAGES:
        if re.search(pattern, message):
            return f"no usable CUDA device: {pattern}"
    return None


def _norm(path: str) -> str:
    path = path.replace("\\", "/")
    index = path.rfind("sglang/")
    return path[index:] if index >= 0 else path


def same_file(raised: str | None, record_path: str | None) -> bool:
    """Compare from ``sglang/`` on: records carry ``python/sglang/...``, installs don't."""
    return bool(raised and record_path) and _norm(str(raised)) == _norm(str(record_path))


def same_class(error: dict[str, Any], record_class: str | None) -> bool:
    """Class names compared short (``OutOfMemoryError``) and qualified
    (``torch.OutOfMemoryError`` vs ``torch.cuda.OutOfMemoryError``: same root package)."""
    if not record_class:
        return False
    short = str(error.get("class") or "")
    qualified = str(error.get("qualname") or short)
    if record_class in (short, qualified):
        return True
    if "." not in record_class:
        return record_class == qualified.rsplit(".", 1)[-1]
    root, _, name = record_class.partition(".")
    return name.rsplit(".", 1)[-1] == short and qualified.split(".", 1)[0] == root


def is_record_error(error: dict[str, Any] | None, record: dict[str, Any]) -> bool:
    """The record's error: same class, message matches ``messagePattern``, same file."""
    if not error:
        return False
    pattern = record.get("messagePattern") or re.escape(str(record.get("errorMessage", "")))
    return (
        same_class(error, record.get("errorClass"))
        and search(pattern, str(error.get("message", "")))
        and same_file(error.get("file"), record.get("filePath"))
    )


def harness_fault(error: dict[str, Any] | None) -> str | None:
    """Why an error is the harness's own (raised in its code, or by its stand-in
    runner missing something sglang reads), or None."""
    if not error:
        return None
    file = str(error.get("file") or "").replace("\\", "/")
    if "/repro/" in file or file.startswith("repro/"):
        return f"raised in harness code ({_norm(file)}:{error.get('line')})"
    if re.search(r"'HarnessRunner' object has no attribute", str(error.get("message", ""))):
        return "the harness's stand-in runner lacks an attribute sglang reads"
    return None


def simulation_gap(error: dict[str, Any], simulated: bool) -> str | None:
    """Why an error on a simulated platform says nothing about real hardware, or None.

    The simulation covers the platform object, the device probes and torch's device
    queries; it does not cover module constants computed at import, device memory or
    kernels, all of which backend construction reaches. So a construct-stage error
    there is not a verdict."""
    if simulated and error.get("stage") == "construct" and not _factory_guard(error):
        return (
            "raised while constructing the backend on a simulated platform; the simulation "
            "covers platform facts and device queries, not what construction touches beyond them"
        )
    return None


# The backend factories' own checks: they read the simulated probes and the runner only.
FACTORY_FILE = "sglang/srt/layers/attention/attention_registry.py"
GUARD_CLASSES = ("AssertionError", "ValueError", "NotImplementedError", "RuntimeError")


def _factory_guard(error: dict[str, Any]) -> bool:
    return _norm(str(error.get("file") or "")) == FACTORY_FILE and (
        error.get("class") in GUARD_CLASSES
    )


def classify_trigger(
    error: dict[str, Any] | None, record: dict[str, Any], simulated: bool = False
) -> str:
    if error is None:
        return NOT_REPRODUCED
    if is_record_error(error, record):
        return REPRODUCED
    if harness_fault(error):
        return HARNESS_ERROR
    if _gpu_or_gap(error, simulated):
        return NEEDS_GPU
    return DIFFERENT_ERROR


def classify_fix(
    error: dict[str, Any] | None, record: dict[str, Any], simulated: bool = False
) -> str:
    """FIXED / FIX_FAILS / NEEDS_GPU / FIX_BREAKS / HARNESS_ERROR. FIX_BREAKS is only
    said of what the harness covers: never of a simulation gap or its own fault."""
    if error is None:
        return FIXED
    if is_record_error(error, record):
        return FIX_FAILS
    if harness_fault(error):
        return HARNESS_ERROR
    if _gpu_or_gap(error, simulated):
        return NEEDS_GPU
    return FIX_BREAKS


def _gpu_or_gap(error: dict[str, Any], simulated: bool) -> bool:
    """A no-GPU error while constructing (anywhere, on a simulated platform: a device
    probe it does not cover), or any construct-stage error on a simulated platform."""
    if needs_gpu(error) and (simulated or error.get("stage") == "construct"):
        return True
    return simulation_gap(error, simulated) is not None


def summarize(outcomes: list[str]) -> tuple[str, bool]:
    """The run's outcome over repeats (the most common one) and whether they disagree."""
    if not outcomes:
        return HARNESS_ERROR, False
    best = max(dict.fromkeys(outcomes), key=outcomes.count)
    return best, len(set(outcomes)) > 1
