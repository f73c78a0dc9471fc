"""The pure-Python twin of the JSON kernel function ``_kernel.pair_brackets``: the same results, slower.

``operators.kernel.pair_brackets`` dispatches to the C kernel when it is built, else to
``container_ends_py`` here; ``tests/test_kernel.py`` checks both agree wherever the kernel is built.
"""

from __future__ import annotations

import re
from array import array

# Up to the next bracket outside a string; possessive, so an unterminated string fails fast.
_STRUCT = re.compile(rb'(?:[^"\[\]{}]++|"(?:[^"\\]++|\\.)*+")*+([\[\]{}])', re.S)

_OPEN_OBJ, _OPEN_ARR = 0x7B, 0x5B


def container_ends_py(raw: bytes, start: int, stop: int, ends) -> int:
    """Pure-Python twin of ``_kernel.pair_brackets`` feeding ``ends`` (an ``operators.jsonscan.Ends``):
    pair the brackets of the container opening at ``start`` (searching before ``stop``), record the end
    of every container closed on the way and return the end of the one at ``start``, or -1."""
    match = _STRUCT.match
    opens, closes = ends.opens, ends.closes
    stack = array(opens.typecode, [len(opens)])  # open containers' indexes: 4 or 8 bytes a level, not an int object
    opens.append(start)
    closes.append(-1)
    pos = start + 1
    while True:
        m = match(raw, pos, stop)
        if m is None:
            return -1
        p = m.start(1)
        c = raw[p]
        if c == _OPEN_OBJ or c == _OPEN_ARR:
            stack.append(len(opens))
            opens.append(p)
            closes.append(-1)
        else:
            i = stack.pop()
            if raw[opens[i]] + 2 != c:  # '{'+2 == '}', '['+2 == ']'
                return -1
            closes[i] = p + 1
            if not stack:
                return p + 1
        pos = p + 1
