"""The pattern vetting used at import time."""

from __future__ import annotations

import pytest

from app.records.regex_safety import PatternRejected, check_pattern

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "pattern",
    [
        r"trtllm_mla backend can only be used with MLA models\.",
        r"Unsupported dtype .+? for layer \d+",
        r"(?:x|y)+z",
        r"a{1,3}(?:bc){2}",
        r"^CUDA out of memory\. Tried to allocate [\d.]+ [GM]iB",
    ],
)
def test_safe_patterns_pass(pattern):
    check_pattern(pattern)


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (r"(a+)+$", "nested quantifier"),
        (r"(a*)*b", "nested quantifier"),
        (r"(\w+\s?)+$", "nested quantifier"),
        (r"(?:\d|\d\d)+$", "alternatives"),
        (r"(?:foo|fo.)*!", "alternatives"),
        (r"(?:ab|a.)+$", "alternatives"),
        (r"(unclosed", "does not compile"),
        (r"(a)\1", "linear-time engine"),
        (r"(?=look)ahead", "linear-time engine"),
    ],
)
def test_unsafe_patterns_are_rejected(pattern, reason):
    with pytest.raises(PatternRejected, match=reason):
        check_pattern(pattern)
