"""The line tables that stand in for a list of per-line objects on big outputs give what the plain
per-line way gives: ``operators.rank.Lines`` and ``blank_lines`` (the output ceiling's ranking), and
``operators.types.gitlog.LineTable`` with the commit scan of ``gitlog.parse``."""

import re

import pytest

from operators import rank
from operators.types import gitlog

TEXTS = [
    b"",
    b"\n",
    b"a",
    b"a\n",
    b"a\nb",
    b"a\n\n\nb\n",
    b"one\r\n  \r\n\t\nx\x0b\x0c\n\x0b\n two \n",
    b"no final newline\n \t",
    b"\n\n",
    b"x" * 5000 + b"\n" + b"\n".join(b"line %d" % i if i % 7 else b"   " for i in range(9000)),
]


def _plain(text: bytes) -> list[bytes]:
    lines = text.split(b"\n")
    return lines[:-1] if text.endswith(b"\n") or not text else lines


@pytest.mark.parametrize("text", TEXTS)
def test_lines_are_the_split_lines(text):
    plain = _plain(text)
    lines = rank.Lines(text)
    assert len(lines) == len(plain)
    assert list(lines) == plain
    assert [lines[i] for i in range(len(plain))] == plain
    assert lines[1:4] == plain[1:4]
    if plain:
        assert lines[-1] == plain[-1]
        assert [text[a:b] for a, b in map(lines.span, range(len(plain)))] == plain
    with pytest.raises(IndexError):
        lines[len(plain)]


@pytest.mark.parametrize("text", TEXTS)
def test_blank_lines_by_one_scan_are_the_stripped_ones(text):
    plain = _plain(text)
    expected = [i for i, line in enumerate(plain) if not line.strip()]
    assert rank.blank_lines(rank.Lines(text)) == expected
    assert rank.blank_lines(plain) == expected


def test_line_tiers_of_lines_and_of_a_list_agree():
    text = (b"starting\nERROR: disk full\n  at x\n\n[12 repeated lines folded]\nok\n"
            b"warning: slow \xc3\x972\n\x1b[31merror\x1b[0m: red\n\n\ndone\n") * 40
    for kind in ("text", "log", "build", "diff", "gitlog", "search"):
        assert rank.line_tiers(kind, rank.Lines(text), None) == rank.line_tiers(kind, _plain(text), None)


GITLOG = (
    b"warning: refname is ambiguous\r\n"
    b"commit 1111111111111111111111111111111111111111 (HEAD -> main)\r\n"
    b"Author: Ana <a@x>\r\nDate:   Mon Aug 3 10:00:00 2026 +0200\r\n\r\n"
    b"    fix: a commit abcdef0 in the message\r\n\r\n"
    b"    commit 2222222 quoted in the body\r\n\r\n"
    b"diff --git a/x b/x\r\n--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-commit 3333333 old\r\n+new\r\n"
    b"* commit 4444444444444444444444444444444444444444\n"
    b"| Author: Bo <b@x>\n| Date:   Tue Aug 4 10:00:00 2026 +0200\n|\n|     feat: graph\n|\n"
    b"| * commit 5555555 (tag: v1)\n| | Author: Cy <c@x>\n| |\n| |     chore\n"
    b"commit 6666666\nnot a header\n"
    b"commit 7777777777777777777777777777777777777777\nAuthor: Di <d@x>\n\n    last, no final newline"
)


def test_line_table_is_the_per_line_split():
    table = gitlog.LineTable(GITLOG)
    plain = []
    pos = 0
    while pos < len(GITLOG):
        nl = GITLOG.find(b"\n", pos)
        end = len(GITLOG) if nl < 0 else nl + 1
        body = end - 1 if nl >= 0 else end
        if body > pos and GITLOG[body - 1:body] == b"\r":
            body -= 1
        plain.append(gitlog.Line(pos, end, body))
        pos = end
    assert list(table) == plain == gitlog.split_lines(GITLOG)
    assert [table[i] for i in range(len(plain))] == plain and table[-1] == plain[-1]
    assert table[2:5] == plain[2:5]


