"""sgl-kernel beside sglang: one repo, two packages, releases named apart (real wheel)."""

from __future__ import annotations

import json

import pytest

from app.corpus.draft import draft_release
from app.corpus.pins import PinError, load_pins
from app.matching import MatchIndex, PatternEntry, match_error
from tests.corpus.wheels import pinned_wheel

pytestmark = pytest.mark.integration

# Issue #13948 (sgl-kernel 0.3.x on an sm86 GPU), as pasted: the blank lines are gone.
PASTED = """ImportError:
[sgl_kernel] CRITICAL: Could not load any common_ops library!
Attempted locations:
1. Architecture-specific pattern: /usr/lib/python3/dist-packages/sgl_kernel/sm100/common_ops.* - found files: ['/usr/lib/python3/dist-packages/sgl_kernel/sm100/common_ops.abi3.so']
2. Fallback pattern: /usr/lib/python3/dist-packages/sgl_kernel/common_ops.* - found files: []
3. Standard Python import: common_ops - failed
GPU Info:
- Compute capability: 86
- Expected variant: SM86 (precise math for compatibility)
Please ensure sgl_kernel is properly installed with:
pip install --upgrade sgl_kernel
Error details from previous import attempts:
- ImportError: /usr/lib/python3/dist-packages/sgl_kernel/sm100/common_ops.abi3.so: undefined symbol: _ZNK3c106SymInt6sym_neERKS0_
- ModuleNotFoundError: No module named 'common_ops'"""  # noqa: E501


def test_the_kernel_release_is_named_apart_from_sglangs_and_links_to_its_pinning_tag():
    (kernel,) = load_pins(only=("sglang-kernel",)).releases
    assert (kernel.repo, kernel.release, kernel.tag) == (
        "sgl-project/sglang",
        "sgl-kernel 0.4.10",
        "v0.5.23",
    )
    sglang = {r.release for r in load_pins(only=("sglang",)).releases}
    assert kernel.release not in sglang and "0.4.10" in sglang


def test_a_bad_release_prefix_is_a_clear_error(tmp_path):
    path = tmp_path / "pins.json"
    path.write_text(
        json.dumps({"packages": [{"name": "x", "repo": "a/b", "releasePrefix": 3, "releases": []}]})
    )
    with pytest.raises(PinError, match="releasePrefix"):
        load_pins(path)


def test_sgl_kernels_load_failure_is_drafted_and_matched_on_the_real_wheel():
    wheel, release = pinned_wheel("sglang-kernel")
    draft = draft_release(wheel, release.path_prefix, release.include, release.exclude)
    (site,) = [s for s in draft.sites if "Could not load any common_ops" in s["message"]]
    assert site["path"] == "sgl-kernel/python/sgl_kernel/load_utils.py"
    assert (site["cls"], site["form"]) == ("ImportError", "variable")
    index = MatchIndex(
        [
            PatternEntry(
                "k",
                site["pattern"],
                "ImportError",
                file_path=site["path"],
                error_message=site["message"],
            )
        ]
    )
    # The paste is of an older release (no "CUDA version" line): the message goes on
    # differently after its first lines. `ImportError:` alone on its line opens it.
    (match,) = match_error(PASTED, index).matches
    assert (match.why.kind, match.why.class_agreement) == ("prefix", "exact")
    title = "[Bug] DGX Spark `[sgl_kernel] CRITICAL: Could not load any common_ops library!`"
    assert [m.record_id for m in match_error(title, index).matches] == ["k"]
