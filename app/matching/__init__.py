"""Error matching: parse pasted errors, find records by pattern, explain each match."""

from app.matching.index import MatchIndex, PatternEntry, PatternHit
from app.matching.parse import Frame, ParsedError, ParsedException, parse_error
from app.matching.services import Explanation, Match, MatchResult, match_error, match_parsed
from app.matching.text import TextSearch, TokenSetSearch

__all__ = [
    "Explanation",
    "Frame",
    "Match",
    "MatchIndex",
    "MatchResult",
    "ParsedError",
    "ParsedException",
    "PatternEntry",
    "PatternHit",
    "TextSearch",
    "TokenSetSearch",
    "match_error",
    "match_parsed",
    "parse_error",
]
