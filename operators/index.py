"""The search index of stored refs: ``<home>/index.sqlite`` (stdlib ``sqlite3`` with FTS5).

STORE calls ``index_packet`` for every packet it writes, which only notes the packet's id in
``index.pending`` (one ``O_APPEND`` write: no sqlite, no fsync on a run). ``search`` first indexes
every packet noted since (``catch_up``, one transaction), then queries. Each ref is cut into chunks of
whole lines (``CHUNK`` bytes at most) and each chunk's words go into a *contentless* FTS5 table: the
index holds words and where they are (ref, first line, byte offset), never a second copy of the bytes.
``search`` finds the chunks holding every word asked for, newest packets first, reads those refs back
from the store and prints the lines that hold the words, with their line numbers. A ref removed from
the store since is skipped (and dropped from the index); so is a noted packet removed before a search.

Bounds: at most ``INDEX_MAX`` bytes of refs per packet are indexed (a 200 MB run stays fast; the rest
of such a ref is reachable with ``tokens expand ID --grep``), at most ``REFS_MAX`` refs are kept in
the index (the oldest go first), at most ``PENDING_MAX`` bytes of notes (the oldest go first: a store
is gc'd long before). Indexing never fails a run nor a search: packets that cannot be indexed now (the
index locked by another process for longer than ``BUSY_MS``, a damaged or read-only index, a full
disk) stay noted for the next search. Secret values (``operators.secrets``) are neither words of the
index nor shown in a result.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Iterable

import msgspec

from operators.relazy import lazy

INDEX_FILE = "index.sqlite"
CHUNK = 64 * 1024  # bytes of whole lines per indexed row
INDEX_MAX = 1024 * 1024  # bytes of refs indexed per packet (about 0.04 s: what a big run adds to its time)
REFS_MAX = 20_000  # refs kept in the index
BUSY_MS = 2000  # how long a writer waits for another one
HITS_LINES = 20  # matching lines kept per ref in a result
PENDING_FILE = "index.pending"  # ids of packets stored since the last search (indexed by the next one)
PENDING_MAX = 1024 * 1024  # bytes of notes kept (about 60,000 packets); past it the older half goes
CLAIM_STALE = 600  # seconds: a claimed note this old was left by a killed process
HIT_LINE_MAX = 300  # characters of one matching line in a result (the whole line: tokens expand ID --lines N)
SCHEMA = (
    "create table if not exists refs (ref text primary key, pkt text, source text, created real,"
    " bytes integer, indexed integer)",
    "create table if not exists chunks (id integer primary key, ref text, line integer, offset integer, length integer)",
    "create index if not exists chunks_ref on chunks(ref)",
    "create virtual table if not exists words using fts5(text, content='', tokenize='unicode61')",
)
_WORD_RE = lazy(r"\w+", re.UNICODE)  # compiled by a search only


class Hit(msgspec.Struct, kw_only=True):
    """One ref holding the words: its id, source, packet, and (line number, line) of the lines that
    hold them all (or any of them, when no single line holds them all)."""

    ref: str
    source: str
    packet: str
    lines: list[tuple[int, str]]
    more_lines: bool = False


def _connect(home: Path | str):
    import sqlite3

    path = Path(home) / INDEX_FILE
    if os.path.islink(path):
        raise OSError(f"{path} is a symlink")
    if not os.path.exists(path):  # created private, like the store's files (it holds words of the outputs)
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600))
        except FileExistsError:
            pass
    db = sqlite3.connect(str(path), timeout=BUSY_MS / 1000, isolation_level=None)
    db.execute(f"pragma busy_timeout={BUSY_MS}")
    return db


def _chunks(data: bytes) -> Iterable[tuple[int, int, int]]:
    """(first line number, offset, length) of each run of whole lines of at most CHUNK bytes (a
    longer line is cut)."""
    line, at, size = 1, 0, len(data)
    while at < size:
        end = min(size, at + CHUNK)
        if end < size:
            cut = data.rfind(b"\n", at, end)
            end = cut + 1 if cut >= at else end
        yield line, at, end - at
        line += data.count(b"\n", at, end)
        at = end


def _bytes_of(content, limit: int) -> bytes:
    """At most ``limit`` bytes of a ref's content (bytes, a memoryview or ``Spans``)."""
    if hasattr(content, "view"):  # Spans: one copy of what is indexed only
        return bytes(content.view(0, min(limit, len(content))))
    return bytes(content[:limit])


def index_packet(store_home: Path | str, manifest, refs) -> None:
    """Note one stored packet (a ``Manifest`` and its ``Reference``s) for the index: the next search
    indexes it (``catch_up``). Never raises: the index is a convenience, a run never fails because of it."""
    try:
        if refs and os.path.isdir(store_home):
            _defer(store_home, [manifest.id])
    except Exception:
        pass


