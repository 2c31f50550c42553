"""GPU pass-to-pass check: start the real sglang Engine and generate one token.

Runs in the sglang env through the runner protocol (JSON on stdin, one JSON object on
stdout): ``{"backend": "triton", "model": "errata/tiny-qwen2"}``. The model is a tiny
Qwen2-style config from ``data/model-configs`` with random weights (``load_format=
"dummy"``) and no tokenizer (``skip_tokenizer_init``), so it needs no download. A fix
that constructs on CPU only counts as passing on a GPU when this check also passes.
"""

from __future__ import annotations

import time
import traceback
from typing import Any

from repro.harnesses._models import resolve_model_dir
from repro.harnesses._protocol import serve

PASS = "PASS"
FAIL = "FAIL"
NO_CUDA = "NO_CUDA"


def check(payload: dict[str, Any]) -> dict[str, Any]:
    import torch

    backend = payload.get("backend", "triton")
    model = payload.get("model", "errata/tiny-qwen2")
    result: dict[str, Any] = {"backend": backend, "model": model}
    if not torch.cuda.is_available():
        result["outcome"] = NO_CUDA
        return result
    result["device"] = torch.cuda.get_device_name(0)
    major, minor = torch.cuda.get_device_capability(0)
    result["sm"] = major * 10 + minor

    import sglang

    started = time.perf_counter()
    engine = None
    try:
        engine = sglang.Engine(
            model_path=str(resolve_model_dir(model)),
            load_format="dummy",
            skip_tokenizer_init=True,
            attention_backend=None if backend == "auto" else backend,
            mem_fraction_static=0.3,
            max_running_requests=4,
            context_length=256,
            cuda_graph_max_bs=4,
            disable_cuda_graph=bool(payload.get("disable_cuda_graph", True)),
            log_level="error",
        )
        result["startup_s"] = round(time.perf_counter() - started, 2)
        out = engine.generate(input_ids=[1, 2, 3, 4], sampling_params={"max_new_tokens": 1})
        result["output_ids"] = out.get("output_ids") if isinstance(out, dict) else None
        ok = bool(result["output_ids"]) and len(result["output_ids"]) == 1
        result["outcome"] = PASS if ok else FAIL
    except BaseException as exc:  # the failure is the result
        result["outcome"] = FAIL
        result["error"] = {"class": type(exc).__name__, "message": str(exc)[:2000]}
        result["traceback"] = traceback.format_exc()[-4000:]
    finally:
        if engine is not None:
            engine.shutdown()
    result["duration_s"] = round(time.perf_counter() - started, 2)
    return result


if __name__ == "__main__":
    serve(check)
