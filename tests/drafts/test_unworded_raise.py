"""A raise whose message the drafter cannot read (`raise NotImplementedError()`,
`raise ValueError(describe(x))`): no draft, but a statement site a frame on it names."""

from __future__ import annotations

import ast
import textwrap

import pytest

from app.drafts.scan import FORM_UNWORDED, STATEMENT_FORMS, scan, scan_all

SOURCE = textwrap.dedent(
    """\
    class Detector:
        def build_ebnf(self, tools):
            raise NotImplementedError()

        def structure_info(self):
            raise NotImplementedError

        def check(self, x):
            if x.bad:
                raise ValueError(describe(x)) from None
            raise ValueError("a message of its own")

        def again(self):
            try:
                pass
            except Exception as e:
                raise e
    """
)


@pytest.mark.unit
def test_a_raise_without_a_readable_message_is_a_statement_site():
    sites, _, stmts = scan_all(ast.parse(SOURCE), SOURCE, "pkg")
    found = [(s.form, s.error_class, s.function, s.line, s.statement, s.parts) for s in stmts]
    assert found == [
        (
            FORM_UNWORDED,
            "NotImplementedError",
            "Detector.build_ebnf",
            3,
            "raise NotImplementedError()",
            ("raise NotImplementedError()",),
        ),
        (
            FORM_UNWORDED,
            "NotImplementedError",
            "Detector.structure_info",
            6,
            "raise NotImplementedError",
            ("raise NotImplementedError",),
        ),
        (
            FORM_UNWORDED,
            "ValueError",
            "Detector.check",
            10,
            "raise ValueError(describe(x)) from None",
            ("raise ValueError(describe(x))",),
        ),
    ]
    assert stmts[2].condition == "x.bad"
    assert FORM_UNWORDED in STATEMENT_FORMS
    # The worded raise is a draft, not a statement site; `raise e` names no class.
    assert [s.line for s in sites if s.parts] == [11]
    # Only for the package's own releases (statement sites), never a plain raise scan.
    assert not [s for s in scan(ast.parse(SOURCE), SOURCE)[0] if s.form == FORM_UNWORDED]
