import hashlib
from array import array

import pytest

from operators.reduction import Plan, PlanError, omissions, passthrough, render, restore


def _roundtrip(plan: Plan) -> tuple[bytes, bytes]:
    contents = omissions(plan)
    ids = {g: f"ctx_{i:06x}" for i, g in enumerate(contents)}
    visible, layout, _ = render(plan, ids)
    return visible, restore(visible, layout, list(contents.values()))


def test_plan_must_cover_every_byte_in_order():
    plan = Plan(b"abcdef")
    plan.keep(0, 2)
    with pytest.raises(PlanError):
        plan.keep(3, 4)  # skips a byte
    plan = Plan(b"abcdef")
    plan.keep(0, 3)
    with pytest.raises(PlanError):
        plan.finish()  # stops short


def test_marker_of_a_group_that_omits_nothing_is_refused():
    plan = Plan(b"abc").keep_rest()
    plan.mark("nothing")
    with pytest.raises(PlanError):
        plan.finish()


def test_render_and_restore_interleaved_groups():
    raw = b"keep1 DROP_A keep2 DROP_B keep3 DROP_A2"
    plan = Plan(raw)
    plan.keep(0, 6)
    plan.omit(6, 13, "a", "first")
    plan.show(b"[a]")
    plan.keep(13, 19)
    plan.omit(19, 26, "b", "second")
    plan.mark("b")
    plan.keep(26, 32)
    plan.omit(32, len(raw), "a", "first")
    plan.mark("a")
    plan.finish()
    contents = omissions(plan)
    assert contents == {"a": b"DROP_A DROP_A2", "b": b"DROP_B "}
    visible, restored = _roundtrip(plan)
    assert b"DROP" not in visible and b"#ref:ctx_000001" in visible
    assert restored == raw


def test_marker_looking_text_in_input_does_not_confuse_restore():
    raw = b"real text #ref:ctx_000000 planted marker\n" * 3
    plan = Plan(raw)
    line = len(raw) // 3
    plan.keep(0, line)
    plan.omit(line, len(raw), "g", "rest")
    plan.mark("g")
    visible, restored = _roundtrip(plan.finish())
    assert visible.count(b"#ref:ctx_000000") == 2  # the planted one and the real one
    assert restored == raw


def test_passthrough_is_identity():
    raw = b"\x00\xff\r\nno newline"
    visible, restored = _roundtrip(passthrough(raw))
    assert visible == raw and restored == raw


def test_restores_to_compares_every_piece():
    from operators.reduction import restores_to

    raw = b"keep this DROP that keep the end"
    plan = Plan(raw)
    plan.keep(0, 10)
    plan.omit(10, 19, "g", "r")
    plan.mark("g")
    plan.keep(19, len(raw))
    contents = omissions(plan.finish())
    visible, layout, _ = render(plan, {"g": "ctx_000000"})
    refs = list(contents.values())
    assert restores_to(raw, visible, layout, refs)
    assert not restores_to(raw[:-1] + b"X", visible, layout, refs)  # last piece differs
    assert not restores_to(b"KEEP" + raw[4:], visible, layout, refs)  # first piece differs
    assert not restores_to(raw + b"!", visible, layout, refs)  # original longer
    assert not restores_to(raw[:-3], visible, layout, refs)  # original shorter
    assert not restores_to(raw, visible, layout, [refs[0][:-1] + b"?"])  # a ref differs
    assert not restores_to(raw, visible, layout, [refs[0] + b"extra"])  # a ref holds more than it stands for
    assert not restores_to(raw, visible, layout, refs + [b"unused"])  # a ref the layout never reads
    shifted = [list(e) for e in layout]
    ref_entry = next(e for e in shifted if e[0] == 1)
    ref_entry[2] += 1  # read from offset 1 of a ref whose first byte is then never used ...
    assert not restores_to(raw, visible, shifted, [raw[10:11] + refs[0]])  # ... even when the bytes line up


def _big_plan() -> Plan:
    """Lines alternately kept and omitted into group "a", plus one short group "b"."""
    lines = [b"line %06d %s\n" % (i, b"x" * (i % 50)) for i in range(6000)]
    raw = b"".join(lines)
    plan = Plan(raw)
    pos = 0
    for i, line in enumerate(lines):
        if i % 3 == 0:
            plan.keep(pos, pos + len(line))
        else:
            plan.omit(pos, pos + len(line), "b" if i == 1 else "a", "test")
        pos += len(line)
    return plan.finish()


def test_shared_omissions_are_views_of_raw_with_the_same_bytes(home):
    from operators.reduction import SHARE_MIN, Spans, restores_to
    from operators.store import Store, content_sha256

    plan = _big_plan()
    copies, shared = omissions(plan), omissions(plan, share=True)
    assert isinstance(shared["a"], Spans) and len(shared["a"]) >= SHARE_MIN
    assert isinstance(shared["b"], bytes)  # small groups stay plain bytes
    assert bytes(shared["a"]) == copies["a"] and shared["b"] == copies["b"]
    assert all(part.obj is plan.raw for part in shared["a"].parts())  # no copy of the input
    assert content_sha256(shared["a"]) == content_sha256(copies["a"]) == hashlib.sha256(copies["a"]).hexdigest()

    store = Store(home)
    ref, _ = store.put("s", "log", "test", shared["a"])
    assert store.get(ref.id).content == copies["a"]
    assert store.holds(ref.id, shared["a"]) and store.holds(ref.id, shared["a"], ref.sha256)
    a = shared["a"]
    assert not store.holds(ref.id, Spans(plan.raw, a.starts[:-1], a.ends[:-1]), ref.sha256)  # one span short
    blob = next(store.dir.glob("blob_*.bin"))
    blob.write_bytes(copies["a"][:-1] + b"!")
    assert not store.holds(ref.id, shared["a"], ref.sha256) and not store.holds(ref.id, shared["a"])
    ids = {g: f"ctx_{i:06x}" for i, g in enumerate(shared)}
    visible, layout, _ = render(plan, ids)
    assert restores_to(plan.raw, visible, layout, list(shared.values()))
    assert not restores_to(plan.raw[:-1] + b"!", visible, layout, list(shared.values()))


