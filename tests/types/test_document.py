"""The document type (operators/types/document.py): Markdown and reST prose is told from code, tool reports and
tables; a cut document shows every heading with its line number, then its first lines; words that name errors are
no signals; byte-exact restore."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from conftest import check_fixture_through_the_graph, cut, reduce_bytes, type_data
from operators.classify import classify
from operators.types import Sample, document

CEILING = 25_000
NEWS = "cat_setuptools_news_rst_head2600.txt.gz"


def titles(raw: bytes) -> list[tuple[int, bytes]]:
    """A reST document's titles as a reader finds them: a line of words underlined by a run of ``=`` or ``-``."""
    lines = raw.split(b"\n")
    return [(n + 1, lines[n]) for n in range(len(lines) - 1)
            if re.fullmatch(rb"[=-]{3,}", lines[n + 1]) and lines[n].strip() and lines[n][:1].isalnum()]


def markdown(sections: int) -> bytes:
    out = [b"# Change Log\n\nAll notable changes to this project are written down in this file.\n"]
    for k in range(sections, 0, -1):
        out.append(b"\n## [1.%d.0] - 2025-01-%02d\n\n### Fixed\n\n" % (k, k % 28 + 1))
        out.append(b"- Fixed a crash when the parser met an error in entry %d of the input file.\n" % k)
        out.append(b"- Raise a clear error instead of failing silently when option %d is missing.\n" % k)
        out.append(b"- Thanks to everyone who reported issue %d and helped with the fix.\n" % k)
        out.append(b"```python\n# not a heading %d\nraise ValueError(\"inside a fence\")\n```\n" % k)
    return b"".join(out)


def test_markdown_and_rest_prose_are_documents():
    assert classify(type_data(NEWS))[0] == "document"
    assert classify(markdown(30))[0] == "document"
    # reST titles that link their release: `0.7.3`_ (2024-12-06) over a line of =
    rest = b"".join(b"`0.%d.0`_ (2024-01-%02d)\n=========================\n\n"
                    b"- Fix a possible error raised when the sink %d is removed twice in a row.\n"
                    b"- Add support for the option number %d to the file sink rotation.\n\n" % (k, k % 28 + 1, k, k)
                    for k in range(20, 0, -1))
    assert classify(rest)[0] == "document"
    numbers, levels, texts = document._headings(rest)
    assert texts[:2] == [b"`0.20.0`_ (2024-01-21)", b"`0.19.0`_ (2024-01-20)"] and set(levels) == {1}


@pytest.mark.parametrize("raw", [
    b"Name    Stmts   Miss  Cover\n-------------------------\na.py  3  0  100%\n" * 6,  # a coverage table
    b"======================================================================\nFAIL: test_a (t.T)\n"
    b"----------------------------------------------------------------------\nTraceback (most recent call last):\n"
    b"  File \"t.py\", line 3, in test_a\n    self.assertEqual(1, 2)\nAssertionError: 1 != 2\n" * 6,  # unittest
    b"# a comment that explains the next line of code in some detail\nx = compute(y)\n"
    b"# another comment that explains the next line of code too\nif x:\n    run(x)\n" * 8,  # a script
    b"# settings of the service written for the people who run it\nport: 8080\nhost: example.org\n"
    b"# the limits below apply to every request the service takes\nlimit: 10\nburst: 20\n" * 6,  # YAML
])
def test_code_tables_reports_and_configs_with_hashes_or_rules_are_not_documents(raw):
    assert document.detect(Sample(raw)) is None


def test_a_cut_document_shows_every_heading_with_its_line_then_its_first_lines():
    raw = type_data(NEWS)
    wanted = titles(raw)
    assert len(wanted) >= 100 and len(raw) > 3 * CEILING
    visible = cut(document, "document", raw, CEILING)
    assert len(visible) <= CEILING
    outline, _, rest = visible.partition(b"[end of outline]\n")
    assert rest, "the outline comes first"
    shown = [(n, t) for n, t in wanted if b"\n%d: %s\n" % (n, t) in outline]
    assert len(shown) == len(wanted) or re.search(rb"\n\[\xe2\x80\xa6 [\d,]+ more headings: ", outline)
    releases = [(n, t) for n, t in wanted if re.fullmatch(rb"v\d+\.\d+\.\d+", t)]
    assert len(releases) >= 20 and all(b"\n%d: %s\n" % (n, t) in outline for n, t in releases)  # top level first
    assert rest.startswith(raw[: raw.index(b"\n", 2000) + 1]), "then the document from its first line"
    # a release note naming an error is prose, not a signal: no line is picked out of the body for it
    assert b"signal template" not in visible and b"must-see line" not in visible


def test_headings_inside_code_fences_are_not_headings():
    raw = markdown(300)
    numbers, levels, texts = document._headings(raw)
    assert len(texts) == 1 + 2 * 300 and not any(t.startswith(b"# not a heading") for t in texts)
    assert texts[:3] == [b"# Change Log", b"## [1.300.0] - 2025-01-21", b"### Fixed"] and levels[:3] == [1, 2, 3]
    lines = raw.split(b"\n")
    assert all(lines[n - 1].strip() == t for n, t in zip(numbers, texts))


def test_a_small_budget_keeps_the_top_levels_and_counts_the_rest():
    raw = markdown(300)
    visible = cut(document, "document", raw, 6_000)
    outline = visible.partition(b"[end of outline]\n")[0]
    assert outline.count(b": ## [1.") >= 60 and b": ### Fixed" not in outline
    assert re.search(rb"\[\xe2\x80\xa6 [\d,]+ more headings: ", outline)


def test_a_document_under_the_ceiling_is_shown_whole():
    raw = markdown(20)
    visible = reduce_bytes(raw).visible
    assert b"[end of outline]" not in visible and visible.startswith(raw[:-10].rsplit(b"\n", 1)[0])


def test_fixture_through_the_graph_keeps_signals_and_restores():
    check_fixture_through_the_graph("sample.txt", "document")


def test_a_long_document_through_the_graph_passes_signal_and_restores():
    packet = reduce_bytes(type_data(NEWS))
    assert packet.type == "document" and packet.signal_pass and packet.restore_pass and packet.recovery_pass
    assert len(packet.visible) <= CEILING


PIECES = [b"# Title %d\n", b"## Section %d\r\n", b"Title %d\n========\n", b"- a list item that says error %d here\n",
          b"A sentence of plain prose, number %d, long enough to read.\n", b"```\n# not a heading %d\n```\n",
          b"\n", b"\xff\xfe broken bytes %d \x00\n", b"\x1b[31mcolour %d\x1b[0m\n", b"[%d]: https://example.org/x\n"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(PIECES) - 1), st.integers(0, 99)), min_size=30, max_size=400),
       st.integers(300, 6_000))
def test_any_document_cut_to_any_budget_fits_and_restores(parts, budget):
    raw = b"".join(PIECES[k].replace(b"%d", str(n).encode()) for k, n in parts)
    visible = cut(document, "document", raw, budget)  # restore checked by ``cut``
    assert len(visible) <= budget


def test_a_byte_order_mark_and_crlf_do_not_hide_a_heading():
    raw = b"\xef\xbb\xbf# Title\r\n\r\n" + b"".join(
        b"## Section %d\r\n\r\nSome plain prose sentence number %d goes on for a while.\r\n\r\n" % (i, i) for i in range(300))
    numbers, levels, texts = document._headings(raw)
    assert texts[:2] == [b"# Title", b"## Section 0"] and numbers[:2] == [1, 3] and len(texts) == 301
    visible = cut(document, "document", raw, 6_000)
    assert b"\n1: # Title\n" in visible