def test_parse_tries_every_line_that_can_start_a_commit(monkeypatch):
    def commits(raw):
        first, found = gitlog.parse(raw, gitlog.LineTable(raw))
        return first, [(c.first, c.end, c.width, c.hash, c.decor, c.author, c.subject, c.patch) for c in found]

    scanned = commits(GITLOG)
    monkeypatch.setattr(gitlog, "COMMIT_SCAN", re.compile(rb"^", re.M))  # every line tried
    assert commits(GITLOG) == scanned
    assert len(scanned[1]) == 4  # four commits with headers, the graph's two included


@pytest.mark.parametrize("text", TEXTS)
def test_the_ceilings_blank_lines_are_those_of_spaces_tabs_and_returns(text):
    from operators import ceiling

    plain = _plain(text)
    expected = [i for i, line in enumerate(plain) if not line.strip(b"\r \t")]
    lines = rank.Lines(text)
    ends = [lines.starts[i + 1] if i + 1 < lines.n else len(text) for i in range(lines.n)]
    assert [i for i in range(lines.n) if ceiling.is_blank(text, lines.starts[i], ends[i])] == expected


def test_git_log_ranks_of_lines_and_of_a_list_agree():
    text = (b"1111111 2026-08-03 Ana: fix [1 file +2 -1]\n src/a.py | 3 ++-\n\n"  # a reduced git log: a line per commit
            b"* 4444444 2026-08-04 Bo: feat\n| * 5555555 (tag: v1) Cy: chore\r\n" + GITLOG + b"\n2222222 Di: last")
    tiers, ranks = rank.line_tiers("gitlog", rank.Lines(text), None)
    assert (tiers, ranks) == rank.line_tiers("gitlog", _plain(text), None)
    assert ranks.count(-1) >= 4  # the commit lines, graph ones included, first


def test_the_general_context_scans_find_the_lines_the_per_line_rules_find():
    synthetic = re.compile(rank.SYNTHETIC_SCAN.pattern)  # ^: the start of one line
    text = (b"[folded 3 lines]\nplain\n  x \xc3\x972 y\n[build output: 4 lines]\n[\xe2\x80\xa6 12 lines (1 KB) not shown]\n"
            b"mid [folded no\n[12 repeated lines folded]\n[3 traceback lines]\nsee #ref:ctx_0123456789ab\n"
            b"\xc3\x97 alone\n[build output: last")
    for candidate in (text, text + b"\n", b"[7 lines of it]\n" + text, b"x\n" + text):
        plain = _plain(candidate)
        expected = {i for i, line in enumerate(plain)
                    if rank.is_context_line(line) or rank.FOLD_RE.search(line) or synthetic.match(line)}
        for lines in (rank.Lines(candidate), plain):
            signal, context = rank._general(lines)
            assert (list(signal), list(context)) == ([], sorted(expected))


def test_ranks_are_a_byte_each_only_when_every_rank_fits():
    from array import array

    assert rank._rank_array(lambda: iter([0, 5, -1])) == array("b", [0, 5, -1])
    assert rank._rank_array(lambda: iter([0, 200])) == array("q", [0, 200])  # a file's 200th hit: 8 bytes
    assert rank._rank_array(lambda: iter([0, 1]), 300) == array("q", [0, 1])  # a rank set later would not fit
    assert rank._rank_array(lambda: iter([0, 2**70])) == [0, 2**70]  # past 8 bytes: a list
    hits = b"".join(b"src/a.py:%d:    raise ValueError\n" % n for n in range(1, 400))
    tiers, ranks = rank.compact_line_tiers("search", rank.Lines(hits), None)
    assert (list(tiers), list(ranks)) == rank.line_tiers("search", _plain(hits), None)
    assert max(ranks) >= 300
