"""Pure-Python full-text fallback: token-set similarity over record error messages.

The app injects a database full-text search with the same signature (`TextSearch`);
this default serves tests, the benchmark and small deployments.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence

from app.matching.index import PatternEntry

TextSearch = Callable[[str, int], Sequence[tuple[str, float]]]
"""(query text, limit) -> [(record_id, similarity in 0..1)], best first."""

MIN_SIMILARITY = 0.5
MAX_QUERY_TOKENS = 200
MAX_CANDIDATES = 2_000
_TOKEN = re.compile(r"[^\W_]{2,}|\d+")
_PLACEHOLDER = re.compile(r"\{[^{}\n]{0,200}\}")


def tokens(text: str) -> frozenset[str]:
    """Case-folded word tokens; `{placeholder}` names in record messages are dropped."""
    return frozenset(_TOKEN.findall(_PLACEHOLDER.sub(" ", text).casefold()))


class TokenSetSearch:
    """Cosine similarity of token sets, through an inverted index (no full scan)."""

    def __init__(self, entries: Iterable[PatternEntry], *, min_similarity: float = MIN_SIMILARITY):
        self._ids: list[str] = []
        self._docs: list[frozenset[str]] = []
        self._postings: dict[str, list[int]] = {}
        self._min = min_similarity
        for entry in entries:
            toks = tokens(entry.error_message or "")
            if not toks:
                continue
            doc = len(self._ids)
            self._ids.append(entry.record_id)
            self._docs.append(toks)
            for tok in toks:
                self._postings.setdefault(tok, []).append(doc)
        # Very common tokens carry little signal and would make queries scan everything.
        self._stop = max(50, len(self._ids) // 50)

    def __call__(self, query: str, limit: int) -> list[tuple[str, float]]:
        qtoks = tokens(query[:20_000])
        if not qtoks:
            return []
        postings = sorted(
            (p for tok in qtoks if (p := self._postings.get(tok)) and len(p) <= self._stop),
            key=len,
        )
        candidates: set[int] = set()
        for posting in postings[:MAX_QUERY_TOKENS]:  # rarest tokens first
            if len(candidates) >= MAX_CANDIDATES:
                break
            candidates.update(posting)
        scored = []
        for doc in candidates:
            toks = self._docs[doc]
            sim = len(qtoks & toks) / math.sqrt(len(qtoks) * len(toks))
            if sim >= self._min:
                scored.append((self._ids[doc], round(min(sim, 1.0), 4)))
        scored.sort(key=lambda p: (-p[1], p[0]))
        return scored[:limit]
