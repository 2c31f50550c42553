"""The curated records of PyTorch's CUDA kernel asserts
(`data/records/pytorch-kernel-asserts.jsonl`): the `<file>.cu:<line>: <kernel>: block: [..],
thread: [..] Assertion `<expr>` failed.` lines a GPU prints before `CUDA error: device-side
assert triggered`.

The assert names the check that failed, so it answers before the generic device-side-assert
record. Each paste below is real, copied from the public thread in its comment: bare lines,
lines a log prefixed, Windows builds (no kernel name), torch 1.x wordings, issue titles.
"""

from __future__ import annotations

import pytest

from tests.records.conftest import RECORDS, import_curated

pytestmark = pytest.mark.integration

KERNEL_RECORDS = RECORDS / "pytorch-kernel-asserts.jsonl"

INDEX = "cuda-kernel-assert-index-out-of-bounds"
GATHER_VEC = "cuda-kernel-assert-vectorized-gather-index-out-of-bounds"
INDEX_SELECT = "cuda-kernel-assert-index-select-src-index-out-of-range"
SCATTER_GATHER = "cuda-kernel-assert-scatter-gather-index-out-of-bounds"
NLL = "cuda-kernel-assert-nll-loss-target-out-of-range"
DEVICE_ASSERT = "cuda-error-device-side-assert-triggered"

INDEX_OLD = 'Assertion `index >= -sizes[i] && index < sizes[i] && "index out of bounds"` failed.'
INDEX_NEW = 'Assertion `-sizes[i] <= index && index < sizes[i] && "index out of bounds"` failed.'
VEC = (
    'Assertion `ind >=0 && ind < ind_dim_size && "vectorized gather kernel index out of '
    'bounds"` failed.'
)
SRC = "Assertion `srcIndex < srcSelectDimSize` failed."
SG = 'Assertion `idx_dim >= 0 && idx_dim < index_size && "index out of bounds"` failed.'
SG_NEW = (
    'Assertion `idx_dim >= 0 && idx_dim < index_size && "scatter gather kernel index out of '
    'bounds"` failed.'
)
T = "Assertion `t >= 0 && t < n_classes` failed."
WIN = r"C:\actions-runner\_work\pytorch\pytorch\builder\windows\pytorch\aten\src\ATen\native\cuda"

