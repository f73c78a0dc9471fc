"""The pure-Python twin of the diagnostics type's kernel function ``diag_heads``: the ``path:line:col: …``
lines that start with their path (``LOC_LINES_RE`` of ``operators.types.diagnostics``), found over a
whole input, as columns, the texts after their locations and their paths each kept once."""

from __future__ import annotations

import re
from array import array

# diagnostics.LOC_LINES_RE: path:line[:col] then ":" or " - "; the path has no spaces, parentheses or colons
LOC_LINES_RE = re.compile(rb"^()((?:[A-Za-z]:)?[^\s:()][^\s:()]*?):(\d+)(?::(\d+))?(?::| -) ?(.*)$", re.M)
SEV_BRACKET_RE = re.compile(rb"[a-z]+\[")  # how a line both rustc's ``error[E0308]: …`` and a location's can start
SUSPECT, DASH = 1, 2


def _intern(numbers: dict, items: list, item: bytes) -> int:
    """``item``'s number in ``items``, appended when new."""
    n = numbers.get(item)
    if n is None:
        n = numbers[item] = len(items)
        items.append(item)
    return n


def diag_heads_py(raw: bytes):
    """(lines, at, loc, flags, rest_ids, rests, path_ids, paths), as ``_kernel.diag_heads``: for each line
    ``LOC_LINES_RE`` matches (its text: up to its ``\\n``), in order: its index (uint32; lines split after
    each ``\\n``; the input is under 2 GiB), where its text after the location starts (``at``: group 5) and how long its location is
    (``loc``: ``text[:at].rstrip(b": -")``), int32 each; its flags (a byte: ``SUSPECT`` when it holds
    ``): `` or ``.go:`` or starts with lower-case letters and ``[``, the lines another form may take;
    ``DASH`` when `` - `` ends its location, pyright's form); the id of its text after the location
    (int32) into ``rests`` and of its path into ``paths`` (each distinct text once, in order of first
    appearance)."""
    lines, at, loc, rest_ids, path_ids = array("I"), array("i"), array("i"), array("i"), array("i")
    flags = bytearray()
    rests: list[bytes] = []
    paths: list[bytes] = []
    rest_of: dict[bytes, int] = {}
    path_of: dict[bytes, int] = {}
    line, pos = 0, 0
    for m in LOC_LINES_RE.finditer(raw):
        start = m.start()
        line += raw.count(b"\n", pos, start)
        pos = start
        text = m.group()
        a = m.start(5) - start
        lines.append(line)
        at.append(a)
        loc.append(len(text[:a].rstrip(b": -")))
        suspect = b"): " in text or b".go:" in text or SEV_BRACKET_RE.match(text) is not None
        flags.append((SUSPECT if suspect else 0) | (DASH if b" - " in text[a - 3 : a] else 0))
        rest_ids.append(_intern(rest_of, rests, m.group(5)))
        path_ids.append(_intern(path_of, paths, m.group(2)))
    return lines, at, loc, flags, rest_ids, rests, path_ids, paths


SPECIAL = 255  # diagnostics.SPECIAL: a diagnostic the reducer does on its own


def diag_codes_py(key, rank, plain, group_of, examples: int) -> bytearray:
    """A byte a diagnostic, as ``_kernel.diag_codes``: the number of its rule's group (``group_of[key]``,
    0 for a rule not folded) when its rank in its rule (``rank``) is past ``examples``; ``SPECIAL`` at
    its folded rule's last example; else 0 when ``plain`` (one line shown as printed), ``SPECIAL`` when not."""
    codes = bytearray(len(key))
    for j, (k, r, p) in enumerate(zip(key, rank, plain)):
        g = group_of[k] if k < len(group_of) else 0
        codes[j] = g if g and r > examples else SPECIAL if g and r == examples else 0 if p else SPECIAL
    return codes


def diag_runs_py(codes, first: int, stop: int, heads, lasts, starts, ends):
    """(run_codes, firsts, run_starts, run_ends), as ``_kernel.diag_runs``: the runs of equal codes among
    diagnostics ``first`` to ``stop`` (their first and last lines: ``heads``, ``lasts``; the lines' starts
    and ends: ``starts``, ``ends``): each run's code, its first diagnostic, where its first line starts
    and where its last line ends (int64 each)."""
    if not 0 <= first < stop <= min(len(heads), len(codes)) or len(lasts) != len(heads):
        raise ValueError("diag_runs: bad range or columns")
    run_codes, firsts, run_starts, run_ends = bytearray(), array("q"), array("q"), array("q")
    for j in range(first, stop):
        if j == first or codes[j] != codes[j - 1]:
            run_codes.append(codes[j])
            firsts.append(j)
            run_starts.append(starts[heads[j]])
        if j + 1 == stop or codes[j + 1] != codes[j]:
            run_ends.append(ends[lasts[j]])
    return bytes(run_codes), firsts, run_starts, run_ends


def diag_ranks_py(key, nkeys: int):
    """(rank, order, firsts, counts), as ``_kernel.diag_ranks``, uint32 each: each diagnostic's place
    among those of its key (from 1; ``key``: a key id under ``nkeys`` each), the diagnostics' indexes
    by key (the keys in order of first use, each one's in order), those keys and how many each has."""
    count = [0] * nkeys
    rank, firsts = array("I"), array("I")
    by: dict[int, array] = {}
    for j, k in enumerate(key):
        if not 0 <= k < nkeys:
            raise ValueError("diag_ranks: a key past nkeys")
        count[k] += 1
        rank.append(count[k])
        if count[k] == 1:
            firsts.append(k)
            by[k] = array("I")
        by[k].append(j)
    order = array("I")
    for k in firsts:
        order.extend(by[k])
    return rank, order, firsts, array("I", (count[k] for k in firsts))


PLAIN, GNU, PYRIGHT = 0, 1, 2  # diagnostics.py's style numbers


def diag_columns_py(rest_ids, path_ids, at, flags, keys, sevs, skips, gnus, path_of):
    """(key, severity, path, style, message), as ``_kernel.diag_columns``: the columns of the location
    lines ``diag_heads`` found (``rest_ids``, ``path_ids``, ``at``, ``flags``), each distinct text after a
    location's rule and severity (``keys``, ``sevs``: uint32), how far its message starts into it
    (``skips``: int32) and whether a severity leads it (``gnus``: a byte), each path's number
    (``path_of``: uint32): uint32 rule, severity and path, a style byte (``PYRIGHT`` for a line flagged
    ``DASH``, else ``GNU`` or ``PLAIN``) and where the message starts in its line (int32)."""
    n = len(flags)
    if not len(rest_ids) == len(path_ids) == len(at) == n or not len(keys) == len(sevs) == len(skips) == len(gnus):
        raise ValueError("diag_columns: columns of different lengths")
    if any(not 0 <= r < len(gnus) for r in rest_ids) or any(not 0 <= p < len(path_of) for p in path_ids):
        raise ValueError("diag_columns: an id past its table")
    key = array("I", map(keys.__getitem__, rest_ids))
    severity = array("I", map(sevs.__getitem__, rest_ids))
    path = array("I", map(path_of.__getitem__, path_ids))
    style = bytes(PYRIGHT if f & DASH else GNU if gnus[r] else PLAIN for f, r in zip(flags, rest_ids))
    message = array("i", (a + skips[r] for a, r in zip(at, rest_ids)))
    return key, severity, path, style, message
