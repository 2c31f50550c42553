"""Raise sites in C++/CUDA sources (app/drafts/cxx.py): each form on a small source, then
flashinfer's real wheel, whose JIT sources are drafted beside its Python."""

from __future__ import annotations

import json

import pytest

from app.corpus.draft import draft_release
from app.drafts.cxx import FORM_CXX_CHECK, FORM_CXX_THROW, native_sites
from app.drafts.records import render_message
from app.matching import MatchIndex, PatternEntry, match_error

SOURCE = r"""
// TORCH_CHECK(false, "commented out: never a site");
#define MY_CHECK(x) TORCH_CHECK(x, "inside a macro's definition: its uses are the sites")
namespace flashinfer {
namespace norm {

template <typename T>
inline void RMSNorm<T>::run(int64_t batch, int64_t hidden) const {
  FLASHINFER_CHECK(hidden % 8 == 0, "hidden size ", hidden, " must be a multiple of 8");
  if (batch > 0) {
    TVM_FFI_ICHECK(status == cudaSuccess)
        << "RMSNorm failed with error code " << cudaGetErrorString(status);
  }
  const char* text = "TORCH_CHECK(false, \"a literal, not a call\")";
}

void plan(int n) {
  if (n < 0) {
    std::ostringstream oss;
    oss << "first stream of this function " << n;
    FLASHINFER_ERROR(oss.str());
  } else if (n > 1024) {
    std::ostringstream oss;
    oss << "Buffer overflow when allocating " << n
        << " bytes in AlignedAllocator";
    FLASHINFER_ERROR(oss.str());
  }
  TVM_FFI_THROW(ValueError) << "Unsupported page size: " << n;
  throw std::invalid_argument("bad layout: " + std::to_string(n) + " heads");
  TORCH_CHECK(n != 3, "short");
}

}  // namespace norm
}  // namespace flashinfer
"""


def _sites():
    return {render_message(s.parts): s for s in native_sites(SOURCE)}


@pytest.mark.unit
def test_each_form_gives_its_message_class_function_and_line():
    sites = _sites()
    check = sites["hidden size {hidden} must be a multiple of 8"]
    assert (check.error_class, check.form, check.function, check.line) == (
        "RuntimeError",
        FORM_CXX_CHECK,
        "RMSNorm::run",
        9,
    )
    assert check.condition == "hidden % 8 == 0"
    icheck = sites["RMSNorm failed with error code {cudaGetErrorString_status}"]
    assert (icheck.error_class, icheck.line, icheck.end_line) == ("InternalError", 11, 12)
    # Each FLASHINFER_ERROR reads the stream of its own block, not the sibling's.
    overflow = sites["Buffer overflow when allocating {n} bytes in AlignedAllocator"]
    assert (overflow.form, overflow.function, overflow.line) == (FORM_CXX_THROW, "plan", 26)
    assert "first stream of this function {n}" in sites
    assert sites["Unsupported page size: {n}"].error_class == "ValueError"
    assert sites["bad layout: {std_to_string_n} heads"].error_class == "ValueError"


@pytest.mark.unit
def test_comments_literals_definitions_and_short_messages_are_not_sites():
    messages = set(_sites())
    assert not any("commented out" in m or "inside a macro" in m for m in messages)
    assert not any("a literal, not a call" in m for m in messages)
    assert "short" not in messages  # under MIN_LITERAL characters
    assert len(messages) == 6


@pytest.mark.unit
def test_a_tvm_check_matches_with_or_without_its_check_failed_prefix():
    (site,) = [s for s in native_sites(SOURCE) if s.form == FORM_CXX_CHECK and s.line == 11]
    index = MatchIndex([PatternEntry("rms", site.pattern, "InternalError")])
    for text in (
        "RuntimeError: RMSNorm failed with error code no kernel image is available",
        "tvm_ffi.InternalError: Check failed: (status == cudaSuccess) is false: RMSNorm "
        "failed with error code an illegal memory access was encountered",
    ):
        assert [m.record_id for m in match_error(text, index).matches] == ["rms"], text


