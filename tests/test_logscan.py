"""The log reducer's C kernel against its pure-Python twin: same line starts, shape ids, shapes, counts,
visible lines and masks for any bytes; and the whole reducer gives the same plan with either."""

import random
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from operators.config import Config
from operators.reducers import log

kernel = log._logscan
if kernel is None:  # the install builds it wherever a C compiler exists (setup.py); say so, never skip silently
    pytest.fail("the C kernel operators/reducers/_logscan was not built: run pip install -e . with a C compiler",
                pytrace=False)

LINEISH = st.lists(
    st.sampled_from([b"\n", b"\r\n", b"0", b"7", b"42", b"1234567", b"a", b"ff", b"0x1f", b"ERROR", b" ", b"\x00",
                     b"\xff", b"\xc3\xa9", b"=", b":", b"/", b"_", b"DEADbeef9", b"g"]),
    max_size=60,
).map(b"".join)


def py_scan(raw, mask):
    starts, ids, shapes, counts = log.scan_lines_py(raw, mask)
    return list(starts), list(ids), shapes, counts


def c_scan(raw, mask):
    starts, ids, shapes, counts = kernel.scan(raw, mask)
    return list(memoryview(starts).cast("q")), list(memoryview(ids).cast("i")), shapes, counts


@settings(max_examples=400, deadline=None)
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
    old_block = log.SHAPE_BLOCK
    log.SHAPE_BLOCK = 4096  # many blocks in the twin: block seams must not change anything
    try:
        assert c_scan(raw, True) == py_scan(raw, True)
    finally:
        log.SHAPE_BLOCK = old_block


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_select_matches_the_python_twin(data):
    n_ids = data.draw(st.integers(1, 6))
    n_templates = data.draw(st.integers(1, 4))
    ids = array("i", data.draw(st.lists(st.integers(0, n_ids - 1), max_size=40)))
    template_of = array("i", data.draw(st.lists(st.integers(0, n_templates - 1), min_size=n_ids, max_size=n_ids)))
    frequent = bytes(data.draw(st.lists(st.integers(0, 1), min_size=n_templates, max_size=n_templates)))
    verbatim = array("q", sorted(data.draw(st.sets(st.integers(0, max(len(ids) - 1, 0)), max_size=5))) if ids else [])
    got = list(memoryview(kernel.select(ids, template_of, frequent, verbatim)).cast("q"))
    assert got == list(log.select_py(ids, template_of, frequent, verbatim))


def test_select_rejects_ids_out_of_range():
    with pytest.raises(ValueError):
        kernel.select(array("i", [3]), array("i", [0]), b"\x01", array("q"))


@settings(max_examples=2000, deadline=None)
@given(shape=st.lists(st.sampled_from(list(b"0123456789abcdefABCDEFxXgz_ .:-/#\x00\xff")), max_size=16).map(bytes))
def test_mask_matches_the_regex(shape):
    assert kernel.mask(shape) == log.mask_py(shape)


def test_mask_examples():
    assert kernel.mask(b"id=0x7fA3 sha 9f86d08 word cafe 12ms a1b2c3_x") == b"id=# sha # word cafe #ms a#b#c#_x"


@settings(max_examples=150, deadline=None)
@given(raw=LINEISH, fold_min=st.integers(2, 4), granularity=st.sampled_from(["coarse", "fine"]))
def test_reducer_gives_the_same_plan_with_or_without_the_kernel(raw, fold_min, granularity, monkeypatch_module):
    cfg = Config().log
    cfg = type(cfg)(**{**{f: getattr(cfg, f) for f in cfg.__struct_fields__}, "fold_min": fold_min})
    with_kernel = log.reduce_log(raw * 3, granularity, cfg)
    monkeypatch_module.setattr(log, "_logscan", None)
    monkeypatch_module.setattr(log, "_mask", log.mask_py)
    try:
        without = log.reduce_log(raw * 3, granularity, cfg)
    finally:
        monkeypatch_module.undo()
    assert with_kernel.pieces == without.pieces and with_kernel.reasons == without.reasons


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp
