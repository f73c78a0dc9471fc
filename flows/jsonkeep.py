"""Read and write a JSON settings file without changing a value ``tokens init`` did not mean to change.

``json.loads`` turns ``1e400`` into ``inf`` (written back as ``Infinity``: not JSON), ``1.0`` into
``1.0`` but ``1E2`` into ``100.0``, a big integer's text survives but a float's digits may not, and a
repeated key keeps only its last value. Here every number is kept as its source text (``Num``), every
object as its ordered list of pairs (``Obj``, repeated keys included), and ``dumps`` writes them back
as read: numbers byte for byte, strings with the same characters (a lone surrogate escape is written
as an escape again), keys in their order. Only the layout (indent of 2) is ours.
"""

from __future__ import annotations

import json
import re


class Num(str):
    """A JSON number, kept as its source text."""


class Obj(list):
    """A JSON object: its ``(key, value)`` pairs in source order (repeated keys kept)."""

    def get(self, key: str, default=None):
        """The value the host reads for ``key``: the last pair with that key (``JSON.parse``)."""
        for k, v in reversed(self):
            if k == key:
                return v
        return default

    def has(self, key: str) -> bool:
        return any(k == key for k, _ in self)

    def set(self, key: str, value) -> None:
        """Give ``key`` this value: its last pair is replaced in place, or one is added at the end."""
        for i in range(len(self) - 1, -1, -1):
            if self[i][0] == key:
                self[i] = (key, value)
                return
        self.append((key, value))

    def drop(self, key: str) -> None:
        self[:] = [(k, v) for k, v in self if k != key]


def loads(text: str | bytes):
    """The JSON value of ``text`` with numbers as ``Num`` and objects as ``Obj``; raises ``ValueError``."""
    return json.loads(text, parse_float=Num, parse_int=Num, parse_constant=_bad_constant, object_pairs_hook=Obj)


def _bad_constant(name: str):
    raise ValueError(f"{name} is not JSON")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _string(s: str) -> str:
    text = json.dumps(s, ensure_ascii=False)
    if _SURROGATE.search(text):  # a lone surrogate: written back as the escape it was read from
        text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def dumps(value, indent: int = 2, level: int = 0) -> str:
    """``value`` as JSON text; ``Num`` as its source text, ``Obj`` pairs in order."""
    pad, inner = " " * (indent * level), " " * (indent * (level + 1))
    if isinstance(value, Num):
        return str(value)
    if isinstance(value, str):
        return _string(value)
    if value is True or value is False or value is None:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, dict):
        value = Obj(value.items())
    if isinstance(value, Obj):
        if not value:
            return "{}"
        items = [f"{inner}{_string(k)}: {dumps(v, indent, level + 1)}" for k, v in value]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        items = [inner + dumps(v, indent, level + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def plain(value):
    """``value`` with ``Obj`` as ``dict`` and ``Num`` as its number (for comparisons only)."""
    if isinstance(value, Obj):
        return {k: plain(v) for k, v in value}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, Num):
        return ("number", str(value))
    return value