@pytest.mark.integration
def test_flashinfers_wheel_drafts_its_cuda_sources_at_their_repository_paths():
    from app.corpus.fetch import cache_dir, ensure_wheel
    from app.corpus.pins import load_pins

    (release,) = [
        r for r in load_pins(only=("flashinfer-python",)).releases if r.version == "0.7.2"
    ]
    wheel = ensure_wheel(release, cache_dir() / "wheels")
    assert release.native  # the pins name the wheel's source folders
    # Its C++ sources only: no Python file is in include/flashinfer/ (the Python part is
    # drafted as every pinned package's is).
    headers = ("flashinfer/data/include/flashinfer/",)
    draft = draft_release(wheel, include=headers, native=release.native)
    native = [s for s in draft.sites if s["form"] in (FORM_CXX_CHECK, FORM_CXX_THROW)]
    assert len(native) > 1000
    by_message = {s["message"]: s for s in native}
    norm = by_message["GemmaRMSNorm failed with error code {cudaGetErrorString_status}"]
    assert (norm["path"], norm["function"]) == ("csrc/norm.cu", "gemma_rmsnorm")
    assert any(
        s["path"] == "include/flashinfer/allocator.h"
        and s["message"].startswith("Buffer overflow when allocating memory for {name}")
        for s in native
    )
    assert draft.forms[FORM_CXX_CHECK] == draft.drafted[FORM_CXX_CHECK]


@pytest.mark.unit
@pytest.mark.parametrize(
    "native",
    [
        {"from": "x/data/csrc/"},
        [{"from": "x/data/csrc", "to": "csrc/"}],
        [{"to": "csrc/"}],
        ["csrc/"],
    ],
)
def test_pins_name_native_sources_as_folder_pairs(tmp_path, native):
    from app.corpus.pins import PinError, load_pins

    release = {"version": "1.0", "wheel": "x-1.0-py3-none-any.whl", "sha256": "0" * 64}
    pkg = {"name": "x", "repo": "o/x", "releases": [release], "native": native}
    path = tmp_path / "pins.json"
    path.write_text(json.dumps({"packages": [pkg]}))
    with pytest.raises(PinError, match="native"):
        load_pins(path)
    pkg["native"] = [{"from": "x/data/csrc/", "to": "csrc/"}]
    path.write_text(json.dumps({"packages": [pkg]}))
    (loaded,) = load_pins(path).releases
    assert loaded.native_path("x/data/csrc/norm.cu") == "csrc/norm.cu"
    assert loaded.native_path("x/other.cu") is None


@pytest.mark.integration
def test_flashinfers_source_archive_drafts_the_older_wording():
    # flashinfer 0.2.3 (sglang 0.4.6's pin) is on PyPI only as a source archive.
    from app.corpus.fetch import cache_dir, ensure_wheel
    from app.corpus.pins import load_pins

    (release,) = [
        r for r in load_pins(only=("flashinfer-python",)).releases if r.version == "0.2.3"
    ]
    sdist = ensure_wheel(release, cache_dir() / "wheels")
    assert sdist.name.endswith(".tar.gz")
    draft = draft_release(
        sdist, release.path_prefix, release.include, release.exclude, native=release.native
    )
    (site,) = [s for s in draft.sites if s["message"].startswith("Failed to allocate memory for")]
    assert (site["path"], site["function"], site["form"]) == (
        "include/flashinfer/allocator.h",
        "aligned_alloc",
        FORM_CXX_THROW,
    )
    assert any(s["path"].startswith("flashinfer/") for s in draft.sites)  # its Python too


@pytest.mark.unit
def test_a_source_archive_is_read_below_its_top_folder(tmp_path):
    import io
    import tarfile

    from app.drafts.sources import iter_python_files

    path = tmp_path / "pkg-1.0.tar.gz"
    with tarfile.open(path, "w:gz") as tf:
        for name, text in (
            ("pkg-1.0/pkg/__init__.py", "x = 1\n"),
            ("pkg-1.0/csrc/a.cu", "// cu\n"),
            ("pkg-1.0/pkg/../../evil.py", "y = 2\n"),
        ):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    assert [p for p, _ in iter_python_files(path)] == ["pkg/__init__.py"]
    assert [p for p, _ in iter_python_files(path, (".cu",))] == ["csrc/a.cu"]
