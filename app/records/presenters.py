"""Turn record text into safe HTML fragments: highlighted source and the example fix diff.

Record text is untrusted. Pygments escapes everything it emits; nothing here is executed.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from functools import cache

from markupsafe import Markup
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import BashLexer, DiffLexer, PythonLexer
from pygments.lexers.special import TextLexer

_BEFORE = re.compile(r"^\s*#\s*before\b.*$", re.IGNORECASE | re.MULTILINE)
_AFTER = re.compile(r"^\s*#\s*after\b.*$", re.IGNORECASE | re.MULTILINE)


def _lexer_for(path_or_text: str) -> PythonLexer | BashLexer | TextLexer:
    if path_or_text.endswith(".py"):
        return PythonLexer()
    return TextLexer()


def source_html(code: str, start: int | None, line: int | None, file_path: str) -> Markup:
    """The snippet with line numbers from ``start`` and the raising ``line`` marked."""
    first = start or 1
    marked = [line - first + 1] if line and first <= line < first + code.count("\n") + 2 else []
    formatter = HtmlFormatter(
        linenos="table",
        linenostart=first,
        hl_lines=marked,
        cssclass="hl",
        wrapcode=True,
        lineanchors="L",
        anchorlinenos=True,
    )
    return Markup(highlight(code, _lexer_for(file_path), formatter))


def code_html(code: str, language: str = "python") -> Markup:
    lexer = PythonLexer() if language == "python" else BashLexer()
    return Markup(highlight(code, lexer, HtmlFormatter(cssclass="hl", wrapcode=True)))


@dataclass(frozen=True)
class ExampleFix:
    before: str | None
    after: str | None
    raw: str

    @property
    def diff_html(self) -> Markup | None:
        if self.before is None or self.after is None:
            return None
        diff = difflib.unified_diff(
            self.before.splitlines(), self.after.splitlines(), "before", "after", lineterm=""
        )
        text = "\n".join(diff)
        return Markup(highlight(text, DiffLexer(), HtmlFormatter(cssclass="hl diff")))


def split_example_fix(text: str | None) -> ExampleFix | None:
    """Split ``# before ... # after ...`` into its two halves (None if not in that shape)."""
    if not text:
        return None
    before = _BEFORE.search(text)
    after = _AFTER.search(text)
    if not before or not after or after.start() < before.end():
        return ExampleFix(None, None, text)
    return ExampleFix(
        text[before.end() : after.start()].strip("\n"),
        text[after.end() :].strip("\n"),
        text,
    )


@cache
def pygments_css() -> str:
    return str(HtmlFormatter(cssclass="hl").get_style_defs(".hl"))
