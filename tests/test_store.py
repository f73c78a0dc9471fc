import hashlib
import multiprocessing
import os
import time

import msgspec
import pytest

from operators.store import Store, StoreError, assign_ids, content_sha256, normalize_ref_id, pure_ref_id, ref_digest


def test_put_get_roundtrip_exact_bytes(home):
    store = Store(home)
    content = b"line one\r\nline two\x00\xff\xfe no final newline"
    ref, created = store.put("src.log", "log", "folded", content)
    assert created
    assert ref.id == pure_ref_id("src.log", "folded", content)
    assert store.get(ref.id).content == content
    assert store.get("#ref:" + ref.id).content == content


def test_idempotent_for_equal_content(home):
    store = Store(home)
    a, created_a = store.put("s", "log", "r", b"same bytes")
    b, created_b = store.put("s", "log", "r", b"same bytes")
    assert a.id == b.id and created_a and not created_b
    assert len(list(store.dir.glob("ctx_*.json"))) == 1


def test_id_depends_on_source_reason_and_content_unambiguously(home):
    # "ab"+"c" and "a"+"bc" must not hash alike
    x = content_sha256(b"x")
    assert ref_digest("ab", "c", x, 1) != ref_digest("a", "bc", x, 1)
    assert ref_digest("s", "r", content_sha256(b"1"), 1) != ref_digest("s", "r", content_sha256(b"2"), 1)
    assert ref_digest("s", "r", x, 1) != ref_digest("s", "r", x, 2)
    assert content_sha256(b"x") == hashlib.sha256(b"x").hexdigest()


def test_prefix_collision_lengthens_id_and_never_overwrites(home):
    store = Store(home)
    content = b"the real content"
    digest = ref_digest("s", "r", content_sha256(content), len(content))
    squatter = store.dir / f"ctx_{digest[:6]}.json"
    store.dir.mkdir(parents=True)
    other, _ = Store(home / "other").put("elsewhere", "log", "r", b"different content")
    squatter_bytes = (home / "other" / "context" / f"{other.id}.json").read_bytes()
    squatter.write_bytes(squatter_bytes)

    ref, created = store.put("s", "log", "r", content)
    assert created
    assert ref.id == f"ctx_{digest[:7]}"
    assert squatter.read_bytes() == squatter_bytes  # untouched
    assert store.get(ref.id).content == content


def test_no_temp_files_left_behind(home):
    store = Store(home)
    for i in range(20):
        store.put("s", "log", "r", b"x" * i)
    assert sorted(p.name for p in store.dir.iterdir() if not p.name.startswith("ctx_")) == []


@pytest.mark.parametrize("bad", [
    "../../etc/passwd", "ctx_../../x", "ctx_12345", "ctx_ABCDEF", "#ref:ctx_abc", "ref:ctx_abcdef",
    "ctx_" + "a" * 65, "", "ctx_abcdef/../../x", "ctx_abc def", "pkt_abcdef123456",
])
def test_malformed_ids_are_rejected_before_any_path_is_built(home, bad):
    with pytest.raises(StoreError, match="not a ref id"):
        Store(home).get(bad)
    with pytest.raises(StoreError):
        normalize_ref_id(bad)


def test_surrounding_whitespace_of_a_pasted_id_is_tolerated():
    assert normalize_ref_id(" #ref:ctx_abcdef\n") == "ctx_abcdef"


def test_unknown_id_is_a_clear_error(home):
    with pytest.raises(StoreError, match="unknown ref ctx_abcdef"):
        Store(home).get("ctx_abcdef")


def test_corrupt_and_truncated_files_name_the_file(home):
    store = Store(home)
    ref, _ = store.put("s", "log", "r", b"some content here")
    path = store.dir / f"{ref.id}.json"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(StoreError, match=str(path)):
        store.get(ref.id)
    record = msgspec.json.decode(data)
    record["content"] = "tampered"
    path.write_bytes(msgspec.json.encode(record))
    with pytest.raises(StoreError, match="corrupt"):
        store.get(ref.id)


def test_non_utf8_content_is_stored_losslessly(home):
    store = Store(home)
    content = bytes(range(256)) * 3
    ref, _ = store.put("bin", "text", "r", content)
    record = msgspec.json.decode((store.dir / f"{ref.id}.json").read_bytes())
    assert record["encoding"] == "base64"
    assert store.get(ref.id).content == content


