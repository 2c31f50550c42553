"""Exception classes that word their own message (`__str__`, `super().__init__`)."""

import ast
import textwrap

import pytest

from app.drafts.classes import by_name, class_messages
from app.drafts.extract import Placeholder
from app.drafts.scan import scan

pytestmark = pytest.mark.unit

ERRORS = textwrap.dedent(
    """\
    class BaseErr(Exception):
        pass

    class QuotaError(BaseErr):
        def __init__(self, used, limit, *, what="tokens"):
            self.used = used
            super().__init__(f"quota exceeded for {what}: {used} > {limit}")

    class Silent(BaseErr):
        def __init__(self, code):
            self.code = code

    class NotAnError:
        def __str__(self):
            return "not an exception"
    """
)

USE = textwrap.dedent(
    """\
    def check(n, cap):
        if n > cap:
            raise QuotaError(n, cap, what="pages")
        err = QuotaError(n, 10)
        report(err)
    """
)


def test_a_class_wording_its_message_is_read_and_filled_per_construction():
    found = by_name(class_messages(ast.parse(ERRORS)))
    assert set(found) == {"QuotaError"}  # Silent has no message, NotAnError is no exception
    quota = found["QuotaError"]
    assert quota.params == ("used", "limit", "what")
    sites, _ = scan(ast.parse(USE), USE, found)
    raised, built = sites
    assert raised.form == built.form == "class message"
    assert raised.parts == (
        "quota exceeded for pages: ",
        Placeholder("n"),
        " > ",
        Placeholder("cap"),
    )
    assert raised.function == "check" and raised.condition == "n > cap"
    # A parameter the call leaves to its default stays a placeholder.
    assert built.parts[:2] == ("quota exceeded for ", Placeholder("what"))
    assert built.parts[-1] == " > 10"


def test_two_classes_of_one_name_with_other_messages_are_left_out():
    other = ERRORS.replace("quota exceeded for", "over quota for")
    found = by_name(class_messages(ast.parse(ERRORS)) + class_messages(ast.parse(other)))
    assert "QuotaError" not in found
