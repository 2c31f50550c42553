"""Guided moves: read each raise site's guards from sglang's source and try the flags
and values those guards test.

Imported inside the sglang environment (it reads the installed source with ``ast``).
For every ``raise``/``assert`` in the launch-time files, the guards are the tests of the
``if``s it sits in, the early-return ``if``s before it in its function, and an assert's
own test. A guard names launch flags by their ``dest`` (``cfg.pp_size``,
``server_args.attention_backend``, ``getattr(cfg, "dp_size")``, a local variable
assigned from them, or a helper function of the same files that reads them), and gives
values by the constants it compares them with (``== "EAGLE"``, ``> 1``, ``in ("a",
"b")``). The moves for a site are combinations of those flags set to those values (or
to the flag's own choices), on the platforms and models the guard's words point to
(``is_hip`` -> mi300, ``use_mla`` -> an MLA model). Nothing here is written per flag.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from repro.explore._scenario import DELETE
from repro.explore._space import Flag, free_value, mutations

GUIDED = (
    "sglang/srt/server_args.py",
    "sglang/srt/arg_groups/",
    "sglang/srt/configs/model_config.py",
    "sglang/srt/layers/attention/attention_registry.py",
    "sglang/srt/configs/",
)
MAX_FLAGS = 4  # flags combined per site
MAX_VALUES = 3  # values tried per flag
# config.json keys appear among a target's dests with this prefix.
CONFIG = "config:"
CONFIG_OBJECT = re.compile(r"(^|\.)(hf_config|hf_text_config|text_config|config)$")
MAX_PATCHES = 3  # values tried per config key
CONFIG_METHODS = {"get", "to_dict", "items", "keys", "values", "update", "pop", "setdefault"}
# Choice words that say nothing about what a function is for.
GENERIC_WORDS = {"auto", "none", "default", "true", "false", "all", "null"}

# Words in a guard -> the simulated platforms it is about (first = preferred).
PLATFORM_HINTS = (
    (r"\bhip\b|is_hip|rocm|gfx|aiter|amd", ("mi300",)),
    (r"sm_?10\d|blackwell|is_sm100|>= ?10\b|sm_?12\d", ("blackwell",)),
    (r"sm_?90|hopper|\(9, ?0\)", ("hopper",)),
    (r"sm_?8\d|ampere|\(8, ?\d\)", ("ampere",)),
    (r"is_cpu|\bcpu\b|npu|xpu|\bmps\b", ("cpu",)),
    (r"capability|device_sm|is_cuda", ("hopper", "blackwell", "ampere")),
)
# Words in a guard -> model configs (directory names under data/model-configs).
MODEL_HINTS = (
    (r"mla|deepseek|kv_lora_rank|nsa|dsa", ("deepseek-ai__DeepSeek-V2-Lite",)),
    (r"moe|expert|ep_size|a2a|deepep", ("Qwen__Qwen1.5-MoE-A2.7B", "mistralai__Mixtral-8x7B-v0.1")),
    (r"multimodal|vision|mm_|image|video|vlm", ("Qwen__Qwen2-VL-7B-Instruct",)),
    (r"modelopt", ("nvidia__Llama-3.1-8B-Instruct-FP8",)),
    (r"quant|fp8", ("neuralmagic__Meta-Llama-3.1-8B-Instruct-FP8",)),
    (r"embedding|encoder|is_generation|pooling", ("BAAI__bge-base-en-v1.5",)),
    (r"\bawq\b", ("Qwen__Qwen2.5-7B-Instruct-AWQ",)),
    (r"gptq", ("Qwen__Qwen2.5-7B-Instruct-GPTQ-Int4",)),
)


@dataclass(frozen=True)
class Target:
    """One raise site and what its guards read."""

    file: str  # package-relative (sglang/srt/...)
    line: int
    dests: tuple[str, ...]  # flag dests the guards read, most specific first
    values: dict[str, tuple[Any, ...]] = field(hash=False, compare=False)
    text: str = field(default="", compare=False)  # the guards' source, for the hints
    function: str = field(default="", compare=False)  # the enclosing function's name
    # config.json edits every move for this site needs (a config class's model_type)
    needs: tuple[tuple[str, str], ...] = field(default=(), compare=False)


def _files(root: Path) -> list[Path]:
    out: list[Path] = []
    for rel in GUIDED:
        path = root / rel
        out += sorted(path.rglob("*.py")) if rel.endswith("/") else [path]
    # Each file once (model_config.py is listed ahead of configs/: its helpers win).
    return [p for p in dict.fromkeys(out) if p.is_file()]


class _Reader:
    """Reads guards in terms of flag dests."""

    def __init__(self, dests: set[str], helpers: dict[str, ast.AST]) -> None:
        self.dests = dests
        self.helpers = helpers
        self.locals: dict[str, set[str]] = {}

    def reads(self, node: ast.AST, depth: int = 0) -> set[str]:
        """Flag dests an expression reads (through locals and one helper level), and the
        model's ``config.json`` keys it reads, as ``config:<key>``."""
        out: set[str] = set()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute) and sub.attr in self.dests:
                out.add(sub.attr)
            elif isinstance(sub, ast.Attribute) and _is_config(sub.value):
                if sub.attr not in CONFIG_METHODS:
                    out.add(CONFIG + sub.attr)
            elif isinstance(sub, ast.Subscript) and _is_config(sub.value):
                if isinstance(sub.slice, ast.Constant) and isinstance(sub.slice.value, str):
                    out.add(CONFIG + sub.slice.value)
            elif isinstance(sub, ast.Name) and sub.id in self.locals:
                out |= self.locals[sub.id]
            elif (
                isinstance(sub, ast.Call)
                and isinstance(sub.func, ast.Attribute)
                and sub.func.attr == "get"
                and _is_config(sub.func.value)
                and sub.args
                and isinstance(sub.args[0], ast.Constant)
            ):
                out.add(CONFIG + str(sub.args[0].value))
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
                if sub.func.id == "getattr" and len(sub.args) > 1:
                    name = sub.args[1]
                    if isinstance(name, ast.Constant) and name.value in self.dests:
                        out.add(str(name.value))
                    elif isinstance(name, ast.Constant) and _is_config(sub.args[0]):
                        out.add(CONFIG + str(name.value))
                elif sub.func.id in self.helpers and depth == 0:
                    out |= self.reads(self.helpers[sub.func.id], depth + 1)
        return out

    def values(self, node: ast.AST, depth: int = 0) -> dict[str, set[Any]]:
        """Constants each dest is compared with in ``node`` (and in a helper it calls)."""
        out: dict[str, set[Any]] = {}
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and depth == 0:
                helper = self.helpers.get(sub.func.id)
                for dest, found in (self.values(helper, 1) if helper else {}).items():
                    out.setdefault(dest, set()).update(found)
            if not isinstance(sub, ast.Compare):
                continue
            sides = [sub.left, *sub.comparators]
            for i, side in enumerate(sides):
                named = self.reads(side, depth=1)
                if not named:
                    continue
                for j, other in enumerate(sides):
                    if i == j:
                        continue
                    op = sub.ops[min(i, j)]
                    for value in _constants(other, op):
                        for dest in named:
                            out.setdefault(dest, set()).add(value)
        return out

    def learn(self, fn: ast.AST) -> None:
        """Local names assigned from flag reads in ``fn`` (``page_size = cfg.page_size``)."""
        self.locals = {}
        for sub in ast.walk(fn):
            if isinstance(sub, ast.Assign | ast.AnnAssign) and sub.value is not None:
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                for target in targets:
                    names = target.elts if isinstance(target, ast.Tuple) else [target]
                    for name in names:
                        if isinstance(name, ast.Name):
                            read = self.reads(sub.value, depth=1)
                            if read:
                                self.locals.setdefault(name.id, set()).update(read)