def _writer(home, worker, n, queue):
    store = Store(home)
    ids = []
    for i in range(n):
        shared, _ = store.put("shared", "log", "r", b"same for everyone %d" % i)
        own, _ = store.put("own", "log", "r", b"worker %d item %d" % (worker, i) * 50)
        ids.append((shared.id, own.id))
    queue.put(ids)


def test_concurrent_processes_never_produce_partial_or_mixed_files(home):
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(home, w, 150, queue)) for w in range(3)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    shared_ids = {tuple(s for s, _ in r) for r in results}
    assert len(shared_ids) == 1  # every process got the same ids for the same content
    store = Store(home)
    files = list(store.dir.glob("ctx_*.json"))
    assert len(files) == 150 + 3 * 150
    for path in files:
        ref = store.get(path.stem)  # validates sha256, size and id of every file
        assert hashlib.sha256(ref.content).hexdigest()
    assert not [p for p in os.listdir(store.dir) if p.startswith(".tmp-")]


def test_gc_by_age_and_size(home):
    store = Store(home)
    old, _ = store.put("s", "log", "r", b"old" * 100)
    new, _ = store.put("s", "log", "r", b"new" * 100)
    old_path = store.dir / f"{old.id}.json"
    os.utime(old_path, (1, 1))
    removed, _ = store.gc(older_than=3600)
    assert removed == 1 and not old_path.exists()
    assert store.get(new.id).content == b"new" * 100
    for i in range(5):
        store.put("s", "log", "r", b"%d" % i * 1000)
    removed, _ = store.gc(max_bytes=3000)
    _, size = store.size()
    assert removed >= 1 and size <= 3000


