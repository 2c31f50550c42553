"""`obj.x` read where `obj`'s annotated class may lack `x`: AttributeError statement sites
for another object than `self` (typed.py)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from app.corpus.draft import draft_release
from app.drafts.scan import FORM_UNSET, scan_all
from app.drafts.typed import annotated_classes, stored_attributes
from tests.corpus.wheels import sglang_wheel


def typed(source: str) -> dict[tuple[str, str], tuple[int, str | None]]:
    """(function, message) -> (line, condition) of each read site of another object."""
    source = textwrap.dedent(source)
    _, _, statements = scan_all(ast.parse(source), source, "pkg")
    return {
        (s.function, str(s.parts[0])): (s.line, s.condition)
        for s in statements
        if s.form == FORM_UNSET and not (s.statement or "").lstrip().startswith("self")
    }


REQUESTS = """\
from dataclasses import dataclass
from typing import Optional, Union


@dataclass
class GenerateReqInput:
    text: str = ""
    rid: str = ""

    def normalize(self):
        if isinstance(self.text, str):
            self.is_single = True
        else:
            self.is_single = False


@dataclass
class EmbeddingReqInput:
    text: str = ""
"""


@pytest.mark.unit
def test_an_attribute_only_a_later_method_sets_is_a_site_where_a_typed_parameter_reads_it():
    sites = typed(
        REQUESTS
        + """

class Manager:
    def create_abort_task(self, obj: GenerateReqInput):
        async def abort_request():
            if obj.is_single:
                self.abort(obj.rid)
        return abort_request

    def generate(self, obj: "GenerateReqInput"):
        obj.normalize()
        return obj.is_single
"""
    )
    # `generate` calls the method that sets it first; `rid` is a field.
    assert sites == {
        (
            "Manager.create_abort_task.abort_request",
            "'GenerateReqInput' object has no attribute 'is_single'",
        ): (25, None)
    }


@pytest.mark.unit
def test_a_union_member_that_lacks_the_attribute_is_the_site_unless_a_test_checks_its_type():
    sites = typed(
        REQUESTS
        + """

class Manager:
    def send(self, obj: Union[GenerateReqInput, EmbeddingReqInput], index: Optional[int]):
        if self.is_generation:
            return obj.rid, obj.text
        if isinstance(obj, GenerateReqInput):
            return obj.rid
        if hasattr(obj, "image_data"):
            return obj.image_data

    def other(self, obj: Optional[EmbeddingReqInput]):
        obj = obj or EmbeddingReqInput()
        return obj.rid
"""
    )
    # `other` binds `obj` again: its type is no longer the annotation's.
    assert sites == {
        ("Manager.send", "'EmbeddingReqInput' object has no attribute 'rid'"): (
            25,
            "self.is_generation",
        )
    }


@pytest.mark.unit
def test_a_never_set_attribute_counts_only_for_a_class_wholly_in_view_that_no_code_sets_it():
    sites = typed(
        """\
        from torch import nn


        class Plain:
            def __init__(self):
                self.a = 1


        class Layer(nn.Module):
            def __init__(self):
                super().__init__()


        class Open:
            def __init__(self):
                self.a = 1

            def __getattr__(self, name):
                return None


        def use(p: Plain, q: Layer, r: Open, s: "Plain | None"):
            s.later = 2
            return p.missing, q.weight, r.anything, p.later
        """
    )
    assert sites == {("use", "'Plain' object has no attribute 'missing'"): (24, None)}


@pytest.mark.unit
def test_annotations_name_their_classes_and_a_module_s_stores_on_other_objects_are_found():
    def names(text: str) -> tuple[str, ...]:
        return annotated_classes(ast.parse(text, mode="eval").body)

    assert names("Optional[A]") == ("A",)
    assert names("Union[A, mod.B, None]") == ("A", "B")
    assert names("A | None") == ("A",)
    assert names("'A'") == ("A",)
    assert names("List[A]") == ()
    assert stored_attributes(b"obj.rid = 1\nself.x = 2\nreq.a.b += 3\nif a.c == 2: pass\n") == {
        "rid",
        "b",
    }


@pytest.mark.integration
def test_sglang_0_5_17s_abort_task_reads_is_single_that_only_normalizing_sets():
    # The managers' modules only: the request classes and their readers are all there.
    managers = ("sglang/srt/managers/",)
    draft = draft_release(sglang_wheel("0.5.17"), "python/", managers, (), statements=True)
    found = {
        s["function"]
        for s in draft.sites
        if s["form"] == FORM_UNSET
        and s["message"] == "'GenerateReqInput' object has no attribute 'is_single'"
    }
    assert "TokenizerManager.create_abort_task.abort_request" in found
    # generate_request normalizes the request before it reads it.
    assert "TokenizerManager.generate_request" not in found


@pytest.mark.integration
def test_sglang_0_3_3s_single_request_reads_image_data_an_embedding_request_lacks():
    managers = ("sglang/srt/managers/",)
    draft = draft_release(sglang_wheel("0.3.3"), "python/", managers, (), statements=True)
    found = [
        (s["path"], s["function"], s["condition"])
        for s in draft.sites
        if s["form"] == FORM_UNSET
        and s["message"] == "'EmbeddingReqInput' object has no attribute 'image_data'"
    ]
    assert (
        "python/sglang/srt/managers/tokenizer_manager.py",
        "TokenizerManager._send_single_request",
        "(not is_cache_for_prefill) and (index is None) and (self.is_generation)",
    ) in found


@pytest.mark.unit
def test_an_object_annotated_with_a_base_is_one_of_its_concrete_subclasses():
    sites = typed(
        """\
        from abc import ABC, abstractmethod


        class BasePrefixCache(ABC):
            @abstractmethod
            def match_prefix(self, key): ...


        class RadixCache(BasePrefixCache):
            def __init__(self, disable):
                self.disable = disable

            def match_prefix(self, key):
                return key


        class ChunkCache(BasePrefixCache):
            def __init__(self):
                self.pool = None

            def match_prefix(self, key):
                return key


        class SchedulePolicy:
            def __init__(self, tree_cache: BasePrefixCache):
                if tree_cache.disable:
                    self.policy = "fcfs"
                self.tree_cache = tree_cache
        """
    )
    assert sites == {
        (
            "SchedulePolicy.__init__",
            "'ChunkCache' object has no attribute 'disable'",
        ): (27, None)
    }
