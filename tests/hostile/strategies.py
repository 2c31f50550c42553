"""Hypothesis strategies for hostile JSON: every type, huge numbers, NUL, lone surrogates."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

HOSTILE_STRINGS = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "\ud800",
    "x\udfffy",
    "\ufeff",
    "\u202e",
    "'; DROP TABLE records; --",
    "<script>window.__xss=1</script>",
    "../../etc/passwd",
    "x" * 100_001,
    "9" * 5000,
    "(a+)+$",
    "https://github.com/x\x00",
    "javascript:alert(1)",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**18, max_value=10**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.text(st.characters(codec=None, categories=["Cs", "Cc", "Zs", "So"]), max_size=10),
    st.sampled_from(HOSTILE_STRINGS),
)

json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


def dumps(value: Any) -> bytes:
    """JSON as a hostile client writes it: NaN allowed, surrogates escaped (``\\ud800``)."""
    return json.dumps(value, ensure_ascii=True, allow_nan=True).encode("ascii")


def deep(levels: int, kind: str = "list") -> bytes:
    if kind == "list":
        return b"[" * levels + b"]" * levels
    return b'{"a":' * levels + b"1" + b"}" * levels
