"""The C kernel against its pure-Python twins: for the log reducer the same line starts, shape ids, shapes,
counts, visible lines and masks for any bytes, and the same plan with either; the same bracket pairs for
JSON; the same line starts and line roles for diffs."""

import random
import re
from array import array
from itertools import accumulate

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples

from operators import jsonscan, vocab
from operators.config import Config
from operators.kernel import C as kernel, TWINS, json_twins, log_twins as twins
from operators.types import log

if kernel is None:  # no C compiler at install: the twins run everywhere and every other test checks them
    pytest.skip("the C kernel operators/kernel/_kernel was not built (no C compiler at install): "
                "the pure-Python twins are in use", allow_module_level=True)

LINEISH = st.lists(
    st.sampled_from([b"\n", b"\r\n", b"0", b"7", b"42", b"1234567", b"a", b"ff", b"0x1f", b"ERROR", b" ", b"\x00",
                     b"\xff", b"\xc3\xa9", b"=", b":", b"/", b"_", b"DEADbeef9", b"g"]),
    max_size=60,
).map(b"".join)


def shapes_of(shape_data, shape_ends):
    """The shapes as a list (the test's view of ``shape_data``), checking each ends with a newline."""
    shapes, start = [], 0
    for end in shape_ends:
        assert shape_data[end - 1 : end] == b"\n"
        shapes.append(shape_data[start : end - 1])
        start = end
    assert start == len(shape_data)
    return shapes


def py_scan(raw, mask):
    starts, ids, shape_data, shape_ends, counts = twins.scan_lines_py(raw, mask)
    return list(starts), list(ids), shapes_of(shape_data, shape_ends), list(counts)


def c_scan(raw, mask):
    starts, ids, shape_data, shape_ends, counts = kernel.scan(raw, mask)
    shapes = shapes_of(shape_data, memoryview(shape_ends).cast("q"))
    return list(memoryview(starts).cast("q")), list(memoryview(ids).cast("i")), shapes, list(memoryview(counts).cast("q"))


@settings(max_examples=examples(400), deadline=None)
@given(raw=LINEISH, mask=st.booleans())
def test_scan_matches_the_python_twin(raw, mask):
    assert c_scan(raw, mask) == py_scan(raw, mask)


def test_scan_counts_lines_like_split_and_keeps_offsets_exact():
    raw = b"a1\r\nb22\n\nlast 333"
    starts, ids, shapes, counts = c_scan(raw, True)
    assert starts == [0, 4, 8, 9, len(raw)]
    assert shapes == [b"a0\r", b"b0", b"", b"last 0"]
    assert [raw[starts[i]:starts[i + 1]] for i in range(4)] == [b"a1\r\n", b"b22\n", b"\n", b"last 333"]
    assert c_scan(b"x\nx\n", False) == ([0, 2, 4], [0, 0], [b"x"], [2])
    assert c_scan(b"", True) == ([0], [], [], [])


def test_scan_works_across_the_python_twins_block_size():
    rng = random.Random(5)
    lines = [b"line %d of %x" % (rng.randint(0, 10**9), rng.getrandbits(40)) for _ in range(3000)]
    raw = b"\n".join(lines * 3) + b"\nno newline at end"
    old_block = twins.SHAPE_BLOCK
    twins.SHAPE_BLOCK = 4096  # many blocks in the twin: block seams must not change anything
    try:
        assert c_scan(raw, True) == py_scan(raw, True)
    finally:
        twins.SHAPE_BLOCK = old_block


@settings(max_examples=examples(300), deadline=None)
@given(data=st.data())
def test_select_matches_the_python_twin(data):
    n_ids = data.draw(st.integers(1, 6))
    n_templates = data.draw(st.integers(1, 4))
    ids = array("i", data.draw(st.lists(st.integers(0, n_ids - 1), max_size=40)))
    template_of = array("i", data.draw(st.lists(st.integers(0, n_templates - 1), min_size=n_ids, max_size=n_ids)))
    frequent = bytes(data.draw(st.lists(st.integers(0, 1), min_size=n_templates, max_size=n_templates)))
    verbatim = array("q", sorted(data.draw(st.sets(st.integers(0, max(len(ids) - 1, 0)), max_size=5))) if ids else [])
    got = list(memoryview(kernel.select(ids, template_of, frequent, verbatim)).cast("q"))
    assert got == list(twins.select_py(ids, template_of, frequent, verbatim))


def test_select_rejects_ids_out_of_range():
    with pytest.raises(ValueError):
        kernel.select(array("i", [3]), array("i", [0]), b"\x01", array("q"))


@settings(max_examples=examples(5000), deadline=None)
@given(shape=st.one_of(
    st.lists(st.sampled_from(list(b"0123456789abcdefABCDEFxXgz_ .:-/#\x00\xff")), max_size=16).map(bytes),
    st.lists(st.sampled_from(list(b"0a9fE-_ zx-")), max_size=40).map(bytes),  # dashed hex runs, uuid-like
))
def test_mask_matches_the_regex(shape):
    assert kernel.mask(shape) == twins.mask_py(shape)


def test_mask_examples():
    assert kernel.mask(b"id=0x7fA3 sha 9f86d08 word cafe 12ms a1b2c3_x") == b"id=# sha # word cafe #ms a#b#c#_x"
    assert kernel.mask(b"req=52e6b438-f2a7-4269-abab-0c5ca6a3a450 user=u_9f8e") == b"req=# user=u_#"
    assert kernel.mask(b"dead-beef-cafe-babe a1-b2-c3 ab-cd-ef-ab--5") == b"dead-beef-cafe-babe #-#-# #--#"


@settings(max_examples=examples(5000), deadline=None)
@given(text=st.one_of(
    st.lists(st.sampled_from(list(b"0123456789abcdefABCDEFxXgz_ .:-/#\n\x00\xff")), max_size=40).map(bytes),
    st.lists(st.sampled_from([b"deadbeef", b"12345678", b"-", b"1234", b"abcdef012345", b"x", b"_", b" ", b"9",
                              b"52e6b438-f2a7-4269-abab-0c5ca6a3a450", b"0" * 64, b"a" * 65, b"\n"]), max_size=12).map(b"".join),
))
def test_mask_numbers_matches_the_regex(text):
    from operators.vocab import NUMBERS_RE

    assert kernel.mask_numbers(text) == NUMBERS_RE.sub(b"#", text) == twins.mask_numbers_py(text)


def test_mask_numbers_examples():
    assert kernel.mask_numbers(b"retry 17 of req 52e6b438-f2a7-4269-abab-0c5ca6a3a450 sha 9f86d08a1 cafebabe host h3") == \
        b"retry # of req # sha # cafebabe host h#"
    assert kernel.mask_numbers(b"x" + b"1a" * 33 + b" 1a2b3c4d_") == b"x" + b"#a" * 33 + b" #_"  # a hex id after a space


def _spans(buf: bytes, data) -> tuple[array, array]:
    picked = data.draw(st.lists(st.tuples(st.integers(0, len(buf)), st.integers(0, len(buf))), max_size=12))
    return array("q", [min(p) for p in picked]), array("q", [max(p) for p in picked])


@settings(max_examples=examples(3000), deadline=None)
@given(buf=st.lists(st.sampled_from(list(b"ab0129 \t\r\n\x0b\x0c:/\xb0\xb9")), max_size=40).map(bytes), data=st.data(),
       flags=st.tuples(st.booleans(), st.booleans(), st.booleans()))
def test_first_equal_matches_the_python_twin(buf, data, flags):
    starts, ends = _spans(buf, data)
    assert list(dispatch_first_equal()(buf, starts, ends, *flags)) == list(twins.first_equal_py(buf, starts, ends, *flags))


def dispatch_first_equal():
    import operators.kernel as dispatch

    return dispatch.first_equal


@settings(max_examples=examples(3000), deadline=None)
@given(lines=st.lists(st.lists(st.sampled_from([b"a", b"1", b"12", b",", b" ", b"\t", b"\r", b"\xc3\x97", b" \xc3\x975",
                                                b" \xc3\x971,234 ", b"deadbeef1", b"-", b"\xc3", b"#", b"0x1f",
                                                b"12345678-1234-1234-1234-123456789abc"]), max_size=8).map(b"".join),
                      min_size=1, max_size=10))
def test_first_template_matches_the_python_twin(lines):
    import operators.kernel as dispatch

    buf = b"\n".join(lines)
    starts = array("q", [0])
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    ends = array("q", [a + len(line) for a, line in zip(starts, lines)])
    assert list(dispatch.first_template(buf, starts, ends)) == list(twins.first_template_py(buf, starts, ends))


def test_span_readers_reject_spans_out_of_the_buffer_as_their_twins_do():
    """``first_equal``, ``first_template`` and ``sha256_pair`` check their spans alike (``spans_ok``), with
    the same message as their Python twins."""
    calls = (("first_equal", lambda f, s, e: f(b"abc", s, e, False, False, False)),
             ("first_template", lambda f, s, e: f(b"abc", s, e)),
             ("sha256_pair", lambda f, s, e: f(b"x", b"abc", s, e)))
    bad = (([0], [5], "a span out of the buffer"), ([2], [1], "a span out of the buffer"),
           ([-1], [1], "a span out of the buffer"), ([0, 1], [1], "starts and ends must be int64 arrays of one length"))
    for name, call in calls:
        for starts, ends, message in bad:
            starts, ends = array("q", starts), array("q", ends)
            for f in (getattr(kernel, name), getattr(twins, name + "_py")):
                with pytest.raises(ValueError, match=f"^{name}: {message}$"):
                    call(f, starts, ends)
        assert call(getattr(kernel, name), array("q", [0, 3]), array("q", [3, 3])) is not None  # a whole and an empty span


_TEMPLATE_PIECES = [b"a", b"1", b"12", b",", b" ", b"\t", b"\r", b"\xc3\x97", b" \xc3\x975", b" \xc3\x971,234 ", b"deadbeef1", b"-",
                    b"\xc3", b"#", b"0x1f", b"ERROR", b"E", b"12345678-1234-1234-1234-123456789abc"]


def _line_table(lines: list[bytes], last_nl: bool):
    from operators.rank import Lines

    table = Lines(b"\n".join(lines) + (b"\n" if last_nl else b""))
    return table


@settings(max_examples=examples(2000), deadline=None)
@given(lines=st.lists(st.lists(st.sampled_from(_TEMPLATE_PIECES), max_size=8).map(b"".join), min_size=1, max_size=12),
       last_nl=st.booleans(), data=st.data())
def test_template_groups_and_equal_groups_match_their_python_twins(lines, last_nl, data):
    import operators.kernel as dispatch

    table = _line_table(lines, last_nl)
    n = len(table)
    picked = data.draw(st.lists(st.integers(0, n - 1), max_size=16)) if n else []
    order = array("i", picked)
    made = dispatch.template_groups(table.text, table.starts, order, table.last_nl)
    assert [list(x) for x in made] == [list(x) for x in twins.template_groups_py(table.text, table.starts, order, table.last_nl)]
    for alike in (False, True):
        made = dispatch.equal_groups(table.text, table.starts, order, alike)
        assert [list(x) for x in made] == [list(x) for x in twins.equal_groups_py(table.text, table.starts, order, alike)]
    at = array("q", picked)
    joined, begins = dispatch.join_lines(table.text, table.starts, at)
    twin = twins.join_lines_py(table.text, table.starts, at)
    assert (joined, list(begins)) == (twin[0], list(twin[1]))
    assert joined == b"\n".join(table[i] for i in picked)
    groups = made[0]
    table_bytes = bytes(data.draw(st.lists(st.integers(0, 255), min_size=len(made[1]), max_size=len(made[1]))))
    assert dispatch.gather(table_bytes, groups) == twins.gather_py(table_bytes, groups)


