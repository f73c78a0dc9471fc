"""Faults: a full or read-only disk, symlinks, special files, damaged records, a writer killed mid-write.

Each test plants one fault and checks three things: the user gets one ``tokens: error: …`` line and a
non-zero exit (never a traceback or an engine panic) or the fault is repaired; nothing follows a
symlink; and whatever did get reduced still restores byte for byte. Disk full and read-only stores
are injected as ``OSError(ENOSPC)``/``OSError(EROFS)`` (the tests run as root: ``chmod`` alone would
not stop a write).
"""

from __future__ import annotations

import argparse
import errno
import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import msgspec
import pytest

from conftest import FIXTURES, PROJECT, reduce_bytes, tokens_cli
from operators import store as store_module
from operators.store import MARKER_RE, Manifest, Retention, Store, StoreError, TEMP_GRACE

LOG = FIXTURES / "sample.log"
DAY = 86400.0


@pytest.fixture(autouse=True)
def fresh_trace():
    """Commands run in this process bind the trace to the stream of the moment: unbind it after."""
    import structlog

    yield
    structlog.reset_defaults()


def one_error_line(result) -> str:
    """The one ``tokens: error:`` line of a failed command (the rest of stderr may only be the JSON
    stage trace printed when stderr is not a terminal)."""
    err = result.stderr.decode()
    assert result.returncode != 0, err
    assert "Traceback" not in err and "panicked" not in err, err
    lines = [line for line in err.strip().splitlines() if not line.startswith("{")]
    assert len(lines) == 1 and lines[0].startswith("tokens: error:"), err
    return lines[0]


def analyze_ok(path: Path | str, *extra: str):
    result = tokens_cli("analyze", str(path), *extra)
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    return result.stdout


def assert_restores(reduced: bytes, original: bytes, tmp_path: Path) -> None:
    """The reduced text plus the store give back the original, byte for byte (``tokens expand --full``)."""
    out = tmp_path / f"reduced-{hashlib.sha256(reduced).hexdigest()[:8]}.txt"
    out.write_bytes(reduced)
    result = tokens_cli("expand", "--full", str(out))
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout == original


def age(paths, days: float) -> None:
    when = time.time() - days * DAY
    for path in paths:
        os.utime(path, (when, when), follow_symlinks=False)


def store_files(home: Path) -> dict[str, float]:
    return {p.name: p.stat().st_mtime for p in (home / "context").iterdir() if not p.name.startswith(".")}


# -- 1. gc by last use --------------------------------------------------------------------------------

def test_a_rerun_refreshes_its_records_and_gc_by_age_keeps_them(home, tmp_path):
    """The issue's reproduction: age every record, run the same input again, gc --older-than 7d:
    the refs the new output names must still be there."""
    analyze_ok(LOG)
    age((home / "context").glob("*_*"), 8)
    reduced = analyze_ok(LOG)
    assert all(time.time() - t < DAY for t in store_files(home).values())  # reused = used now
    gc = tokens_cli("refs", "gc", "--older-than", "7d")
    assert gc.returncode == 0 and gc.stdout.startswith(b"removed 0 files")
    for marker in set(MARKER_RE.findall(reduced)):
        shown = tokens_cli("show-ref", marker.decode())
        assert shown.returncode == 0, shown.stderr.decode()
    assert_restores(reduced, LOG.read_bytes(), tmp_path)


def test_gc_never_removes_a_ref_a_kept_packet_points_to(home, tmp_path):
    store = Store(home)
    reduced = analyze_ok(LOG)
    refs = sorted((home / "context").glob("ctx_*.json"))
    assert refs
    age(refs, 30)  # the refs look old, the packet that needs them was used just now
    removed, _ = store.gc(older_than=7 * DAY)
    assert removed == 0 and all(p.exists() for p in refs)
    assert_restores(reduced, LOG.read_bytes(), tmp_path)
    # once the packet itself is old (expanding it just now was a use: age everything again), it goes
    # first, and then its refs with it
    age((home / "context").glob("*_*"), 30)
    removed, freed = store.gc(older_than=7 * DAY)
    assert removed == len(refs) + 2 and freed > 0
    assert not list((home / "context").glob("*_*"))


