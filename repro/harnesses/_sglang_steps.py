"""The sglang steps of one scenario: parse, resolve, publish, build a runner, construct.

Imported only inside the sglang environment. Everything here calls sglang's own code:
its argument parser, ``ServerArgs.resolve_once``, ``runtime_context.publish`` and
``override_platform``, its ModelConfig, memory pools and the ``ATTENTION_BACKENDS``
factories; the runner object carries what ModelRunner would, derived the same way.
"""

from __future__ import annotations

import argparse
import contextlib
import time
import traceback
from typing import Any

import torch
from sglang.srt.arg_groups.overrides import model_config_of
from sglang.srt.configs.model_config import AttentionArch
from sglang.srt.layers.attention.attention_registry import ATTENTION_BACKENDS
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.srt.runtime_context import attention_backends, publish
from sglang.srt.server_args import ServerArgs

from repro.harnesses._models import resolve_model_dir
from repro.harnesses._simulate import SIMULATED, simulate

KV_POOL_TOKENS = 256
MAX_REQUESTS = 4


def error_info(exc: BaseException, stage: str) -> dict[str, Any]:
    """Class, message and raise site (innermost traceback frame) of an exception."""
    frames = traceback.extract_tb(exc.__traceback__)
    last = frames[-1] if frames else None
    kind = type(exc)
    return {
        "class": kind.__name__,
        "qualname": f"{kind.__module__}.{kind.__qualname__}",
        "message": str(exc),
        "file": last.filename if last else None,
        "line": last.lineno if last else None,
        "function": last.name if last else None,
        "code": last.line if last else None,
        "stage": stage,
        "frames": [f"{f.filename}:{f.lineno} {f.name}" for f in frames[-6:]],
        "in_sglang": bool(last and _SGLANG_FILE in last.filename.replace("\\", "/")),
    }


_SGLANG_FILE = "/sglang/"


class HarnessRunner:
    """What the backend factories read from a ModelRunner, set the way ModelRunner sets it."""

    kv_cache_dtype: torch.dtype  # set by configure_kv_cache_dtype, as on ModelRunner
    decode_num_tokens_per_req = ModelRunner.decode_num_tokens_per_req
    init_kv_index_translator = ModelRunner.init_kv_index_translator
    configure_kv_cache_dtype = ModelRunner.configure_kv_cache_dtype

    def __init__(self, server_args: ServerArgs, device: str) -> None:
        from sglang.srt.model_executor.model_runner_components.load_model_utils import (
            resolve_sliding_window_size,
        )
        from sglang.srt.runtime_context import get_schedule
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

        model_config = model_config_of(server_args)
        self.server_args = server_args
        self.model_config = model_config
        self.device = device
        self.gpu_id = 0
        self.is_draft_worker = False
        self.draft_attention_backend = None
        self.init_new_workspace = False
        self.use_mla_backend = model_config.attention_arch == AttentionArch.MLA
        self.attention_chunk_size = model_config.attention_chunk_size
        self.page_size = get_schedule().page_size or 1
        self.dtype = model_config.dtype
        self.spec_algorithm = SpeculativeAlgorithm.from_string(None)
        self.sliding_window_size = resolve_sliding_window_size(None, model_config)
        self.max_running_requests = MAX_REQUESTS
        self.prefill_attention_backend_str, self.decode_attention_backend_str = attention_backends()
        self.configure_kv_cache_dtype()
        self._init_pools()
        self.init_kv_index_translator()

    def _init_pools(self) -> None:
        """Small real pools (a few requests, a few hundred tokens) on this machine's device."""
        from sglang.srt.mem_cache.allocator.paged import PagedTokenToKVPoolAllocator
        from sglang.srt.mem_cache.allocator.token import TokenToKVPoolAllocator
        from sglang.srt.mem_cache.memory_pool import (
            MHATokenToKVPool,
            MLATokenToKVPool,
            ReqToTokenPool,
        )

        mc = self.model_config
        size = max(KV_POOL_TOKENS, self.page_size * 4)
        self.req_to_token_pool = ReqToTokenPool(
            size=MAX_REQUESTS, max_context_len=size, device=self.device, enable_memory_saver=False
        )
        if self.use_mla_backend:
            pool: Any = MLATokenToKVPool(
                size, self.page_size, self.kv_cache_dtype, mc.kv_lora_rank,
                mc.qk_rope_head_dim, mc.num_hidden_layers, self.device, False,
            )  # fmt: skip
        else:
            pool = MHATokenToKVPool(
                size, self.page_size, self.kv_cache_dtype, mc.get_num_kv_heads(1), mc.head_dim,
                mc.num_hidden_layers, self.device, False, enable_alt_stream=False,
            )  # fmt: skip
        self.token_to_kv_pool = pool
        if self.page_size == 1:
            self.token_to_kv_pool_allocator: Any = TokenToKVPoolAllocator(
                size, self.kv_cache_dtype, self.device, pool, False
            )
        else:
            self.token_to_kv_pool_allocator = PagedTokenToKVPoolAllocator(
                size, self.page_size, self.kv_cache_dtype, self.device, pool, False
            )