PASTES = {
    # https://github.com/thunlp/FR-Spec/issues/1 (sglang EAGLE with a reduced draft vocabulary;
    # the thread's traceback is cut before its exception line)
    "index-sglang-eagle-then-traceback": (
        "../aten/src/ATen/native/cuda/IndexKernel.cu:93: operator(): block: [27577,0,0], "
        f"thread: [126,0,0] {INDEX_NEW}\n"
        "../aten/src/ATen/native/cuda/IndexKernel.cu:93: operator(): block: [27577,0,0], "
        f"thread: [127,0,0] {INDEX_NEW}\n"
        "[2025-03-12 11:47:50 TP0] Scheduler hit an exception: Traceback (most recent call "
        "last):\n"
        '  File "/root/anaconda3/envs/rlhf/lib/python3.10/site-packages/sglang/srt/managers/'
        'scheduler.py", line 2255, in run_scheduler_process\n'
        "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)\n"
        '  File "/root/anaconda3/envs/rlhf/lib/python3.10/site-packages/sglang/srt/managers/'
        'scheduler.py", line 228, in __init__\n'
        "    self.draft_worker = EAGLEWorker(\n",
        INDEX,
    ),
    # https://github.com/huggingface/accelerate/issues/2539 (the older wording of the check)
    "index-older-wording": (
        "/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:93: operator(): block: [0,0,0], "
        f"thread: [93,0,0] {INDEX_OLD}\n"
        "/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:93: operator(): block: [0,0,0], "
        f"thread: [94,0,0] {INDEX_OLD}\n",
        INDEX,
    ),
    # https://github.com/kousw/stable-diffusion-webui-daam/issues/4 (Windows: no kernel name)
    "index-windows-line-91": (
        f"{WIN}\\IndexKernel.cu:91: block: [26,0,0], thread: [32,0,0] {INDEX_OLD}\n"
        f"{WIN}\\IndexKernel.cu:91: block: [26,0,0], thread: [33,0,0] {INDEX_OLD}\n",
        INDEX,
    ),
    # https://github.com/inclusionAI/dInfer/issues/22
    "vectorized-gather-bare-line": (
        "/pytorch/aten/src/ATen/native/cuda/IndexKernelUtils.cu:16: vectorized_gather_kernel: "
        f"block: [500,0,0], thread: [180,0,0] {VEC}",
        GATHER_VEC,
    ),
    # https://github.com/IDEA-Research/Rex-Omni/issues/171 (a vLLM server's log)
    "vectorized-gather-vllm-log": (
        "(APIServer pid=113409) INFO:     Application startup complete.\n"
        "/pytorch/aten/src/ATen/native/cuda/IndexKernelUtils.cu:16: vectorized_gather_kernel: "
        f"block: [42,0,0], thread: [226,0,0] {VEC}\n"
        "/pytorch/aten/src/ATen/native/cuda/IndexKernelUtils.cu:16: vectorized_gather_kernel: "
        f"block: [42,0,0], thread: [227,0,0] {VEC}\n",
        GATHER_VEC,
    ),
    # https://github.com/AEON-7/vllm-ultimate-dgx-spark/issues/5 (grep -n output)
    "vectorized-gather-grep-numbered": (
        "14633:/pytorch/aten/src/ATen/native/cuda/IndexKernelUtils.cu:16: "
        f"vectorized_gather_kernel: block: [27,0,0], thread: [185,0,0] {VEC}",
        GATHER_VEC,
    ),
    # https://github.com/vllm-project/vllm/issues/28785 (title)
    "vectorized-gather-title": (
        '[Bug]: "vectorized gather kernel index out of bounds" error when running '
        "qwen3-vl-moe + nvfp4",
        GATHER_VEC,
    ),
    # https://github.com/vllm-project/vllm/issues/473 (title)
    "index-select-title": (
        f"indexSelectLargeIndex: block: [308,0,0], thread: [95,0,0] {SRC}",
        INDEX_SELECT,
    ),
    # https://github.com/haotian-liu/LLaVA/issues/1129
    "index-select-lines-1146": (
        "../aten/src/ATen/native/cuda/Indexing.cu:1146: indexSelectLargeIndex: "
        f"block: [392,0,0], thread: [65,0,0] {SRC}\n"
        "../aten/src/ATen/native/cuda/Indexing.cu:1146: indexSelectLargeIndex: "
        f"block: [392,0,0], thread: [66,0,0] {SRC}\n",
        INDEX_SELECT,
    ),
    # https://github.com/Comfy-Org/ComfyUI/issues/6568 (Windows)
    "index-select-windows": (
        f"{WIN}\\Indexing.cu:1308: block: [48,0,0], thread: [79,0,0] {SRC}",
        INDEX_SELECT,
    ),
    # https://github.com/ucfnlp/control-over-copying/issues/7 (torch 1.x: THC, C++ signature)
    "index-select-thc-signature": (
        "/pytorch/aten/src/THC/THCTensorIndex.cu:361: void indexSelectLargeIndex(TensorInfo<T, "
        "IndexType>, TensorInfo<T, IndexType>, TensorInfo<long, IndexType>, int, int, "
        "IndexType, IndexType, long) [with T = float, IndexType = unsigned int, DstDim = 2, "
        "SrcDim = 2, IdxDim = -2, IndexIsMajor = true]: block: [51,0,0], thread: [44,0,0] "
        f"{SRC}",
        INDEX_SELECT,
    ),
    # https://github.com/sgl-project/sglang/issues/8379 (title)
    "scatter-gather-sglang-title": (
        f"[Bug] ScatterGatherKernel.cu:144: operator(): block: [0,0,0], thread: [8,0,0] {SG}",
        SCATTER_GATHER,
    ),
    # https://github.com/vllm-project/vllm/issues/21731 (title)
    "scatter-gather-vllm-title": (f"[Bug]: {SG}", SCATTER_GATHER),
    # https://github.com/sgl-project/sglang/pull/2041
    "scatter-gather-lines": (
        "../aten/src/ATen/native/cuda/ScatterGatherKernel.cu:144: operator(): "
        f"block: [285,0,0], thread: [66,0,0] {SG}\n"
        "../aten/src/ATen/native/cuda/ScatterGatherKernel.cu:144: operator(): "
        f"block: [285,0,0], thread: [67,0,0] {SG}\n",
        SCATTER_GATHER,
    ),
    # https://github.com/vllm-project/vllm-omni/issues/1520 (the newest wording, line 163)
    "scatter-gather-newer-wording": (
        "(Worker pid=21898) [Stage-1] INFO 02-26 11:26:21 [mrope.py:345] Multimodal token idx "
        "changed!\n"
        "/pytorch/aten/src/ATen/native/cuda/ScatterGatherKernel.cu:163: operator(): "
        f"block: [0,0,0], thread: [98,0,0] {SG_NEW}\n",
        SCATTER_GATHER,
    ),
    # https://github.com/modelscope/ms-swift/issues/3267 (title)
    "nll-title": (
        f"nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [0,0,0] {T}",
        NLL,
    ),
    # https://github.com/pytorch/PiPPy/issues/259 (rank-prefixed log with the C++ error after)
    "nll-then-cpp-error": (
        "15: ../aten/src/ATen/native/cuda/Loss.cu:271: nll_loss_forward_reduce_cuda_kernel_2d: "
        f"block: [0,0,0], thread: [0,0,0] {T}\n"
        "15: terminate called after throwing an instance of 'c10::CUDAError'\n"
        "15:   what():  CUDA error: device-side assert triggered\n"
        "15: CUDA kernel errors might be asynchronously reported at some other API call,so the "
        "stacktrace below might be incorrect.\n"
        "15: For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n",
        NLL,
    ),
    # https://github.com/lorenmt/mtan/issues/62 (NLLLoss2d.cu, Windows)
    "nll-2d-windows": (
        f"{WIN}\\NLLLoss2d.cu:103: block: [0,0,0], thread: [384,0,0] {T}",
        NLL,
    ),
    # https://github.com/thu-coai/CDial-GPT/issues/113 (torch 1.x THCUNN, after the writer's words)
    "nll-thcunn-torch-1x": (
        "出现报错：C:/cb/pytorch_1000000000000/work/aten/src/THCUNN/ClassNLLCriterion.cu:108: "
        f"block: [0,0,0], thread: [0,0,0] {T}",
        NLL,
    ),
}

