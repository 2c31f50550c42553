"""Frames as evidence, as a pure function over site locations."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from app.corpus.evidence import FrameIndex, frame_evidence
from app.corpus.history import Location
from app.matching import Frame

pytestmark = pytest.mark.unit


@dataclass(frozen=True)
class Facts:
    repo: str
    locations: tuple[Location, ...]


REPO = "sgl-project/sglang"
SITES = {
    "load": Facts(
        REPO,
        (
            Location(
                "0.4.6", "python/sglang/srt/models/llama.py", 420, "LlamaForCausalLM.load_weights"
            ),
            Location(
                "0.4.10", "python/sglang/srt/models/llama.py", 431, "LlamaForCausalLM.load_weights"
            ),
            Location(
                "0.5.5", "python/sglang/srt/models/llama.py", 455, "LlamaForCausalLM.load_weights"
            ),
        ),
    ),
    "other": Facts(
        REPO, (Location("0.5.5", "python/sglang/srt/server_args.py", 10, "ServerArgs.check"),)
    ),
}
BASES = {(REPO, v): f"https://github.com/{REPO}/blob/v{v}/" for v in ("0.4.6", "0.4.10", "0.5.5")}
INDEX = FrameIndex.build(SITES, BASES)


def frame(path, line, function):
    return Frame(path, line, function, None)


def test_release_fits_from_a_raise_line_and_answer_from_the_innermost_frame():
    frames = [
        frame("/opt/venv/lib/python3.10/site-packages/torch/nn/modules/module.py", 1, "load"),
        frame(
            "/opt/venv/lib/python3.10/site-packages/sglang/srt/models/llama.py", 431, "load_weights"
        ),
        frame("/opt/venv/lib/python3.10/site-packages/torch/_tensor.py", 5, "__getitem__"),
    ]
    evidence = frame_evidence(INDEX, frames)
    assert evidence.fits == {REPO: ("0.4.10",)}
    answer = evidence.frame
    assert answer.release == "0.4.10" and answer.records == ("load",) and answer.raise_site
    assert (
        answer.url
        == f"https://github.com/{REPO}/blob/v0.4.10/python/sglang/srt/models/llama.py#L431"
    )


def test_function_only_fits_every_release_that_has_it():
    frames = [frame("sglang/srt/models/llama.py", 999, "load_weights")]
    evidence = frame_evidence(INDEX, frames)
    assert evidence.fits == {REPO: ("0.4.6", "0.4.10", "0.5.5")}
    assert evidence.frame.release == "0.5.5" and not evidence.frame.raise_site


def test_unknown_frames_say_so():
    evidence = frame_evidence(INDEX, [frame("/x/other/models/llama2.py", 3, "f")])
    assert evidence.frame is None and evidence.fits == {}
    assert evidence.notes == ("no frame is in a file of a known project release",)
    # A bare file name is not enough to claim a file.
    assert frame_evidence(INDEX, [frame("llama.py", 431, "load_weights")]).frame is None


def test_a_frame_in_the_repos_other_package_answers_at_that_packages_release():
    """sgl-kernel's files share sglang's repo; their releases are named apart."""
    kernel = Location(
        "sgl-kernel 0.4.10", "sgl-kernel/python/sgl_kernel/load_utils.py", 170, "_load_ops"
    )
    sites = {**SITES, "kernel": Facts(REPO, (kernel,))}
    bases = {**BASES, (REPO, "sgl-kernel 0.4.10"): f"https://github.com/{REPO}/blob/v0.5.23/"}
    frames = [
        frame("/venv/site-packages/sglang/srt/models/llama.py", 455, "load_weights"),
        frame("/venv/site-packages/sgl_kernel/load_utils.py", 170, "_load_ops"),
    ]
    evidence = frame_evidence(FrameIndex.build(sites, bases), frames)
    assert evidence.fits[REPO] == ("0.5.5",)  # sglang's frame fits; the kernel's adds nothing
    answer = evidence.frame
    assert (answer.release, answer.records, answer.raise_site) == (
        "sgl-kernel 0.4.10",
        ("kernel",),
        True,
    )
    assert answer.url.endswith("/blob/v0.5.23/sgl-kernel/python/sgl_kernel/load_utils.py#L170")
