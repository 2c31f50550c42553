"""Two raise forms without a `raise X(...)` of their own: a function that returns the
exception its caller raises, and a lookup of a value in an Enum class of the package."""

from __future__ import annotations

import ast
import textwrap

import pytest

from app.corpus.draft import draft_release
from app.drafts.defined import class_defs, resolve
from app.drafts.records import message_pattern, render_message
from app.drafts.scan import (
    FORM_ENUM,
    FORM_NO_MESSAGE,
    FORM_RETURNED,
    FORMS,
    STATEMENT_FORMS,
    raise_sites,
    scan,
    scan_all,
)
from app.drafts.services import parse_source
from app.drafts.sources import iter_python_files
from app.matching import MatchIndex, PatternEntry
from tests.corpus.wheels import sglang_wheel

FACTORIES = textwrap.dedent(
    """\
    class StopTracing(Exception):
        pass


    class Tracer(StopTracing):
        pass


    class Config:
        pass


    def _scheduler_died_error(rank: int, proc) -> RuntimeError:
        '''Build a descriptive error for a scheduler that died during init.'''
        proc.join(timeout=10)
        return RuntimeError(
            f"Rank {rank} scheduler died during initialization "
            f"(exit code: {proc.exitcode}). "
        )


    def _formats(name, kind, n, rate, fmt):
        if kind == "percent":
            return ValueError("Rate %d%% over the cap for %s" % (n, name))
        if kind == "format":
            return KeyError("No adapter named {} in {}".format(name, kind))
        if kind == "concat":
            return TypeError("bad operand type: " + str(kind))
        if kind == "implicit":
            return OSError(
                "cannot open the model file, "
                "check the path"
            )
        if kind == "variable":
            msg = f"pool exhausted: need {n} slots"
            return MemoryError(msg)
        if kind == "own":
            return Tracer(f"stopped tracing at {name}")
        if kind == "suffix":
            return torch.OutOfMemoryError(f"CUDA out of memory. Tried {n} GiB")
        return CustomError(f"no such mode {kind!r}")


    def negatives(message, n):
        if n == 0:
            return None
        if n == 1:
            return Config(f"not an exception {n}")
        if n == 2:
            return ValueError
        if n == 3:
            return ValueError(message)
        if n == 4:
            return UserWarning(f"deprecated since {n}")
        return RuntimeError()
    """
)


def _scan(source):
    return scan(ast.parse(source), source)[0]


def _matches(pattern, cls, message):
    index = MatchIndex([PatternEntry("r", pattern, cls)])
    return any(h.whole for h in index.search(message))


@pytest.mark.unit
def test_a_returned_exception_is_a_raise_site_in_its_function():
    sites = {s.line: s for s in _scan(FACTORIES)}
    site = sites[16]
    assert (site.form, site.error_class, site.function) == (
        FORM_RETURNED,
        "RuntimeError",
        "_scheduler_died_error",
    )
    assert render_message(site.parts) == (
        "Rank {rank} scheduler died during initialization (exit code: {proc.exitcode}). "
    )
    assert site.docstring == "Build a descriptive error for a scheduler that died during init."
    assert (site.end_line, site.chained) == (19, False)
    pattern = message_pattern(site.parts, site.error_class)
    pasted = "Rank 3 scheduler died during initialization (exit code: -9)."
    assert _matches(pattern, "RuntimeError", pasted)
    assert FORM_RETURNED in FORMS and FORM_RETURNED not in STATEMENT_FORMS


@pytest.mark.unit
def test_a_returned_exception_reads_every_message_form():
    drafted = {
        render_message(s.parts): (s.error_class, s.condition)
        for s in raise_sites(ast.parse(FACTORIES), FACTORIES)
        if s.function == "_formats"
    }
    assert drafted == {
        "Rate {n}% over the cap for {name}": ("ValueError", "kind == 'percent'"),
        "No adapter named {name} in {kind}": ("KeyError", "kind == 'format'"),
        "bad operand type: {str(kind)}": ("TypeError", "kind == 'concat'"),
        "cannot open the model file, check the path": ("OSError", "kind == 'implicit'"),
        "pool exhausted: need {n} slots": ("MemoryError", "kind == 'variable'"),
        # A class of the module whose bases make it an exception, and names like one.
        "stopped tracing at {name}": ("Tracer", "kind == 'own'"),
        "CUDA out of memory. Tried {n} GiB": ("torch.OutOfMemoryError", "kind == 'suffix'"),
        "no such mode {kind}": ("CustomError", None),  # after the `if`s, not under one
    }