# https://github.com/modelscope/ms-swift/issues/3267: the Python traceback first, the kernel's
# lines after a blank line.
TRACEBACK_THEN_ASSERT = (
    '[rank0]:   File "/data/miniconda3/envs/fffan_debug/lib/python3.10/site-packages/accelerate/'
    'utils/operations.py", line 126, in recursively_apply\n'
    "[rank0]:     return func(data, *args, **kwargs)\n"
    '[rank0]:   File "/data/miniconda3/envs/fffan_debug/lib/python3.10/site-packages/accelerate/'
    'utils/operations.py", line 778, in _convert_to_fp32\n'
    "[rank0]:     return tensor.float()\n"
    "[rank0]: RuntimeError: CUDA error: device-side assert triggered\n"
    "[rank0]: CUDA kernel errors might be asynchronously reported at some other API call, so the "
    "stacktrace below might be incorrect.\n"
    "[rank0]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
    "[rank0]: Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
    "\n"
    "../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: "
    f"block: [0,0,0], thread: [0,0,0] {T}\n"
)


def _matches(client, text, limit=3):
    resp = client.post("/api/v1/match", json={"text": text, "limit": limit})
    assert resp.status_code == 200
    matches = resp.get_json()["matches"]
    assert matches, text
    return matches


def _slug(client, match):
    return client.get(f"/api/v1/records/{match['id']}").get_json()["slug"]


@pytest.mark.parametrize("name", sorted(PASTES))
def test_each_paste_finds_its_kernel_assert_record(curated_records, client, name):
    text, slug = PASTES[name]
    top = _matches(client, text)[0]
    record = client.get(f"/api/v1/records/{top['id']}").get_json()
    assert record["slug"] == slug
    assert (top["curated"], top["repo"]) == (True, "pytorch/pytorch")
    assert top["why"]["kind"] == "pattern"
    assert top["solutions"], "a curated record says what to do"
    assert top["at"]["filePath"].endswith(".cu")


def test_the_assert_answers_before_the_device_side_error_it_causes(curated_records, client):
    """Both are in the paste: the kernel's check is first, the generic error after it."""
    text, slug = PASTES["nll-then-cpp-error"]
    slugs = [_slug(client, m) for m in _matches(client, text)]
    assert slugs[:2] == [slug, DEVICE_ASSERT]


def test_the_assert_line_alone_no_longer_falls_to_the_generic_record(curated_records, client):
    slugs = [_slug(client, m) for m in _matches(client, PASTES["vectorized-gather-bare-line"][0])]
    assert DEVICE_ASSERT not in slugs


def test_assert_lines_after_a_traceback_name_the_check_after_its_exception(curated_records, client):
    """The traceback's own exception answers first (the generic device-side error, whose
    text says to look for the kernel's assert); the assert line beside it, after a blank
    line, is read too and names the check next."""
    slugs = [_slug(client, m) for m in _matches(client, TRACEBACK_THEN_ASSERT)]
    assert slugs[0] == DEVICE_ASSERT
    assert NLL in slugs[:3]


def test_the_records_file_is_what_the_importer_accepts(runner, app):
    import_curated(runner, KERNEL_RECORDS)
