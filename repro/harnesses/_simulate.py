"""Simulated platforms: every fact a launch-time constructor reads, set in one place.

Imported only inside the sglang environment, and applied only in a forked scenario
child (the patches die with it). Three layers are set so that every reader agrees:

- sglang's platform object (``runtime_context.override_platform``), every fact it knows;
- the probe functions in ``sglang.srt.utils.common`` (``get_device_capability``,
  ``get_device_sm``, ``get_device_name``, ``get_device_core_count``, ``is_cuda``, ...),
  replaced there and in every loaded module that imported them by name;
- torch's device queries (``torch.cuda.get_device_capability``/``_properties``/``_name``).

- the module constants copied from those probes at import (``_is_cuda``, ``_is_hip``, ...)
  in every loaded sglang module.

What is NOT covered: other values computed at import time, modules imported only after
the fork (their constants see the simulated probes, but their GPU-only imports fail),
real device memory and kernels. So an error raised while constructing a backend on a
simulated platform is not taken as a verdict, except the factory guards in
``attention_registry.py``, which read only the probes above and the runner (see
``_classify.simulation_gap``).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

# Device facts per simulated platform: (capability, name, SMs, memory GiB, vendor).
DEVICES: dict[str, dict[str, Any]] = {
    "hopper": {"capability": (9, 0), "name": "NVIDIA H100 80GB HBM3", "sms": 132, "gib": 80},
    "blackwell": {"capability": (10, 0), "name": "NVIDIA B200", "sms": 148, "gib": 180},
    "ampere": {"capability": (8, 0), "name": "NVIDIA A100-SXM4-80GB", "sms": 108, "gib": 80},
    # ROCm torch reports gfx942 (MI300X) as capability (9, 4).
    "mi300": {"capability": (9, 4), "name": "AMD Instinct MI300X", "sms": 304, "gib": 192},
}
SIMULATED = tuple(DEVICES)


def platform_facts(name: str) -> dict[str, Any]:
    """Every fact sglang's platform object knows, for platform ``name``."""
    major, minor = DEVICES[name]["capability"]
    sm = major * 10 + minor
    cuda = name != "mi300"
    return {
        "is_cuda": cuda,
        "is_hip": not cuda,
        "is_npu": False,
        "is_xpu": False,
        "is_musa": False,
        "is_mps": False,
        "is_sm90": cuda and sm == 90,
        "is_sm100": cuda and sm == 100,
        "is_sm100_or_sm110": cuda and sm in (100, 110),
        "is_sm110": False,
        "is_sm120": False,
        "is_blackwell": cuda and sm >= 100,
        "is_hopper_with_cuda_12_3": cuda and sm == 90,
        "has_amx": False,
        "has_flashinfer": cuda,  # a dependency of sglang's CUDA install
        "device_sm": sm,
        "device_capability": (major, minor),
    }


def _probes(name: str) -> dict[str, Callable[..., Any]]:
    """Replacements for sglang's probe functions, by function name."""
    dev = DEVICES[name]
    facts = platform_facts(name)
    props = SimpleNamespace(
        name=dev["name"],
        major=dev["capability"][0],
        minor=dev["capability"][1],
        multi_processor_count=dev["sms"],
        total_memory=dev["gib"] << 30,
        gcnArchName="gfx942" if name == "mi300" else "",
    )
    const = {
        "is_cuda": facts["is_cuda"],
        "is_hip": facts["is_hip"],
        "is_cuda_alike": True,
        "is_sm90_supported": facts["is_sm90"],
        "is_sm100_supported": facts["is_sm100"],
        "is_sm100_or_sm110_supported": facts["is_sm100_or_sm110"],
        "is_sm110_supported": False,
        "is_sm120_supported": False,
        "is_blackwell_supported": facts["is_blackwell"],
        "is_hopper_with_cuda_12_3": facts["is_hopper_with_cuda_12_3"],
        "is_flashinfer_available": facts["has_flashinfer"],
        "get_device_sm": facts["device_sm"],
        "get_device_capability": facts["device_capability"],
        "get_device_name": dev["name"],
        "get_device_core_count": dev["sms"],
        # MiB, as the probes answer (they shell out to nvidia-smi / rocm-smi).
        "get_nvgpu_memory_capacity": float(dev["gib"] << 10),
        "get_amdgpu_memory_capacity": float(dev["gib"] << 10),
    }
    out: dict[str, Callable[..., Any]] = {k: (lambda *a, _v=v, **kw: _v) for k, v in const.items()}
    out["_torch_capability"] = lambda *a, **kw: dev["capability"]
    out["_torch_properties"] = lambda *a, **kw: props
    out["_torch_name"] = lambda *a, **kw: dev["name"]
    return out


def _rebind(originals: dict[str, Any], replacements: dict[str, Callable[..., Any]]) -> int:
    """Replace each original function object wherever a loaded module holds it."""
    by_id = {id(fn): replacements[name] for name, fn in originals.items()}
    count = 0
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict) or not str(getattr(module, "__name__", "")).startswith(
            "sglang"
        ):
            continue
        for attr, value in list(namespace.items()):
            new = by_id.get(id(value))
            if new is not None:
                namespace[attr] = new
                count += 1
    return count


# Module-level copies of the probes, computed at import (in the parent, on this CPU
# machine): ``_is_cuda = is_cuda()``. Set to the simulated answer in every sglang module.
MODULE_CONSTANTS = ("_is_cuda", "_is_hip", "_is_npu", "_is_musa", "_is_xpu", "_is_cpu")


def _rebind_constants(facts: dict[str, Any]) -> int:
    values = {
        "_is_cuda": facts["is_cuda"],
        "_is_hip": facts["is_hip"],
        "_is_npu": False,
        "_is_musa": False,
        "_is_xpu": False,
        "_is_cpu": False,
    }
    count = 0
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict) or not str(getattr(module, "__name__", "")).startswith(
            "sglang"
        ):
            continue
        for attr, value in values.items():
            if isinstance(namespace.get(attr), bool):
                namespace[attr] = value
                count += 1
    return count


@contextlib.contextmanager
def simulate(name: str) -> Iterator[dict[str, Any]]:
    """Make this process look like platform ``name`` (only ever in a forked child)."""
    import torch
    from sglang.srt.runtime_context import override_platform
    from sglang.srt.utils import common

    replacements = _probes(name)
    originals = {k: getattr(common, k) for k in replacements if hasattr(common, k)}
    rebound = _rebind(originals, replacements)
    torch.cuda.get_device_capability = replacements["_torch_capability"]
    torch.cuda.get_device_properties = replacements["_torch_properties"]
    torch.cuda.get_device_name = replacements["_torch_name"]
    facts = platform_facts(name)
    constants = _rebind_constants(facts)
    with override_platform(**facts):
        yield {
            "facts": facts,
            "probes_rebound": rebound,
            "constants_rebound": constants,
            "device": DEVICES[name]["name"],
        }