@pytest.mark.unit
def test_what_a_function_returns_that_is_no_raise_site():
    """`None`, a class that is no exception, the class itself, a warning: no site. An
    exception whose message has no literal text counts, like `raise`, but is no record."""
    sites = [s for s in _scan(FACTORIES) if s.function == "negatives"]
    assert [(s.line, s.form, s.parts) for s in sites] == [
        (52, FORM_RETURNED, ()),
        (55, FORM_NO_MESSAGE, ()),
    ]
    assert not any(s.function == "negatives" for s in raise_sites(ast.parse(FACTORIES)))


ENUMS = textwrap.dedent(
    """\
    import enum
    from enum import IntEnum

    from pkg.configs import LoadFormat, Plain
    from pkg import modes


    class Color(IntEnum):
        RED = 1


    class Lenient(enum.Enum):
        A = "a"

        @classmethod
        def _missing_(cls, value):
            return cls.A


    def load(load_format, color, name):
        fmt = LoadFormat(load_format)
        Color(color)
        mode = modes.Mode(name)
        LoadFormat("auto")
        LoadFormat(load_format, extra=1)
        Plain(name)
        Lenient(name)
        try:
            LoadFormat(name)
        except ValueError:
            pass
        return Color(-1), modes.Mode(name.lower())
    """
)
CONFIGS = textwrap.dedent(
    """\
    import enum


    class BaseFormat(str, enum.Enum):
        pass


    class LoadFormat(BaseFormat):
        AUTO = "auto"


    class Plain:
        pass
    """
)
MODES = "from enum import Enum\n\n\nclass Mode(Enum):\n    FAST = 'fast'\n"


@pytest.mark.unit
def test_a_lookup_in_the_packages_enum_is_a_value_error_statement_site():
    defs = [*class_defs(ast.parse(ENUMS)), *class_defs(ast.parse(CONFIGS))]
    defined = resolve([*defs, *class_defs(ast.parse(MODES))])
    assert dict(defined.enums) == {
        "Color": "Color",
        "BaseFormat": "BaseFormat",
        "LoadFormat": "LoadFormat",  # an Enum through its base, in the same package
        "Mode": "Mode",
    }
    _, _, stmts = scan_all(ast.parse(ENUMS), ENUMS, "pkg", defined=defined)
    found = [(s.line, s.statement, render_message(s.parts)) for s in stmts]
    assert found == [
        (21, "fmt = LoadFormat(load_format)", "'{load_format}' is not a valid LoadFormat"),
        (22, "Color(color)", "'{color}' is not a valid Color"),
        (23, "mode = modes.Mode(name)", "'{name}' is not a valid Mode"),
        (32, "return Color(-1), modes.Mode(name.lower())", "'{name.lower()}' is not a valid Mode"),
    ]
    site = stmts[0]
    assert (site.form, site.error_class, site.function) == (FORM_ENUM, "ValueError", "load")
    assert site.pattern == ".+ is not a valid LoadFormat"
    assert FORM_ENUM in STATEMENT_FORMS
    # Only for the package's own releases (statement sites), never a plain raise scan.
    assert not any(s.error_class == "ValueError" for s in scan(ast.parse(ENUMS), ENUMS)[0])


@pytest.mark.unit
def test_an_enum_lookup_resolves_only_the_packages_unambiguous_classes():
    # Without the package's classes only the module's own Enum resolves.
    _, _, stmts = scan_all(ast.parse(ENUMS), ENUMS, "pkg")
    assert [s.line for s in stmts if s.form == FORM_ENUM] == [22]
    # A name two classes of the package share, one not an Enum, is left out.
    other = class_defs(ast.parse("class LoadFormat:\n    pass\n"))
    defined = resolve([*class_defs(ast.parse(CONFIGS)), *other])
    assert "LoadFormat" not in defined.enums and "BaseFormat" in defined.enums
    # A class of that name imported from another package is not the package's.
    source = "from other.configs import LoadFormat\n\n\ndef f(x):\n    return LoadFormat(x)\n"
    defined = resolve(class_defs(ast.parse(CONFIGS)))
    stmts = scan_all(ast.parse(source), source, "pkg", defined=defined)[2]
    assert not [s for s in stmts if s.form == FORM_ENUM]


