"""The launch space, read from sglang's own parser: each flag's type, choices, default.

Imported inside the sglang environment. Nothing here is written by hand per flag: the
values tried come from the argparse action (its ``choices``, ``type``, ``nargs``,
``default``, store_true/BooleanOptionalAction), plus a few boundary values per type.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

# Flags the explorer sets itself, or that only print and exit.
SKIP = {"--model-path", "--model", "--help", "--version", "--config", "--device"}
INT_VALUES = (0, -1, 3, 4097)
FLOAT_VALUES = (0.0, -1.0, 0.5, 2.0)
STR_VALUE = "x"
# Stands for the scenario's own model directory (a draft model path, say): see Scenario.
MODEL_TOKEN = "@model"


@dataclass(frozen=True)
class Flag:
    name: str
    kind: str  # "bool", "negbool", "choice", "int", "float", "str"
    default: Any
    choices: tuple[str, ...] = ()
    dest: str = ""  # the ServerArgs field it sets (what sglang's code reads)


def build_parser() -> argparse.ArgumentParser:
    from sglang.srt.server_args import ServerArgs

    parser = argparse.ArgumentParser(prog="sglang.launch_server", exit_on_error=False)
    ServerArgs.add_cli_args(parser)
    return parser


def _kind(action: argparse.Action) -> str:
    if isinstance(action, argparse.BooleanOptionalAction):
        return "negbool"
    if action.nargs == 0:
        return "bool"
    if action.choices:
        return "choice"
    if action.type is int:
        return "int"
    if action.type is float:
        return "float"
    return "str"


def flags(parser: argparse.ArgumentParser) -> list[Flag]:
    """Every launch flag the parser defines, in its order."""
    out: list[Flag] = []
    seen: set[str] = set()
    for action in parser._actions:
        longs = [s for s in action.option_strings if s.startswith("--")]
        if not longs or action.dest in seen or longs[0] in SKIP or action.dest == "help":
            continue
        seen.add(action.dest)
        choices = tuple(str(c) for c in action.choices) if action.choices else ()
        if isinstance(action.choices, set | frozenset):  # unordered: fix an order
            choices = tuple(sorted(choices))
        out.append(Flag(longs[0], _kind(action), action.default, choices, action.dest))
    return out


def mutations(flag: Flag) -> list[list[str]]:
    """The argv fragments that move ``flag`` off its default."""
    default = None if flag.default is None else str(flag.default)
    if flag.kind == "bool":
        return [[flag.name]]
    if flag.kind == "negbool":
        return [[flag.name], ["--no-" + flag.name[2:]]]
    if flag.kind == "choice":
        return [[flag.name, c] for c in flag.choices if c != default]
    if flag.kind == "int":
        return [[flag.name, str(v)] for v in INT_VALUES if str(v) != default]
    if flag.kind == "float":
        return [[flag.name, str(v)] for v in FLOAT_VALUES if str(v) != default]
    return [[flag.name, free_value(flag)]]


def free_value(flag: Flag) -> str:
    """The value tried for a free-string flag: a model path flag gets the scenario's own
    model directory, any other ``x``."""
    return MODEL_TOKEN if flag.dest.endswith("model_path") else STR_VALUE


def alternatives(flag: Flag, current: list[str]) -> list[list[str]]:
    """Candidate fixes for one flag of a trigger: removed, or each other choice."""
    out: list[list[str]] = [[]]
    if flag.kind == "choice":
        out += [[flag.name, c] for c in flag.choices if [flag.name, c] != current]
    elif flag.kind == "negbool":
        out += [m for m in mutations(flag) if m != current]
    return out