def test_gc_by_size_removes_least_recently_used_packets_before_the_refs_they_need(home):
    store = Store(home)
    old = reduce_bytes(LOG.read_bytes(), source="old.log")
    new = reduce_bytes(LOG.read_bytes(), source="new.log")
    for p in (home / "context").iterdir():
        if p.name.startswith("pkt_" + old.manifest_id[4:]) or any(p.stem == r.id for r in old.references):
            age([p], 2)
    # the old packet's refs are old too, but still needed while it is kept: it must go first
    _, size = store.size()
    removed, _ = store.gc(max_bytes=size - 1)
    assert removed >= 1
    assert not (home / "context" / f"{old.manifest_id}.json").exists()
    assert (home / "context" / f"{new.manifest_id}.json").exists()
    for ref in new.references:
        assert store.get(ref.id).content == bytes(ref.content)


# -- 2. repair and exit status ---------------------------------------------------------------------

def test_a_writer_repairs_a_tampered_or_truncated_ref_it_holds(home, tmp_path):
    raw = LOG.read_bytes()
    reduced = analyze_ok(LOG)
    [ref_path] = (home / "context").glob("ctx_*.json")
    good = ref_path.read_bytes()
    for damage in (good[: len(good) // 3], good.replace(b"heartbeat", b"HEARTBEAT", 1)):
        ref_path.write_bytes(damage)
        assert one_error_line(tokens_cli("show-ref", ref_path.stem))  # detected on read
        again = analyze_ok(LOG)  # the next writer holds the right bytes: replaced, same id
        assert again == reduced
        assert tokens_cli("show-ref", ref_path.stem).returncode == 0
        assert_restores(reduced, raw, tmp_path)


def test_a_damaged_blob_and_visible_copy_are_replaced_by_the_next_writer(home):
    from operators.store import SIDECAR_MIN

    store = Store(home)
    content = b"\xff\x00 big folded output\r\n" * (SIDECAR_MIN // 10)
    ref, _ = store.put("big.log", "log", "r", content)
    blob = next(store.dir.glob("blob_*.bin"))
    for damage in (content[:-1] + b"X", content[:1000]):  # one byte changed, then truncated
        blob.write_bytes(damage)
        with pytest.raises(StoreError, match="corrupt"):
            store.get(ref.id)
        store.put("big.log", "log", "r", content)
        assert store.get(ref.id).content == content
    store.put_visible("pkt_" + "a" * 12, b"visible text")
    visible = store.dir / ("pkt_" + "a" * 12 + ".visible")
    visible.write_bytes(b"visible tex!")
    store.put_visible("pkt_" + "a" * 12, b"visible text")
    assert visible.read_bytes() == b"visible text"


def test_a_damaged_record_that_may_be_another_contents_is_left_alone(home):
    """A record whose id and key cannot be read may belong to other content with the same id prefix:
    it is not overwritten; the new record takes a longer id."""
    store = Store(home)
    ref, _ = store.put("s.log", "log", "r", b"first content")
    path = store.dir / f"{ref.id}.json"
    path.write_bytes(b"\x00garbage, not ours to judge")
    again, created = store.put("s.log", "log", "r", b"first content")
    assert created and again.id != ref.id and again.id.startswith(ref.id)
    assert path.read_bytes() == b"\x00garbage, not ours to judge"
    assert store.get(again.id).content == b"first content"


def _breaking_config(tmp_path: Path) -> tuple[Path, dict]:
    """A config with a plug-in stage after STORE that deletes the refs just written: RECOVERY and
    RESTORE must then fail, honestly."""
    plug = tmp_path / "plug"
    plug.mkdir()
    (plug / "breakrefs.py").write_text(
        "import os\n"
        "from operators.config import home_path, load_config\n"
        "def drop(packet):\n"
        "    for ref in packet.references:\n"
        "        os.unlink(home_path(load_config(None)) / 'context' / f'{ref.id}.json')\n"
        "    return packet\n")
    config = tmp_path / "break.toml"
    config.write_text('[[stages]]\npath = "breakrefs:drop"\nafter = "STORE"\n')
    env = {"PYTHONPATH": os.pathsep.join([str(plug), str(PROJECT)]), "NOLIFE_TOKENS_CONFIG": str(config)}
    return config, env


def test_a_failed_invariant_exits_3_in_analyze_benchmark_and_the_main_job(tmp_path, home):
    _, env = _breaking_config(tmp_path)
    result = tokens_cli("analyze", str(LOG), env=env)
    assert result.returncode == 3 and b"PaymentService" in result.stdout  # the text is still printed
    assert "RECOVERY/RESTORE failed" in result.stderr.decode().strip().splitlines()[-1]
    bench = tokens_cli("benchmark", env=env)
    assert bench.returncode == 3 and b"FAIL" in bench.stdout
    main_job = subprocess.run([sys.executable, "-m", "bytewax.run", "flows.reduce"], capture_output=True,
                              env={**os.environ, **env}, cwd=PROJECT, timeout=120)
    assert main_job.returncode == 3, main_job.stderr.decode()[-2000:]
    assert b"RESTORE FAIL" in main_job.stdout and b"failed an invariant" in main_job.stderr
    # and without the fault: exit 0
    assert tokens_cli("analyze", str(LOG)).returncode == 0


def test_run_keeps_the_commands_exit_code_and_warns_when_an_invariant_fails(tmp_path, home):
    _, env = _breaking_config(tmp_path)
    script = f"import sys; sys.stdout.buffer.write(open({str(LOG)!r}, 'rb').read()); sys.exit(5)"
    result = tokens_cli("run", "--", sys.executable, "-c", script, env=env)
    assert result.returncode == 5
    assert "check failed" in result.stderr.decode()


# -- 3. gc: temp files of killed writers, entries it does not own -----------------------------------

def test_gc_removes_stale_temp_files_and_skips_what_it_does_not_own(home):
    store = Store(home)
    ref, _ = store.put("s", "log", "r", b"x" * 100)
    d = store.dir
    stale, fresh = d / ".tmp-0123456789ab.part", d / ".tmp-ba9876543210.part"
    stale.write_bytes(b"p" * 5_000_000)
    fresh.write_bytes(b"p" * 10)
    age([stale], 1)
    (d / "ctx_aaaaaa.json").mkdir()  # a directory with a store-like name
    os.mkfifo(d / "pkt_aaaaaaaaaaaa.json")
    victim = home.parent / "victim.txt"
    victim.write_bytes(b"not the store's")
    (d / "ctx_bbbbbb.json").symlink_to(victim)
    (d / "notes.txt").write_bytes(b"someone's notes")
    age([d / "notes.txt", d / f"{ref.id}.json"], 30)
    tail_dir = home / "tail"
    tail_dir.mkdir()
    (tail_dir / ".tmp-000000000000.part").write_bytes(b"cp")
    age([tail_dir / ".tmp-000000000000.part"], 1)

    removed, freed = store.gc(older_than=7 * DAY)
    assert not stale.exists() and fresh.exists() and not (d / f"{ref.id}.json").exists()
    assert not (tail_dir / ".tmp-000000000000.part").exists()
    assert freed >= 5_000_000 and removed == 3
    assert (d / "ctx_aaaaaa.json").is_dir() and (d / "notes.txt").exists() and victim.read_bytes() == b"not the store's"
    assert (d / "ctx_bbbbbb.json").is_symlink() and (d / "pkt_aaaaaaaaaaaa.json").exists()
    listed = tokens_cli("refs", "list")  # a FIFO among the records: no hang
    assert listed.returncode == 0
    gc = tokens_cli("refs", "gc", "--max-bytes", "0")
    assert gc.returncode == 0 and victim.exists()


# -- kill -9 in the middle of a write ----------------------------------------------------------------

KILL_AT_LINK = """
import os, signal, sys
sys.argv = ["tokens", "analyze", sys.argv[1]]
real = os.link
def link(src, dst):
    if os.path.basename(str(dst)).startswith(%r):
        os.kill(os.getpid(), signal.SIGKILL)  # the temp file is complete, the record not yet there
    return real(src, dst)
os.link = link
from flows.cli import main
sys.exit(main())
"""


@pytest.mark.parametrize("victim", ["blob_", "ctx_", "pkt_"])
def test_kill_9_during_a_write_then_gc_and_a_rerun_repair(victim, home, tmp_path):
    from operators.store import SIDECAR_MIN

    raw = b"".join(b"2024-05-01T10:00:%02d.000Z INFO worker %d heartbeat ok seq=%d\n" % (i % 60, i % 7, i)
                   for i in range(SIDECAR_MIN // 20))
    raw += b"2024-05-01T10:09:00.000Z ERROR payment declined order=88412\n"
    src = tmp_path / "big.log"
    src.write_bytes(raw)
    killed = subprocess.run([sys.executable, "-c", KILL_AT_LINK % victim, str(src)], capture_output=True,
                            env={**os.environ, "PYTHONPATH": str(PROJECT)}, cwd=PROJECT, timeout=120)
    assert killed.returncode == -signal.SIGKILL
    temps = list((home / "context").glob(".tmp-*.part"))
    assert temps  # the debris a killed writer leaves
    Store(home).gc(older_than=7 * DAY)
    assert all(t.exists() for t in temps)  # too young: it may belong to a live writer
    age(temps, 1)
    Store(home).gc(older_than=7 * DAY)
    assert not list((home / "context").glob(".tmp-*.part"))
    reduced = analyze_ok(src)
    assert b"ERROR payment declined" in reduced
    assert_restores(reduced, raw, tmp_path)


def test_kill_9_of_a_real_run_while_it_writes_a_big_blob(home, tmp_path):
    """No injection: SIGKILL ``tokens analyze`` of a 24 MB log as soon as a temp file shows up in the
    store (a write in progress), then gc and a re-run."""
    raw = b"".join(b"2024-05-01T10:%02d:%02d.%03dZ INFO worker-%d request %d served in %dms\n"
                   % (i // 3600 % 60, i // 60 % 60, i % 1000, i % 8, i, i * 7919 % 997) for i in range(350_000))
    src = tmp_path / "big.log"
    src.write_bytes(raw)
    ctx = home / "context"
    proc = subprocess.Popen([sys.executable, "-m", "flows.cli", "analyze", str(src)], cwd=PROJECT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if ctx.is_dir() and any(p.name.startswith(".tmp-") for p in ctx.iterdir()):
            break
        time.sleep(0.0005)
    proc.kill()
    proc.wait(10)
    age(ctx.glob(".tmp-*"), 1)
    Store(home).gc(older_than=7 * DAY)
    assert not list(ctx.glob(".tmp-*"))
    reduced = analyze_ok(src)
    assert_restores(reduced, raw, tmp_path)


# -- 4. tail: inode and fingerprint; retries while the store is full ---------------------------------

def test_tail_reads_a_recreated_file_at_the_same_inode_from_its_start(tmp_path):
    from operators.config import load_config
    from operators.tail import TailPosition, TailSource, fingerprint

    path = tmp_path / "app.log"
    old = b"".join(b"2024-05-01 10:00:%02d INFO old service line %d\n" % (i % 60, i) for i in range(40))
    path.write_bytes(old)
    fd = os.open(path, os.O_RDONLY)
    head, digest = fingerprint(fd, len(old))
    os.close(fd)
    st = os.stat(path)
    saved = TailPosition(st.st_dev, st.st_ino, len(old), head, digest)
    new = b"".join(b"2024-06-01 11:00:%02d WARN new file, line %d\n" % (i % 60, i) for i in range(80))
    with open(path, "r+b") as fh:  # the same inode, other bytes, longer than the saved offset
        fh.truncate(0)
        fh.write(new)
    assert os.stat(path).st_ino == st.st_ino

    packets = []
    source = TailSource([str(path)], load_config(None), start="end", positions={str(path): saved}, handle_signals=False)
    part = source.build_part("tail", os.path.abspath(path), None)
    deadline = time.monotonic() + 5
    while sum(len(p.raw) for p in packets) < len(new) and time.monotonic() < deadline:
        packets += part.next_batch()
    source.stop()
    packets += part.next_batch()
    part.close()
    assert b"".join(p.raw for p in packets) == new  # from 0: its first bytes are not skipped
    assert packets[-1].tail_head == 1024 and packets[-1].tail_fingerprint == hashlib.sha256(new[:1024]).hexdigest()


@pytest.mark.parametrize("fault", ["store", "output"])
def test_tail_keeps_going_while_the_disk_is_full_and_loses_nothing(fault, tmp_path, home, monkeypatch):
    """``store``: refs and checkpoints cannot be written for a while; ``output``: the disk of ``-o
    FILE`` is full (a window is written in part, then ENOSPC). The tail backs off and goes on."""
    from flows.tail import cmd_tail
    from operators.config import load_config

    cfg = tmp_path / "tail.toml"
    cfg.write_text("[reduce]\nmin_bytes = 64\n[tail]\nwindow_lines = 20\nidle_ms = 50\nmax_ms = 200\n"
                   "partial_flush_ms = 200\npoll_ms = 10\n")
    log, out = tmp_path / "svc.log", tmp_path / "out.txt"
    lines = [b"2024-05-01T10:00:%02d.000Z INFO request %d served\n" % (i % 60, i) for i in range(300)]
    log.write_bytes(b"".join(lines[:100]))
    full = threading.Event()
    full.set()
    failures = []
    if fault == "store":
        real_temp = store_module._temp_file

        def temp_file(directory):
            if full.is_set():
                failures.append(directory)
                raise OSError(errno.ENOSPC, "No space left on device")
            return real_temp(directory)

        monkeypatch.setattr(store_module, "_temp_file", temp_file)
    else:
        real_write = os.write

        def write(fd, data):
            if full.is_set() and fd > 2 and os.path.samefile(f"/proc/self/fd/{fd}", out):
                failures.append(real_write(fd, bytes(data)[: len(data) // 2]))  # a part gets out, then the disk is full
                raise OSError(errno.ENOSPC, "No space left on device")
            return real_write(fd, data)

        monkeypatch.setattr(os, "write", write)

    def writer():
        time.sleep(0.3)
        with open(log, "ab") as fh:
            fh.write(b"".join(lines[100:200]))
        time.sleep(1.0)
        full.clear()  # space again
        with open(log, "ab") as fh:
            fh.write(b"".join(lines[200:]))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not caught_up():  # the last line may sit in a fold's ref
            time.sleep(0.05)
        time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGINT)

    def caught_up() -> bool:
        """The checkpoint has passed the end of the log: every window was written out."""
        for path in (home / "tail").glob("*.json"):
            try:
                files = msgspec.json.decode(path.read_bytes())["files"]
            except (ValueError, KeyError, OSError):
                return False
            return bool(files) and list(files.values())[0]["offset"] == len(b"".join(lines))
        return False

    args = argparse.Namespace(paths=[str(log)], output=str(out), granularity=None, from_start=True, from_end=False,
                              json=True, config=str(cfg))
    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    code = cmd_tail(args, load_config(str(cfg)))
    thread.join(5)
    assert failures  # the disk really was full for a while
    assert code == 0
    text = out.read_bytes()
    markers = MARKER_RE.findall(text)
    assert markers  # the windows were reduced: lines live in refs
    store = Store(home)
    stored = b"".join(store.get(m.decode()).content for m in markers)  # every marker printed resolves
    for i, line in enumerate(lines):  # each line shown (first of a fold: "×N" added) or in a ref, exactly once
        assert stored.count(line) + text.count(b"request %d served" % i) == 1, line
    cp = msgspec.json.decode(next((home / "tail").glob("*.json")).read_bytes())
    assert list(cp["files"].values())[0]["offset"] == len(b"".join(lines))  # and the checkpoint caught up
    assert cp["out_size"] == len(text)


# -- 6. special files ---------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [["analyze"], ["pack", "--budget", "100"], ["expand", "--full"]])
@pytest.mark.parametrize("special", ["/dev/zero", "fifo", "directory"])
def test_special_files_as_inputs_are_one_error_line(command, special, tmp_path):
    if special == "fifo":
        target = tmp_path / "pipe"
        os.mkfifo(target)
    elif special == "directory":
        target = tmp_path
    else:
        target = Path(special)
    line = one_error_line(tokens_cli(*command, str(target)))
    assert str(target) in line and ("not a regular file" in line or "directory" in line)


def test_store_entries_that_are_not_regular_files_are_clear_errors_never_hangs(home, tmp_path):
    analyze_ok(LOG)
    ctx = home / "context"
    [ref] = ctx.glob("ctx_*.json")
    ref.unlink()
    os.mkfifo(ref)  # a FIFO where a record should be
    assert "FIFO" in one_error_line(tokens_cli("show-ref", ref.stem))
    assert tokens_cli("refs", "list").returncode == 0
    line = one_error_line(tokens_cli("analyze", str(LOG)))
    assert "FIFO" in line and ref.name in line
    ref.unlink()
    ref.mkdir()  # a directory where a record should be
    assert "directory" in one_error_line(tokens_cli("analyze", str(LOG)))
    assert "directory" in one_error_line(tokens_cli("show-ref", ref.stem))
    ref.rmdir()
    assert_restores(analyze_ok(LOG), LOG.read_bytes(), tmp_path)  # gone: written again


# -- 9. symlinks ----------------------------------------------------------------------------------------

def test_the_main_job_never_writes_through_a_symlinked_output(tmp_path, home):
    out = home / "out"
    out.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious\n")
    (out / "fixtures__sample.txt.coarse.reduced").symlink_to(victim)
    job = subprocess.run([sys.executable, "-m", "bytewax.run", "flows.reduce"], capture_output=True,
                         env=os.environ.copy(), cwd=PROJECT, timeout=120)
    assert victim.read_bytes() == b"precious\n"
    assert job.returncode == 1 and b"is a symlink" in job.stdout and b"Traceback" not in job.stderr
    assert (out / "fixtures__sample.log.coarse.reduced").is_file()  # the other inputs still went out


def test_store_records_and_directory_behind_symlinks_are_refused(home, tmp_path):
    raw = LOG.read_bytes()
    reduced = analyze_ok(LOG)
    [ref] = (home / "context").glob("ctx_*.json")
    victim = tmp_path / "victim.json"
    victim.write_bytes(ref.read_bytes())
    ref.unlink()
    ref.symlink_to(victim)
    assert "symlink" in one_error_line(tokens_cli("show-ref", ref.stem))
    assert "symlink" in one_error_line(tokens_cli("analyze", str(LOG)))
    assert victim.read_bytes().startswith(b'{"id":"ctx_')
    ref.unlink()
    analyze_ok(LOG)
    assert_restores(reduced, raw, tmp_path)
    # the store directory itself behind a symlink
    real = tmp_path / "elsewhere"
    (home / "context").rename(real)
    (home / "context").symlink_to(real)
    assert "symlink" in one_error_line(tokens_cli("analyze", str(LOG)))
    assert "symlink" in one_error_line(tokens_cli("show-ref", ref.stem))


def test_tail_checkpoint_and_output_never_follow_a_symlink(tmp_path, home):
    from flows.tail import checkpoint_path
    from operators.config import load_config

    log = tmp_path / "app.log"
    log.write_bytes(b"2024-05-01 10:00:00 INFO hello\n")
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious\n")
    link = tmp_path / "out-link.txt"
    link.symlink_to(victim)
    assert "symlink" in one_error_line(tokens_cli("tail", str(log), "-o", str(link)))
    out = tmp_path / "out.txt"
    cp = checkpoint_path(load_config(None), [str(log)], str(out))
    cp.parent.mkdir(parents=True)
    cp.symlink_to(victim)
    line = one_error_line(tokens_cli("tail", str(log), "-o", str(out), "--from-start"))
    assert "symlink" in line
    assert victim.read_bytes() == b"precious\n"


def test_tail_with_a_symlinked_store_directory_is_one_error_line(tmp_path, home):
    log = tmp_path / "app.log"
    log.write_bytes(b"2024-05-01 10:00:00 INFO hello\n")
    (tmp_path / "elsewhere").mkdir()
    home.mkdir()
    (home / "context").symlink_to(tmp_path / "elsewhere")
    assert "symlink" in one_error_line(tokens_cli("tail", str(log), "--from-start"))


def test_the_tail_checkpoint_temp_name_is_not_predictable(tmp_path, home):
    from flows.tail import Checkpoint, save_checkpoint

    cp_path = tmp_path / "tail" / "x.json"
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious\n")
    cp_path.parent.mkdir()
    for name in (f".{cp_path.name}.{os.getpid()}.tmp", f"{cp_path.name}.tmp"):  # the names a guesser would plant
        (cp_path.parent / name).symlink_to(victim)
    save_checkpoint(cp_path, Checkpoint(output="-"))
    assert victim.read_bytes() == b"precious\n"
    assert msgspec.json.decode(cp_path.read_bytes())["output"] == "-"
    assert not [p for p in cp_path.parent.iterdir() if p.name.endswith(".part")]


# -- 10. disk full, read-only store ------------------------------------------------------------------

@pytest.mark.parametrize("code, where", [(errno.ENOSPC, "_temp_file"), (errno.EROFS, "_temp_file"),
                                         (errno.ENOSPC, "link"), (errno.EROFS, "link")])
def test_disk_full_and_read_only_store_are_one_error_line(code, where, monkeypatch, capfd, home, tmp_path):
    from flows.cli import main

    def fail(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    if where == "link":
        monkeypatch.setattr(store_module.os, "link", fail)
    else:
        monkeypatch.setattr(store_module, "_temp_file", fail)
    status = main(["analyze", str(LOG)])
    err = capfd.readouterr().err
    assert status == 1 and "Traceback" not in err and "panicked" not in err
    lines = [line for line in err.splitlines() if line.startswith("tokens:")]
    assert lines == [f"tokens: error: cannot write to the store {home / 'context'}: {os.strerror(code)}"]
    assert not list((home / "context").glob(".tmp-*")) if (home / "context").exists() else True
    monkeypatch.undo()  # space again: the same input goes through and restores
    assert_restores(analyze_ok(LOG), LOG.read_bytes(), tmp_path)


def test_run_with_a_full_store_prints_the_raw_output_and_keeps_the_exit_code(monkeypatch, capfd, home):
    from flows.cli import main

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(store_module, "_temp_file", full)
    script = f"import sys; sys.stdout.buffer.write(open({str(LOG)!r}, 'rb').read()); sys.exit(4)"
    status = main(["run", "--", sys.executable, "-c", script])
    out, err = capfd.readouterr()
    assert status == 4
    assert out.encode() == b"[command failed: exit code 4]\n" + LOG.read_bytes()  # no marker to a ref never written
    assert "No space left on device" in err and "Traceback" not in err and "panicked" not in err


def test_gc_of_a_read_only_store_is_one_error_line(monkeypatch, capsys, home):
    from flows.cli import main

    store = Store(home)
    ref, _ = store.put("s", "log", "r", b"x" * 100)

    def read_only(path, *args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(store_module.os, "unlink", read_only)
    assert main(["refs", "gc", "--max-bytes", "0"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tokens: error: cannot remove ") and "Read-only file system" in err and err.count("\n") == 1
    monkeypatch.undo()
    assert store.get(ref.id).content == b"x" * 100


def test_a_write_that_fails_half_way_leaves_no_partial_record(monkeypatch, home):
    store = Store(home)
    store.put("warm", "log", "r", b"warm up")  # the directory exists
    real_write = os.write

    def full(fd, data):  # the store writes its temp files with os.write: 10 bytes go, then the disk is full
        real_write(fd, bytes(data)[:10])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store_module.os, "write", full)
    with pytest.raises(StoreError, match="No space left on device"):
        store.put("s", "log", "r", b"some content that will not fit")
    monkeypatch.undo()
    assert sorted(p.name for p in store.dir.iterdir() if not p.name.startswith(".retained")) == \
        sorted(p.name for p in store.dir.glob("ctx_*.json"))  # no temp file left
    ref, created = store.put("s", "log", "r", b"some content that will not fit")
    assert created and store.get(ref.id).content == b"some content that will not fit"


# -- 11b. expand --full and a text that several packets were reduced to ------------------------------

def test_expand_full_refuses_a_text_that_matches_several_packets(home, tmp_path):
    store = Store(home)
    visible = b"the same reduced text #ref:ctx_abcdef\n"
    vsha = hashlib.sha256(visible).hexdigest()
    ids = []
    for raw in (b"original one", b"original two"):
        ids.append(store.put_manifest(Manifest(
            id="", source="s", type="text", raw_bytes=len(raw), raw_sha256=hashlib.sha256(raw).hexdigest(),
            visible_bytes=len(visible), visible_sha256=vsha, refs=[], layout=msgspec.Raw(b"[]"), markers=[],
            created=0.0)))
    assert ids[0] != ids[1]
    with pytest.raises(StoreError, match="matches 2 packets"):
        store.find_manifest_for_visible(visible)
    reduced = tmp_path / "reduced.txt"
    reduced.write_bytes(visible)
    line = one_error_line(tokens_cli("expand", "--full", str(reduced)))
    assert ids[0] in line and ids[1] in line and "pkt_" in line
    # a gap in the id chain (the shorter one removed) does not hide the longer one
    (store.dir / f"{ids[0]}.json").unlink()
    assert store.find_manifest_for_visible(visible).id == ids[1]


def test_expand_full_of_one_packet_still_restores(home, tmp_path):
    reduced = analyze_ok(LOG)
    assert_restores(reduced, LOG.read_bytes(), tmp_path)


# -- automatic retention -------------------------------------------------------------------------------

def test_automatic_retention_keeps_what_is_needed_or_recently_used(home):
    policy = Retention(max_age=10 * DAY, max_bytes=1, keep_newer=DAY, every=0)
    store = Store(home, retention=policy)
    needed = reduce_bytes(LOG.read_bytes(), source="kept.log")
    orphan, _ = store.put("gone.log", "log", "r", b"unreferenced and old\n" * 10)
    recent, _ = store.put("recent.log", "log", "r", b"unreferenced but used today\n" * 10)
    age([store.dir / f"{orphan.id}.json"] + [store.dir / f"{r.id}.json" for r in needed.references], 40)
    assert (store.dir / ".retained").exists()  # the first packet stored started the clock
    assert (store.dir / f"{orphan.id}.json").exists()
    age([store.dir / ".retained"], 1)
    store.retain()
    assert not (store.dir / f"{orphan.id}.json").exists()  # unused for 40 days, needed by nothing
    assert (store.dir / f"{recent.id}.json").exists()  # over the size budget, but used today
    for ref in needed.references:  # old, but its packet was used just now
        assert store.get(ref.id).content == bytes(ref.content)
    assert (store.dir / ".retained").stat().st_mtime > time.time() - 60


def test_retention_runs_by_itself_when_a_packet_is_stored(home):
    store = Store(home)
    old, _ = store.put("old.log", "log", "r", b"x" * 1000)
    age([store.dir / f"{old.id}.json"], 400)
    (store.dir / ".retained").touch()
    age([store.dir / ".retained"], 1)
    reduce_bytes(LOG.read_bytes(), source="any.log")  # STORE writes a manifest: the budget is applied
    assert not (store.dir / f"{old.id}.json").exists()
    assert (store.dir / ".retained").stat().st_mtime > time.time() - 60


def test_expand_output_never_writes_through_a_symlink(tmp_path):
    reduced = tmp_path / "reduced.txt"
    result = tokens_cli("analyze", str(FIXTURES / "sample.log"))
    reduced.write_bytes(result.stdout)
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep me\n")
    (tmp_path / "link").symlink_to(victim)
    refused = tokens_cli("expand", "--full", str(reduced), "-o", str(tmp_path / "link"))
    assert refused.returncode == 1 and b"symlink" in refused.stderr and refused.stderr.count(b"\n") == 1
    assert victim.read_bytes() == b"keep me\n"
    ok = tokens_cli("expand", "--full", str(reduced), "-o", str(tmp_path / "out.log"))
    assert ok.returncode == 0 and (tmp_path / "out.log").read_bytes() == (FIXTURES / "sample.log").read_bytes()
