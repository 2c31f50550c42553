"""Pure-Python full-text fallback: token-set similarity over record error messages.

The matcher builds one per catalog index (`default_text_search`); a caller may pass any
other function of the same signature (`TextSearch`), as the tests do.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from itertools import chain

from app.matching.index import PatternEntry

TextSearch = Callable[[str, int], Sequence[tuple[str, float]]]
"""(query text, limit) -> [(record_id, similarity in 0..1)], best first."""

MIN_SIMILARITY = 0.5
MAX_QUERY_TOKENS = 64
MAX_POSTINGS_WALKED = 800
MAX_CANDIDATES = 1_000
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
            if entry.frame_only:
                continue
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
        self._sizes = [len(d) for d in self._docs]
        self._root = [math.sqrt(n) for n in self._sizes]  # the cosine's per-document term
        self._longest = max(self._sizes, default=0)

    def __call__(self, query: str, limit: int) -> list[tuple[str, float]]:
        qtoks = tokens(query[:20_000])
        if not qtoks:
            return []
        # Cosine similarity is at most sqrt(shorter/longer): a document can only reach the
        # minimum if its size is within a factor 1/min**2 of the query's.
        factor = 1 / (self._min * self._min) if self._min > 0 else float("inf")
        lo, hi = len(qtoks) / factor, len(qtoks) * factor
        if self._longest < lo:
            return []
        rare: list[list[int]] = []
        common = 0  # query tokens too frequent to walk: counted in the bound below
        for tok in qtoks:
            posting = self._postings.get(tok)
            if posting is None:
                continue
            if len(posting) <= self._stop:
                rare.append(posting)
            else:
                common += 1
        rare.sort(key=len)
        # Shared rare tokens per candidate, rarest first, within a budget of postings walked
        # (new candidates stop at MAX_CANDIDATES); tokens past the budget count as possibly
        # shared in the upper bound that prunes candidates before the exact similarity.
        walked = 0
        used = 0
        for posting in rare[:MAX_QUERY_TOKENS]:
            if walked + len(posting) > MAX_POSTINGS_WALKED and used:
                break
            walked += len(posting)
            used += 1
        shared: dict[int, int]
        if walked <= MAX_CANDIDATES:
            # Too few postings to reach the candidate cap: count them all in C.
            shared = Counter(chain.from_iterable(rare[:used]))
        else:
            shared = {}
            for posting in rare[:used]:
                full = len(shared) >= MAX_CANDIDATES
                for doc in posting:
                    if doc in shared:
                        shared[doc] += 1
                    elif not full:
                        shared[doc] = 1
        common += len(rare) - used
        scored = []
        nq = len(qtoks)
        # Even the smallest document in the size window needs this many shared tokens.
        need = self._min * math.sqrt(nq * max(lo, 1)) - common
        sizes, root, docs, floor = self._sizes, self._root, self._docs, self._min
        root_q = math.sqrt(nq)
        for doc, count in shared.items():
            if count < need or not lo <= sizes[doc] <= hi:
                continue
            denom = root_q * root[doc]
            if count + common < floor * denom:
                continue
            sim = len(qtoks & docs[doc]) / denom
            if sim >= floor:
                scored.append((self._ids[doc], round(min(sim, 1.0), 4)))
        scored.sort(key=lambda p: (-p[1], p[0]))
        return scored[:limit]