def _defer(home: Path | str, pkt_ids: list[str]) -> None:
    """Note packets to index later: one id a line, appended (0600, never through a symlink); a note
    grown past ``PENDING_MAX`` keeps its newer half."""
    if not pkt_ids:
        return
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(Path(home) / PENDING_FILE, flags, 0o600)
    try:
        os.write(fd, "".join(f"{pkt_id}\n" for pkt_id in pkt_ids).encode())
        if os.fstat(fd).st_size > PENDING_MAX:
            _halve(home)
    finally:
        os.close(fd)


def _halve(home: Path | str) -> None:
    """Keep the newer half of an overgrown note (taken by a rename, as ``_claim`` does)."""
    claimed = _claim(home)
    ids: list[str] = []
    for path in claimed:
        with open(path, "rb") as fh:
            ids += fh.read().decode("ascii", "replace").split()
    keep = ids[len(ids) // 2 :]
    fd = os.open(Path(home) / PENDING_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.write(fd, "".join(f"{pkt_id}\n" for pkt_id in keep).encode())
    finally:
        os.close(fd)
    for path in claimed:
        os.unlink(path)


def catch_up(home: Path | str) -> int:
    """Index every packet noted since the last search, in one transaction; how many were indexed.
    The note is taken by renaming it first, so two processes never index the same packets twice nor
    lose one noted meanwhile; whatever could not be indexed (the index locked, damaged) is noted again.
    Raises like ``sqlite3``."""
    from operators.store import PKT_ID_RE, Store, StoreError

    claimed = _claim(home)
    if not claimed:
        return 0
    pending: dict[str, None] = {}
    for path in claimed:
        try:
            with open(path, "rb") as fh:
                pending.update(dict.fromkeys(w for w in fh.read().decode("ascii", "replace").split() if PKT_ID_RE.fullmatch(w)))
        except OSError:
            continue
    store, done = Store(home, retention=None), 0
    try:
        packets = []
        for pkt_id in pending:
            try:
                manifest = store.get_manifest(pkt_id)
                packets.append((manifest, [store.get(ref_id) for ref_id in manifest.refs]))
            except StoreError:  # removed by gc since: nothing to index
                continue
        _index(home, packets)
        done, pending = len(packets), {}
    finally:
        _defer(home, list(pending))  # not indexed (locked, damaged): noted again first
        for path in claimed:
            try:
                os.unlink(path)
            except OSError:
                pass
    return done


def _claim(home: Path | str) -> list[str]:
    """Take the notes of packets to index later (a claimed note left by a killed process too)."""
    home = Path(home)
    claimed = []
    try:
        names = [n for n in os.listdir(home) if n.startswith(PENDING_FILE)]
    except OSError:
        return claimed
    for name in names:
        path = home / name
        if name == PENDING_FILE:
            target = home / f"{PENDING_FILE}.{os.urandom(6).hex()}"
            try:
                os.rename(path, target)
                os.utime(target)  # claimed now (a rename keeps the time of the last note)
            except OSError:
                continue
            path = target
        elif os.stat(path, follow_symlinks=False).st_mtime > time.time() - CLAIM_STALE:
            continue  # another process is indexing them now
        if os.path.isfile(path) and not os.path.islink(path):
            claimed.append(str(path))
    return claimed


def _index(store_home: Path | str, packets: list) -> None:
    """Index the refs of ``packets`` ((manifest, refs) pairs, oldest first) in one transaction."""
    from operators.secrets import holds_only_secrets

    todo = [(m, [r for r in refs if not holds_only_secrets(r.reason)]) for m, refs in packets]  # hidden values: never searchable
    todo = [(m, refs) for m, refs in todo if refs]
    if not todo:
        return
    db = _connect(store_home)
    try:
        for statement in SCHEMA:
            db.execute(statement)
        db.execute("begin immediate")
        try:
            for manifest, refs in todo:
                _index_packet(db, manifest, refs)
            db.execute("commit")
        except BaseException:
            db.execute("rollback")
            raise
        _trim(db)
    finally:
        db.close()


def _index_packet(db, manifest, refs) -> None:
    """Add one packet's refs to the index (inside the caller's transaction)."""
    from operators.secrets import hide

    budget = INDEX_MAX
    for ref in refs:
        row = db.execute("select indexed from refs where ref = ?", (ref.id,)).fetchone()
        if row is not None:  # the same content stored again: newer now, indexed already
            db.execute("update refs set created = ?, pkt = ? where ref = ?", (manifest.created, manifest.id, ref.id))
            continue
        data = _bytes_of(ref.content, budget)
        budget -= len(data)
        db.execute("insert into refs values (?, ?, ?, ?, ?, ?)",
                   (ref.id, manifest.id, ref.source, manifest.created, len(ref.content), len(data)))
        for line, offset, length in _chunks(data):
            cur = db.execute("insert into chunks (ref, line, offset, length) values (?, ?, ?, ?)",
                             (ref.id, line, offset, length))
            text = hide(data[offset : offset + length]).decode("utf-8", "replace")  # no secret is a word of the index
            db.execute("insert into words (rowid, text) values (?, ?)", (cur.lastrowid, text))


def _trim(db) -> None:
    """Keep the newest REFS_MAX refs (checked after each catch-up). A contentless FTS5 table cannot
    forget a row's words without its text, so the words of forgotten chunks stay behind, never joined
    to a chunk again; when they are most of the index, the index is emptied (it is a cache)."""
    (count,) = db.execute("select count(*) from refs").fetchone()
    if count > REFS_MAX:
        old = [r for (r,) in db.execute("select ref from refs order by created limit ?", (count - REFS_MAX,))]
        _forget(db, old)
    (live,) = db.execute("select count(*) from chunks").fetchone()
    (made,) = db.execute("select coalesce(max(id), 0) from chunks").fetchone()
    if made > 4 * live + 10_000:
        db.execute("begin immediate")
        for table in ("words", "chunks", "refs"):
            db.execute(f"delete from {table}")
        db.execute("commit")
        db.execute("vacuum")


def _forget(db, refs: list[str]) -> None:
    db.execute("begin immediate")
    for ref in refs:
        db.execute("delete from chunks where ref = ?", (ref,))
        db.execute("delete from refs where ref = ?", (ref,))
    db.execute("commit")


def words_of(pattern: str) -> list[str]:
    """The words of a search pattern (what FTS5 indexed: letters, digits and underscores)."""
    return _WORD_RE.findall(pattern)


def _match_query(words: list[str]) -> str:
    return " ".join('"' + w.replace('"', '""') + '"' for w in words)


def search(home: Path | str, pattern: str, limit: int = 10) -> tuple[list[Hit], int]:
    """Refs of recent packets holding every word of ``pattern`` (newest first, at most ``limit``),
    with their matching lines; and how many refs the index holds."""
    from operators.secrets import holds_only_secrets
    from operators.store import Store, StoreError

    import sqlite3

    words = words_of(pattern)
    path = Path(home) / INDEX_FILE
    try:
        catch_up(home)  # the packets stored since the last search
    except Exception:  # locked or damaged: they stay noted; what is indexed is still searched
        pass
    if not words or not os.path.lexists(path):
        return [], 0
    try:
        db = _connect(home)
        try:
            (held,) = db.execute("select count(*) from refs").fetchone()
            rows = db.execute(
                "select c.ref, c.line, c.offset, c.length, r.source, r.pkt from words w join chunks c on c.id = w.rowid"
                " join refs r on r.ref = c.ref where words match ? order by r.created desc, c.id", (_match_query(words),),
            ).fetchall()
        finally:
            db.close()
    except (sqlite3.Error, OSError) as exc:
        raise StoreError(f"the search index {path} cannot be read ({exc}); remove it: "
                         "packets stored from then on are indexed again") from None
    store = Store(home, retention=None)
    hits: dict[str, Hit] = {}
    contents: dict[str, bytes] = {}
    gone = []
    for ref, line, offset, length, source, pkt in rows:
        if ref not in hits:
            if len(hits) >= limit:
                break
            try:
                found = store.get(ref)
                if holds_only_secrets(found.reason):  # indexed before such refs were left out
                    gone.append(ref)
                    continue
                contents[ref] = found.content
            except StoreError:
                gone.append(ref)
                continue
            hits[ref] = Hit(ref=ref, source=source, packet=pkt, lines=[])
        _add_lines(hits[ref], contents[ref], line, offset, length, words)
    if gone:
        _drop(home, gone)
    return list(hits.values()), held


def _add_lines(hit: Hit, data: bytes, line: int, offset: int, length: int, words: list[str]) -> None:
    from operators.secrets import hide

    chunk = hide(data[offset : offset + length]).decode("utf-8", "replace").split("\n")  # secret values never shown
    if chunk and chunk[-1] == "":
        chunk.pop()
    lowered = [w.lower() for w in words]
    numbered = [(line + i, text) for i, text in enumerate(chunk)]
    every = [(n, t) for n, t in numbered if all(w in t.lower() for w in lowered)]
    found = every or [(n, t) for n, t in numbered if any(w in t.lower() for w in lowered)]
    for n, text in found:
        if len(hit.lines) >= HITS_LINES:
            hit.more_lines = True
            return
        hit.lines.append((n, text if len(text) <= HIT_LINE_MAX else text[:HIT_LINE_MAX] + " …"))


def _drop(home: Path | str, refs: list[str]) -> None:
    try:
        db = _connect(home)
        try:
            _forget(db, refs)
        finally:
            db.close()
    except Exception:
        pass


def indexed_refs(home: Path | str) -> list[str]:
    """The ref ids the index holds (tests, diagnostics; packets noted since are not in it yet)."""
    if not os.path.exists(Path(home) / INDEX_FILE):
        return []
    db = _connect(home)
    try:
        return [r for (r,) in db.execute("select ref from refs order by created")]
    finally:
        db.close()
