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


RECORDING = textwrap.dedent(
    """\
    class TransferError(Exception):
        def __init__(self, room, reason):
            super().__init__(reason)
            self.room = room
            self.reason = reason

        def __str__(self):
            return f"TransferError(room={self.room}): {self.reason}"


    class Manager:
        def record_failure(self, room, failure_reason):
            with self.lock:
                self.failure_records[room] = failure_reason

        def watch(self, room):
            if self.dead(room):
                self.record_failure(room, f"Peer of {room} is dead")


    class Sender:
        def abort(self):
            self.kv_mgr.record_failure(self.room, "Aborted by AbortReq.")

        def poll(self, room, elapsed):
            self.kv_mgr.record_failure(room, room)  # a value, not text: no site

        def failure_exception(self):
            reason = self.kv_mgr.failure_records.pop(self.room, "Failed for an unknown reason")
            raise TransferError(self.room, reason)
    """
)


@pytest.mark.unit
def test_a_message_kept_in_a_store_is_a_site_of_the_raise_that_takes_it_out(tmp_path):
    # sglang's PD connectors: `record_failure(room, "...")` keeps a reason that the sender's
    # `failure_exception` pops and raises, worded by the class's own `__str__`.
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "conn.py").write_text(RECORDING)
    draft = draft_release(tmp_path, "python/", ("pkg/",))
    found = {
        s["message"]: (s["path"], s["line"], s["function"], s["cls"], s["form"])
        for s in draft.sites
        if s["cls"] == "TransferError"
    }
    at = ("python/pkg/conn.py", 30, "Sender.failure_exception", "TransferError")
    assert found == {
        "TransferError(room={self.room}): {reason}": (*at, "class message"),
        "TransferError(room={self.room}): Aborted by AbortReq.": (*at, FORM_HELPER),
        "TransferError(room={self.room}): Peer of {room} is dead": (*at, FORM_HELPER),
        "TransferError(room={self.room}): Failed for an unknown reason": (*at, "variable"),
    }
    (aborted,) = [s for s in draft.sites if "AbortReq" in s["message"]]
    assert aborted["pattern"] == r"TransferError\(room=.+?\): Aborted by AbortReq\."


@pytest.mark.integration
def test_the_reasons_sglang_051s_mooncake_connector_keeps_are_its_failure_exceptions():
    draft = draft_release(sglang_wheel("0.5.1"), "python/", ("sglang/",))
    conn = "python/sglang/srt/disaggregation/mooncake/conn.py"
    kept = {
        (s["line"], s["function"])
        for s in draft.sites
        if s["path"] == conn and s["message"].endswith("): Aborted by AbortReq.")
    }
    assert kept == {
        (1190, "MooncakeKVSender.failure_exception"),
        (1536, "MooncakeKVReceiver.failure_exception"),
    }
    timed_out = [s for s in draft.sites if "in KVPoll.Bootstrapping" in s["message"]]
    assert {s["form"] for s in timed_out} == {FORM_HELPER}
    pasted = (
        "Prefill bootstrap failed for request rank=2 req.rid='d3fd6575d3b24b598367fcbdf1bdd21a' "
        "req.bootstrap_room=5975098084415727586 with exception KVTransferError(bootstrap_room="
        "5975098084415727586): Request 5975098084415727586 timed out after 300.0s in "
        "KVPoll.Bootstrapping"
    )
    index = MatchIndex([PatternEntry("k", s["pattern"], "KVTransferError") for s in timed_out])
    assert index.contained_search(pasted)
