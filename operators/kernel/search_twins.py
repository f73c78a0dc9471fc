"""The pure-Python twin of the search type's kernel function ``search_lines``: the lines of search output
(``path:12:text``, ``path-12-text``, or ``path:text``), their kinds and their paths, as
``operators.types.search`` parses a flat output, with the lines it must look at itself (a possible
binary-file notice, a context line whose first ``-12-`` ends no known path) left to it."""

from __future__ import annotations

import re
from array import array

MATCH, CONTEXT, SEP, BLANK, OTHER, LEFT = 0, 1, 2, 5, 6, 7  # as numbered in operators.types.search; LEFT: for a moment

_PATH = rb"[\w.@~+\-/][^\x00\n:]*+"  # search.py's path (its "\./" and "/" start with a byte of this class)
MATCH_N_RE = re.compile(rb"(" + _PATH + rb"):\d+:")
MATCH_RE = re.compile(rb"(" + _PATH + rb"):")
CONTEXT_AT_RE = re.compile(rb"-\d+-")


def search_lines_py(raw: bytes, numbered: bool, good):
    """(starts, tails, kinds, pids, paths, (plain_todo, context_todo)), as ``_kernel.search_lines``."""
    starts, tails, kinds, pids = array("q"), bytearray(), bytearray(), array("i")
    paths: list[bytes] = []
    ids: dict[bytes, int] = {}
    goods: list[bool] = []
    plain_todo, context_todo = array("q"), array("q")
    match = (MATCH_N_RE if numbered else MATCH_RE).match
    pos, n = 0, len(raw)
    while pos < n:
        nl = raw.find(b"\n", pos)
        end = body = n if nl < 0 else nl
        if nl >= 0:
            end += 1
        if body > pos and raw[body - 1] == 13:
            body -= 1
        line = raw[pos:body]
        starts.append(pos)
        tails.append(end - body)
        kind, pid = OTHER, -1
        if not line or line.isspace():
            kind = BLANK
        elif line == b"--":
            kind = SEP
        elif b"inary file " in line:
            plain_todo.append(len(kinds))
            kind = LEFT  # not a context line
        elif m := match(line):
            path = m.group(1)
            if path not in ids:
                ids[path] = len(paths)
                paths.append(path)
                goods.append(bool(good(path)))
            if goods[ids[path]]:
                kind, pid = MATCH, ids[path]
        kinds.append(kind)
        pids.append(pid)
        pos = end
    starts.append(n)
    for i in range(len(kinds) if numbered else 0):
        if kinds[i] != OTHER:
            continue
        line = raw[starts[i] : starts[i + 1] - tails[i]]
        m = CONTEXT_AT_RE.search(line)
        if m is None:
            continue
        pid = ids.get(line[: m.start()], -1)
        if pid >= 0 and goods[pid]:
            kinds[i], pids[i] = CONTEXT, pid
        else:
            context_todo.append(i)
    for i in plain_todo:
        kinds[i] = OTHER
    return starts, bytes(tails), kinds, pids, paths, (plain_todo, context_todo)