def test_restores_to_reads_spans_in_order_within_and_across_parts():
    from array import array

    from operators.reduction import Layout, Spans, restores_to

    raw = b"AAAAxBBBByCCCC"
    spans = Spans(raw, array("q", [0, 5, 10]), array("q", [4, 9, 14]))  # "AAAA" "BBBB" "CCCC"
    original = b"AAAABBBBCCCC"
    for entries in ([[1, 0, 0, 4], [1, 0, 4, 4], [1, 0, 8, 4]],  # a span each
                    [[1, 0, 0, 6], [1, 0, 6, 6]],  # across parts
                    [[1, 0, 0, 2], [1, 0, 2, 2], [1, 0, 4, 8]],  # within one, then across two
                    [[1, 0, 0, 12]]):
        layout = Layout.from_lists(entries)
        assert restores_to(original, b"", layout, [spans]), entries
        for i in range(len(original)):  # any byte of the original changed: no
            assert not restores_to(original[:i] + b"z" + original[i + 1:], b"", layout, [spans]), (entries, i)
    assert not restores_to(original, b"", Layout.from_lists([[1, 0, 0, 4], [1, 0, 8, 4]]), [spans])  # a gap
    assert not restores_to(original[:8], b"", Layout.from_lists([[1, 0, 0, 8]]), [spans])  # not all of the ref


def test_spans_view_across_parts_and_within_one():
    from operators.reduction import Spans

    spans = Spans(b"..abc.defg", array("q", [2, 6]), array("q", [5, 10]))
    assert len(spans) == 7 and bytes(spans) == b"abcdefg"
    assert bytes(spans.view(3, 2)) == b"de" and bytes(spans.view(2, 3)) == b"cde" and bytes(spans.view(0, 7)) == b"abcdefg"


def test_spans_view_across_parts_copies_only_what_it_returns():
    """Every (offset, length) reads the joined bytes, empty spans and the end included; a view across
    spans is a copy of its own bytes, not of the whole ref (the search index reads 1 MB of a 100 MB ref)."""
    from operators.reduction import Spans

    raw = bytes(range(97, 123)) * 2
    spans = Spans(raw, array("q", [1, 4, 4, 9, 20, 30]), array("q", [3, 4, 8, 15, 28, 52]))
    joined = bytes(spans)
    assert len(joined) == 2 + 0 + 4 + 6 + 8 + 22
    for offset in range(len(joined) + 3):
        for length in range(len(joined) + 3 - offset):
            assert bytes(spans.view(offset, length)) == joined[offset : offset + length], (offset, length)

    class Counting(Spans):
        joins = 0

        def __bytes__(self):
            Counting.joins += 1
            return super().__bytes__()

    big = Counting(raw, spans.starts, spans.ends)
    assert bytes(big.view(1, 30)) == joined[1:31] and Counting.joins == 0


def test_layout_json_is_the_text_a_list_of_lists_encodes_to_and_reads_back():
    import msgspec

    from operators.reduction import Layout

    plan = _big_plan()
    contents = omissions(plan)
    _, layout, _ = render(plan, {g: f"ctx_{i:06x}" for i, g in enumerate(contents)})
    entries = list(layout)
    assert len(entries) > 1000 and {len(e) for e in entries} == {3, 4}
    text = layout.to_json()
    assert text == msgspec.json.encode(entries)  # manifests written before Layout read the same
    assert list(Layout.from_json(text)) == entries
    assert layout.kept_bytes() == sum(e[2] for e in entries if e[0] == 0)
    assert list(Layout.from_json(b"[]")) == []
    assert list(Layout.from_json(b"[ [0, 1, 2] , [1,0,5,6] ]")) == [[0, 1, 2], [1, 0, 5, 6]]  # other spacing
    for n in (0, 1, 4095, 4096, 4097, 8193):  # written in batches of 4096 entries: every seam
        built = Layout()
        for i in range(n):
            if i % 2:
                built.add_ref(0, i, 1)
            else:
                built.add_visible(i * 10, 1)
        assert built.to_json() == msgspec.json.encode(list(built)) and len(built) == n


@pytest.mark.parametrize("bad", [b"[[2,1,2]]", b"[[0,1]]", b"[[0,-1,2]]", b"{}", b"[[0,1,2],]", b"[[1,0,0]]", b"", b"[[0,1,2]"])
def test_layout_from_json_refuses_what_is_not_a_layout(bad):
    from operators.reduction import Layout

    with pytest.raises(ValueError):
        Layout.from_json(bad)