@pytest.mark.unit
def test_an_enum_pattern_matches_the_value_repr_on_its_own():
    _, _, stmts = scan_all(ast.parse(MODES + "\n\ndef f(x):\n    Mode(x)\n"), None, "pkg")
    (site,) = stmts
    assert site.pattern is not None
    for pasted in ("'turbo' is not a valid Mode", "3 is not a valid Mode"):
        assert _matches(site.pattern, "ValueError", pasted)
    assert not _matches(site.pattern, "ValueError", "'turbo' is not a valid ModeSet")


def _wheel_file(version, path):
    data = dict(iter_python_files(sglang_wheel(version)))[path]
    tree = parse_source(data)
    assert tree is not None
    return tree, data.decode("utf-8", "replace")


@pytest.mark.integration
def test_the_scheduler_died_error_of_the_real_0523_engine():
    """sglang 0.5.23's engine builds the error in `_scheduler_died_error` and raises it in
    `_wait_for_scheduler_ready` (`raise _scheduler_died_error(i, scheduler_procs[i])`)."""
    tree, text = _wheel_file("0.5.23", "sglang/srt/entrypoints/engine.py")
    (site,) = [s for s in raise_sites(tree, text) if s.function == "_scheduler_died_error"]
    assert (site.form, site.error_class, site.line) == (FORM_RETURNED, "RuntimeError", 2005)
    pasted = (
        "Rank 0 scheduler died during initialization (exit code: -7). If exit code is -9 "
        "(SIGKILL), a common cause is the OS OOM killer. Run `dmesg -T | grep -i oom` to check."
    )
    assert _matches(message_pattern(site.parts, site.error_class), "RuntimeError", pasted)


@pytest.mark.integration
def test_the_load_format_lookup_of_the_real_046_release():
    """sglang 0.4.6's `LoadConfig._verify_load_format` does `self.load_format =
    LoadFormat(load_format)`: a format it does not know fails in Python's Enum."""
    draft = draft_release(sglang_wheel("0.4.6"), "python/", ("sglang/",), (), statements=True)
    sites = {(s["path"], s["line"]): s for s in draft.sites if s["form"] == FORM_ENUM}
    site = sites[("python/sglang/srt/configs/load_config.py", 76)]
    assert (site["cls"], site["function"], site["statement"]) == (
        "ValueError",
        "LoadConfig._verify_load_format",
        "self.load_format = LoadFormat(load_format)",
    )
    assert site["message"] == "'{load_format}' is not a valid LoadFormat"
    assert _matches(site["pattern"], "ValueError", "'dummy_dtensor' is not a valid LoadFormat")
    # An Enum of another module, imported from the package, resolves too.
    scheduler = [s for (path, _), s in sites.items() if path.endswith("managers/scheduler.py")]
    assert "'{self.server_args.disaggregation_mode}' is not a valid DisaggregationMode" in {
        s["message"] for s in scheduler
    }
    assert draft.statements[FORM_ENUM] == len(sites)


SPREAD = textwrap.dedent(
    """
    def make(kind, stream, previous):
        kwargs = {"stream_reasoning": stream}
        kwargs["previous_content"] = previous
        kwargs.update(force=True)
        kwargs.setdefault("budget", 8)
        cls = REGISTRY[kind]
        return cls(mode=1, **kwargs)

    def passed_on(factory, **options):
        return factory(**options)

    def other(extra):
        extra = dict(first=1)
        return launch[grid](**extra)
    """
)


@pytest.mark.unit
def test_a_call_through_a_mapping_is_a_site_of_the_keys_the_function_writes():
    _, _, stmts = scan_all(ast.parse(SPREAD), SPREAD, "pkg")
    spread = [s for s in stmts if s.form == "keywords from a mapping"]
    assert [(s.function, s.line, s.statement) for s in spread] == [
        ("make", 8, "return cls(mode=1, **kwargs)")
    ]
    (site,) = spread
    for key in ("mode", "stream_reasoning", "previous_content", "force", "budget"):
        pasted = f"Glm45Detector.__init__() got an unexpected keyword argument '{key}'"
        assert _matches(site.pattern, "TypeError", pasted), key
    assert not _matches(
        site.pattern,
        "TypeError",
        "Glm45Detector.__init__() got an unexpected keyword argument 'kind'",
    )