def test_large_contents_live_raw_in_a_shared_sidecar_and_are_verified(home):
    from operators.store import SIDECAR_MIN

    store = Store(home)
    content = b"\xff\x00 large, not UTF-8\r\n" * (SIDECAR_MIN // 10)
    a, _ = store.put("one.log", "log", "r", content)
    b, _ = store.put("two.log", "log", "r", content)
    assert a.id != b.id
    blobs = list(store.dir.glob("blob_*.bin"))
    assert len(blobs) == 1 and blobs[0].read_bytes() == content  # raw bytes, shared
    record = msgspec.json.decode((store.dir / f"{a.id}.json").read_bytes())
    assert record["encoding"] == "sidecar" and record["content"] == ""
    assert store.get(a.id).content == content and store.get(b.id).content == content
    blobs[0].write_bytes(content[:-1] + b"X")
    with pytest.raises(StoreError, match="corrupt"):
        store.get(a.id)
    blobs[0].unlink()
    with pytest.raises(StoreError, match="missing"):
        store.get(b.id)


def test_gc_and_size_count_sidecars(home):
    from operators.store import SIDECAR_MIN

    store = Store(home)
    store.put("s", "log", "r", b"y" * SIDECAR_MIN)
    files, size = store.size()
    assert files == 2 and size > SIDECAR_MIN
    removed, freed = store.gc(max_bytes=0)
    assert removed == 2 and freed == size and not list(store.dir.iterdir())


def test_holds_checks_the_exact_bytes_of_small_and_sidecar_refs(home):
    from operators.store import SIDECAR_MIN

    store = Store(home)
    for content in (b"small content", b"\x00large\xff" * SIDECAR_MIN):
        ref, _ = store.put("s", "log", "r", content)
        assert store.holds(ref.id, content)
        assert not store.holds(ref.id, content[:-1] + b"!")
        assert not store.holds(ref.id, content + b"x")
    blob = next(store.dir.glob("blob_*.bin"))
    blob.write_bytes(blob.read_bytes()[:-1] + b"!")
    assert not store.holds(ref.id, b"\x00large\xff" * SIDECAR_MIN)


def test_holds_with_the_sha256_from_put_still_compares_every_byte(home):
    import hashlib

    from operators.store import SIDECAR_MIN

    store = Store(home)
    content = b"\x00large\xff" * SIDECAR_MIN
    ref, _ = store.put("s", "log", "r", content)
    assert ref.sha256 == hashlib.sha256(content).hexdigest()
    assert store.holds(ref.id, content, ref.sha256)
    assert not store.holds(ref.id, content, "0" * 64)  # the record must carry that sha256
    assert not store.holds(ref.id, content[:-1] + b"!", ref.sha256)
    blob = next(store.dir.glob("blob_*.bin"))
    blob.write_bytes(content[:-1] + b"!")
    assert not store.holds(ref.id, content, ref.sha256)


def test_holds_compares_spans_across_the_blob_read_chunks(home):
    import random
    from array import array

    from operators.reduction import Spans

    rng = random.Random(4)
    raw = rng.randbytes(5 << 20)
    starts, ends, pos = array("q"), array("q"), 0
    while pos < len(raw) - 10:  # spans of 1 byte to 1.5 MiB, with gaps, crossing the 1 MiB reads
        size = rng.choice([1, 7, 4096, 300_000, 1_500_000])
        end = min(pos + size, len(raw))
        starts.append(pos)
        ends.append(end)
        pos = end + rng.randint(0, 3)
    content = Spans(raw, starts, ends)
    store = Store(home)
    ref, _ = store.put("s", "log", "r", content)
    joined = bytes(content)
    assert store.get(ref.id).content == joined
    assert store.holds(ref.id, content, ref.sha256) and store.holds(ref.id, content)
    blob = next(store.dir.glob("blob_*.bin"))
    blob.write_bytes(joined[:-3_000_000] + b"!" + joined[-2_999_999:])  # one byte changed, far in
    assert not store.holds(ref.id, content, ref.sha256) and not store.holds(ref.id, content)


def test_refs_written_under_the_earlier_id_scheme_are_still_read_and_checked(home):
    """Ids used to be keyed on the content itself, not on its sha256: such records must stay readable."""
    store = Store(home)
    content = b"folded lines\n" * 10
    h = hashlib.sha256()
    for field in (b"old.log", b"folded", content):  # the earlier scheme: len:field; over the content itself
        h.update(b"%d:%s;" % (len(field), field))
    old_id = "ctx_" + h.hexdigest()[:6]
    assert old_id != pure_ref_id("old.log", "folded", content)
    store.dir.mkdir(parents=True)
    record = {"id": old_id, "source": "old.log", "type": "log", "reason": "folded", "encoding": "utf-8",
              "content": content.decode(), "bytes": len(content), "sha256": hashlib.sha256(content).hexdigest(),
              "created": 0.0}
    (store.dir / f"{old_id}.json").write_bytes(msgspec.json.encode(record))
    assert store.get(old_id).content == content
    assert store.holds(old_id, content) and store.holds(old_id, content, hashlib.sha256(content).hexdigest())
    assert not store.holds(old_id, content + b"x")


def test_a_blob_already_in_the_store_is_not_written_again_but_marked_in_use(home, monkeypatch):
    from operators.store import SIDECAR_MIN

    store = Store(home)
    content = b"big folded output\n" * (SIDECAR_MIN // 10)
    first, _ = store.put("a.log", "log", "r", content)
    blob = next(store.dir.glob("blob_*.bin"))
    os.utime(blob, (1, 1))
    written = []
    real = store._create_exclusive
    monkeypatch.setattr(store, "_create_exclusive", lambda path, data: written.append(path.name) or real(path, data))
    second, created = store.put("b.log", "log", "r", content)  # the same bytes from another source
    assert created and second.id != first.id  # a record of its own ...
    assert not [name for name in written if name.startswith("blob_")]  # ... sharing the blob, not rewriting it
    assert blob.stat().st_mtime > 1  # in use again: gc by age keeps it
    assert store.get(second.id).content == content


def test_gc_removes_a_shared_blob_only_with_its_last_ref_and_old_orphan_blobs(home):
    from operators.store import SIDECAR_MIN, TEMP_GRACE

    store = Store(home)
    content = b"\x00shared large content\n" * (SIDECAR_MIN // 10)
    a, _ = store.put("a.log", "log", "r", content)
    b, _ = store.put("b.log", "log", "r", content)
    [blob] = store.dir.glob("blob_*.bin")
    old = time.time() - 30 * 86400
    os.utime(store.dir / f"{a.id}.json", (old, old))
    os.utime(blob, (old, old))
    store.gc(older_than=7 * 86400)
    assert not (store.dir / f"{a.id}.json").exists()
    assert blob.exists() and store.get(b.id).content == content  # b still needs it
    os.utime(store.dir / f"{b.id}.json", (old, old))
    os.utime(blob, (old, old))
    store.gc(older_than=7 * 86400)
    assert not blob.exists() and not list(store.dir.glob("ctx_*"))
    # a blob no record points to (its writer was killed before the record): kept while young, then removed
    orphan = store.dir / ("blob_" + "0" * 64 + ".bin")
    orphan.write_bytes(b"orphan")
    store.gc(older_than=7 * 86400)
    assert orphan.exists()
    os.utime(orphan, (time.time() - TEMP_GRACE - 60,) * 2)
    store.gc(older_than=7 * 86400)
    assert not orphan.exists()


def _colliding_digests(monkeypatch):
    """ref_digest made to give every ref the same first 6 hex digits (the rest stays the real digest's)."""
    import operators.store as store_module

    real = store_module.ref_digest
    monkeypatch.setattr(store_module, "ref_digest", lambda *key: "abcdef" + real(*key)[6:])


def test_assign_ids_are_pure_and_the_ids_the_store_writes_under(home):
    from operators.store import assign_ids

    contents = {"a": b"first\r\n", "b": b"\x00\xff second", "c": b"third, no final newline"}
    reasons = {"a": "folded", "b": "binary", "c": "folded"}
    refs = assign_ids("s.log", "log", reasons, contents)
    assert not (home / "context").exists()  # nothing read or written
    assert assign_ids("s.log", "log", reasons, contents) == refs
    store = Store(home)
    for group, ref in refs.items():
        assert ref.id == pure_ref_id("s.log", reasons[group], contents[group])
        assert ref.sha256 == content_sha256(contents[group]) and ref.hashed is ref.content
        saved, created = store.put_ref(ref)
        assert created and saved.id == ref.id and store.get(ref.id).content == contents[group]


def test_assign_ids_lengthen_a_prefix_shared_inside_one_plan_as_the_store_does(home, monkeypatch):
    from operators.store import assign_ids

    _colliding_digests(monkeypatch)
    contents = {f"g{i}": b"content %d" % i for i in range(4)}
    refs = assign_ids("s.log", "log", dict.fromkeys(contents, "folded"), contents)
    ids = [ref.id for ref in refs.values()]
    assert len(set(ids)) == 4 and ids[0] == "ctx_abcdef" and all(len(i) > len("ctx_abcdef") for i in ids[1:])
    for ref in refs.values():
        assert ref.digest.startswith(ref.id[len("ctx_"):])
    store = Store(home)
    assert [store.put_ref(ref)[0].id for ref in refs.values()] == ids  # the store's own walk agrees


def test_put_ref_hashes_again_a_content_replaced_after_it_was_named(home):
    from operators.store import assign_ids

    [ref] = assign_ids("s.log", "log", {"g": "folded"}, {"g": b"named content"}).values()
    ref.content = b"other content"  # a stage replaced it: the old sha256 and digest are not of these bytes
    saved, _ = Store(home).put_ref(ref)
    assert saved.sha256 == content_sha256(b"other content")
    assert saved.id == pure_ref_id("s.log", "folded", b"other content") != ref.id
    assert Store(home).get(saved.id).content == b"other content"


def test_write_parts_writes_every_part_whole_in_order(tmp_path, monkeypatch):
    """Each part goes out whole even when the OS takes fewer bytes a call (short writes), and views of
    wider items byte by byte."""
    from array import array

    from operators import store as store_module
    from operators.reduction import Spans
    from operators.store import write_parts

    raw = bytes(range(256)) * 8192
    content = Spans(raw, array("q", [0, 1000, 70_000]), array("q", [10, 60_000, len(raw) - 5]))
    real_write, calls = os.write, []

    def short_write(fd, data):  # at most 4099 bytes a call, as a pipe or a signal may cut a write
        calls.append(len(data))
        return real_write(fd, bytes(data[:4099]))

    monkeypatch.setattr(store_module.os, "write", short_write)
    for data in (content, raw[:5], memoryview(array("q", [1, -2, 3]))):
        target = tmp_path / f"out{len(calls)}"
        fd = os.open(target, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            write_parts(fd, data)
        finally:
            os.close(fd)
        expected = bytes(data) if not isinstance(data, memoryview) else data.tobytes()
        assert target.read_bytes() == expected
    assert max(calls) > 4099  # each call was handed the rest of its part, not a copy cut to size


def test_write_parts_says_no_space_when_the_os_writes_nothing(tmp_path, monkeypatch):
    import errno

    from operators import store as store_module
    from operators.store import write_parts

    monkeypatch.setattr(store_module.os, "write", lambda fd, data: 0)
    fd = os.open(tmp_path / "x", os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with pytest.raises(OSError) as caught:
            write_parts(fd, b"some bytes")
    finally:
        os.close(fd)
    assert caught.value.errno == errno.ENOSPC


def test_the_packets_raw_sha256_is_taken_from_a_ref_of_the_whole_input_only(monkeypatch):
    """STORE records the raw input's sha256; a ref whose (hashed) content is the whole input, a binary
    file omitted whole, already has it: no second pass. Any other ref's sha256 is never taken."""
    from array import array

    from operators import stages
    from operators.packet import Reference
    from operators.reduction import Spans
    from operators.stages import raw_sha256

    raw = bytes(range(256)) * 400
    whole = Spans(raw, array("q", [0, 70_000]), array("q", [70_000, len(raw)]))
    part = Spans(raw, array("q", [0]), array("q", [len(raw) - 1]))
    reordered = Spans(raw, array("q", [70_000, 0]), array("q", [len(raw), 70_000]))
    digest = hashlib.sha256(raw).hexdigest()

    def ref(content, sha, hashed=None):
        return Reference(id="ctx_000000", source="s", type="binary", reason="r", content=content, sha256=sha,
                         hashed=content if hashed is None else hashed)

    def no_hash(data):
        raise AssertionError("hashed again")

    with monkeypatch.context() as patched:
        patched.setattr(stages, "sha256_hex", no_hash)
        assert raw_sha256(raw, [ref(b"small", "0" * 64), ref(whole, digest)]) == digest
        assert raw_sha256(raw, [ref(raw, digest)]) == digest
    for other in (ref(part, "1" * 64), ref(reordered, "2" * 64), ref(whole, "3" * 64, hashed=b"changed by a plug-in"),
                  ref(bytes(bytearray(raw)), "4" * 64)):  # equal bytes, another object: not taken on trust
        assert raw_sha256(raw, [other]) == digest  # hashed here: not this ref's


def test_a_big_ref_of_the_input_and_the_input_are_hashed_in_one_pass(monkeypatch):
    """assign_ids hashes a ref of PAIR_MIN bytes or more that is spans of the raw input together with
    the input (kernel.sha256_pair, where the CPU has SHA-NI): the ref's sha256 and the raw_sha256 STORE
    records are hashlib's, and the input is not hashed a second time; the digest is given once."""
    from array import array

    from operators import stages, store
    from operators.kernel import sha256_pair
    from operators.reduction import Spans

    raw = bytes(range(256)) * 9000  # 2.3 MB
    content = Spans(raw, array("q", [5, 70_000]), array("q", [60_000, len(raw) - 3]))
    want = hashlib.sha256(b"".join(raw[a:b] for a, b in zip(content.starts, content.ends))).hexdigest()
    refs = assign_ids("s", "log", {"log": "folded"}, {"log": content})
    assert refs["log"].sha256 == want
    if sha256_pair is None or sha256_pair(b"", b"", array("q"), array("q")) is None:
        pytest.skip("no kernel or no SHA-NI: the input is hashed on its own in STORE")

    def no_hash(data):
        raise AssertionError("hashed again")

    with monkeypatch.context() as patched:
        patched.setattr(stages, "sha256_hex", no_hash)
        assert stages.raw_sha256(raw, list(refs.values())) == hashlib.sha256(raw).hexdigest()
    assert store.raw_sha256_kept(raw) is None  # given once, and the input let go
    assert stages.raw_sha256(raw, list(refs.values())) == hashlib.sha256(raw).hexdigest()
    small = Spans(raw, array("q", [0]), array("q", [store.PAIR_MIN - 1]))
    assign_ids("s", "log", {"log": "folded"}, {"log": small})
    assert store.raw_sha256_kept(raw) is None  # under PAIR_MIN: hashed alone
