"""The pure-Python twin of the git blame type's kernel function: ``blame_columns``, where the code
column of each default-form blame line starts (``hash [file] (author date time zone lineno) code``)
and the widest line number, found by one pass of ``BLAME_SCAN`` over the whole text."""

from __future__ import annotations

import re
from array import array

# a default-form blame line after the newline before it (its groups, its end), with possessive steps, none
# tried twice; group 2 is the shortest run before the first blanks followed by ``\d+\)``, as the
# blame type's lazy ``(.*?) +`` finds
BLAME_SCAN = re.compile(rb"\n(\^?[0-9a-f]{4,40}) [^(\r\n]*+\(((?:[^ \n]++| ++(?!\d+\)))*+) +(\d+)\) ?")


def blame_columns_py(raw: bytes, starts) -> tuple[array, int]:
    """(the code column's start of each line of ``starts`` (its n + 1 offsets), -1 for a line that is
    not a default-form blame line and for the first line, which no newline precedes; the most digits of
    a line number)."""
    n = max(len(starts) - 1, 0)
    code = array("q", [-1]) * n
    width = 0
    i = 1
    for m in BLAME_SCAN.finditer(raw):
        at = m.start() + 1
        while starts[i] != at:  # a line the scan skipped
            i += 1
        code[i] = m.end()
        width = max(width, m.end(3) - m.start(3))
        i += 1
    return code, width