def _argv_for(argv: list[str], device: str | None) -> tuple[list[str], list[str]]:
    """Add what the platform implies (``--device``) when the command does not say it."""
    added: list[str] = []
    if device and not any(a == "--device" or a.startswith("--device=") for a in argv):
        added = ["--device", device]
    return [*argv, *added], added


def run_scenario(argv: list[str], platform: dict[str, Any], runner_device: str) -> dict[str, Any]:
    """Run one scenario and describe what happened; never raises."""
    started = time.perf_counter()
    stage = "parse"
    answer: dict[str, Any] = {"error": None}
    simulated = platform.get("simulated") and platform["name"] in SIMULATED
    scope = simulate(platform["name"]) if simulated else contextlib.nullcontext()
    try:
        with scope:
            full_argv, added = _argv_for(argv, platform.get("server_device"))
            answer["implied_args"] = added
            parser = argparse.ArgumentParser(prog="sglang.launch_server", exit_on_error=False)
            ServerArgs.add_cli_args(parser)
            namespace = parser.parse_args(full_argv)
            answer["model"] = namespace.model_path
            stage = "model_lookup"
            namespace.model_path = str(resolve_model_dir(namespace.model_path))
            stage = "parse"
            server_args = ServerArgs.from_cli_args(namespace)
            stage = "resolve"
            server_args.resolve_once()
            # The engine's launch order (entrypoints/engine.py): resolve, then the
            # cross-argument checks, then publish.
            stage = "check"
            server_args.check_server_args()
            stage = "publish"
            publish(server_args, role="scheduler")
            stage = "runner_setup"
            runner = HarnessRunner(server_args, runner_device)
            answer["use_mla_backend"] = runner.use_mla_backend
            answer["attention_arch"] = str(runner.model_config.attention_arch)
            prefill, decode = (
                runner.prefill_attention_backend_str,
                runner.decode_attention_backend_str,
            )
            answer["resolved_backends"] = [prefill, decode]
            stage = "construct"
            built = [type(ATTENTION_BACKENDS[prefill](runner)).__name__]
            if decode != prefill:
                built.append(type(ATTENTION_BACKENDS[decode](runner)).__name__)
            answer["constructed"] = built
    except BaseException as exc:  # the scenario's failure is the result
        answer["error"] = error_info(exc, stage)
    answer["duration_s"] = round(time.perf_counter() - started, 4)
    return answer


def torch_cuda_probe() -> dict[str, Any]:
    """This machine's real device facts (run in a fork: it may initialise CUDA)."""
    info: dict[str, Any] = {"cuda_available": torch.cuda.is_available(), "torch": torch.__version__}
    info["cuda"] = torch.version.cuda
    if info["cuda_available"]:
        major, minor = torch.cuda.get_device_capability(0)
        info["device"] = torch.cuda.get_device_name(0)
        info["sm"] = major * 10 + minor
        with contextlib.suppress(Exception):
            import pynvml

            pynvml.nvmlInit()
            info["driver"] = pynvml.nvmlSystemGetDriverVersion()
    return info
