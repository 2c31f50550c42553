"""`self.x` read where the class may not have set it, and a module name read where the
module may not have bound it: AttributeError and NameError statement sites."""

from __future__ import annotations

import ast
import textwrap

import pytest

from app.corpus.draft import draft_release
from app.drafts.scan import FORM_UNBOUND, FORM_UNSET, scan_all
from tests.corpus.wheels import sglang_wheel


def unset(
    source: str, form: str = FORM_UNSET
) -> dict[tuple[str, str], tuple[int, str | None, str | None]]:
    """(function, message) -> (line, condition, statement) of each site of the form."""
    source = textwrap.dedent(source)
    _, _, statements = scan_all(ast.parse(source), source, "pkg")
    return {
        (s.function, str(s.parts[0])): (s.line, s.condition, s.statement)
        for s in statements
        if s.form == form
    }


@pytest.mark.unit
def test_an_attribute_set_only_under_a_condition_is_a_site_where_it_is_read():
    sites = unset(
        """\
        class TokenizerManager:
            def __init__(self, model_path):
                if is_multimodal_model(model_path):
                    self.executor = make_pool()
                if model_path:
                    self.name = "a"
                else:
                    self.name = "b"

            def get_pixel_values(self, image):
                if self.executor is not None:
                    return self.executor.submit(image), self.name
        """
    )
    assert sites == {
        (
            "TokenizerManager.get_pixel_values",
            "'TokenizerManager' object has no attribute 'executor'",
        ): (11, "not is_multimodal_model(model_path)", "if self.executor is not None:")
    }


@pytest.mark.unit
def test_an_attribute_set_after_an_early_return_is_unset_when_it_returned():
    sites = unset(
        """\
        class Cache:
            def __init__(self, enabled):
                if not enabled:
                    return
                self.pool = {}

            def get(self, key):
                return self.pool[key]
        """
    )
    assert sites == {
        ("Cache.get", "'Cache' object has no attribute 'pool'"): (
            8,
            "not enabled",
            "return self.pool[key]",
        )
    }


@pytest.mark.unit
def test_an_attribute_never_set_counts_only_when_the_whole_class_is_in_view():
    sites = unset(
        """\
        class HostKVCache(abc.ABC):
            def __init__(self, device_pool):
                self.device_pool = device_pool

        class MHATokenToKVPoolHost(HostKVCache):
            def __init__(self, device_pool):
                super().__init__(device_pool)

            def get_flat_data_by_layer(self, indices, layer_id):
                return self.kv_buffer[:, layer_id - self.start_layer, indices]

            def init_kv_buffer(self):
                self.kv_buffer = alloc()

        class Model(nn.Module):
            def __init__(self):
                super().__init__()

            def load(self):
                return self.named_parameters()

        class SchedulerMetricsMixin:
            def get_load(self):
                return self.waiting_queue

        class BaseTokenToKVPool(abc.ABC):
            def __init__(self, size):
                self.size = size

            def available_size(self):
                return len(self.free_slots)
        """
    )
    # The host pool and its base are here: nothing sets `start_layer`. `nn.Module` gives
    # `named_parameters`, a mixin reads its host's attributes, an abstract class's
    # subclasses set what it reads: none of those is a site.
    assert sites == {
        (
            "MHATokenToKVPoolHost.get_flat_data_by_layer",
            "'MHATokenToKVPoolHost' object has no attribute 'start_layer'",
        ): (10, None, "return self.kv_buffer[:, layer_id - self.start_layer, indices]")
    }


@pytest.mark.unit
def test_attributes_the_class_always_has_or_checks_for_are_not_sites():
    assert not unset(
        """\
        class Runner:
            limit = 4
            size: int

            def __init__(self, args):
                try:
                    self.engine = connect(args)
                except OSError:
                    self.engine = None
                with lock:
                    self.state = "ready"
                self.setup()

            def setup(self):
                self.pool = []

            @property
            def busy(self):
                return bool(self.pool)

            def step(self):
                if hasattr(self, "extra"):
                    self.extra.run()
                return self.engine, self.state, self.limit, self.size, self.busy, self.step
        """
    )
    # A class that sets attributes by name, or answers for missing ones, is left alone.
    assert not unset(
        """\
        class Config:
            def __init__(self, **kw):
                if kw:
                    self.a = 1
                for k, v in kw.items():
                    setattr(self, k, v)

            def get(self):
                return self.a, self.b
        """
    )


@pytest.mark.integration
def test_sglang_0_1_12s_tokenizer_manager_reads_an_executor_only_multimodal_models_get():
    draft = draft_release(sglang_wheel("0.1.12"), "python/", ("sglang/",), (), statements=True)
    found = [
        s
        for s in draft.sites
        if s["form"] == FORM_UNSET
        and s["message"] == "'TokenizerManager' object has no attribute 'executor'"
    ]
    assert [(s["path"], s["function"]) for s in found] == [
        ("python/sglang/srt/managers/tokenizer_manager.py", "TokenizerManager.get_pixel_values")
    ]
    assert "is_multimodal_model" in (found[0]["condition"] or "")


@pytest.mark.unit
def test_a_name_the_module_binds_only_under_a_condition_is_a_site_where_it_is_read():
    sites = unset(
        """\
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from pkg.batch import Batch
        if is_cuda_available():
            from sgl_kernel import build_tree_kernel as sgl_build_tree_kernel
        try:
            import triton
        except ImportError:
            triton = None
        try:
            from vllm import ops
        except ImportError:
            pass

        def build_tree(batch: "Batch", x):
            if is_cuda_available():
                return sgl_build_tree_kernel(x)
            return None

        def build_tree_anyway(x):
            return sgl_build_tree_kernel(x), triton

        def quant(x, ops=None):
            return ops.quant(x)

        def fallback(x):
            def inner():
                return ops.quant(x)
            return inner()
        """,
        FORM_UNBOUND,
    )
    # Read under the binding's own test, shadowed by a parameter, bound on every path, or
    # there for annotations only: no site.
    assert sites == {
        ("build_tree_anyway", "name 'sgl_build_tree_kernel' is not defined"): (
            22,
            "not is_cuda_available()",
            "return sgl_build_tree_kernel(x), triton",
        ),
        ("fallback.inner", "name 'ops' is not defined"): (29, None, "return ops.quant(x)"),
    }
    # A star import may bind anything: the module is left alone.
    assert not unset(
        "if a:\n    from x import f\nfrom y import *\ndef g():\n    return f()\n", FORM_UNBOUND
    )


@pytest.mark.integration
def test_sglang_0_4_3s_eagle_tree_calls_a_kernel_only_cuda_machines_import():
    draft = draft_release(sglang_wheel("0.4.3"), "python/", ("sglang/",), (), statements=True)
    found = [
        (s["line"], s["condition"])
        for s in draft.sites
        if s["form"] == FORM_UNBOUND
        and s["function"] == "build_tree_kernel"
        and s["path"] == "python/sglang/srt/speculative/build_eagle_tree.py"
    ]
    # The line a traceback shows (sgl-project/sglang#3590's comment: line 149).
    assert found == [(149, "not is_cuda_available()")]
