"""The store's trust boundary: private modes whatever the umask, a foreign or open store refused,
debris of killed runs collected, a bounded view when nothing can be stored, binary input, and the
search index taking packets it found locked later."""

from __future__ import annotations

import errno
import os
import random
import sqlite3
import stat
import sys
import time

import pytest

from conftest import FIXTURES, reduce_bytes, run_cli, tokens_cli
from operators import index as index_module
from operators import store as store_module
from operators.store import SIDECAR_MIN, Store

LOG = FIXTURES / "sample.log"


def _modes(root) -> dict[str, int]:
    return {os.path.relpath(os.path.join(d, n), root): stat.S_IMODE(os.lstat(os.path.join(d, n)).st_mode)
            for d, dirs, files in os.walk(root) for n in dirs + files}


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_store_directories_are_0700_and_files_0600_whatever_the_umask(umask, home, capsysbinary):
    old = os.umask(umask)
    try:
        folded = b"".join(b"2024-05-01T10:00:%02d.000Z INFO heartbeat ok seq=%d\n" % (i % 60, i) for i in range(3000))
        packet = reduce_bytes(LOG.read_bytes() + folded, source="modes")  # a ref of more than SIDECAR_MIN: a blob
        code, _, _ = run_cli(capsysbinary, "expand", packet.references[0].id, "--head", "1")  # the usage record
        run_cli(capsysbinary, "search", "heartbeat")  # the index
    finally:
        os.umask(old)
    assert code == 0 and packet.restore_pass
    modes = _modes(home)
    assert any(name.startswith("context/blob_") for name in modes) and "index.sqlite" in modes
    assert stat.S_IMODE(os.lstat(home).st_mode) == 0o700
    wrong = {name: oct(mode) for name, mode in modes.items()
             if mode != (0o700 if os.path.isdir(home / name) else 0o600)}
    assert not wrong


def test_a_store_made_before_is_made_private(home):
    (home / "context").mkdir(parents=True, mode=0o755)
    os.chmod(home, 0o755)
    os.chmod(home / "context", 0o755)
    reduce_bytes(LOG.read_bytes(), source="tighten")
    assert stat.S_IMODE(os.lstat(home).st_mode) == 0o700
    assert stat.S_IMODE(os.lstat(home / "context").st_mode) == 0o700


@pytest.mark.parametrize("which, mode", [("context", 0o777), ("context", 0o770), ("home", 0o757)])
def test_a_store_open_to_others_is_refused_with_one_line(which, mode, home, tmp_path):
    assert tokens_cli("analyze", str(LOG)).returncode == 0
    target = home / "context" if which == "context" else home
    os.chmod(target, mode)
    for argv in (("analyze", str(LOG)), ("refs", "list")):
        result = tokens_cli(*argv)
        err = result.stderr.decode()
        assert result.returncode == 1, err
        assert err.count("\n") == 1 and err.startswith("tokens: error: ") and "Traceback" not in err
        assert f"{target} is writable by" in err and "refused" in err and "chmod 700" in err
    os.chmod(target, 0o700)
    assert tokens_cli("analyze", str(LOG)).returncode == 0


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root")
def test_a_store_owned_by_another_user_is_refused(home):
    assert tokens_cli("analyze", str(LOG)).returncode == 0
    os.chown(home / "context", 1, -1)
    result = tokens_cli("analyze", str(LOG))
    err = result.stderr.decode()
    assert result.returncode == 1 and err.count("\n") == 1
    assert err.startswith(f"tokens: error: store directory {home / 'context'} belongs to another user (uid 1")
    assert tokens_cli("expand", "--full", "pkt_000000000000").returncode == 1  # reading it is refused too
    os.chown(home / "context", 0, -1)
    assert tokens_cli("analyze", str(LOG)).returncode == 0


def _age(paths, seconds: float) -> None:
    when = time.time() - seconds
    for path in paths:
        os.utime(path, (when, when), follow_symlinks=False)


def test_gc_removes_the_refs_and_blobs_of_a_killed_run_after_the_grace_period(home):
    store = Store(home, retention=None)
    kept = reduce_bytes(LOG.read_bytes(), source="kept")  # a packet: its refs stay, however old
    old_orphan, _ = store.put("killed", "log", "r", b"o" * (SIDECAR_MIN + 10))  # refs written, no manifest
    new_orphan, _ = store.put("running", "log", "r", b"n" * 100)
    old_blob = next(store.dir.glob("blob_*.bin"))
    _age([store.dir / f"{old_orphan.id}.json", old_blob], 2 * 3600)
    _age([store.dir / f"{r.id}.json" for r in kept.references] + [store.dir / f"{kept.manifest_id}.json"], 2 * 3600)
    _age([store.dir / f"{new_orphan.id}.json"], 10 * 60)
    removed, freed = store.gc()  # no age limit, no size limit: only debris goes
    assert removed == 2 and freed >= SIDECAR_MIN
    assert not (store.dir / f"{old_orphan.id}.json").exists() and not old_blob.exists()
    assert store.get(new_orphan.id).content == b"n" * 100  # within the grace period: maybe a live run's
    manifest = store.get_manifest(kept.manifest_id)
    assert store.restore(manifest, store.get_visible(manifest)) == LOG.read_bytes()


