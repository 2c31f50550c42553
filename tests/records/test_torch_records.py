"""The curated records of errors PyTorch raises in C++ (`data/records/pytorch.jsonl`):
CUDA out of memory, CUDA runtime errors, NCCL errors, the NCCL watchdog timeout and cuBLAS.

No drafted corpus has them (the torch wheel has no C++ sources), so a paste of one found
nothing before. Each paste below is in a form users paste: a bare line, an issue title, an
error body, an older torch's wording, a C++ backtrace with no message at all.
"""

from __future__ import annotations

import pytest

from tests.helpers import post_match_page
from tests.records.conftest import RECORDS, import_curated

pytestmark = pytest.mark.integration

TORCH_RECORDS = RECORDS / "pytorch.jsonl"

OOM = "cuda-out-of-memory-tried-to-allocate"
ILLEGAL = "cuda-error-illegal-memory-access"
ASSERT = "cuda-error-device-side-assert-triggered"
CUDA_ANY = "cuda-error-runtime-check"
NCCL = "nccl-error-in-c10d-nccl-check"
WATCHDOG = "nccl-watchdog-collective-operation-timeout"
GEMM = "cublas-status-error-when-calling-gemm"
HANDLE = "cublas-status-not-initialized-cublascreate"

PASTES = {
    "oom-bare-line": (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 616.00 MiB. GPU 0 has a "
        "total capacity of 79.10 GiB of which 402.88 MiB is free. Process 2279 has 78.69 GiB "
        "memory in use.",
        OOM,
    ),
    "oom-torch-2.0-wording": (
        "RuntimeError: CUDA out of memory. Tried to allocate 152.00 MiB (GPU 0; 31.72 GiB total "
        "capacity; 24.89 GiB already allocated; 6.12 MiB free; 30.70 GiB reserved in total by "
        "PyTorch)",
        OOM,
    ),
    "oom-json-body": (
        '{"error":{"message":"CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total '
        'capacity of 23.53 GiB of which 20.38 MiB is free."}}',
        OOM,
    ),
    "illegal-access-title": (
        "[Bug] MTP CUDA error: an illegal memory access was encountered",
        ILLEGAL,
    ),
    "assert-torch-2.9": (
        "torch.AcceleratorError: CUDA error: device-side assert triggered\n"
        "Search for `cudaErrorAssert' in https://docs.nvidia.com/cuda/cuda-runtime-api/"
        "group__CUDART__TYPES.html for more information.\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the "
        "stacktrace below might be incorrect.",
        ASSERT,
    ),
    "assert-title-without-cuda-error": (
        "[Bug] device-side assert triggered when using run_batch",
        ASSERT,
    ),
    "cuda-other-code": ("RuntimeError: CUDA error: invalid device ordinal", CUDA_ANY),
    "nccl-dist-backend-error": (
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
        "ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for "
        "details), NCCL version 2.20.5\nncclSystemError: System call (e.g. socket, malloc) or "
        "external library call failed or device error.",
        NCCL,
    ),
    "watchdog-log-line": (
        "[rank1]:[E1016 03:31:38.928019586 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=9141, OpType=_ALLGATHER_BASE, "
        "NumelIn=19008, NumelOut=152064, Timeout(ms)=600000) ran for 600071 milliseconds before "
        "timing out.",
        WATCHDOG,
    ),
    "cublas-gemm": (
        "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( "
        "handle, opa, opb, m, n, k, &falpha, a, CUDA_R_16BF, lda, b, CUDA_R_16BF, ldb, &fbeta, "
        "c, CUDA_R_16BF, ldc, compute_type, CUBLAS_GEMM_DEFAULT_TENSOR_OP)`",
        GEMM,
    ),
    "cublas-create": (
        "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling "
        "`cublasCreate(handle)`",
        HANDLE,
    ),
}

# Only the C++ backtrace: the function and file that raised say which record it is.
CPP_FRAMES_ONLY = """\
Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 \
(most recent call first):
frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f55772b9446 in \
/usr/local/lib/python3.10/dist-packages/torch/lib/libc10.so)
frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, \
std::ratio<1l, 1000l> > >) + 0x282 (0x7f5578c1a772 in libtorch_cuda.so)
"""


def _top(client, text):
    resp = client.post("/api/v1/match", json={"text": text, "limit": 3})
    assert resp.status_code == 200
    matches = resp.get_json()["matches"]
    assert matches, text
    return matches[0]


@pytest.mark.parametrize("name", sorted(PASTES))
def test_each_paste_finds_its_curated_pytorch_record(curated_records, client, name):
    text, slug = PASTES[name]
    top = _top(client, text)
    record = client.get(f"/api/v1/records/{top['id']}").get_json()
    assert record["slug"] == slug
    assert (top["curated"], top["repo"]) == (True, "pytorch/pytorch")
    assert top["solutions"], "a curated record says what to do"
    # No pinned release has it: its own file and line, at no release.
    assert top["at"] == {
        "release": None,
        "filePath": record["filePath"],
        "lineNumber": record["lineNumber"],
    }
    assert top["at"]["filePath"].endswith((".cpp", ".hpp"))


def test_a_cpp_backtrace_alone_answers_from_the_function_that_raised(curated_records, client):
    top = _top(client, CPP_FRAMES_ONLY)
    assert top["why"]["kind"] == "frame"
    assert client.get(f"/api/v1/records/{top['id']}").get_json()["slug"] == WATCHDOG


def test_the_page_explains_the_record_and_links_the_cpp_source(curated_records, client):
    page = post_match_page(client, PASTES["oom-bare-line"][0]).get_data(as_text=True)
    assert "mem-fraction-static" in page
    assert "<code>c10/cuda/CUDACachingAllocator.cpp:1143</code>" in page
    assert " in None" not in page  # a record in no pinned release names no release
    top = _top(client, PASTES["oom-bare-line"][0])
    record = client.get(f"/records/{top['id']}").get_data(as_text=True)
    assert "https://github.com/pytorch/pytorch/blob/" in record
    assert "c10/cuda/CUDACachingAllocator.cpp" in record


def test_the_records_file_is_what_the_importer_accepts(runner, app, tmp_path):
    import_curated(runner, TORCH_RECORDS)