def test_template_groups_of_many_templates_match_the_twin():
    import operators.kernel as dispatch

    word = lambda k: bytes(b"ghijklmnopqrstuvwxyz"[k // 20 ** j % 20] for j in range(3))  # no hex letter: not masked
    lines = [b"job %s failed %d" % (word(k % 1500), k) for k in range(3000)]
    table = _line_table(lines, True)
    order = array("i", [(k * 7919) % len(lines) for k in range(2500)])
    made = dispatch.template_groups(table.text, table.starts, order, True)
    assert [list(x) for x in made] == [list(x) for x in twins.template_groups_py(table.text, table.starts, order, True)]
    assert len(made[2]) > 1000  # the table grew past its first size
    made = dispatch.equal_groups(table.text, table.starts, order, True)
    assert [list(x) for x in made] == [list(x) for x in twins.equal_groups_py(table.text, table.starts, order, True)]


@settings(max_examples=examples(2000), deadline=None)
@given(n=st.integers(1, 30), data=st.data())
def test_signal_block_helpers_match_their_python_twins(n, data):
    import operators.kernel as dispatch

    nshapes = data.draw(st.integers(1, 6))
    ids = array("i", data.draw(st.lists(st.integers(0, nshapes - 1), min_size=n, max_size=n)))
    lengths = data.draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    starts = array("q", [0])
    for length in lengths:
        starts.append(starts[-1] + length)
    firsts = array("q", sorted(set(data.draw(st.lists(st.integers(0, n - 1), max_size=n)))))
    flags = bytes(data.draw(st.lists(st.integers(0, 1), min_size=nshapes, max_size=nshapes)))
    assert list(dispatch.next_shapes(ids, firsts, n)) == list(twins.next_shapes_py(ids, firsts, n))
    assert [list(x) for x in dispatch.traced_heads(ids, starts, firsts, n, flags)] == \
        [list(x) for x in twins.traced_heads_py(ids, starts, firsts, n, flags)]
    stops = array("q", [min(n, i + data.draw(st.integers(0, 3))) for i in firsts])
    lines, flagged, counts = dispatch.verbatim_lines(ids, firsts, stops, n, nshapes)
    twin = twins.verbatim_lines_py(ids, firsts, stops, n, nshapes)
    assert (list(lines), bytes(flagged), list(counts)) == (list(twin[0]), bytes(twin[1]), list(twin[2]))
    assert list(dispatch.take(starts, firsts)) == list(twins.take_py(starts, firsts))


@settings(max_examples=examples(1000), deadline=None)
@given(size=st.integers(0, 20), data=st.data())
def test_scatter_matches_its_python_twin(size, data):
    import operators.kernel as dispatch

    target = bytearray(data.draw(st.binary(min_size=size, max_size=size)))
    indexes = array("i", data.draw(st.lists(st.integers(0, size - 1), max_size=10)) if size else [])
    values = data.draw(st.one_of(st.integers(0, 255), st.binary(min_size=len(indexes), max_size=len(indexes))))
    made, twin = bytearray(target), bytearray(target)
    dispatch.scatter(made, indexes, values)
    twins.scatter_py(twin, indexes, values)
    assert made == twin
    ranks = array("b", bytes(size))
    dispatch.scatter(ranks, indexes, 5)
    assert all(ranks[i] == 5 for i in indexes)


def test_release_memory_changes_nothing_seen():
    import operators.kernel as dispatch

    assert dispatch.release_memory() is None and twins.release_memory_py() is None


def test_new_kernel_helpers_reject_indexes_out_of_range():
    starts = array("q", [0, 2, 4])
    for fn, args in ((kernel.template_groups, (b"ab\ncd", starts, array("i", [2]), True)),
                     (kernel.equal_groups, (b"ab\ncd", starts, array("i", [-1]), True)),
                     (kernel.gather, (b"\x01", array("i", [1]))),
                     (kernel.take, (starts, array("q", [3]))),
                     (kernel.verbatim_lines, (array("i", [0, 0]), array("q", [1]), array("q", [3]), 2, 1)),
                     (kernel.traced_heads, (array("i", [0, 5]), starts, array("q", [0]), 2, b"\x01")),
                     (kernel.scatter, (bytearray(2), array("i", [2]), 1)),
                     (kernel.scatter, (bytearray(2), array("i", [0]), 256)),
                     (kernel.scatter, (bytearray(2), array("i", [0]), b"ab"))):
        with pytest.raises(ValueError):
            fn(*args)


# ``words`` runs inside ``group_shapes``; ``pair_brackets`` is the JSON scanner's, ``line_bodies`` the git log type's, ``diff_lines`` the diff type's,
# ``diff_ranks``, ``diff_common`` and ``diff_pieces`` too, ``changed_lines`` the diffs' SIGNAL check's, ``tier_order`` the output ceiling's, ``gitlog_splice`` and ``place_matches`` the git log type's, ``render_view`` the output ceiling's, ``search_lines`` the search type's, ``text_runs`` and ``text_cuts`` the text type's,
# ``text_pieces`` too, ``line_of`` and ``blank_lines`` the line ranking's, ``source_lines`` the source type's,
# ``mask_numbers`` the signal templates', ``first_template`` the output ceiling's, ``template_groups`` too,
# ``equal_groups``, ``gather``, ``scatter`` and ``join_lines`` the line ranking's, ``release_memory`` the output ceiling's
LOG_DISPATCHED = [name for name in TWINS
                  if name not in ("pair_brackets", "words", "line_starts", "line_bodies", "diff_lines", "diff_ranks", "diff_common", "diff_pieces",
                                  "changed_lines", "tier_order", "gitlog_splice", "place_matches",
                                  "render_view", "search_lines",
                                  "text_runs", "text_cuts", "line_of", "text_pieces", "blank_lines",
                                  "count_newlines", "plain_text", "long_lines", "blame_columns",
                                  "diag_heads", "diag_codes", "diag_runs", "diag_ranks", "diag_columns", "diag_lines",
                                  "diag_line_runs", "diag_fill", "diag_offsets", "diag_stylish", "diag_pads", "diag_shown", "diag_indented", "diag_elaborations", "diag_bulk", "diag_rust_details", "diag_indented_known", "diag_indented_unknown", "diag_place_sizes", "diag_places", "diag_rust_run",
                                  "diag_line_pieces", "diag_tsc_heads",
                                  "source_lines", "mask_numbers", "first_template", "template_groups", "equal_groups",
                                  "gather", "scatter", "join_lines", "release_memory", "sha256_pair")]  # the ceiling's, safety's, blame's, diagnostics'


def test_every_kernel_function_has_its_twin_and_one_dispatch_point():
    import operators.kernel as dispatch

    assert set(LOG_DISPATCHED) <= set(vars(log))  # the log reducer calls the dispatched functions
    for name, twin in TWINS.items():
        assert getattr(dispatch, name) is not twin  # the kernel is built here: none dispatches to its twin
        assert twin.__module__ in (twins.__name__, json_twins.__name__, "operators.kernel.diff_twins",
                                   "operators.kernel.search_twins", "operators.kernel.text_twins",
                                   "operators.kernel.blame_twins", "operators.kernel.diag_twins", "operators.kernel.source_twins")
    assert jsonscan.pair_brackets is dispatch.pair_brackets
    from operators.types import diff

    assert diff.diff_lines is dispatch.diff_lines


@settings(max_examples=examples(150), deadline=None)
@given(raw=LINEISH, fold_min=st.integers(2, 4), granularity=st.sampled_from(["coarse", "fine"]))
def test_reducer_gives_the_same_plan_with_or_without_the_kernel(raw, fold_min, granularity, monkeypatch_module):
    cfg = Config().log
    cfg = type(cfg)(**{**{f: getattr(cfg, f) for f in cfg.__struct_fields__}, "fold_min": fold_min})
    with_kernel = log.reduce_log(raw * 3, granularity, cfg)
    for name in LOG_DISPATCHED:  # the log reducer's kernel functions, each replaced by its twin
        monkeypatch_module.setattr(log, name, TWINS[name])
    try:
        without = log.reduce_log(raw * 3, granularity, cfg)
    finally:
        monkeypatch_module.undo()
    assert with_kernel.pieces == without.pieces and with_kernel.reasons == without.reasons


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


SIGNALISH = st.lists(
    st.sampled_from([b"\n", b"\r\n", b"ERROR", b"error", b"Errors", b"err", b"WARN", b" ", b"failed", b"timed out",
                     b"timeout7", b"7timeout", b"x", b"_", b"NullPointerException", b"IOError", b"Error", b'"', b'" ',
                     b"404", b"500", b"4040", b"40", b"200", b"1", b"\xc3\xa9", b"\xff", b"\x00", b"\xe2\x84\xaa",
                     b"oom", b"OOM", b"killed", b"-", b".", b"crashed", b"warnings", b"rejected", b"unavailable",
                     b"exit code ", b"status=", b"code ", b"ORA-", b"00942", b"E", b"0x8", b"0x", b"00f081f", b"hr = ",
                     b"HTTP/1.1 ", b"12:00:01.345 ", b"  1702 ", b" W ", b" I ", b"E/Tag(", b"): ", b"ECONNREFUSED"]),
    max_size=50,
).map(b"".join)


@settings(max_examples=examples(600), deadline=None)
@given(raw=SIGNALISH)
def test_signal_lines_from_shapes_match_the_direct_scan(raw):
    expected = vocab.signal_line_spans(raw)
    assert list(log.signal_line_spans(raw)) == expected
    starts, ids, shape_data, shape_ends, _ = twins.scan_lines_py(raw, True)
    for share in (0, 4):  # 0: always the shapes; 4 (the default): the raw buffer when shapes are most of it
        lines = log._signals_from_shapes(raw, starts, ids, shape_data, shape_ends, shape_share=share)
        assert [(starts[i], log._line_end(raw, starts[i], starts[i + 1])) for i in lines] == expected


@settings(max_examples=examples(300), deadline=None)
@given(raw=SIGNALISH, data=st.data())
def test_lines_with_and_status_lines_match_the_python_twins(raw, data):
    starts, ids, shapes, _ = c_scan(raw, True)
    flags = bytes(data.draw(st.lists(st.integers(0, 1), min_size=len(shapes), max_size=len(shapes))))
    ids_a, starts_a = array("i", ids), array("q", starts)
    got = list(memoryview(kernel.lines_with(ids_a, flags)).cast("q"))
    assert got == list(twins.lines_with_py(ids_a, flags))
    lines = array("q", range(len(ids)))
    got = list(memoryview(kernel.status_lines(raw, starts_a, lines)).cast("q"))
    assert got == list(twins.status_lines_py(raw, starts_a, lines))


def test_status_lines_rejects_offsets_out_of_range():
    with pytest.raises(ValueError):
        kernel.status_lines(b"abc", array("q", [0, 99]), array("q", [0]))


def test_big_access_log_signal_lines_match_the_direct_scan():
    rng = random.Random(9)
    lines = [b'10.0.0.%d - - [16/Aug/2026] "GET /p/%d HTTP/1.1" %d %d' % (
        rng.randint(1, 254), rng.randint(1, 10**6), rng.choice([200, 200, 200, 301, 404, 500, 503]), rng.randint(1, 9999))
        for _ in range(20000)]
    raw = b"\n".join(lines) + b"\n"
    expected = vocab.signal_line_spans(raw)
    starts, ids, shape_data, shape_ends, _ = log.scan_lines(raw, True)
    found = log._signals_from_shapes(raw, starts, ids, shape_data, shape_ends, shape_share=10**9)
    assert [(starts[i], log._line_end(raw, starts[i], starts[i + 1])) for i in found] == expected
    assert len(expected) > 1000


@settings(max_examples=examples(2000), deadline=None)
@given(shape=st.lists(st.sampled_from(list(b"0a :/=@#\t\r\x0b\x0c\n_x\xff")), max_size=16).map(bytes))
def test_words_matches_the_python_twin(shape):
    assert kernel.words(shape) == twins.words_py(shape)


def test_words_examples():
    assert kernel.words(b"  Setting up libfoo:amd64 (0.0-0) ...\t/usr/lib/x a: ") == b"Setting up # # ... # a:"


@settings(max_examples=examples(1000), deadline=None)
@given(raw=LINEISH, data=st.data())
def test_group_shapes_matches_the_python_twin(raw, data):
    _, _, shape_data, shape_ends, counts = twins.scan_lines_py(raw, True)
    modes = bytes(data.draw(st.lists(st.integers(0, 2), min_size=len(counts), max_size=len(counts))))
    c_ids, c_names, c_totals = kernel.group_shapes(shape_data, shape_ends, modes, counts)
    py_ids, py_names, py_totals = twins.group_shapes_py(shape_data, shape_ends, modes, counts)
    assert (list(memoryview(c_ids).cast("i")), c_names, list(memoryview(c_totals).cast("q"))) == (
        list(py_ids), py_names, list(py_totals))


@settings(max_examples=examples(1000), deadline=None)
@given(raw=LINEISH, data=st.data())
def test_group_shapes_keeping_earlier_keys_and_mark_rare_match_the_python_twins(raw, data):
    _, _, shape_data, shape_ends, counts = twins.scan_lines_py(raw, True)
    n = len(counts)
    modes = bytearray(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    prev_ids, prev_names, totals = twins.group_shapes_py(shape_data, shape_ends, modes, counts)
    fold_min = data.draw(st.integers(1, 4))
    c_modes, py_modes = bytearray(modes), bytearray(modes)
    assert kernel.mark_rare(counts, prev_ids, totals, fold_min, c_modes, 2) == twins.mark_rare_py(
        counts, prev_ids, totals, fold_min, py_modes, 2)
    assert c_modes == py_modes
    assert kernel.mark_rare(counts, None, counts, fold_min, c_modes, 1) == twins.mark_rare_py(
        counts, None, counts, fold_min, py_modes, 1)
    assert c_modes == py_modes
    c_ids, c_names, c_totals = kernel.group_shapes(shape_data, shape_ends, bytes(c_modes), counts, prev_ids, prev_names)
    py_ids, py_names, py_totals = twins.group_shapes_py(shape_data, shape_ends, bytes(py_modes), counts, prev_ids, prev_names)
    assert (list(memoryview(c_ids).cast("i")), c_names, list(memoryview(c_totals).cast("q"))) == (
        list(py_ids), py_names, list(py_totals))


def test_group_shapes_rejects_what_does_not_fit():
    with pytest.raises(ValueError):
        kernel.group_shapes(b"a\n", array("q", [5]), b"\x00", array("q", [1]))
    with pytest.raises(ValueError):
        kernel.group_shapes(b"a\n", array("q", [2]), b"\x03", array("q", [1]))
    with pytest.raises(ValueError):
        kernel.group_shapes(b"a\n", array("q", [2]), b"", array("q", [1]))
    with pytest.raises(ValueError):  # an earlier grouping whose ids do not fit its names
        kernel.group_shapes(b"a\n", array("q", [2]), b"\x00", array("q", [1]), array("i", [3]), [b"a"])
    with pytest.raises(ValueError):
        kernel.mark_rare(array("q", [1]), array("i", [5]), array("q", [1]), 2, bytearray(1), 1)


JSONISH = st.lists(st.sampled_from([b"{", b"}", b"[", b"]", b'"', b"\\", b'\\"', b"a", b",", b":", b" ", b"\n", b"1", b"\xff"]),
                   min_size=1, max_size=60).map(b"".join)


@settings(max_examples=examples(1500), deadline=None)
@given(raw=JSONISH, data=st.data())
def test_pair_brackets_matches_the_python_twin(raw, data):
    openings = [i for i, c in enumerate(raw) if c in b"[{"]
    if not openings:
        return
    start = data.draw(st.sampled_from(openings))
    stop = data.draw(st.integers(start + 1, len(raw)))
    c_ends, py_ends = jsonscan.Ends(len(raw)), jsonscan.Ends(len(raw))
    assert jsonscan.container_ends(raw, start, stop, c_ends) == json_twins.container_ends_py(raw, start, stop, py_ends)
    assert (list(c_ends.opens), list(c_ends.closes)) == (list(py_ends.opens), list(py_ends.closes))


def test_pair_brackets_on_a_document():
    raw = b'{"a": [1, {"b": "x]}\\"y"}], "c": {}}'
    opens, closes, end = kernel.pair_brackets(raw, 0, len(raw))
    assert end == len(raw)
    pairs = dict(zip(memoryview(opens).cast("q"), memoryview(closes).cast("q")))
    assert pairs == {0: len(raw), 6: 26, 10: 25, 33: 35}
    assert kernel.pair_brackets(b'{"a": "unterminated}', 0, 20)[2] == -1
    assert kernel.pair_brackets(b"[}", 0, 2)[2] == -1
    with pytest.raises(ValueError):
        kernel.pair_brackets(b"x[]", 0, 3)


DIFF_LINES = [
    b"diff --git a/f b/f", b"diff --cc f", b"diff --combined f", b"diff --gi", b"--- a/f", b"+++ b/f",
    b"index 1234567..89abcde", b"index 1234567..89abcde 100644", b"index 1234,5678..9abc", b"index 123..4567",
    b"index abcd..ef01 10064", b"index abcd..ef01 1006440", b"index ABCD..ef01", b"index abcd..ef01 ",
    b"old mode 100644", b"old mode 1006448", b"new mode 100755", b"similarity index 90%", b"similarity index 1000%",
    b"dissimilarity index 5%", b"similarity index %", b"rename from a",
    b"GIT binary patch", b"literal 12", b"delta 3", b"literal", b"literal 1x", b"zcmV?d00001", b"Bz&a", b"1abc", b"a b",
    b"@@ -1,3 +1,3 @@", b"@@ -1 +1 @@", b"@@ -0,0 +1,2 @@ fn()", b"@@ -1,2 +1,2 @@\tx", b"@@ -1,2 +1,2 @@x",
    b"@@@ -1,2 -1,2 +1,3 @@@", b"@@@ -1 -1 +1 @@@", b"@@ -1,2 +1,2 @@@", b"@@ -1,x +1 @@", b"@@  -1 +1 @@",
    b"@@ -99999999999999999999999 +1 @@", b"@@@@ -1 -1 -1 +1 @@@@", b"@@@ -1 +1 @@@", b"@@ -1, +1 @@", b"@@",
    b" a", b"+b", b"-c", b"\\ No newline at end of file", b"\\", b"  x", b"++y", b"--z", b"+-", b" +", b"-", b"+", b" ",
    b"\t", b"x", b"", b"a\rb", b" \r", b"\r", b"\xff\x00",
]
DIFFISH = st.lists(st.tuples(st.sampled_from(DIFF_LINES), st.sampled_from([b"\n", b"\r\n", b"\n", b"\n"])),
                   max_size=40).map(lambda lines: b"".join(line + end for line, end in lines))


def diff_twin(raw):
    starts, kinds = TWINS["diff_lines"](raw)
    return list(starts), list(kinds)


def diff_kernel(raw):
    starts, kinds = kernel.diff_lines(raw)
    return list(memoryview(starts).cast("q")), list(kinds)


@settings(max_examples=examples(3000), deadline=None)
@given(raw=DIFFISH, tail=st.sampled_from([b"", b" a", b"+b", b"@@ -1 +1 @@", b"\\ No newline at end of file", b"\r"]))
def test_diff_lines_match_the_python_twins(raw, tail):
    raw += tail  # a last line without its newline, sometimes
    assert diff_kernel(raw) == diff_twin(raw)


@settings(max_examples=examples(2000), deadline=None)
@given(raw=DIFFISH, tail=st.sampled_from([b"", b" a", b"\r", b"\n", b"\n\n", b"x\ny"]))
def test_line_starts_match_the_python_twin(raw, tail):
    import operators.kernel as dispatch

    raw += tail  # a last line without its newline, sometimes
    found = dispatch.line_starts(raw)
    assert found.typecode == "q" and found == TWINS["line_starts"](raw)
    with pytest.raises(ValueError):  # the kernel fills exactly the room it needs
        kernel.line_starts(raw, array("q", [0]) * (len(found) + 1))


@settings(max_examples=examples(2000), deadline=None)
@given(raw=DIFFISH, tail=st.sampled_from([b"", b" a", b"\r", b"\r\n", b"\n", b"\n\r", b"\r\r\n", b"x\ny\r"]))
def test_line_bodies_match_the_python_twin_and_line_body_end(raw, tail):
    import operators.kernel as dispatch
    from operators.reduction import line_body_end

    raw += tail  # a last line without its newline, or ending with "\r", sometimes
    starts = dispatch.line_starts(raw)
    found = dispatch.line_bodies(raw, starts)
    assert found.typecode == "q" and found == TWINS["line_bodies"](raw, starts)
    assert list(found) == [line_body_end(raw, a, b) for a, b in zip(starts, starts[1:])]
    with pytest.raises(ValueError):  # the kernel fills exactly the room it needs
        kernel.line_bodies(raw, starts, array("q", [0]) * len(starts))
    if raw:
        with pytest.raises(ValueError):  # a line out of the buffer
            kernel.line_bodies(raw[:-1], array("q", [0, len(raw)]), array("q", [0]))


def test_line_bodies_of_edge_cases():
    import operators.kernel as dispatch

    for raw in [b"", b"\n", b"\r", b"\r\n", b"x", b"x\r", b"\n\r\n", b"a\r\r\nb\r", b"\r\n\r\n"]:
        starts = dispatch.line_starts(raw)
        assert list(dispatch.line_bodies(raw, starts)) == list(TWINS["line_bodies"](raw, starts))
    assert list(dispatch.line_bodies(b"ab\r\ncd", dispatch.line_starts(b"ab\r\ncd"))) == [2, 6]
    assert list(dispatch.line_bodies(b"\n\r\n", dispatch.line_starts(b"\n\r\n"))) == [0, 1]


@settings(max_examples=examples(2000), deadline=None)
@given(parts=st.lists(st.sampled_from([b"a", b" ", b"\n", b"\t", b"\r", b"#ref:ctx_", b"#ref:ctx", b"#", b"~", b"\x7f",
                                       b"\x00", b"\x1f", b"\x0b", b"\x1b", b"\xc2\x85", b"\xe2\x80\x8b", b"\xff"]), max_size=40),
       pad=st.integers(0, 9000))
def test_plain_text_matches_the_python_twin_and_the_safety_search(parts, pad):
    import operators.kernel as dispatch
    from operators import safety

    raw = b"x" * pad + b"".join(parts)  # past the kernel's block of 4096 bytes, sometimes
    assert dispatch.plain_text(raw, safety.MARKER_LOOKALIKE) == TWINS["plain_text"](raw, safety.MARKER_LOOKALIKE)
    assert safety._dirty(raw) == (safety.FIND_RE.search(raw) is not None)


def test_plain_text_of_edge_cases():
    import operators.kernel as dispatch

    for raw in [b"", b"a", b"ab", b"\x01", b"a\x80", b"\t\n ~", b"\r"]:
        for marker in [b"", b"a", b"ab", b"b\t"]:
            assert dispatch.plain_text(raw, marker) == TWINS["plain_text"](raw, marker)
    assert dispatch.plain_text(b"see #ref:ctx_1", b"#ref:ctx_") == 1 and dispatch.plain_text(b"\r\n", b"x") == -1


def test_line_starts_of_edge_cases_and_across_the_twins_block():
    import operators.kernel as dispatch
    from operators.kernel import diff_twins

    big = b"".join(b"line %d\n" % i for i in range(3 * diff_twins.BLOCK // 8)) + b"no newline"
    for raw in [b"", b"\n", b"x", b"x\n", b"\n\n", b"a\r\nb", big]:
        assert list(dispatch.line_starts(raw)) == list(TWINS["line_starts"](raw))
    assert list(dispatch.line_starts(b"ab\ncd")) == [0, 3, 5] and list(dispatch.line_starts(b"ab\n")) == [0, 3]
    assert list(dispatch.line_starts(b"")) == [0]


def test_diff_lines_of_real_and_generated_diffs_and_many_parents():
    from bench.generate import make_diff
    from conftest import FIXTURES

    many = 11  # more parents than the kernel has room for at first
    hunk = b"@" * (many + 1) + b" " + b"-1,2 " * many + b"+1,3 " + b"@" * (many + 1) + b"\n"
    combined = b"diff --cc f\n" + hunk + b" " * many + b"a\n" + b"+" * many + b"b\n" + b"-" * many + b"c\n" + b" " * many + b"d\n"
    for raw in [(FIXTURES / "sample.diff").read_bytes(), make_diff(300_000), combined, b"", b"\n", b"x"]:
        assert diff_kernel(raw) == diff_twin(raw)
    assert diff_kernel(combined)[1] == [0, 0, 2, 3, 3, 2]  # OTHER, OTHER, CTX, CHG, CHG, CTX


COMMON_LINES = [b"diff --git a/f b/f", b"@@ -1,3 +1,3 @@", b"@@ -1 +1 @@", b"+a", b"-a", b"+b", b"-b", b" a", b"+", b"-",
                b"+a\r", b"-a\r", b"x", b"", b"\\ No newline at end of file", b"++a", b"--a"]


def common_kernel(raw, skip_every):
    import operators.kernel as dispatch

    starts, kinds = dispatch.diff_lines(raw)
    skip = bytearray(k % skip_every == 0 for k in range(len(kinds))) if skip_every else bytearray(len(kinds))
    made, twin = dispatch.diff_common(raw, starts, kinds, skip), TWINS["diff_common"](raw, starts, kinds, skip)
    return (None if made is None else tuple(map(list, made)), None if twin is None else tuple(map(list, twin)))


@settings(max_examples=examples(2000), deadline=None)
@given(lines=st.lists(st.sampled_from(COMMON_LINES), max_size=60), hunk=st.integers(0, 60), last_nl=st.booleans(),
       skip_every=st.sampled_from([0, 0, 2, 3]))
def test_diff_common_matches_the_python_twin(lines, hunk, last_nl, skip_every):
    lines = [b"diff --git a/f b/f", b"@@ -1,%d +1,%d @@" % (hunk, hunk)] + lines
    raw = b"\n".join(lines) + (b"\n" if last_nl else b"")
    made, twin = common_kernel(raw, skip_every)
    assert made == twin


def test_diff_common_of_generated_diffs_numbers_texts_by_first_line():
    from bench.generate import make_diff, make_git_log_p

    for raw in [make_diff(200_000), make_git_log_p(200_000)]:
        made, twin = common_kernel(raw, 0)
        assert made == twin
    made, _ = common_kernel(b"@@ -1,4 +1,4 @@\n+b\n-a\n+a\n-b\n-c\n", 0)
    assert made == ([1, 2, 3, 4], [1, 2, 2, 1], list(b"+-+-"))
    assert common_kernel(b"@@ -1,2 +1,2 @@\n+a\n-b\n", 0) == (None, None)


def pieces_both_ways(raw, keep_n, pure_n):
    """``diff_pieces`` by the kernel and by its twin, and the diff type's plan made from them and made by
    the plan's own steps (``diff._plan_by_lines``), of one diff."""
    import operators.kernel as dispatch
    from operators.types import diff

    starts, kinds = dispatch.diff_lines(raw)
    special = diff._special_blocks(raw, starts, kinds)
    kinds = bytearray(kinds)
    for a, (b, _, _) in special.items():
        kinds[a:b] = bytes([diff.SPECIAL]) * (b - a)
    firsts = sorted(special)
    columns = (array("q", firsts), array("q", [special[a][0] for a in firsts]), array("q", [len(special[a][1]) for a in firsts]))
    made = kernel.diff_pieces(raw, starts, kinds, keep_n, pure_n, *columns)
    twin = TWINS["diff_pieces"](raw, starts, kinds, keep_n, pure_n, *columns)
    made = None if made is None else [list(memoryview(c).cast("q")) if isinstance(c, bytes) and i in (1, 2, 3) else
                                      (list(c) if isinstance(c, bytes) else c) for i, c in enumerate(made)]
    twin = None if twin is None else [list(c) if not isinstance(c, int) else c for c in twin]
    counts = dict.fromkeys(("generated", "moved", "header"), 0)
    by_lines = diff._plan_by_lines(raw, starts, kinds, keep_n, pure_n, special, counts)
    from_pieces = diff._pieces(raw, starts, kinds, keep_n, pure_n, special)
    return made, twin, by_lines, from_pieces


@settings(max_examples=examples(3000), deadline=None)
@given(raw=DIFFISH, tail=st.sampled_from([b"", b" a", b"+b", b"@@ -1 +1 @@", b"\\ No newline at end of file", b"\r"]),
       keep=st.sampled_from([(0, 0), (1, 0), (3, 1), (2, 2)]))
def test_diff_pieces_match_the_python_twin_and_the_plans_steps(raw, tail, keep):
    raw += tail
    made, twin, by_lines, from_pieces = pieces_both_ways(raw, *keep)
    assert made == twin
    if from_pieces is not None:
        assert list(from_pieces[0].pieces) == list(by_lines[0].pieces)
        assert from_pieces[0].reasons == by_lines[0].reasons and from_pieces[1:] == by_lines[1:]


def test_diff_pieces_of_real_and_generated_diffs():
    from bench.generate import make_diff, make_git_log_p
    from conftest import FIXTURES

    raws = [make_diff(300_000), make_git_log_p(300_000)] + [path.read_bytes() for path in sorted(FIXTURES.glob("*diff*"))]
    raws.append(b"diff --git a/x.png b/x.png\r\nGIT binary patch\r\nliteral 3\r\nzcmV?d00001\r\nBz&a\r\n\r\nliteral 0\r\n")
    for raw in raws:
        for keep in ((1, 0), (0, 0), (3, 3)):
            made, twin, by_lines, from_pieces = pieces_both_ways(raw, *keep)
            assert made == twin and from_pieces is not None
            assert list(from_pieces[0].pieces) == list(by_lines[0].pieces) and from_pieces[1:] == by_lines[1:]


@settings(max_examples=examples(2000), deadline=None)
@given(raw=st.lists(st.sampled_from([b"\n", b"\r\n", b"+", b"-", b"++ ", b"-- ", b"+++ b/x", b"--- a/x", b"+++", b" ctx",
                                     b"x", b"\r", b"a", b"ab"]), max_size=50).map(b"".join),
       limit=st.sampled_from([0, 1, 2, 5, 10_000]), block=st.sampled_from([1, 3, 1 << 20]))
def test_changed_lines_match_the_python_twin(raw, limit, block):
    assert kernel.changed_lines(raw, limit) == TWINS["changed_lines"](raw, limit, block)


def test_changed_lines_of_generated_diffs():
    from bench.generate import make_diff, make_git_log_p

    for raw in [make_diff(300_000), make_git_log_p(300_000), make_git_log_p(300_000).replace(b"\n", b"\r\n")]:
        for limit in (3, 100, 10_000):
            assert kernel.changed_lines(raw, limit) == TWINS["changed_lines"](raw, limit, 4096)


@settings(max_examples=examples(2000), deadline=None)
@given(tiers=st.lists(st.integers(0, 2), max_size=80), ranks=st.lists(st.integers(-(2**40), 2**40), min_size=80, max_size=80),
       typecode=st.sampled_from("biq"), small=st.booleans())
def test_tier_order_matches_the_python_twin(tiers, ranks, typecode, small):
    import operators.kernel as dispatch

    limit = {"b": 127, "i": 2**31 - 1, "q": 2**40}[typecode]
    ranks = array(typecode, [max(-limit, min(limit, r % 7 - 2 if small else r)) for r in ranks[: len(tiers)]])
    tiers = bytearray(tiers)
    for tier in (0, 1):
        made, best = dispatch.tier_order(tiers, ranks, ranks.itemsize, tier)
        assert made.typecode == "i"
        twin, twin_best = TWINS["tier_order"](tiers, ranks, ranks.itemsize, tier)
        assert (list(made), best) == (list(twin), twin_best)
        assert list(made) == sorted((i for i, t in enumerate(tiers) if t == tier), key=ranks.__getitem__)


def gitlog_plans(raw, monkeypatch):
    """The git log type's plan of ``raw`` made with the kernel's ``gitlog_splice``, with its twin (each
    call's columns compared), and by the plan's own steps (``gitlog_splice`` declining every patch)."""
    from operators.types import gitlog

    calls = []

    def both(*args):
        made, twin = kernel.gitlog_splice(*args), TWINS["gitlog_splice"](*args)
        assert (made is None) == (twin is None)
        if made is not None:
            kinds, starts, ends, objs, omitted, shown = made
            assert (kinds, list(memoryview(starts).cast("q")), list(memoryview(ends).cast("q")), objs, omitted, shown) == (
                twin[0], list(twin[1]), list(twin[2]), twin[3], twin[4], twin[5])
        calls.append(made is not None)
        return dispatch_splice(*args)

    import operators.kernel as dispatch

    dispatch_splice = dispatch.gitlog_splice
    plans = []
    for splice in (both, lambda *args: None):
        monkeypatch.setattr(gitlog, "gitlog_splice", splice)
        for fine in (False, True):
            plan = gitlog.reduce_log(raw, gitlog.Settings(), fine)
            plans.append((list(plan.pieces), list(plan.reasons.items())))
    return plans, calls


def test_gitlog_splice_matches_its_twin_and_the_plans_steps(monkeypatch):
    from bench.generate import make_git_log_p
    from conftest import FIXTURES

    raws = [make_git_log_p(400_000), make_git_log_p(200_000).replace(b"\n", b"\r\n")]
    raws += [path.read_bytes() for path in sorted(FIXTURES.glob("git_*")) if b"\ndiff --git" in path.read_bytes()]
    word = b" error index 1234abc..5678def 100644 old mode 100644 similarity index 90%"
    raws.append(b"commit " + b"a" * 40 + b"\nAuthor: A <a@b>\nDate:   Mon Aug 3 01:01:07 2026 +0200\n\n    x\n\n"
                b"diff --git a/f b/f\nindex 1234567..89abcde 100644\n--- a/f\n+++ b/f\n@@ -1,9 +1,9 @@\n"
                + b"".join(b" line %d%s\n" % (i, word if i % 3 == 0 else b"") for i in range(4)) + b"-a\n+b\n"
                + b" error\n index 12345..67890\nindex 1234..5678\n  failed\n")
    odd = [b" plain", b" hresult", b" 0x80004005 x", b" more", b" code", b"  0x8000FFFF", b" status =", b" 0x80070005 y",
           b" tail error", b"  0x8abcdef0 z", b" end"]  # signal matches across lines (and pieces)
    raws.append((b"commit " + b"ab" * 20 + b"\nAuthor: A <a@b>\nDate:   Mon Aug 3 01:01:07 2026 +0200\n\n    s\n\n"
                 b"diff --git a/f b/f\nindex 1234567..89abcde 100644\n--- a/f\n+++ b/f\n@@ -1,12 +1,12 @@\n"
                 + b"\n".join(odd[:5] + [b"-old", b"+new"] + odd[5:]) + b"\n\n") * 3)
    declined = 0
    for raw in raws:
        (kernel_plan, kernel_fine, steps_plan, steps_fine), calls = gitlog_plans(raw, monkeypatch)
        assert kernel_plan == steps_plan and kernel_fine == steps_fine
        declined += calls.count(False)
    assert declined < 10  # (a part with an index-like line is counted by the Python steps)


@settings(max_examples=examples(1000), deadline=None)
@given(lines=st.lists(st.integers(1, 30), min_size=1, max_size=30), picks=st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 40)), max_size=30))
def test_place_matches_matches_the_python_twin(lines, picks):
    import operators.kernel as dispatch

    line_starts = array("q", accumulate(lines, initial=0))
    bodies = array("q", [end - 1 for end in line_starts[1:]])
    pieces = sorted({line_starts[i] for i in range(0, len(lines), 3)})
    starts = array("q", pieces)
    ends = array("q", [line_starts[min(len(lines), line_starts.index(a) + 2)] for a in pieces])
    offsets = array("q", accumulate((e - a + 2 for a, e in zip(starts, ends)), initial=1))[:-1]
    total = offsets[-1] + ends[-1] - starts[-1] + 2
    matches = array("q", sorted(x for s, n in picks for x in (s % total, s % total + n)))
    made = dispatch.place_matches(offsets, starts, ends, matches, line_starts, bodies)
    twin = TWINS["place_matches"](offsets, starts, ends, matches, line_starts, bodies)
    assert (list(made[0]), list(made[1]), bytes(made[2])) == (list(twin[0]), list(twin[1]), bytes(twin[2]))


@settings(max_examples=examples(1000), deadline=None)
@given(pieces=st.lists(st.tuples(st.integers(0, 4), st.integers(-2, 40), st.integers(0, 30),
                                 st.sampled_from([None, b"", b"shown\n", "group", b"x" * 70])), max_size=30))
def test_render_view_matches_the_python_twin(pieces):
    import operators.kernel as dispatch

    raw = bytes(range(33, 73))
    kinds = bytearray(kind for kind, _, _, _ in pieces)
    starts = array("q", [start for _, start, _, _ in pieces])
    ends = array("q", [start + length for _, start, length, _ in pieces])
    objs = [obj for _, _, _, obj in pieces]
    made = dispatch.render_view(raw, kinds, starts, ends, objs, b"#ref:ctx_000000")
    twin = TWINS["render_view"](raw, kinds, starts, ends, objs, b"#ref:ctx_000000")
    assert (made is None) == (twin is None)
    if made is not None:
        assert (made[0], list(made[1])) == (twin[0], list(twin[1]))


def test_a_log_whose_lines_all_differ_costs_no_object_per_line():
    """Request ids in every line make every line's shape distinct: the shapes live in one buffer and
    only distinct templates become objects, so the reducer's memory stays under twice the input."""
    import tracemalloc

    rng = random.Random(4)
    raw = b"".join(b"2026-01-01 10:00:00 INFO request %s done\n" % rng.randbytes(16).hex().encode()
                   for _ in range(100_000))
    tracemalloc.start()
    try:
        plan = log.reduce_log(raw, "coarse", Config().log)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(plan.pieces) < 10  # one template: the first line shown, the rest folded
    assert peak < 2 * len(raw)  # an object per shape (the earlier design) was over 3x


SEARCH_PARTS = [b"src/a.py", b"./b c.go", b"/abs/x", b"Makefile", b"-name", b"@s/p", b"~h", b"+p", b"2026-01-01T10",
                b":", b":12:", b":7:", b":x:", b"-12-", b"-3-", b"-", b"--", b"12", b"text", b" ", b"\t", b"\x00",
                b"\r", b"\xff", b"Binary file x matches", b"inary file ", b"grep: y: binary file matches", b"\n",
                b"\r\n", b"\n", b"\n"]
SEARCHISH = st.lists(st.sampled_from(SEARCH_PARTS), max_size=60).map(b"".join)


def search_lines_of(found):
    starts, tails, kinds, pids, paths, (plain, context) = found
    return list(starts), bytes(tails), bytes(kinds), list(pids), paths, list(plain), list(context)


def search_both(raw, numbered):
    """The kernel's and the twin's answers, and the paths each asked ``good`` about, in order."""
    import operators.kernel as dispatch

    answers = []
    for search_lines in (dispatch.search_lines, TWINS["search_lines"]):
        asked = []

        def good(path, asked=asked):
            asked.append(path)
            return b" " not in path and not path.startswith(b"2026")

        answers.append((search_lines_of(search_lines(raw, numbered, good)), asked))
    return answers


@settings(max_examples=examples(3000), deadline=None)
@given(raw=SEARCHISH, numbered=st.booleans())
def test_search_lines_match_the_python_twin(raw, numbered):
    with_kernel, with_twin = search_both(raw, numbered)
    assert with_kernel == with_twin


def test_search_lines_of_generated_output_and_edge_cases():
    from bench.generate import make_search

    for raw in [make_search(300_000), b"", b"\n", b"a:1:x", b"a:1:x\r", b"a:1:x\na-2-y\r\n\r\n--\n \t\n",
                b"a\x00b:1:x\n", b"a:1:b:2:\nb-3-\n"]:
        for numbered in (True, False):
            with_kernel, with_twin = search_both(raw, numbered)
            assert with_kernel == with_twin
    (starts, tails, kinds, pids, paths, plain, context), asked = search_both(b"a:1:x\na-2-y\r\n--\n\nzz\n", True)[0]
    assert (starts, tails, kinds, pids, paths, asked) == ([0, 6, 13, 16, 17, 20], bytes([1, 2, 1, 1, 1]),
                                                        bytes([0, 1, 2, 5, 6]), [0, 0, -1, -1, -1], [b"a"], [b"a"])


TEXTISH = st.lists(st.sampled_from([b"a", b"b", b"", b"  ", b"x y", b"\t", b"a\r", b"b ", b"\x0b", b"zz"]), max_size=40)


@settings(max_examples=examples(1500), deadline=None)
@given(lines=TEXTISH, times=st.integers(1, 4), tail=st.sampled_from([b"", b"\n", b"tail"]),
       repeat_min=st.integers(2, 4), block_max=st.integers(1, 8), block_work=st.sampled_from([0, 20, 4_000_000]))
def test_text_runs_match_the_python_twin(lines, times, tail, repeat_min, block_max, block_work):
    import operators.kernel as dispatch

    raw = b"\n".join(lines * times) + tail
    found = dispatch.text_runs(raw, repeat_min, block_max, block_work)
    assert [list(column) for column in found] == [list(column) for column in
                                                 TWINS["text_runs"](raw, repeat_min, block_max, block_work)]


CUTTISH = st.lists(st.sampled_from([b" ", b"\t", b"\n", b"\r", b"\r\n", b"x", b"\xff", b"\x00", b"  \n", b"\n\n",
                                    b" \r\n", b"\t\r", b"\x0b", b"a b"]), max_size=60).map(b"".join)


@settings(max_examples=examples(3000), deadline=None)
@given(raw=CUTTISH)
def test_text_cuts_match_the_python_twin(raw):
    import operators.kernel as dispatch

    starts, ends, trailing, blank = dispatch.text_cuts(raw)
    twin_starts, twin_ends, twin_trailing, twin_blank = TWINS["text_cuts"](raw)
    assert (list(starts), list(ends), trailing, blank) == (list(twin_starts), list(twin_ends), twin_trailing, twin_blank)


def test_text_cuts_of_generated_text():
    import operators.kernel as dispatch

    raw = b"".join(b"word %d%s\n%s" % (i, b" \t"[: i % 3], b" \n\n"[: i % 4]) for i in range(20_000)) + b"  \r"
    found, twin = dispatch.text_cuts(raw), TWINS["text_cuts"](raw)
    assert len(found[0]) > 10_000 and found[2] > 10_000 and found[3] > 1000
    assert [list(found[0]), list(found[1]), found[2], found[3]] == [list(twin[0]), list(twin[1]), twin[2], twin[3]]


@settings(max_examples=examples(500), deadline=None)
@given(raw=CUTTISH, offsets=st.lists(st.integers(-3, 70), max_size=30))
def test_line_of_matches_the_python_twin(raw, offsets):
    import operators.kernel as dispatch
    from operators.kernel.diff_twins import line_starts

    starts = line_starts(raw)
    found = dispatch.line_of(starts, array("q", offsets))
    assert list(found) == list(TWINS["line_of"](starts, offsets))
    assert all(starts[i] <= at < starts[i + 1] for i, at in zip(found, offsets) if 0 <= at < len(raw))


@settings(max_examples=examples(1500), deadline=None)
@given(raw=st.lists(st.sampled_from([b" ", b"\t", b"\n", b"\r", b"\x0b", b"\x0c", b"x", b"\x1c", b"\xa0", b"\n\n"]),
                    max_size=50).map(b"".join), block=st.sampled_from([1, 3, 1 << 18]))
def test_blank_lines_match_the_python_twin_and_strip(raw, block):
    import operators.kernel as dispatch
    from operators.kernel import text_twins

    lines = raw.split(b"\n")[:-1] if raw.endswith(b"\n") else raw.split(b"\n") if raw else []
    expected = [i for i, line in enumerate(lines) if not line.strip()]
    assert list(dispatch.blank_lines(raw)) == expected
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(text_twins, "BLOCK_BYTES", block)  # blocks end mid-run of blank lines, every line
        assert list(TWINS["blank_lines"](raw)) == expected


def pieces_both(raw: bytes, runs, cuts, ids):
    import operators.kernel as dispatch

    found = [dispatch.text_pieces(raw, *runs, *cuts, ids), TWINS["text_pieces"](raw, *runs, *cuts, ids)]
    return [None if made is None else [bytes(made[0]), *map(list, made[1:4]), *made[4:]] for made in found]


@settings(max_examples=examples(1500), deadline=None)
@given(lines=st.lists(st.tuples(st.sampled_from([b"a", b"b", b"", b"  ", b"x y", b"\t", b"a\r", b"b ", b"c  \r", b"\r"]),
                                st.integers(1, 5)), max_size=30),
       times=st.integers(1, 4), tail=st.sampled_from([b"", b"\n", b"tail", b"\n\n", b"  "]),
       drop=st.sampled_from(["", "cuts", "runs"]))
def test_text_pieces_match_the_python_twin(lines, times, tail, drop):
    from operators.types import text

    raw = b"\n".join([line for line, count in lines for _ in range(count)] * times) + tail
    starts, ends, _, _ = text.cuts_of(raw)
    runs = text.Runs() if drop == "runs" else text.repeat_runs(raw)
    cuts = (array("q"), array("q")) if drop == "cuts" else (starts, ends)
    ids = array("i", range(len(runs)))
    kernel_made, twin_made = pieces_both(raw, runs.columns, cuts, ids)
    assert kernel_made == twin_made and kernel_made is not None


def test_text_pieces_leave_what_they_cannot_write_to_the_plan():
    raw = b"a\na\na\nb\n"
    runs = [array("q", [v]) for v in (0, 2, 6, 3, 1)]
    no_cuts = (array("q"), array("q"))
    # "a" kept, " ×3" shown, its newline kept, the two copies omitted (repeats, code 2): up to offset 6
    assert pieces_both(raw, runs, no_cuts, array("i", [0])) == [
        [bytes([0, 1, 0, 2]), [0, 0, 1, 2], [1, 0, 2, 6], [0, 3, 0, 2], 6, 2, 2, 4]] * 2
    twice = [array("q", [v, v]) for v in (0, 2, 6, 3, 1)]  # the second run starts before where the first ends
    assert pieces_both(raw, twice, no_cuts, array("i", [0, 0])) == [None, None]
    # a block's note, then a line whose text before its note is empty: two notes in a row
    blocks = [array("q", [v, w]) for v, w in ((0, 6), (2, 7), (6, 8), (3, 2), (2, 1))]
    assert pieces_both(raw, blocks, no_cuts, array("i", [0, 1])) == [None, None]


def test_text_runs_of_generated_text():
    import operators.kernel as dispatch
    from bench.memory import make_text

    raw = make_text(400_000)
    found = dispatch.text_runs(raw, 3, 8, 4_000_000)
    assert len(found[0]) > 1000
    assert [list(column) for column in found] == [list(column) for column in TWINS["text_runs"](raw, 3, 8, 4_000_000)]


RANKISH_LINES = [b"diff --git a/f b/f", b"diff --cc f", b"--- a/f", b"+++ b/f", b"index 1234..5678", b"new mode 100755",
                 b"@@ -1,3 +1,3 @@", b"@@@ -1 -1 +1 @@@", b"+a", b"-b", b" c", b"", b"x", b"\xe2\x8b\xaf 3", b"\xe2\x8b\xaf",
                 b" f.py | 3 ++-", b" f.py |", b"|", b" |", b"rename from a", b"Binary files a and b differ", b"+", b"-",
                 b"\r", b" \r", b"+x\r"]


@settings(max_examples=examples(2000), deadline=None)
@given(lines=st.lists(st.sampled_from(RANKISH_LINES), max_size=60), hunk_size=st.integers(0, 400),
       last_nl=st.booleans())
def test_diff_ranks_match_the_python_twin(lines, hunk_size, last_nl):
    from operators.kernel.diff_twins import line_starts

    lines = lines + [b"@@ -1 +1 @@"] + [b"+y"] * hunk_size  # hunks of every rank
    text = b"\n".join(lines) + (b"\n" if last_nl else b"")
    starts = line_starts(text)
    codes, stat = kernel.diff_ranks(text, starts, text.endswith(b"\n"))
    twin_codes, twin_stat = TWINS["diff_ranks"](text, starts, text.endswith(b"\n"))
    assert (codes, list(memoryview(stat).cast("q"))) == (twin_codes, list(twin_stat))


@settings(max_examples=examples(1500), deadline=None)
@given(raw=st.lists(st.sampled_from([b"\n", b"a", b"bb", b"\r\n", b"x" * 9, b"\xff"]), max_size=60).map(b"".join),
       start=st.integers(-70, 70), end=st.integers(-70, 70))
def test_count_newlines_matches_bytes_count(raw, start, end):
    import operators.kernel as dispatch

    assert dispatch.count_newlines(raw, start, end) == raw.count(b"\n", start, end)
    assert TWINS["count_newlines"](raw, start, end) == raw.count(b"\n", start, end)


def test_count_newlines_of_a_large_buffer():
    raw = bytes(random.Random(3).choice(b"ab\n") for _ in range(300_000))
    assert kernel.count_newlines(raw, 0, len(raw)) == raw.count(b"\n")
    assert kernel.count_newlines(raw, 12_345, 250_001) == raw.count(b"\n", 12_345, 250_001)


@settings(max_examples=examples(2000), deadline=None)
@given(raw=st.lists(st.sampled_from([b"\n", b"a", b"bbbbbbb", b"\r\n", b"x" * 23]), max_size=40).map(b"".join),
       limit=st.integers(-3, 40), cuts=st.lists(st.integers(0, 400), max_size=6))
def test_long_lines_matches_the_python_twin(raw, limit, cuts):
    import operators.kernel as dispatch

    cuts = sorted(min(c, len(raw)) for c in cuts)
    skip = list(zip(cuts[::2], cuts[1::2]))
    expected = twins.long_lines_py(raw, limit, skip)
    assert dispatch.long_lines(raw, limit, skip) == expected
    if not skip and limit >= 0:  # the definition: every line over the limit
        lines, at = [], 0
        for line in raw.split(b"\n"):
            if len(line) > limit:
                lines.append((at, at + len(line)))
            at += len(line) + 1
        assert expected == lines
BLAME_PIECES = [b"a", b"0", b"12", b" ", b"  ", b"(", b")", b"\r", b"x", b"^", b"f", b"-", b"9)", b" 7) ", b"\n", b"\xff"]
BLAME_HEADS = [b"abcd ", b"^0f1e ", b"", b"abc ", b"abcdef0 src/a.py ", b"0123456789abcdef0123456789abcdef012345678 ",
               b"0123456789abcdef0123456789abcdef0123456789 ", b"0123456789abcdef0123456789abcdef01234567890 "]
BLAMEISH = st.lists(st.tuples(st.sampled_from(BLAME_HEADS), st.lists(st.sampled_from(BLAME_PIECES), max_size=14)),
                    max_size=12).map(lambda lines: b"\n".join(h + b"".join(p) for h, p in lines))


def _blame_columns_both(raw: bytes):
    import operators.kernel as dispatch
    from operators.kernel.diff_twins import line_starts

    starts = line_starts(raw)
    found, twin = dispatch.blame_columns(raw, starts), TWINS["blame_columns"](raw, starts)
    return (list(found[0]), found[1]), (list(twin[0]), twin[1])


@settings(max_examples=examples(1500), deadline=None)
@given(raw=BLAMEISH, final=st.sampled_from([b"", b"\n", b"\r\n"]))
def test_blame_columns_match_the_python_twin(raw, final):
    found, twin = _blame_columns_both(raw + final)
    assert found == twin


def test_blame_columns_match_the_python_twin_on_many_lines_and_find_the_code_columns():
    rng = random.Random(29)
    lines = [rng.choice(BLAME_HEADS) + b"".join(rng.choice(BLAME_PIECES) for _ in range(rng.randint(0, 24)))
             for _ in range(30_000)]
    planted = b"1a2b3c4d (Ana Lima   2026-01-02 10:11:12 +0200  1234) code(x) 12) y\n"
    raw = planted + b"\n".join(lines) + b"\n" + planted + b"^1a2b3c4 (Bo 2026-01-02  7)\tz"
    found, twin = _blame_columns_both(raw)
    assert found == twin and sum(c >= 0 for c in found[0]) > 1000
    assert found[0][0] == -1  # the first line: no newline before it
    assert raw[found[0][-1] :] == b"\tz" and found[1] == 4



DIAG_PARTS = [b"a", b"C:", b"c:", b"x.py", b":", b"1", b"12", b":3", b": ", b" - ", b" -", b"-", b" ", b"\t", b"(", b")",
              b"): ", b".go:", b"error[", b"E501", b"\n", b"\r", b"\n", b"\x00", b"\xff", b"[", b"warning", b"/", b"\x0b",
              b"9x", b"\n"]
DIAGISH = st.lists(st.sampled_from(DIAG_PARTS), max_size=50).map(b"".join)


def _columns(found):
    return tuple(x if isinstance(x, (list, bytearray, bytes)) else list(x) for x in found)


@settings(max_examples=examples(3000), deadline=None)
@given(raw=DIAGISH)
def test_diag_heads_match_the_python_twin(raw):
    import operators.kernel as dispatch

    assert _columns(dispatch.diag_heads(raw)) == _columns(TWINS["diag_heads"](raw))


def test_diag_heads_of_real_outputs_and_edge_cases():
    import operators.kernel as dispatch
    from bench.generate import make_diagnostics

    from conftest import FIXTURES

    for raw in [make_diagnostics(300_000), b"", b"a:1:", b"C:12: x", b"C:/a:1:2 - w", b"a:1:2x", b"a:1 - x\nb:2:3:",
                *(path.read_bytes() for path in sorted(FIXTURES.glob("*.txt")))]:
        assert _columns(dispatch.diag_heads(raw)) == _columns(TWINS["diag_heads"](raw))
    lines, at, loc, flags, rest_ids, rests, path_ids, paths = dispatch.diag_heads(b"x\na.py:3:7: F401 y\nC:/b.c:1 - e\n")
    assert (list(lines), list(at), list(loc), bytes(flags), list(rest_ids), rests, list(path_ids), paths) == \
        ([1, 2], [10, 11], [8, 8], b"\x00\x02", [0, 1], [b"F401 y", b"e"], [0, 1], [b"a.py", b"C:/b.c"])


@settings(max_examples=examples(1500), deadline=None)
@given(key=st.lists(st.integers(0, 6), max_size=60), examples_=st.integers(1, 3), data=st.data())
def test_diag_codes_runs_and_ranks_match_the_python_twins(key, examples_, data):
    import operators.kernel as dispatch

    keys = array("I", key)
    ranks = [list(column) for column in dispatch.diag_ranks(keys, 7)]
    assert ranks == [list(column) for column in TWINS["diag_ranks"](keys, 7)]
    rank = array("I", ranks[0])
    plain = bytes(data.draw(st.lists(st.integers(0, 1), min_size=len(key), max_size=len(key))))
    group_of = bytes(data.draw(st.lists(st.integers(0, 3), min_size=5, max_size=5)))  # keys 5 and 6: past it
    codes = dispatch.diag_codes(keys, rank, plain, group_of, examples_)
    assert codes == TWINS["diag_codes"](keys, rank, plain, group_of, examples_)
    if not key:
        return
    heads = array("I", range(0, 2 * len(key), 2))
    lasts = array("I", (h + (j % 2) for j, h in enumerate(heads)))
    starts = array("I", range(0, 20 * len(key), 10))
    ends = array("I", range(10, 20 * len(key) + 10, 10))
    first = data.draw(st.integers(0, len(key) - 1))
    stop = data.draw(st.integers(first + 1, len(key)))
    found = dispatch.diag_runs(codes, first, stop, heads, lasts, starts, ends)
    twin = TWINS["diag_runs"](codes, first, stop, heads, lasts, starts, ends)
    assert [bytes(found[0]), *map(list, found[1:])] == [bytes(twin[0]), *map(list, twin[1:])]


@settings(max_examples=examples(1500), deadline=None)
@given(raw=DIAGISH, data=st.data())
def test_diag_columns_match_the_python_twin(raw, data):
    import operators.kernel as dispatch

    lines, at, loc, flags, rest_ids, rests, path_ids, paths = TWINS["diag_heads"](raw)
    keys = array("I", data.draw(st.lists(st.integers(0, 9), min_size=len(rests), max_size=len(rests))))
    sevs = array("I", data.draw(st.lists(st.integers(0, 9), min_size=len(rests), max_size=len(rests))))
    skips = array("i", data.draw(st.lists(st.integers(0, 30), min_size=len(rests), max_size=len(rests))))
    gnus = bytes(data.draw(st.lists(st.integers(0, 1), min_size=len(rests), max_size=len(rests))))
    path_of = array("I", data.draw(st.permutations(range(len(paths)))))
    columns = (rest_ids, path_ids, at, flags, keys, sevs, skips, gnus, path_of)
    found, twin = dispatch.diag_columns(*columns), TWINS["diag_columns"](*columns)
    assert [bytes(found[3]), *map(list, found[:3]), list(found[4])] == [bytes(twin[3]), *map(list, twin[:3]), list(twin[4])]


DETAIL_PARTS = [b"  ", b" ", b"\t", b"12", b"7", b" | ", b"|", b" +", b"+ ", b"-", b" - ", b"--> ", b"-->", b"a.py:3:5", b"help: ",
                b"note: ", b"help:", b"x", b"F401", b" [*] ", b"error[E0308]: ", b"warning: ", b"): ", b": In ", b": At top level",
                b"(1,2): error TS2322: ", b"): warning", b"): message",
                b"\n", b"\n", b"\n", b"\r", b"\x0b", b"\x0c", b"        ", b"   ", b"^^^", b"=", b"\xff", b"C:"]
DETAILISH = st.lists(st.sampled_from(DETAIL_PARTS), max_size=60).map(b"".join)


@settings(max_examples=examples(3000), deadline=None)
@given(raw=st.one_of(DETAILISH, DIAGISH))
def test_diag_lines_and_offsets_match_the_python_twins(raw):
    import operators.kernel as dispatch

    assert bytes(dispatch.diag_lines(raw)) == TWINS["diag_lines"](raw)
    assert bytes(dispatch.diag_offsets(raw)) == TWINS["diag_offsets"](raw)


def test_diag_lines_of_real_outputs_and_edge_cases():
    import operators.kernel as dispatch
    from bench.generate import make_diagnostics_full

    from conftest import FIXTURES

    for raw in [make_diagnostics_full(300_000), b"", b"\n", b"x", b"  |", b"1 |", b"note: x\n  --> a:1", b"note: x",
                b"12 | a): b", b"12 | a(1,2): error TS1: b", b"   | a): b", b"help: \tx", b"E1 x\n-->",
                *(path.read_bytes() for path in sorted(FIXTURES.glob("*.txt")))]:
        assert bytes(dispatch.diag_lines(raw)) == TWINS["diag_lines"](raw)
        assert bytes(dispatch.diag_offsets(raw)) == TWINS["diag_offsets"](raw)
    assert dispatch.diag_lines(b"E501 [*] x\n  --> a.py:1:2\n   |\n 1 | a        b\n   |   ^^^\nhelp: Fix\nnote: y\n\n"
                               b"12 | f(1,2): error x\n12 | f(): x\n   = help: z\n") == bytes([4, 0, 2, 2 | 0x80, 2, 3, 3, 1, 0, 2, 5])


@settings(max_examples=examples(1500), deadline=None)
@given(codes=st.lists(st.sampled_from([0, 1, 2, 250, 254, 255]), min_size=1, max_size=60), data=st.data())
def test_diag_line_runs_and_fill_match_the_python_twins(codes, data):
    import operators.kernel as dispatch

    n = len(codes)
    starts = array("I", range(0, 10 * n, 10))
    ends = array("I", range(10, 10 * n + 10, 10))
    first = data.draw(st.integers(0, n - 1))
    stop = data.draw(st.integers(first + 1, n))
    found = dispatch.diag_line_runs(bytes(codes), first, stop, starts, ends)
    twin = TWINS["diag_line_runs"](bytes(codes), first, stop, starts, ends)
    assert [bytes(found[0]), *map(list, found[1:])] == [bytes(twin[0]), *map(list, twin[1:])]
    heads = sorted(data.draw(st.lists(st.integers(0, n - 1), max_size=10)))
    lasts = array("I", (min(n - 1, h + data.draw(st.integers(0, 3))) for h in heads))
    diag_codes = bytes(data.draw(st.lists(st.integers(0, 40), min_size=len(heads), max_size=len(heads))))
    lines, twin_lines = bytearray(codes), bytearray(codes)
    dispatch.diag_fill(lines, diag_codes, array("I", heads), lasts, 1, 31)
    TWINS["diag_fill"](twin_lines, diag_codes, array("I", heads), lasts, 1, 31)
    assert lines == twin_lines


SOURCE_PIECES = [b"def", b"class ", b"fn", b"function", b" ", b"  ", b"\t", b"\r", b"\n", b"\r\n", b"(", b")", b"{", b"}",
                 b";", b"=", b"x", b"\xff", b"\x0b", b"12", b"  7\t", b"   42  ", b"9:", b"1234567 ", b"12345678\t", b"a:b"]
SOURCE_NEEDLES = [b"def", b"class", b"fn", b"function", b"(", b")", b"{", b";", b"=", b" (", b"x", b"\r", b"12"]
SOURCE_TESTS = st.lists(st.tuples(st.sampled_from([0, 1, 2, 3, 4, 8, 9, 10, 11, 12]), st.sampled_from(SOURCE_NEEDLES)),
                        max_size=10)


@settings(max_examples=examples(1500), deadline=None)
@given(raw=st.lists(st.sampled_from(SOURCE_PIECES), max_size=40).map(b"".join), numbered=st.booleans(),
       max_len=st.integers(0, 30), tests=SOURCE_TESTS, data=st.data())
def test_source_lines_match_the_python_twin(raw, numbered, max_len, tests, data):
    import operators.kernel as dispatch

    masks = st.integers(0, (1 << len(tests)) - 1)
    clauses = tuple(tuple(group) for group in data.draw(st.lists(st.lists(masks, max_size=3), max_size=4)))
    lines, groups = dispatch.source_lines(raw, max_len, numbered, tuple(tests), clauses)
    twin_lines, twin_groups = TWINS["source_lines"](raw, max_len, numbered, tuple(tests), clauses)
    assert lines == twin_lines and [list(g) for g in groups] == [list(g) for g in twin_groups]


def test_source_lines_match_the_python_twin_on_source_text_and_reject_bad_tests():
    import operators.kernel as dispatch
    from operators.types import source

    rng = random.Random(31)
    raw = b"".join(rng.choice(SOURCE_PIECES) for _ in range(60_000))
    for lang in source.SIGNATURE_ALTS:
        tests, groups, _ = source._plan(lang, True)
        for numbered in (False, True):
            lines, found = dispatch.source_lines(raw, 500, numbered, tests, groups)
            twin_lines, twin_found = TWINS["source_lines"](raw, 500, numbered, tests, groups)
            assert lines == twin_lines and [list(g) for g in found] == [list(g) for g in twin_found]
    assert sum(len(g) for g in found) > 1000
    for tests, clauses in ((((0, b""),), ((1,),)), (((1, b"x"),), ((2,),)), (((0, b"x"),) * 63, ())):
        for run in (dispatch.source_lines, TWINS["source_lines"]):
            with pytest.raises(ValueError):
                run(raw, 500, False, tests, clauses)


def _diag_lines(raw: bytes) -> tuple[array, array]:
    """Where each line of ``raw`` starts and ends, as the diagnostics parser reads them (``diag_offsets``)."""
    import operators.kernel as dispatch

    offsets = array("I")
    offsets.frombytes(dispatch.diag_offsets(raw))
    return offsets[:-1], offsets[1:]


def _diag_run(raw: bytes, data):
    """``_diag_lines`` of ``raw``, a class drawn for each line (one in four may be a head), and a run of
    them drawn: (starts, ends, classes, first, stop)."""
    starts, ends = _diag_lines(raw)
    n = len(starts)
    classes = bytes(data.draw(st.lists(st.sampled_from([0, 0, 0, 1]), min_size=n, max_size=n)))
    first = data.draw(st.integers(0, n))
    return starts, ends, classes, first, data.draw(st.integers(first, n))


def _stylish_as_its_twin(raw: bytes, starts, ends, classes: bytes, first: int, stop: int, combos: dict, messages: dict) -> int:
    """``diag_stylish`` and its twin on the same run, each with its own copy of the numberings: the same
    answer, the same numberings grown in the same order. Where the run stopped."""
    import operators.kernel as dispatch

    twin_combos, twin_messages = dict(combos), dict(messages)
    k, cids, mids = dispatch.diag_stylish(raw, starts, ends, classes, first, stop, combos, messages)
    twin = TWINS["diag_stylish"](raw, starts, ends, classes, first, stop, twin_combos, twin_messages)
    assert (k, bytes(cids), bytes(mids), combos, messages) == (twin[0], bytes(twin[1]), bytes(twin[2]), twin_combos, twin_messages)
    assert list(combos) == list(twin_combos) and list(messages) == list(twin_messages)
    return k


STYLISH_PARTS = [b"  ", b" ", b"\t", b"\x0b", b"12", b"5", b":", b"error", b"warning", b"errors", b"Missing semicolon",
                 b"'x' is defined", b"(", b")", b"no-unused-vars", b"@typescript-eslint/no-explicit-any", b"semi", b"a.b",
                 b"_x", b"\xc3\xa9", b"        ", b"\n", b"\n", b"\r", b"\x0c", b"-", b"/"]
STYLISHISH = st.lists(st.sampled_from(STYLISH_PARTS), max_size=60).map(b"".join)


@settings(max_examples=examples(3000), deadline=None)
@given(raw=STYLISHISH, data=st.data())
def test_diag_stylish_and_pads_match_the_python_twins(raw, data):
    import operators.kernel as dispatch

    starts, ends, classes, first, stop = _diag_run(raw, data)
    seen = data.draw(st.sampled_from([{}, {b"e\x00": 0, b"w\x01semi": 1}]))
    _stylish_as_its_twin(raw, starts, ends, classes, first, stop, dict(seen), {b"": 0})
    start = data.draw(st.integers(0, len(raw)))
    end = data.draw(st.integers(start, len(raw)))
    least = data.draw(st.integers(1, 9))
    keep = data.draw(st.integers(0, least))
    assert bytes(dispatch.diag_pads(raw, start, end, least, keep)) == TWINS["diag_pads"](raw, start, end, least, keep)


def _shown_as_its_twin(raw: bytes, starts, ends, heads, lasts, least: int, keep: int) -> bytes:
    """``diag_shown`` and its twin on the same spans: the same sizes, each ``diagnostics._verbatim``'s."""
    import operators.kernel as dispatch

    got = dispatch.diag_shown(raw, starts, ends, heads, lasts, least, keep)
    assert bytes(got) == TWINS["diag_shown"](raw, starts, ends, heads, lasts, least, keep)
    return bytes(got)


@settings(max_examples=examples(3000), deadline=None)
@given(raw=STYLISHISH, data=st.data())
def test_diag_shown_matches_the_python_twin(raw, data):
    starts, ends = _diag_lines(raw)
    n = len(starts)
    heads = data.draw(st.lists(st.integers(0, max(n - 1, 0)), max_size=20 if n else 0))
    lasts = [data.draw(st.integers(h, n - 1)) for h in heads]
    least = data.draw(st.integers(1, 9))
    keep = data.draw(st.integers(0, least))
    code = data.draw(st.sampled_from("Iq"))
    _shown_as_its_twin(raw, array(code, starts), array(code, ends), array(code, heads), array(code, lasts), least, keep)


def test_diag_shown_refuses_what_is_out_of_range():
    import operators.kernel as dispatch

    starts, ends = _diag_lines(b"a  b\nc\n")
    for heads, lasts, least, keep in (([0], [2], 8, 2), ([0, 1], [1], 8, 2), ([0], [1], 0, 0), ([0], [1], 2, 3)):
        for fn in (dispatch.diag_shown, TWINS["diag_shown"]):
            with pytest.raises(ValueError):
                fn(b"a  b\nc\n", starts, ends, array("I", heads), array("I", lasts), least, keep)


@settings(max_examples=examples(3000), deadline=None)
@given(raw=STYLISHISH, data=st.data())
def test_diag_line_pieces_match_the_python_twin(raw, data):
    import operators.kernel as dispatch

    starts, ends = _diag_lines(raw)
    n = len(starts)
    if not n:
        return
    codes = bytes(data.draw(st.lists(st.sampled_from([0, 0, 1, 250, 254, 254]), min_size=n, max_size=n)))
    first = data.draw(st.integers(0, n - 1))
    stop = data.draw(st.integers(first + 1, n))
    least = data.draw(st.integers(1, 9))
    keep = data.draw(st.integers(0, least))
    found = dispatch.diag_line_pieces(codes, first, stop, starts, ends, raw, 254, 253, least, keep)
    twin = TWINS["diag_line_pieces"](codes, first, stop, starts, ends, raw, 254, 253, least, keep)
    assert [bytes(found[0]), *map(list, found[1:])] == [bytes(twin[0]), *map(list, twin[1:])]
    assert list(found[1])[:1] == [starts[first]] and list(found[2])[-1:] == [ends[stop - 1]]
    assert list(found[1][1:]) == list(found[2][:-1])  # one piece after another


def test_diag_line_pieces_of_a_generated_output():
    import operators.kernel as dispatch
    from bench.generate import make_diag_stylish

    raw = make_diag_stylish(300_000)
    starts, ends = _diag_lines(raw)
    codes = bytes((0, 254, 254, 3, 254, 0, 250)[i % 7] for i in range(len(starts)))
    found = dispatch.diag_line_pieces(codes, 0, len(starts), starts, ends, raw, 254, 253, 8, 2)
    twin = TWINS["diag_line_pieces"](codes, 0, len(starts), starts, ends, raw, 254, 253, 8, 2)
    assert [bytes(found[0]), *map(list, found[1:])] == [bytes(twin[0]), *map(list, twin[1:])]
    assert bytes(found[0]).count(253) > 300


TSC_PARTS = [b"src/a.ts", b"C:", b"x", b" ", b"\t", b"(", b")", b"12", b"3", b",", b"): ", b"error", b"warning", b"message",
             b"errors", b" TS", b"TS", b"2322", b": ", b":", b"Type 'x'", b"\xc2\xa0", b"\x00", b"\x0b", b"\n", b"\n", b"\n"]


def _tsc_as_its_twin(raw: bytes, starts, ends, classes: bytes, first: int, stop: int, combos: dict, paths: dict) -> int:
    """``diag_tsc_heads`` and its twin on the same run, each with its own copy of the numberings: the
    same answer, the same numberings grown in the same order. Where the run stopped."""
    import operators.kernel as dispatch

    twin_combos, twin_paths = dict(combos), dict(paths)
    found = dispatch.diag_tsc_heads(raw, starts, ends, classes, first, stop, combos, paths)
    twin = TWINS["diag_tsc_heads"](raw, starts, ends, classes, first, stop, twin_combos, twin_paths)
    assert (found[0], *map(bytes, found[1:]), combos, paths) == (twin[0], *map(bytes, twin[1:]), twin_combos, twin_paths)
    assert list(combos) == list(twin_combos) and list(paths) == list(twin_paths)
    return found[0]


@settings(max_examples=examples(3000), deadline=None)
@given(raw=st.lists(st.sampled_from(TSC_PARTS), max_size=60).map(b"".join), data=st.data())
def test_diag_tsc_heads_match_the_python_twin(raw, data):
    starts, ends, classes, first, stop = _diag_run(raw, data)
    seen = data.draw(st.sampled_from([{}, {b"error TS2322": 0}]))
    _tsc_as_its_twin(raw, starts, ends, classes, first, stop, dict(seen), {b"x": 0})


def test_diag_tsc_heads_of_a_generated_output():
    from bench.generate import make_diag_tsc

    raw = make_diag_tsc(300_000)
    starts, ends = _diag_lines(raw)
    classes = bytes(len(starts))
    i, done = 0, 0
    while i < len(starts):
        k = _tsc_as_its_twin(raw, starts, ends, classes, i, len(starts), {}, {})
        done += k - i
        i = max(k, i + 1)
    assert done > 1000


def test_diag_stylish_of_a_generated_output():
    import operators.kernel as dispatch
    from bench.generate import make_diag_stylish

    raw = make_diag_stylish(300_000)
    starts, ends = _diag_lines(raw)
    classes = bytes(len(starts))
    i, done = 0, 0
    while i < len(starts):
        k = _stylish_as_its_twin(raw, starts, ends, classes, i, len(starts), {}, {})
        done += k - i
        i = max(k, i + 1)
    assert done > 2000
    assert bytes(dispatch.diag_pads(raw, 0, len(raw), 8, 2)) == TWINS["diag_pads"](raw, 0, len(raw), 8, 2)
    heads = array("I", range(0, len(starts), 3))
    sizes = memoryview(_shown_as_its_twin(raw, starts, ends, heads, heads, 8, 2)).cast("I")
    assert list(sizes) == [len(raw[starts[h] : ends[h]]) - sum(len(run) - 2 for run in re.findall(rb"(?<=[^ \n]) {8,}(?=[^ \r\n])",
                                                                                                       raw[starts[h] : ends[h]]))
                           for h in heads]


INDENTED_PARTS = [b"  ", b" ", b"\t", b"/a/b.py", b"C:", b"x", b"a.go", b":", b"12", b"3", b" - ", b"-", b"error", b": ",
                  b"warning: ", b"\"x\" is unknown (reportFoo)", b"): ", b"(", b"\xc2\xa0", b"\n", b"\n", b"\r", b"\x0c"]
INDENTEDISH = st.lists(st.sampled_from(INDENTED_PARTS), max_size=60).map(b"".join)


@settings(max_examples=examples(3000), deadline=None)
@given(raw=INDENTEDISH, data=st.data())
def test_diag_indented_matches_the_python_twin(raw, data):
    import operators.kernel as dispatch

    starts, ends, classes, first, stop = _diag_run(raw, data)
    k, cols = dispatch.diag_indented(raw, starts, ends, classes, first, stop)
    assert (k, bytes(cols)) == TWINS["diag_indented"](raw, starts, ends, classes, first, stop)


def test_diag_indented_of_a_generated_output():
    import operators.kernel as dispatch
    from bench.generate import make_diag_pyright

    raw = make_diag_pyright(300_000)
    starts, ends = _diag_lines(raw)
    classes = bytes(len(starts))
    i, done = 0, 0
    while i < len(starts):
        k, cols = dispatch.diag_indented(raw, starts, ends, classes, i, len(starts))
        assert (k, bytes(cols)) == TWINS["diag_indented"](raw, starts, ends, classes, i, len(starts))
        done += k - i
        i = max(k, i + 1)
    assert done > 1000


ELABORATION_PARTS = INDENTED_PARTS + [b"Argument of type", b"  Compiling foo v1.0", b"   Finished ", b"  Downloaded 3 crates",
                                      b" 2 errors and 1 warning potentially fixable", b"(reportArgumentType)", b"[E501]",
                                      b"[Error/no-shadow]", b"(no-shadow)", b"]", b")", b"-[", b"\xe2\x94\x80[", b"A", b"L"]
ELABORATIONISH = st.lists(st.sampled_from(ELABORATION_PARTS), max_size=60).map(b"".join)


def _indented_known_both(raw, starts, cols, reads, j, first, head_j, dash, made):
    """``diag_indented_known`` by the kernel and by its twin, each with its own tables: their results and tables."""
    import operators.kernel as dispatch

    found = []
    for fn in (dispatch.diag_indented_known, TWINS["diag_indented_known"]):
        tables = ({}, [], {}, [])
        made_out = fn(raw, starts, cols, reads, j, first, head_j, dash, made, *tables)
        found.append((made_out[0], made_out[1], *(bytes(x) for x in made_out[2:8]), made_out[8], made_out[9], tables))
    return found


@settings(max_examples=examples(3000), deadline=None)
@given(raw=ELABORATIONISH, data=st.data())
def test_diag_elaborations_and_indented_known_match_the_python_twins(raw, data):
    import operators.kernel as dispatch

    starts, ends, classes, first, stop = _diag_run(raw, data)
    stop, cols = dispatch.diag_indented(raw, starts, ends, classes, first, stop)
    indent = data.draw(st.integers(-1, 4))
    reads = dispatch.diag_elaborations(raw, starts, ends, cols, first, indent)
    assert bytes(reads) == TWINS["diag_elaborations"](raw, starts, ends, cols, first, indent)
    c = memoryview(cols).cast("q")
    rests = {raw[c[5 * j + 2] : c[5 * j + 3]] for j in range(len(c) // 5) if c[5 * j] >= 0}
    made = {rest: data.draw(st.sampled_from([None, (1, 2, 3, 0), (4, 5, 6, 1)])) for rest in rests if data.draw(st.booleans())}
    m = len(c) // 5
    j = data.draw(st.integers(0, m))
    head_j = data.draw(st.integers(-1, j - 1)) if j else -1
    kernel_made, twin_made = _indented_known_both(raw, starts, cols, reads, j, first, head_j, data.draw(st.integers(0, 1)), made)
    assert kernel_made == twin_made
    unknown = dispatch.diag_indented_unknown(raw, cols, made)
    assert bytes(unknown) == TWINS["diag_indented_unknown"](raw, cols, made)
    assert [j for j in range(m) if c[5 * j] >= 0 and raw[c[5 * j + 2] : c[5 * j + 3]] not in made] == list(memoryview(unknown).cast("i"))


def test_diag_indented_unknown_refuses_bad_columns():
    import operators.kernel as dispatch

    for cols in (bytes(39), array("q", [0, 1, 2, 9, 0]).tobytes(), array("q", [0, 1, 3, 2, 0]).tobytes()):
        for fn in (dispatch.diag_indented_unknown, TWINS["diag_indented_unknown"]):
            with pytest.raises(ValueError):
                fn(b"a:1 x", cols, {})


def test_diag_indented_known_of_a_generated_output():
    import operators.kernel as dispatch
    from bench.generate import make_diag_pyright

    raw = make_diag_pyright(300_000)
    starts, ends = _diag_lines(raw)
    classes = bytes(len(starts))
    i, done, rekeyed = 0, 0, 0
    while i < len(starts):
        k, cols = dispatch.diag_indented(raw, starts, ends, classes, i, len(starts))
        if k > i:
            reads = dispatch.diag_elaborations(raw, starts, ends, cols, i, -1)
            assert bytes(reads) == TWINS["diag_elaborations"](raw, starts, ends, cols, i, -1)
            c = memoryview(cols).cast("q")
            made = {raw[c[5 * j + 2] : c[5 * j + 3]]: (1, 2, 3, 0) for j in range(len(c) // 5) if c[5 * j] >= 0 and j % 3}
            assert bytes(dispatch.diag_indented_unknown(raw, cols, made)) == TWINS["diag_indented_unknown"](raw, cols, made)
            made.update({raw[c[5 * j + 2] : c[5 * j + 3]]: (1, 2, 3, 0) for j in range(len(c) // 5) if c[5 * j] >= 0})
            assert not bytes(dispatch.diag_indented_unknown(raw, cols, made))
            kernel_made, twin_made = _indented_known_both(raw, starts, cols, reads, 0, i, -1, 0, made)
            assert kernel_made == twin_made
            done += kernel_made[0]
            rekeyed += len(kernel_made[7])
        i = max(k, i + 1)
    assert done > 1000 and rekeyed > 0


def _bulk_inputs(raw: bytes):
    """What ``_Parser._bulk`` gives ``diag_bulk`` for ``raw``: (lines, ok, classes, starts, ends, style, path, paths)."""
    from operators.types import diagnostics

    parser = diagnostics._Parser(raw)
    found = parser._heads()
    parser._bulk_columns(found)
    classes = parser._classes().translate(diagnostics._CLASS)
    lines, _, (_, _, path, style, _), ok = parser.bulk  # (the notes ``_bulk`` reads in its runs among them)
    return lines, ok, classes, parser.starts, parser.ends, style, path, parser.diags.paths


def _bulk_both(raw: bytes, h: int):
    import operators.kernel as dispatch

    lines, ok, classes, starts, ends, style, path, paths = _bulk_inputs(raw)
    found = []
    for fn in (dispatch.diag_bulk, TWINS["diag_bulk"]):
        kind = bytearray([5]) * len(starts)
        e, grown = fn(lines, ok, classes, raw, starts, ends, style, path, paths, kind, h)
        found.append((e, bytes(grown), bytes(kind)))
    return found


BULK_PARTS = [b"a.c:1:2: warning: x [-Wfoo]\n", b"b.java:3: error: y\n", b"a.py:4:5: E501 long\n", b"  12 | int x;\n",
              b"     |     ^\n", b"\n", b"  ^\n", b"x.c: In function 'f':\n", b"note: z\n", b"a.c:9:1: note: here\n",
              b"\tcode\n", b"plain text\n", b"a.py:2:1: F401 unused\n"]


@settings(max_examples=examples(1500), deadline=None)
@given(parts=st.lists(st.sampled_from(BULK_PARTS), min_size=1, max_size=40), data=st.data())
def test_diag_bulk_matches_the_python_twin(parts, data):
    raw = b"".join(parts)
    lines = _bulk_inputs(raw)[0]
    if len(lines):
        kernel_made, twin_made = _bulk_both(raw, data.draw(st.integers(0, len(lines) - 1)))
        assert kernel_made == twin_made


def test_diag_bulk_of_a_generated_output():
    from bench.generate import make_diag_gcc

    import operators.kernel as dispatch

    raw = make_diag_gcc(300_000)
    lines, ok, classes, starts, ends, style, path, paths = _bulk_inputs(raw)
    found = []
    for fn in (dispatch.diag_bulk, TWINS["diag_bulk"]):
        kind, grown, h = bytearray([5]) * len(starts), b"", 0
        while h < len(lines):
            if ok[h]:
                e, more = fn(lines, ok, classes, raw, starts, ends, style, path, paths, kind, h)
                grown += bytes(more)
                h = e
            else:
                h += 1
        found.append((grown, bytes(kind)))
    assert found[0] == found[1] and len(found[0][0]) > 16_000


RUST_DETAIL_PARTS = [b"   |\n", b"12 |     let x = 1;\n", b"   = help: for further information visit https://x.io/a#needless_range_loop\n",
                     b"   = note: `#[warn(clippy::all)]` on by default\n", b"   = help: for further information visit a b#c\n",
                     b"   = note: `#[deny(unused)]` on by default now\n", b"help: use x\n", b"\n", b"warning: y\n",
                     b"  --> a.rs:1:2\n", b"   = help: see #x-y\n", b"   = help: for further information visit x#\n"]


@settings(max_examples=examples(1500), deadline=None)
@given(parts=st.lists(st.sampled_from(RUST_DETAIL_PARTS), min_size=1, max_size=40), data=st.data())
def test_diag_rust_details_match_the_python_twin(parts, data):
    import operators.kernel as dispatch

    raw = b"".join(parts)
    starts, ends = _diag_lines(raw)
    classes = bytes(c & 0x7F for c in dispatch.diag_lines(raw))
    first = data.draw(st.integers(0, len(starts)))
    stop = data.draw(st.integers(first, len(starts)))
    found = []
    for fn in (dispatch.diag_rust_details, TWINS["diag_rust_details"]):
        kind = bytearray([5]) * len(starts)
        k, lints = fn(raw, starts, ends, classes, kind, first, stop)
        found.append((k, bytes(lints), bytes(kind)))
    assert found[0] == found[1]


def test_diag_rust_details_of_a_generated_output():
    import operators.kernel as dispatch
    from bench.generate import make_diag_clippy

    raw = make_diag_clippy(300_000)
    starts, ends = _diag_lines(raw)
    classes = bytes(c & 0x7F for c in dispatch.diag_lines(raw))
    found = []
    for fn in (dispatch.diag_rust_details, TWINS["diag_rust_details"]):
        kind, lints, i = bytearray([5]) * len(starts), b"", 0
        while i < len(starts):
            k, more = fn(raw, starts, ends, classes, kind, i, len(starts))
            lints += bytes(more)
            i = max(k, i + 1)
        found.append((lints, bytes(kind)))
    assert found[0] == found[1] and len(found[0][0]) > 1000


RUST_RUN_PARTS = RUST_DETAIL_PARTS + [b"warning: unused `x`\n", b"error[E0308]: mismatched types\n", b"note: same as above\n",
                                      b"information: i\n", b"info[x:y-z]: j\n", b"E501 line too long\n", b"F401 [*] `os` unused\n",
                                      b"ABCDE12 no\n", b"AB12345 no\n", b"warning[bad code]: x\n", b"error: \n",
                                      b"   --> src/a.rs:12:5\n", b"  --> C:12:3\n", b"  --> C:\\a.rs:1\n", b"  --> a.rs:1:2:3\n",
                                      b"  --> a b.rs:1\n", b"  -->  a.rs:1 \n", b"fatal error: z\n", b"warning: a [x]: b\n"]


def _rust_run_both(raw: bytes, first: int, stop: int, rust_keys: dict):
    """``diag_rust_run`` by the kernel and by its twin, each with its own tables and kinds."""
    import operators.kernel as dispatch

    starts, ends = _diag_lines(raw)
    classes = bytes(c & 0x7F for c in dispatch.diag_lines(raw))
    found = []
    for fn in (dispatch.diag_rust_run, TWINS["diag_rust_run"]):
        kind, tables = bytearray([5]) * len(starts), ({}, [], {}, [])
        made = fn(raw, starts, ends, classes, kind, first, min(stop, len(starts)), dict(rust_keys), *tables)
        found.append((made[0], *(bytes(x) for x in made[1:7]), made[7], bytes(made[8]), made[9], bytes(kind), tables))
    return found


@settings(max_examples=examples(2000), deadline=None)
@given(parts=st.lists(st.sampled_from(RUST_RUN_PARTS), min_size=1, max_size=40), data=st.data())
def test_diag_rust_run_matches_the_python_twin(parts, data):
    raw = b"".join(parts)
    n = raw.count(b"\n") + (not raw.endswith(b"\n"))
    first = data.draw(st.integers(0, n))
    known = {b"E0308": 3, b"E501": 4, b"F401": 5, ("warning", b"unused `x`"): 6, ("info", b"j"): 7, ("information", b"i"): 8,
             ("fatal error", b"z"): 9, ("warning", b"a [x]: b"): 10}
    rust_keys = {name: key for name, key in known.items() if data.draw(st.booleans())}
    kernel_made, twin_made = _rust_run_both(raw, first, data.draw(st.integers(first, n)), rust_keys)
    assert kernel_made == twin_made


def test_diag_rust_run_of_a_generated_output():
    import operators.kernel as dispatch
    from bench.generate import make_diag_clippy
    from operators.types import diagnostics

    raw = make_diag_clippy(300_000)
    parser = diagnostics.parse(raw)  # the rules as the parser keeps them
    starts, ends = _diag_lines(raw)
    rust_keys = {}
    for m in diagnostics.RUST_BLOCK_RE.finditer(raw):
        code = m.group(2) or m.group(4)
        rust_keys[code or ((m.group(1) or b"").decode() or "error", m.group(3))] = len(rust_keys)
    i, read, notes = 0, 0, 0
    while i < len(starts):
        kernel_made, twin_made = _rust_run_both(raw, i, len(starts), rust_keys)
        assert kernel_made == twin_made
        read += len(kernel_made[7])
        notes += sum(raw.startswith(b"note: ", starts[h]) for h in memoryview(kernel_made[1]).cast("i"))
        i = max(kernel_made[0], i + 1)
    assert read > 500 and len(parser.diags) > 500
    assert notes > 50  # ``note: same as this`` at another place: read in the run, as ``_rust_head`` reads it


def test_the_diagnostics_twins_restate_the_reducers_patterns_exactly():
    """The twins sit below the content types and cannot import them: the patterns both match are
    written once (``operators.kernel.diag_patterns``); a twin or the reducer that goes back to a copy of
    its own that differs is caught here."""
    from operators.kernel import diag_twins
    from operators.types import diagnostics

    for twin, own in (("_SUMMARY_RE", "SUMMARY_RE"), ("_PROGRESS_RE", "PROGRESS_RE"), ("_INDENT_RE", "INDENT_RE"),
                      ("_TSC_LINE_RE", "TSC_RE"), ("_CARET_LINE_RE", "CARET_RE")):
        assert getattr(diag_twins, twin).pattern == getattr(diagnostics, own).pattern, own
    assert diag_twins._ODD_FIRST == diagnostics._ODD_FIRST


PLACE_LINE = st.lists(st.sampled_from([b" ", b"\t", b"\xc2\xa0", b"a.py", b"src/a.py", b":", b"12", b"3", b" - ", b"-", b"x",
                                       b"error", b"\x0b", b"\r"]), max_size=10).map(b"".join)


@given(lines=st.lists(PLACE_LINE, min_size=1, max_size=6), data=st.data())
def test_diag_place_sizes_match_the_python_twin(lines, data):
    """The size of each place as ``_Kept.place`` makes it, or the same error, kernel and twin alike."""
    import operators.kernel as dispatch

    raw = b"\n".join(lines) + b"\n"
    starts = array("I", accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
    ends = array("I", (start + len(line) + 1 for start, line in zip(starts, lines)))
    n = data.draw(st.integers(1, 8))
    heads = array("I", data.draw(st.lists(st.integers(0, len(lines) - 1), min_size=n, max_size=n)))
    paths = [b"a.py", b"src/a.py", b"", b"12"]
    path = array("I", data.draw(st.lists(st.integers(0, len(paths) - 1), min_size=n, max_size=n)))
    style = bytearray(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    js = array("q", data.draw(st.lists(st.integers(-1, n), max_size=6)))
    for name in ("diag_place_sizes", "diag_places"):
        made = []
        for fn in (getattr(dispatch, name), TWINS[name]):
            try:
                got = fn(raw, starts, ends, heads, path, style, js, paths, 1)
                made.append(got if isinstance(got, list) else bytes(got))
            except ValueError as error:
                made.append(str(error))
        assert made[0] == made[1]


def test_diag_place_sizes_of_generated_outputs():
    """Each place's size, kernel and twin, is that of the place ``_Kept.place`` makes (eslint's stylish, pyright's)."""
    import operators.kernel as dispatch
    from bench.generate import make_diag_pyright, make_diag_stylish
    from operators.types import diagnostics

    for make in (make_diag_stylish, make_diag_pyright):
        p = diagnostics._Parser(make(200_000)).run()
        kept, n = p.diags.texts_kept, len(p.diags)
        js = array("q", range(0, n, 3))
        args = (p.diags.texts.raw, p.diags.texts.starts, p.diags.texts.ends, p.diags.head, p.diags.path, p.diags.style, js,
                p.diags.paths, diagnostics.STYLISH)
        made = list(memoryview(dispatch.diag_place_sizes(*args)).cast("I"))
        places = [kept.place(j) for j in js]
        assert made == list(memoryview(TWINS["diag_place_sizes"](*args)).cast("I")) == list(map(len, places))
        assert dispatch.diag_places(*args) == TWINS["diag_places"](*args) == places
        assert n > 1000


# id classes (``id_classes``): shapes that differ only inside their hex ids are one class; the signal
# flags and the masks of a class's shapes are its first shape's
IDISH_PIECES = [b"0e0b0", b"f0a0", b"a0", b"0c0ca0a0a0", b"0", b"00", b"ab", b"dead", b"0f", b"f0", b"0E0", b"g0",
                b"-", b"_", b"=", b":", b" ", b".", b"x", b"0x", b"0x0", b"E", b"E/", b"(", b")", b"'", b'"', b"\x01",
                b"\xff", b"code", b"CODE ", b"status", b"exit code ", b"exit status=", b"error", b"ERROR", b"timeout",
                b"HTTP/", b"ORA-", b"req", b"u", b"0:0:0.0 0 0 E ", b":0:0.0 0 0 W ", b"W/", b"TCP_MISS/", b"failed", b"Error"]
IDISH = st.lists(st.sampled_from(IDISH_PIECES), max_size=14).map(b"".join)
IDS = [b"0e0b0", b"f0a0", b"a0", b"0a", b"0c0ca0", b"ab0", b"0ab", b"00", b"0", b"ab", b"a0b", b"0b0"]


@st.composite
def id_variants(draw):
    """Shapes that differ in their ids: a template of pieces and holes, each shape the template with an
    id in each hole (hex runs with or without a digit, starting or ending with one or not)."""
    template = draw(st.lists(st.one_of(st.sampled_from(IDISH_PIECES), st.none()), min_size=1, max_size=10))
    shapes = []
    for _ in range(draw(st.integers(1, 4))):
        shapes.append(b"".join(piece if piece is not None else draw(st.sampled_from(IDS)) for piece in template))
    return shapes


IDISH_SHAPES = st.one_of(st.lists(IDISH, min_size=1, max_size=16),
                         st.lists(id_variants(), min_size=1, max_size=4).map(lambda groups: [s for g in groups for s in g]))


def shape_table(shapes):
    data = b"".join(shape + b"\n" for shape in shapes)
    return data, array("q", accumulate(len(shape) + 1 for shape in shapes))


@settings(max_examples=examples(2000), deadline=None)
@given(shapes=IDISH_SHAPES, check_at=st.integers(0, 6))
def test_id_classes_match_the_python_twin(shapes, check_at):
    data, ends = shape_table(shapes)
    got, want = kernel.id_classes(data, ends, check_at), twins.id_classes_py(data, ends, check_at)
    if want is None:
        assert got is None
        return
    classes, rep_data, rep_ends = got
    assert (list(memoryview(classes).cast("i")), rep_data, list(memoryview(rep_ends).cast("q"))) == (
        list(want[0]), want[1], list(want[2]))


def test_id_classes_keep_what_the_vocabulary_and_the_mask_read_of_an_id():
    key = twins.id_key_py
    assert key(b"id=0e0b0-f0a0 u_d0f0 x") == key(b"id=0a0-0b0 u_0a0 x")  # ids of another inside: one class
    assert key(b"exit code 0a") != key(b"exit code a0")  # the exit-code alternative reads an id's first byte
    assert key(b"status=-0a") != key(b"status=-a0")
    assert key(b"x=0a") == key(b"x=a0")
    assert key(b"a0:0:0.0 0 0 E ") != key(b"0a:0:0.0 0 0 E ")  # logcat's, its last byte where a ':' follows
    assert key(b"0e0b ") != key(b"0e0b_ ") and key(b"x0e0b ") == b"x0e0b "  # a word character after or before it
    assert key(b"\x01\x40") != key(b"0a")  # the shape's own \x01 is escaped
    assert key(b"dead 0 ab") == b"dead 0 ab"  # no digit, or one byte: as it is
    for shape in (b"id=0e0b0-f0a0 u_d0f0 x", b"exit code 0a", b"\x01\x40", b"dead 0 ab", b"0e0b_ "):
        data, ends = shape_table([shape])
        assert kernel.id_classes(data, ends, 0)[1] == data


@settings(max_examples=examples(1000), deadline=None)
@given(shapes=IDISH_SHAPES, data=st.data())
def test_group_classed_gives_group_shapes(shapes, data):
    shape_data, ends = shape_table(shapes)
    n = len(shapes)
    counts = array("q", data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    modes = bytes(data.draw(st.lists(st.sampled_from([1, 1, 1, 0, 2]), min_size=n, max_size=n)))
    classes = kernel.id_classes(shape_data, ends, 0)[0]
    got = kernel.group_classed(shape_data, ends, modes, counts, classes)
    want = kernel.group_shapes(shape_data, ends, modes, counts)
    assert (got[0], got[1], got[2]) == (want[0], want[1], want[2])
    py = twins.group_shapes_py(shape_data, ends, modes, counts, classes=classes)
    assert (list(memoryview(got[0]).cast("i")), got[1]) == (list(py[0]), py[1])


@settings(max_examples=examples(1000), deadline=None)
@given(shapes=IDISH_SHAPES, sparse=st.booleans())
def test_class_flags_give_signal_shapes(shapes, sparse):
    shape_data, ends = shape_table(shapes)
    classes = twins.id_classes_py(shape_data, ends, 0)
    assert log._class_flags(ends, classes, sparse) == vocab.signal_shapes(shape_data, ends, sparse)


def test_class_flags_stop_where_sparse_signal_shapes_stop():
    rng = random.Random(5)
    for every in (1, 2, 50):
        shapes = [b"0-0 INFO id=%s tick%s" % (b"%x0%x" % (rng.getrandbits(24), rng.getrandbits(8)), b" error" if k % every == 0 else b"")
                  for k in range(3000)]
        shape_data, ends = shape_table(shapes)
        classes = twins.id_classes_py(shape_data, ends, 0)
        assert len(classes[2]) <= 2
        flags = vocab.signal_shapes(shape_data, ends, sparse=True)
        assert (flags is None) == (every < 50)
        assert log._class_flags(ends, classes, sparse=True) == flags


def test_a_log_with_an_id_on_every_line_gives_the_same_plan_by_its_id_classes(monkeypatch):
    rng = random.Random(3)
    lines = []
    for k in range(6000):
        uid = b"%08x-%04x-4%03x-%04x-%012x" % tuple(rng.getrandbits(b) for b in (32, 16, 12, 16, 48))
        tail = rng.choice([b"GET /api/v1/cart 200 97ms", b"GET /healthz 200 4ms", b"exit code %x" % rng.getrandbits(12),
                           b"status=%x" % rng.getrandbits(16), b"payment failed: card declined (code 51)",
                           b"user=u_%010x" % rng.getrandbits(40), b"hr=0x8%07x" % rng.getrandbits(28) if k % 997 == 0 else b"ok"])
        lines.append(b"2026-08-16T00:00:%02d.%03dZ INFO  request_id=%s %s" % (k % 60, k % 1000, uid, tail))
    cfg = Config().log
    for raw in (b"\n".join(lines) + b"\n", b"\n".join(l for l in lines if b"0x" not in l) + b"\n"):
        for granularity in ("coarse", "fine"):
            for room in (0, 20000):
                classed = log.reduce_log(raw, granularity, cfg, room)
                monkeypatch.setattr(log, "CLASSED_SHAPES_MIN", 10**9)
                plain = log.reduce_log(raw, granularity, cfg, room)
                monkeypatch.undo()
                assert classed.pieces == plain.pieces and classed.reasons == plain.reasons
    starts, ids, shape_data, shape_ends, _ = log.scan_lines(raw, True)
    assert log._id_classes(shape_data, shape_ends) is not None  # the classes were used


@pytest.mark.parametrize("template", [b"exit code %s", b"STATUS: -%s x", b"%s:0:0.0 0 0 W ", b"x %s:0:0.0 0 0 E ",
                                      b"E/%s( 0): ", b"HTTP/%s 0", b"code=%s", b"u_%s timeout", b"%s-%s-0-%s-%s",
                                      b"0x%s", b"hr=0x%s", b"id %s error", b"%s_FAILED"])
def test_class_flags_give_signal_shapes_of_ids_in_every_place(template):
    holes = template.count(b"%s")
    shapes = [template % ((fill,) * holes) for fill in IDS + [b"0F", b"aG0", b"0_a"]]
    shape_data, ends = shape_table(shapes)
    for classes in (twins.id_classes_py(shape_data, ends, 0), log.id_classes(shape_data, ends, 0)):
        for sparse in (False, True):
            assert log._class_flags(ends, classes, sparse) == vocab.signal_shapes(shape_data, ends, sparse)
    if b"0x%s" not in template and b"%s_" not in template:  # (an id after a letter or before a '_' is none)
        assert len(twins.id_classes_py(shape_data, ends, 0)[2]) < len(shapes)  # ids made classes


def test_id_classes_of_long_shapes_match_the_python_twin():
    rng = random.Random(8)
    shapes = [b" ".join(b"id=%x0%x" % (rng.getrandbits(16), rng.getrandbits(8)) for _ in range(words))
              for words in (1, 40, 3, 200, 2, 900, 40, 1)]  # longer and longer: the key's room grows twice
    shapes += [shape.replace(b" ", b"\x01", 3) for shape in shapes]
    data, ends = shape_table(shapes)
    classes, rep_data, rep_ends = kernel.id_classes(data, ends, 0)
    want = twins.id_classes_py(data, ends, 0)
    assert (list(memoryview(classes).cast("i")), rep_data, list(memoryview(rep_ends).cast("q"))) == (
        list(want[0]), want[1], list(want[2]))



@settings(max_examples=examples(400), deadline=None)
@given(a=st.binary(max_size=300), data=st.data())
def test_sha256_pair_matches_hashlib(a, data):
    b = data.draw(st.binary(max_size=400))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(b)), max_size=8)))
    starts, ends = array("q", cuts[0::2]), array("q", cuts[1::2])
    starts = starts[: len(ends)]
    got = kernel.sha256_pair(a, b, starts, ends)
    if got is None:
        pytest.skip("no SHA-NI on this CPU: the store hashes with hashlib")
    assert got == twins.sha256_pair_py(a, b, starts, ends)


def test_sha256_pair_of_every_length_around_a_block():
    rng = random.Random(4)
    b = bytes(rng.getrandbits(8) for _ in range(70000))
    for n in (0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 129, 4096, 65537):
        a = b[:n]
        spans = [(0, n // 3), (min(n // 3 + 1, n // 2), n // 2), (n // 2, n // 2), (n, min(len(b), n + 64 + n % 7))]
        starts, ends = array("q", [x for x, _ in spans]), array("q", [y for _, y in spans])
        got = kernel.sha256_pair(a, b, starts, ends)
        if got is None:
            pytest.skip("no SHA-NI on this CPU")
        assert got == twins.sha256_pair_py(a, b, starts, ends)
    with pytest.raises(ValueError):
        kernel.sha256_pair(b"", b"ab", array("q", [1]), array("q", [3]))
