"""The drafter's own source segments and import walk give what the stdlib's do."""

from __future__ import annotations

import ast

import pytest

from app.drafts.helpers import import_nodes
from app.drafts.scan import source_segment

pytestmark = pytest.mark.unit

SOURCES = {
    "lf": "x = f(\n    'a'\n    'b',\n)\nif x:\n    raise ValueError(f'bad {x}')\n",
    "crlf": "x = (1,\r\n 2)\r\nassert x, 'no'\r\n",
    "cr": "x = (1,\r 2)\rassert x, 'no'\r",
    "form feed": "a = 1\n\x0cb = (a,\n a)\n",
    "no final newline": "raise RuntimeError('é' +\n 'ü')",
    "wide characters": "msg = '日本' + (\n  '語')  # 注\nraise KeyError(msg)\n",
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_every_node_segment_is_the_stdlib_one(name: str) -> None:
    source = SOURCES[name]
    nodes = [n for n in ast.walk(ast.parse(source)) if hasattr(n, "end_col_offset")]
    assert nodes
    for node in nodes:
        assert source_segment(source, node) == ast.get_source_segment(source, node)


def test_a_node_without_positions_has_no_segment() -> None:
    assert source_segment("x = 1\n", ast.Name("x")) is None


def test_import_nodes_are_every_import_in_walk_order() -> None:
    source = (
        "import a\n"
        "try:\n    from b import c\nexcept ImportError:\n    import d as e\n"
        "def f():\n    if g:\n        from .h import i\n    return [j for j in k]\n"
        "class C:\n    import l\n"
        "match m:\n    case 1:\n        import n\n"
        "with o:\n    for p in q:\n        import r\n    else:\n        from s import *\n"
    )
    tree = ast.parse(source)
    walked = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
    assert len(walked) == 8
    assert list(import_nodes(tree)) == walked