def test_the_automatic_budget_collects_orphans_too(home):
    store = Store(home)
    orphan, _ = store.put("killed", "log", "r", b"o" * 100)
    _age([store.dir / f"{orphan.id}.json"], 2 * 3600)
    _age([store.dir / ".retained"], 2 * 3600) if (store.dir / ".retained").exists() else None
    store.retain()
    _age([store.dir / ".retained"], 2 * 3600)
    Store(home).put_manifest(store_module.Manifest(
        id="", source="s", type="text", raw_bytes=0, raw_sha256="0" * 64, visible_bytes=0, visible_sha256="1" * 64,
        refs=[], layout=b"[]", markers=[], created=time.time()))
    assert not (store.dir / f"{orphan.id}.json").exists()


def _big_log() -> bytes:
    lines = [b"2024-05-01T10:%02d:%02d.000Z INFO worker-%d served request %d in %dms\n" % (i // 60 % 60, i % 60, i % 7, i, i % 97)
             for i in range(60_000)]
    lines[31_000] = b"2024-05-01T10:16:40.000Z ERROR payment declined order=88412 token=Zq8vN3xK1mT6wYp0\n"
    return b"".join(lines)


@pytest.mark.parametrize("command", ["run", "analyze"])
def test_a_store_that_cannot_be_written_gives_a_bounded_view_not_the_flood(command, monkeypatch, capfd, tmp_path):
    from flows.cli import main

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    raw = _big_log()
    src = tmp_path / "big.log"
    src.write_bytes(raw)
    monkeypatch.setattr(store_module, "_temp_file", full)
    if command == "run":
        script = f"import sys; sys.stdout.buffer.write(open({str(src)!r}, 'rb').read()); sys.exit(4)"
        status = main(["run", "--", sys.executable, "-c", script])
    else:
        status = main(["analyze", str(src)])
    out, err = capfd.readouterr()
    assert status == (4 if command == "run" else 1)
    assert len(out) <= 25_000 and len(raw) > 40 * 25_000
    assert "served request 0 in 0ms" in out and "served request 59999 " in out  # head and tail
    assert "ERROR payment declined order=88412 token=[secret hidden]" in out and "Zq8vN3xK1mT6wYp0" not in out
    assert "#ref:" not in out  # no marker of a ref never written
    errors = [line for line in err.splitlines() if line.startswith("tokens: error:")]
    assert len(errors) == 1 and "No space left on device" in errors[0] and "Traceback" not in err


@pytest.mark.parametrize("name", ["elf", "random", "random_with_words"])
def test_binary_input_never_fails_an_invariant(name, tmp_path):
    rng = random.Random(7)
    data = bytes(rng.getrandbits(8) for _ in range(200_000))
    if name == "elf":
        data = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 56 + data
    elif name == "random_with_words":  # signal words inside binary bytes are not lines to show
        data = data[:50_000] + b"\nfatal error: segmentation fault\nERROR 500 failed\n" + data[50_000:]
    path = tmp_path / f"{name}.bin"
    path.write_bytes(data)
    result = tokens_cli("analyze", str(path))
    assert result.returncode == 0, result.stderr.decode()[-500:]
    assert result.stdout.startswith(b"[binary data: ") and len(result.stdout) < 400
    out = tmp_path / "reduced.txt"
    out.write_bytes(result.stdout)
    assert tokens_cli("expand", "--full", str(out)).stdout == data


def test_a_packet_stored_while_the_index_is_locked_is_indexed_later(home, monkeypatch):
    monkeypatch.setattr(index_module, "BUSY_MS", 50)
    first = reduce_bytes(LOG.read_bytes(), source="warm-up")
    assert index_module.catch_up(home) == 1  # what a search does first: the index exists
    assert set(r.id for r in first.references) <= set(index_module.indexed_refs(home))
    lock = sqlite3.connect(str(home / index_module.INDEX_FILE), timeout=0, isolation_level=None)
    lock.execute("begin exclusive")
    try:
        raw = LOG.read_bytes().replace(b"INFO", b"NOTE")
        locked = reduce_bytes(raw, source="while-locked")
        assert locked.restore_pass and locked.references
        with pytest.raises(sqlite3.OperationalError):
            index_module.catch_up(home)  # a search meanwhile cannot index it ...
    finally:
        lock.execute("rollback")
        lock.close()
    pending = (home / index_module.PENDING_FILE).read_text().split()
    assert pending == [locked.manifest_id]  # ... so it stays noted
    assert not set(r.id for r in locked.references) & set(index_module.indexed_refs(home))
    assert index_module.catch_up(home) == 1  # the next search indexes it
    assert set(r.id for r in locked.references) <= set(index_module.indexed_refs(home))
    assert not list(home.glob(index_module.PENDING_FILE + "*"))
