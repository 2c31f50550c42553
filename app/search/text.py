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


# How much a query word counts in each field when ranking (integers: exact on both engines).
FIELD_WEIGHTS = {"message": 8, "klass": 6, "tags": 6, "path": 4, "body": 2}
PHRASE_BONUS = 4


def query_terms(query: str) -> list[str]:
    """The distinct words of a query, in order, at most ``MAX_QUERY_TERMS``."""
    seen: dict[str, None] = {}
    for term in tokens(query):
        seen.setdefault(term, None)
    return list(seen)[:MAX_QUERY_TERMS]
