"""A message passed to a function that raises it: drafted at the helper's `raise`."""

from __future__ import annotations

import ast
import textwrap
from dataclasses import replace

import pytest

from app.corpus.draft import draft_release
from app.drafts.helpers import by_name, raising_helpers
from app.drafts.records import render_message
from app.drafts.scan import FORM_HELPER, scan
from app.matching import MatchIndex, PatternEntry
from tests.corpus.wheels import sglang_wheel

HELPERS = textwrap.dedent(
    """\
    def raise_error_or_warn(obj, strict, counter_name, message):
        if strict:
            raise ValueError(message)
        logger.warning(message)


    def check_direction(direction):
        raise ValueError(f"Invalid direction: {direction}")


    class Pool:
        def _fail(self, why):
            raise RuntimeError("pool broken: " + why)
    """
)
CALLER = textwrap.dedent(
    """\
    from pkg.utils import raise_error_or_warn, check_direction
    import logging


    class Checker(Pool):
        def check(self, token_msg, leak):
            if leak:
                msg = "token pool memory leak detected! " f"{token_msg}"
                raise_error_or_warn(self, True, "count", msg)
            check_direction("a2v")  # a value, not a message: never fires as written
            self._fail(f"{leak} slots lost, restart the server")
            logging.error("not a helper at all, although it reads like a message")
    """
)


def _helpers():
    found = raising_helpers(ast.parse(HELPERS))
    return by_name([replace(h, path="pkg/utils.py") for h in found])


@pytest.mark.unit
def test_helpers_are_functions_whose_raise_carries_a_parameter():
    helpers = _helpers()
    assert set(helpers) == {"raise_error_or_warn", "check_direction", "_fail"}
    assert helpers["_fail"].method and helpers["_fail"].params == ("why",)
    assert helpers["raise_error_or_warn"].raises[0].line == 3


@pytest.mark.unit
def test_a_call_passing_text_is_a_site_at_the_helpers_raise():
    sites, _ = scan(ast.parse(CALLER), CALLER, helpers=_helpers(), package="pkg")
    drafted = {render_message(s.parts): s for s in sites if s.form == FORM_HELPER}
    assert set(drafted) == {
        "token pool memory leak detected! {token_msg}",
        "pool broken: {leak} slots lost, restart the server",
    }
    leak = drafted["token pool memory leak detected! {token_msg}"]
    assert (leak.path, leak.line, leak.function) == ("pkg/utils.py", 3, "raise_error_or_warn")
    assert (leak.error_class, leak.condition) == ("ValueError", "leak")


@pytest.mark.unit
def test_a_helper_of_an_ambiguous_name_is_left_out():
    twice = raising_helpers(ast.parse(HELPERS)) * 2
    other = raising_helpers(ast.parse("def _fail(x):\n    raise KeyError(f'no {x}')\n"))
    assert "_fail" not in by_name([*twice[:3], *other])


@pytest.mark.integration
def test_a_helper_call_on_the_real_043_wheel_matches_what_users_paste():
    """sglang 0.4.3's engine calls `assert_pkg_version("flashinfer_python", "0.2.1.post1",
    "Please uninstall ...")`; the message is raised in srt/utils.py."""
    draft = draft_release(sglang_wheel("0.4.3"), "python/", ("sglang/",))
    sites = [s for s in draft.sites if s["form"] == FORM_HELPER]
    older = [s for s in sites if "is less than the minimum" in s["message"]]
    assert len(older) == 1
    (site,) = older
    assert (site["path"], site["line"], site["function"]) == (
        "python/sglang/srt/utils.py",
        470,
        "assert_pkg_version",
    )
    assert site["message"].startswith("flashinfer_python is installed with version {")
    assert draft.drafted[FORM_HELPER] == len(sites)
    pasted = (
        "flashinfer_python is installed with version 0.1.6+cu121torch2.4, which is less than "
        "the minimum required version 0.2.1.post1. Please uninstall the old version and "
        "reinstall the latest version by following the instructions at "
        "https://docs.flashinfer.ai/installation.html."
    )
    index = MatchIndex([PatternEntry("h", site["pattern"], "Exception")])
    assert any(h.whole for h in index.search(pasted))
