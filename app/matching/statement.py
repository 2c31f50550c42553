"""What the innermost frame's own statement says about an error the interpreter worded.

`AttributeError: 'Runtime' object has no attribute 'cache_prefix'` under the frame line
`prefix_rid = backend.cache_prefix(prefix)` says which value was the `Runtime`: `backend`.
The same holds for `len(x)` of None, a subscript of None, and a KeyError from the one
lookup on the line. Only the source line the traceback printed is read; when the line does
not single out one expression (two lookups, two reads of the attribute on different
values), nothing is said.
"""

from __future__ import annotations

import re

from app.matching.parse import ParsedException

MAX_SOURCE = 300  # characters of the frame's source line read at most
# An expression a statement reads an attribute of, or subscripts: a name, then attributes,
# calls without nested parentheses and subscripts (`self.pools[i].allocator`).
_OPERAND = r"(?<![\w.\])])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*|\[[^\[\]\n]*\]|\([^()\n]*\))*)"
_NO_ATTRIBUTE = re.compile(
    r"\A(?:(type object)|(module)|)\s*'([\w.<>]+)'\s*(?:object\s+)?has no attribute '(\w+)'"
)
_NO_LEN = re.compile(r"\Aobject of type 'NoneType' has no len\(\)")
_NONE_SUBSCRIPT = re.compile(r"\A'NoneType' object is not subscriptable")
_SUBSCRIPT = re.compile(_OPERAND + r"\[")
_LEN = re.compile(r"\blen\(([^()\n]*)\)")  # its argument, stripped by the reader
_STORE = re.compile(r"\A[\w.]+\[[^\[\]\n]*\]\s*=(?!=)")
_STRING = re.compile(r"""(?:'[^'\n]*'|"[^"\n]*")""")


def _code(source: str) -> str:
    """The source line without its string literals (a `.x` inside quotes is no read)."""
    return _STRING.sub('""', source.strip())


def _one(found: list[str]) -> str | None:
    """The one expression the line has in that place, if every occurrence is the same."""
    return found[0] if found and all(f == found[0] for f in found) else None


def explain(exc: ParsedException) -> str | None:
    """A sentence naming the value on the innermost frame's line that the message is about,
    or None when the message is not one of these or the line does not single it out."""
    if not exc.frames or not exc.frames[-1].source:
        return None
    source = exc.frames[-1].source.strip()
    if len(source) > MAX_SOURCE:
        return None  # no statement a traceback prints is this long: a hostile paste
    code = _code(source)
    name = (exc.error_class or "").rsplit(".", 1)[-1]
    message = exc.message.strip().split("\n", 1)[0]
    if name == "AttributeError":
        m = _NO_ATTRIBUTE.match(message)
        if m is None:
            return None
        type_object, module, owner, attr = m.groups()
        value = _one(re.findall(_OPERAND + r"\." + attr + r"\b", code))
        if value is None:
            return None
        if type_object:
            what = f"the class `{owner}`"
        elif module:
            what = f"the module `{owner}`"
        elif owner == "NoneType":
            return f"On that line (`{source}`), `{value}` was None, so it has no `{attr}`."
        else:
            what = f"a `{owner}`"
        return f"On that line (`{source}`), `{value}` was {what}, which has no attribute `{attr}`."
    if name == "TypeError" and _NO_LEN.match(message):
        value = _one([v.strip() for v in _LEN.findall(code) if v.strip()])
        return None if value is None else f"On that line (`{source}`), `{value}` was None."
    if name == "TypeError" and _NONE_SUBSCRIPT.match(message):
        value = _one(_SUBSCRIPT.findall(code))
        return None if value is None else f"On that line (`{source}`), `{value}` was None."
    if name == "KeyError":
        lookups = _SUBSCRIPT.findall(code)
        if len(lookups) != 1 or not message or _STORE.match(code):
            return None  # a lone `d[k] = v` stores: it raises no KeyError
        return f"On that line (`{source}`), `{lookups[0]}` has no key {message}."
    return None
