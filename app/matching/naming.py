"""What a paste says that singles out one of many sites raising the same message: words
that name a record's file (a model in a title, a module path in a log) and the names of
functions its message mentions. The ranking breaks ties on them; the index uses them to
pick, of thousands of alike sites (`No module named 'torch'`), the few a paste names."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

MIN_MENTIONED = 8  # a function named in the paste breaks ties only if its name is this long
# Words of the paste that can name a file: a model in a title ("Deepseek V3", "FP8"), a
# module path in a log (`sglang.srt.models.glm4v_moe`). Read from the paste's start only.
MAX_NAMING_CHARS = 1500
MIN_NAMING_WORD = 3
MIN_NAMED_MESSAGE = 8
_PUNCTUATION = "".join(chr(c) for c in range(128) if not (chr(c).isalnum() or chr(c) == "_"))
_WORD_CHARS = str.maketrans(_PUNCTUATION, " " * len(_PUNCTUATION))
_PATH_PUNCTUATION = _PUNCTUATION.replace(".", "").replace("/", "")
_PATH_CHARS = str.maketrans(_PATH_PUNCTUATION, " " * len(_PATH_PUNCTUATION))
# Parts of file names that name no model or feature.
_GENERIC_STEMS = frozenset(
    "utils util common base model models layer layers config configs manager managers "
    "runner init main server srt python sglang api core ops impl helpers helper test tests "
    "src lib module modules mixin entrypoints executor loader worker".split()
)
# A name as `mentions` reads it: a run of word characters after no word character or dot.
_MENTIONED = re.compile(r"(?<![\w.])\w+")


def mentioned_name(function: str | None) -> str | None:
    """The part of a record's function (`Cls.method`) a message can mention, if long enough."""
    if not function or function == "<module>":
        return None
    name = function.rsplit(".", 1)[-1]
    return name if len(name) >= MIN_MENTIONED else None


def mentions(text: str, function: str | None) -> bool:
    """Whether the text names the function (`update_weights_from_tensor`, not `update`):
    one message raised in several functions, and the writer says which."""
    name = mentioned_name(function)
    if name is None or name not in text:
        return False
    return re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", text) is not None


def mentioned_names(text: str) -> set[str]:
    """Every name `mentions` could find in the text (those of MIN_MENTIONED characters)."""
    return {w for w in _MENTIONED.findall(text) if len(w) >= MIN_MENTIONED}


def paste_words(text: str, messages: Iterable[str] = ()) -> frozenset[str]:
    """Words of a paste's start that could name a file (lowercase, `_`-joined kept): the
    writer's own words (a title's "Deepseek V3 bf16"), not the error messages' (which the
    patterns already weigh), plus the last part of a dotted or slashed path anywhere
    (`sglang.srt.models.glm4v_moe`, `models/llama.py`). Read only when needed."""
    head = text[:MAX_NAMING_CHARS]
    paths: list[str] = []
    for message in messages:
        if len(message) >= MIN_NAMED_MESSAGE and message in head:
            head = head.replace(message, " ")
        if "." in message or "/" in message:
            for token in message[:MAX_NAMING_CHARS].lower().translate(_PATH_CHARS).split():
                # A sentence's full stop after a module (`loading sglang.x.gemma3n_mm.`).
                pieces = token.replace("/", ".").strip(".").split(".")
                if len(pieces) >= 3:
                    paths.append(pieces[-2] if pieces[-1] == "py" else pieces[-1])
    out: set[str] = set()
    for word in (*head.lower().translate(_WORD_CHARS).split(), *paths):
        out.add(word)
        if "_" in word:
            out.update(word.split("_"))
    return frozenset(w for w in out if len(w) >= MIN_NAMING_WORD)


@lru_cache(maxsize=1 << 14)
def stem_words(path: str) -> tuple[str, tuple[str, ...]]:
    """A file's stem (lowercase) and its distinctive `_`-separated parts."""
    stem = path.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
    parts = tuple(
        p
        for p in stem.split("_")
        if len(p) >= MIN_NAMING_WORD and not p.isdigit() and p not in _GENERIC_STEMS
    )
    return stem, parts


def file_named(words: frozenset[str], path: str | None) -> int:
    """How plainly the paste names the record's file: its whole stem (`glm4v_moe`) counts
    two, each distinctive part of it (`deepseek` of `deepseek_v2`, `fp8`) one."""
    if not path:
        return 0
    stem, parts = stem_words(path)
    named = sum(1 for p in parts if p in words)
    if named and len(stem) >= 5 and stem in words and stem not in _GENERIC_STEMS:
        named += 2
    return named