def _is_config(node: ast.AST) -> bool:
    """``hf_config``, ``model_config.hf_text_config``, ``self.hf_config``, ``config``: the
    object sglang reads ``config.json`` into (not ``model_config`` itself, whose
    attributes are derived)."""
    return bool(CONFIG_OBJECT.search(ast.unparse(node)))


def _constants(node: ast.AST, op: ast.cmpop) -> list[Any]:
    if isinstance(node, ast.Constant) and not isinstance(node.value, bytes):
        value = node.value
        if isinstance(value, bool) or value is None:
            return [value]
        if isinstance(value, int | float):
            step: list[int | float] = [0]
            if isinstance(op, ast.Gt | ast.NotEq):
                step = [1]
            elif isinstance(op, ast.Lt):
                step = [-1]
            elif isinstance(op, ast.GtE | ast.LtE | ast.Eq):
                step = [0, 1]
            return [value + s for s in step]
        return [value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [e.value for e in node.elts if isinstance(e, ast.Constant)]
    return []


def _guards(fn: ast.AST, raise_node: ast.AST, parents: dict[ast.AST, ast.AST]) -> list[ast.AST]:
    """Tests on the way to ``raise_node`` inside ``fn``, and early-return tests before it."""
    out: list[ast.AST] = []
    if isinstance(raise_node, ast.Assert):
        out.append(raise_node.test)
    node = raise_node
    while node in parents and node is not fn:
        parent = parents[node]
        if isinstance(parent, ast.If | ast.While):
            out.append(parent.test)
        body = getattr(parent, "body", None)
        if isinstance(body, list) and node in body:
            for before in body[: body.index(node)]:
                if isinstance(before, ast.If) and _returns(before):
                    out.append(before.test)
        node = parent
    return out


def _returns(node: ast.If) -> bool:
    return any(isinstance(s, ast.Return) for s in node.body) and len(node.body) <= 2


def targets(root: Path, dests: Iterable[str]) -> list[Target]:
    """Every raise/assert in the guided files, with the flags and values its guards read."""
    known = set(dests)
    trees: list[tuple[str, ast.Module]] = []
    helpers: dict[str, ast.AST] = {}
    for path in _files(root):
        try:
            parsed = ast.parse(path.read_text())
        except (OSError, SyntaxError, ValueError):
            continue
        trees.append((path.relative_to(root).as_posix(), parsed))
        for node in parsed.body:
            if isinstance(node, ast.FunctionDef):
                helpers.setdefault(node.name, node)
    out: list[Target] = []
    for rel, tree in trees:
        parents = {c: p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
        reader = _Reader(known, helpers)
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            reader.learn(fn)
            model_type = _config_class(fn, parents)
            if model_type is not None:  # a config class's __init__: its parameters are keys
                for arg in fn.args.args[1:] + fn.args.kwonlyargs:
                    reader.locals.setdefault(arg.arg, set()).add(CONFIG + arg.arg)
            for site in ast.walk(fn):
                if not isinstance(site, ast.Raise | ast.Assert) or _owner(site, parents) is not fn:
                    continue
                guards = _guards(fn, site, parents)
                read: list[str] = []
                values: dict[str, set[Any]] = {}
                for guard in guards:
                    for dest in sorted(reader.reads(guard)):
                        if dest not in read:
                            read.append(dest)
                    for dest, found in reader.values(guard).items():
                        values.setdefault(dest, set()).update(found)
                text = " ".join(ast.unparse(g) for g in guards)
                frozen = {k: tuple(sorted(v, key=repr)) for k, v in values.items()}
                needs = (("model_type", json.dumps(model_type)),) if model_type else ()
                target = Target(rel, site.lineno, tuple(read), frozen, text, fn.name, needs)
                out.append(target)
    return out


def _config_class(fn: ast.AST, parents: dict[ast.AST, ast.AST]) -> str | None:
    """The ``model_type`` of the config class whose ``__init__`` ``fn`` is, else None."""
    cls = parents.get(fn)
    if not isinstance(fn, ast.FunctionDef) or fn.name != "__init__":
        return None
    if not isinstance(cls, ast.ClassDef):
        return None
    if not any(ast.unparse(b).endswith("Config") for b in cls.bases):
        return None
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "model_type" for t in stmt.targets
        ):
            if isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
                return stmt.value.value
    return None


def _owner(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> ast.AST | None:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return node
    return None


def fragments(flag: Flag, values: Iterable[Any], known: Iterable[str] = ()) -> list[list[str]]:
    """Argv fragments that set ``flag`` to the guard's values, else to its own choices, or
    (a free string) to values other guards compare it with (``known``)."""
    if flag.kind in ("bool", "negbool"):
        return mutations(flag)
    wanted = [v for v in values if v is not None and not isinstance(v, bool)]
    if flag.kind == "choice":
        ok = [str(v) for v in wanted if str(v) in flag.choices and str(v) != str(flag.default)]
        if not ok:
            ok = [c for c in flag.choices if c != str(flag.default)]
        return [[flag.name, v] for v in ok[:MAX_VALUES]]
    if flag.kind in ("int", "float"):
        cast = int if flag.kind == "int" else float
        nums = []
        for v in wanted:
            try:
                nums.append(cast(v))
            except (TypeError, ValueError):
                continue
        nums = nums or ([2, 0] if flag.kind == "int" else [0.5, 0.0])
        out = [[flag.name, str(n)] for n in dict.fromkeys(nums) if str(n) != str(flag.default)]
        return out[:MAX_VALUES]
    strings = [str(v) for v in wanted if isinstance(v, str) and v]
    strings = strings or sorted(v for v in known if v) or [free_value(flag)]
    return [[flag.name, s] for s in strings[:MAX_VALUES]]


def patches(target: Target, limit: int) -> list[tuple[tuple[str, str], ...]]:
    """Up to ``limit`` edits of ``config.json`` (``(key, JSON value)`` pairs) that give
    the keys ``target``'s guards read the values they are compared with; a key compared
    with nothing is removed, or set to 0."""
    keys = [d[len(CONFIG) :] for d in target.dests if d.startswith(CONFIG)][:2]
    options: list[list[tuple[str, str]]] = []
    for key in keys:
        found = [v for v in target.values.get(CONFIG + key, ()) if v is not None]
        if key == "architectures":  # compared one by one: a list of one
            found = [[v] for v in found if isinstance(v, str)]
            if not found:
                continue
        values = [json.dumps(v) for v in found[:MAX_PATCHES]] or [DELETE, "0"]
        options.append([(key, v) for v in values])
    if not options:
        return [target.needs] if target.needs else []
    out: list[tuple[tuple[str, str], ...]] = []
    for combo in itertools.product(*options):
        out.append((*target.needs, *combo))
        if len(out) >= limit:
            break
    return out


def repaired_moves(
    frags: list[tuple[str, ...]],
    blocker: Target,
    by_dest: dict[str, Flag],
    bad: set[tuple[str, ...]],
) -> list[list[list[tuple[str, ...]]]]:
    """A move (``frags``) stopped at ``blocker``, another site, first: the same move with
    one flag that ``blocker``'s guards read removed, or set to a value those guards
    compare (up to two tries per flag, grouped by flag in the guards' order)."""
    out: list[list[list[tuple[str, ...]]]] = []
    for dest in blocker.dests:
        flag = by_dest.get(dest)
        if flag is None:
            continue
        kept = [f for f in frags if f[0] not in (flag.name, "--no-" + flag.name[2:])]
        options = [tuple(f) for f in fragments(flag, blocker.values.get(dest, ()))]
        tries = [kept] if len(kept) < len(frags) else []
        tries += [[*kept, o] for o in options if o not in frags and o not in bad]
        out.append(tries[:2])
    return out


def vocabulary(found: Iterable[Target]) -> dict[str, set[str]]:
    """Every string each flag is compared with anywhere in the guided files (for flags
    whose parser lists no choices, such as ``--speculative-algorithm``)."""
    out: dict[str, set[str]] = {}
    for target in found:
        for dest, values in target.values.items():
            out.setdefault(dest, set()).update(v for v in values if isinstance(v, str))
    return out


def moves(
    target: Target,
    by_dest: dict[str, Flag],
    limit: int,
    vocab: dict[str, set[str]] | None = None,
    bad: set[tuple[str, ...]] | None = None,
) -> list[tuple[str, ...]]:
    """Up to ``limit`` argv extras that set the flags ``target``'s guards read: their
    conjunction, with and without the function's context (below), then each flag alone.
    ``bad`` fragments (ones sglang's parser refused on their own) are never used."""
    vocab, bad = vocab or {}, bad or set()
    options: list[list[list[str]]] = []
    for dest in target.dests:
        flag = by_dest.get(dest)
        if flag is None or len(options) == MAX_FLAGS:
            continue
        frags = fragments(flag, target.values.get(dest, ()), vocab.get(dest, ()))
        frags = [f for f in frags if tuple(f) not in bad]
        if frags:
            options.append(frags)
    names = {frags[0][0] for frags in options}
    ctx = [f for f in context(target.function, by_dest, vocab) if f[0] not in names]
    ctx = [f for f in ctx if tuple(f) not in bad]
    if not options and not ctx:
        return []
    out: list[tuple[str, ...]] = []

    def add(frags: Iterable[list[str]]) -> bool:
        move = tuple(t for frag in frags for t in frag)
        if move and move not in out:
            out.append(move)
        return len(out) >= limit

    for combo in itertools.product(*options):
        if add([*ctx, *combo]) or (ctx and add(combo)):
            return out
    for frag in [f for frags in options for f in frags] if len(options) > 1 else []:
        if add([*ctx, frag]):
            break
    return out


def context(function: str, by_dest: dict[str, Flag], vocab: dict[str, set[str]]) -> list[list[str]]:
    """Flags a function's name says it is about, when its guards do not read them: its
    words name a choice (``_handle_eagle_family`` -> ``--speculative-algorithm EAGLE``)
    or an ``--enable-X`` flag (``check_lora_server_args`` -> ``--enable-lora``). Hooks
    are often called only under that setting."""
    name = function.lower().strip("_")
    words = set(name.split("_")) - GENERIC_WORDS
    out: list[list[str]] = []
    for dest, flag in by_dest.items():
        if flag.kind in ("choice", "str"):
            named = flag.choices or tuple(sorted(vocab.get(dest, ())))
            hit = [c for c in named if len(c) >= 3 and c.lower() in words]
            hit = [c for c in hit if c != str(flag.default)]
            if hit:
                out.append([flag.name, hit[0]])
        elif flag.kind == "bool" and dest.startswith("enable_"):
            stem = dest[len("enable_") :]
            if len(stem) >= 3 and f"_{stem}_" in f"_{name}_":
                out.append([flag.name])
    return out[:2]


def hinted(
    text: str, table: tuple[tuple[str, tuple[str, ...]], ...], available: list[str]
) -> list[str]:
    """The platforms or models a guard's words point to, among ``available``."""
    lowered = text.lower()
    out: list[str] = []
    for pattern, names in table:
        if re.search(pattern, lowered):
            out += [n for n in names if n in available and n not in out]
    return out
