"""The faster ways of the big-output paths give what the plain per-line way gives: gitlog.split_lines
against reduction.line_body_end, gitlog._signal_lines against SIGNAL_RE tried on each line alone."""

from __future__ import annotations

import random

from operators.kernel import diff_twins
from operators.reduction import line_body_end, line_spans
from operators.types import gitlog
from operators.vocab import SIGNAL_RE

WORDS = [b"error", b"failed", b"ok", b"status", b"0x80070005", b"code", b"=", b" ", b"\t", b"\r", b"\n", b"\r\n",
         b"E404", b"x", b"ENOENT", b"HTTP/1.1 503", b"exit code 2", b"TypeError", b"-", b"+", b":"]


def _samples(count: int) -> list[bytes]:
    rnd = random.Random(23)
    out = [b"", b"\n", b"\r", b"\r\n", b"a", b"a\r", b"a\n\r", b"\n\n", b"status\n 0x80070005\nok\n",
           b"error\r\nfine\r\n", b"code =\n\n  0x80004005 tail"]
    out += [b"".join(rnd.choice(WORDS) for _ in range(rnd.randrange(40))) for _ in range(count)]
    return out


def test_split_lines_is_the_per_line_way():
    for raw in _samples(3000):
        starts = diff_twins.line_starts(raw)
        plain = [gitlog.Line(a, b, line_body_end(raw, a, b)) for a, b in zip(starts, starts[1:])]
        fast = gitlog.split_lines(raw)
        assert fast == plain, raw
        assert all(type(line) is gitlog.Line for line in fast)


def test_signal_lines_are_the_lines_that_match_alone():
    for raw in _samples(3000):
        for a in {0, *(i + 1 for i, c in enumerate(raw) if c == 10)}:  # any line start …
            b = len(raw)
            plain = [(s, e) for s, body, e in line_spans(raw, a, b) if SIGNAL_RE.search(raw, s, body) is not None]
            assert list(gitlog._signal_lines(raw, a, b)) == plain, (raw, a)
