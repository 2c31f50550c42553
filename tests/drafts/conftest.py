"""A small synthetic package, as a directory and as a wheel, for the draft tests."""

import textwrap
import zipfile
from pathlib import Path

import pytest

MODULES = {
    "minipkg/__init__.py": "",
    "minipkg/srt/__init__.py": "",
    "minipkg/srt/backends.py": textwrap.dedent(
        """\
        import torch


        def create(runner, name, n):
            if not runner.use_mla:
                raise ValueError("trtllm_mla backend can only be used with MLA models.")
            if name == "x":
                raise NotImplementedError(f"Backend {name} is not supported (got {n!r} heads)")
            if n > 4:
                raise RuntimeError(
                    "Too many heads: "
                    "%d > %d" % (n, 4)
                )
            if n < 0:
                raise ValueError("Invalid head count {} for {model}".format(n, model=name))
            if n == 3:
                raise KeyError("missing key: " + str(name))
            if n == 2:
                raise torch.OutOfMemoryError(f"CUDA out of memory. Tried to allocate {n} GiB")
            if n == 1:
                raise ValueError(f"Bad value (x+y)*[z]? {{literal}} {name}.\\nSee docs.")
            raise ValueError("Rate %(rate).2f%% exceeds %(cap)s" % {"rate": n, "cap": 1})
        """
    ),
    "minipkg/skipped.py": textwrap.dedent(
        """\
        def f(msg, a, b):
            raise ValueError(msg)
            raise ValueError(f"{a}: {b}")
            raise ValueError
            raise make_error("helper functions are not exception classes")
            raise ValueError(123)
        """
    ),
    "minipkg/broken.py": "def broken(:\n    raise ValueError('never parsed')\n",
}


def write_package(root: Path) -> Path:
    for name, text in MODULES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "minipkg"


@pytest.fixture
def package_dir(tmp_path: Path) -> Path:
    return write_package(tmp_path / "site-packages")


@pytest.fixture
def wheel(tmp_path: Path) -> Path:
    path = tmp_path / "minipkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in MODULES.items():
            zf.writestr(name, text)
        zf.writestr("minipkg-1.0.dist-info/METADATA", "Name: minipkg\n")
        zf.writestr("minipkg-1.0.dist-info/fake.py", "raise ValueError('not package code')\n")
        zf.writestr(
            "minipkg-1.0.data/purelib/minipkg_extra/x.py",
            "raise ValueError('purelib data is package code')\n",
        )
    return path
