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

REPRODUCED = "REPRODUCED"
DIFFERENT_ERROR = "DIFFERENT_ERROR"
NOT_REPRODUCED = "NOT_REPRODUCED"
HARNESS_ERROR = "HARNESS_ERROR"
TIMEOUT = "TIMEOUT"
FIXED = "FIXED"
FIX_FAILS = "FIX_FAILS"
FIX_BREAKS = "FIX_BREAKS"
NEEDS_GPU = "NEEDS_GPU"

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


def needs_gpu(error: dict[str, Any]) -> str | None:
    """Why this error means "needs a GPU here", or None if it does not."""
    if error.get("class") in {"ModuleNotFoundError", "ImportError"}:
        module = _module_name(error) or ""
        root = module.split(".")[0]
        if root in GPU_ONLY_MODULES:
            return f"GPU-only module {module!r} is not installed on this machine"
    if error.get("class") == "NameError" and error.get("file"):
        match = re.search(r"name '([^']+)' is not defined", str(error.get("message", "")))
        path = Path(str(error["file"]))
        if match and path.is_file():
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


def is_record_error(error: dict[str, Any] | None, record: dict[str, Any]) -> bool:
    """The record's error: same class, message matches ``messagePattern``, same file."""
    if not error:
        return False
    pattern = record.get("messagePattern") or re.escape(str(record.get("errorMessage", "")))
    return (
        error.get("class") == record.get("errorClass")
        and search(pattern, str(error.get("message", "")))
        and same_file(error.get("file"), record.get("filePath"))
    )


def classify_trigger(error: dict[str, Any] | None, record: dict[str, Any]) -> str:
    if error is None:
        return NOT_REPRODUCED
    return REPRODUCED if is_record_error(error, record) else DIFFERENT_ERROR


def classify_fix(error: dict[str, Any] | None, record: dict[str, Any]) -> str:
    if error is None:
        return FIXED
    if is_record_error(error, record):
        return FIX_FAILS
    if error.get("stage") == "construct" and needs_gpu(error):
        return NEEDS_GPU
    return FIX_BREAKS


def summarize(outcomes: list[str]) -> tuple[str, bool]:
    """The run's outcome over repeats (the most common one) and whether they disagree."""
    if not outcomes:
        return HARNESS_ERROR, False
    best = max(dict.fromkeys(outcomes), key=outcomes.count)
    return best, len(set(outcomes)) > 1
