"""One tokenizer for both full-text engines, so SQLite and PostgreSQL index the same words.

Text is lower-cased and split on anything that is not a letter or a digit (``_``, ``.``
and ``/`` split too: ``trtllm_mla`` -> ``trtllm mla``). Both FTS5 (``unicode61``) and
PostgreSQL (``simple`` configuration) then see plain space-separated words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
MAX_QUERY_TERMS = 12
MAX_TERM_LENGTH = 64


def tokens(text: str | None) -> list[str]:
    if not text:
        return []
    return [t for t in _TOKEN.findall(text.lower()) if len(t) <= MAX_TERM_LENGTH]


def normalize(*parts: str | None) -> str:
    return " ".join(t for part in parts for t in tokens(part))


@dataclass(frozen=True)
class SearchDocument:
    """The searchable fields of one record, already normalized."""

    record_id: str
    message: str
    klass: str
    tags: str
    path: str
    body: str

    @classmethod
    def build(
        cls,
        record_id: str,
        *,
        message: str,
        error_class: str,
        error_type: str,
        tags: Iterable[str],
        background_tag: str | None,
        file_path: str,
        texts: Iterable[str | None],
    ) -> SearchDocument:
        return cls(
            record_id=record_id,
            message=normalize(message),
            klass=normalize(error_class, error_type),
            tags=normalize(*tags, background_tag),
            path=normalize(file_path),
            body=normalize(*texts),
        )

    def fields(self) -> dict[str, str]:
        return {
            "message": self.message,
            "klass": self.klass,
            "tags": self.tags,
            "path": self.path,
            "body": self.body,
        }


# How much a query word counts in each field when ranking.
FIELD_WEIGHTS = {"message": 4.0, "klass": 3.0, "tags": 3.0, "path": 2.0, "body": 1.0}


def query_terms(query: str) -> list[str]:
    """The distinct words of a query, in order, at most ``MAX_QUERY_TERMS``."""
    seen: dict[str, None] = {}
    for term in tokens(query):
        seen.setdefault(term, None)
    return list(seen)[:MAX_QUERY_TERMS]


def score(fields: dict[str, str], terms: list[str], prefix_last: bool) -> float:
    """Portable relevance: weighted term hits per field, plus a phrase bonus.

    Computed in Python over the stored normalized text, so both backends order results
    the same way.
    """
    total = 0.0
    split = {name: text.split() for name, text in fields.items()}
    for index, term in enumerate(terms):
        is_prefix = prefix_last and index == len(terms) - 1
        for name, words in split.items():
            if is_prefix:
                hits = sum(1 for w in words if w.startswith(term))
            else:
                hits = words.count(term)
            if hits:
                total += FIELD_WEIGHTS[name] * (1.0 + 0.25 * min(hits - 1, 3))
    if len(terms) > 1 and " ".join(terms) in fields["message"]:
        total += 2.0
    return total
