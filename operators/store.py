"""The content-addressed reference store under ``<home>/context/``.

Two kinds of record, each one JSON file written atomically:

* refs ``ctx_<hex>.json`` — one omission: source, type, reason and the exact bytes (UTF-8 text, or
  base64 when the bytes are not valid UTF-8), with a sha256 to detect corruption. Contents of
  ``SIDECAR_MIN`` bytes or more are kept raw in ``blob_<sha256>.bin`` beside the record (no JSON
  escaping or base64 of megabytes; equal contents share one blob);
* manifests ``pkt_<hex>.json`` — one reduced packet: its refs in order and the layout that splices
  visible bytes and ref contents back into the original (see ``operators.reduction``), with a copy
  of the visible bytes in ``pkt_<hex>.visible`` so ``tokens expand --full pkt_…`` needs nothing else.

Ids are a prefix of sha256 over an unambiguous, length-prefixed encoding of the record's key. A
prefix already taken by different content is lengthened, never overwritten. The ids of one plan's
refs are assigned here too (``assign_ids``, pure: the same contents get the same ids), so the graph
renders its markers with the ids the store will write under; ``Store.put_ref`` writes them. A new file is created by
``os.link`` from a complete temp file (a fresh random name made with ``O_EXCL|O_NOFOLLOW`` in the store
directory), which fails instead of replacing: concurrent writers (workers, processes) can never
produce a partial or mixed file. The temp file is written by ``write_parts``: each part of the content
straight from memory (a ref of the raw input is written from views of it, never joined).

**Repair**: a writer that finds its own record (or blob, or visible copy) damaged — it does not decode,
or its bytes do not match their sha256 — replaces it atomically (``os.replace`` of a complete temp
file), the way git rewrites a corrupt loose object it holds the bytes of. A record is taken for ours
only when its key fields match; a damaged record whose key cannot be read is left alone and the new
record gets a longer id.

**Last use**: reusing a record (the same content stored again, or read back) refreshes its mtime, so
age means "last used". ``gc`` removes old or over-budget packets first, then refs that no kept
packet points to (a ref a kept packet needs is never removed), blobs with their last ref, and stale
temp files of killed writers; anything in the directory it does not own (other names, directories,
symlinks, FIFOs) is skipped. ``Retention`` is the automatic budget, applied at most once an hour by a
writing process, never to anything used in the last day.

**Safety**: every read opens with ``O_NOFOLLOW|O_NONBLOCK`` and checks ``fstat`` first, so a symlink,
FIFO, device or directory where a record should be is one clear ``StoreError``, never a hang; the
store directory itself must be a real directory. Every file-system failure (disk full, read-only)
is a ``StoreError`` naming the store.

Ids given by users are validated against ``ID_RE`` before any path is built from them.
"""

from __future__ import annotations

import base64
import errno
import heapq
import os
import re
import stat
import time
from pathlib import Path

import msgspec

from operators.errors import TokensError
from operators.digest import sha256, sha256_hex

from operators.packet import Reference
from operators.kept import KeptFor
from operators.reduction import Layout, Spans, parts_of, restore

REF_ID_RE = re.compile(r"ctx_[0-9a-f]{6,64}")
PKT_ID_RE = re.compile(r"pkt_[0-9a-f]{12,64}")
MARKER_RE = re.compile(rb"#ref:ctx_[0-9a-f]{6,64}")
REF_ID_LEN = 6
PKT_ID_LEN = 12
SIZE_RESCAN = 10.0  # seconds
SIDECAR_MIN = 64 * 1024  # bytes: larger contents go to a raw sidecar file
STORE_SUFFIXES = (".json", ".visible", ".bin")
TEMP_GRACE = 15 * 60  # seconds: a temp file older than this is debris of a killed writer
ORPHAN_GRACE = 3600  # seconds: a ref no packet points to, this old, is debris of a killed run
PRIVATE_DIR = 0o700  # the store's directories; its files are 0600
RETAIN_STAMP = ".retained"  # mtime: when the automatic budget was last applied
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_SAME, _REPAIR, _OTHER = "same", "repair", "other"  # what a writer finds at its record's path


class StoreError(TokensError):
    """A clear, user-facing problem with the store or an id. ``errno``: the OS error behind it, if any."""

    def __init__(self, message: str, errno: int | None = None):
        super().__init__(message)
        self.errno = errno


class Retention(msgspec.Struct, kw_only=True, frozen=True):
    """The automatic budget: records unused for ``max_age`` seconds go, then the least recently used
    until the store is under ``max_bytes``; nothing used in the last ``keep_newer`` seconds is ever
    removed. Applied at most every ``every`` seconds by a process that writes."""

    max_age: float = 30 * 86400
    max_bytes: int = 2 * 1024**3
    keep_newer: float = 86400
    every: float = 3600


def retention_of(config) -> Retention | None:
    """The automatic retention a config's ``[store]`` section asks for (None when ``auto`` is off)."""
    settings = config.store
    if not settings.auto:
        return None
    return Retention(max_age=settings.max_age_days * 86400, max_bytes=settings.max_bytes,
                     keep_newer=settings.keep_newer_hours * 3600)


class RefFile(msgspec.Struct, kw_only=True):
    id: str
    source: str
    type: str
    reason: str
    encoding: str  # "utf-8", "base64", or "sidecar" (the bytes are in blob_<sha256>.bin)
    content: str
    bytes: int
    sha256: str
    created: float


class Manifest(msgspec.Struct, kw_only=True):
    id: str
    source: str
    type: str
    raw_bytes: int
    raw_sha256: str
    visible_bytes: int
    visible_sha256: str
    refs: list[str]
    layout: msgspec.Raw  # JSON [[0, visible_offset, length] | [1, ref_index, ref_offset, length], ...]: see Layout
    markers: list[list[int]]
    created: float
    ceiling: bool = False  # the visible text was cut to the output ceiling (operators.ceiling)


class _ManifestRefs(msgspec.Struct):
    """What gc reads of a manifest: the refs it needs (the layout is skipped, not parsed)."""

    refs: list[str] = []


class _RefBlob(msgspec.Struct):
    """What gc reads of a ref record: the blob it may point to."""

    encoding: str = ""
    sha256: str = ""


def manifest_layout(manifest: Manifest) -> Layout:
    """The manifest's layout, read entry by entry; StoreError when it is not a valid layout."""
    try:
        return Layout.from_json(bytes(manifest.layout))
    except ValueError as exc:
        raise StoreError(f"corrupt packet {manifest.id}: {exc}") from None


class RefInfo(msgspec.Struct, kw_only=True):
    id: str
    source: str
    reason: str
    bytes: int
    age_seconds: float
    path: str


def normalize_ref_id(text: str) -> str:
    """Accept ``#ref:ctx_…`` or ``ctx_…``; anything else is a clear error."""
    candidate = text.strip()
    if candidate.startswith("#ref:"):
        candidate = candidate[5:]
    if not REF_ID_RE.fullmatch(candidate):
        raise StoreError(f"not a ref id: {text!r} (expected #ref:ctx_ followed by 6-64 lowercase hex digits)")
    return candidate


PAIR_MIN = 1 << 20  # bytes of a ref of the raw input from which it and the input are hashed in one pass
_raw_digest = KeptFor(PAIR_MIN)  # the input whose SHA-256 was made beside its big ref's, and that digest


def raw_sha256_kept(raw) -> str | None:
    """The SHA-256 (hex) of this very ``raw`` object made beside a ref's (``assign_ids``), once: it is
    forgotten as it is given (and the reference to the input with it)."""
    kept = _raw_digest.get(raw)
    if kept is None:
        return None
    _raw_digest.forget()
    return kept[0]


def _content_and_raw_sha256(content) -> str:
    """``content_sha256(content)`` of a ref of ``PAIR_MIN`` bytes or more that is spans of the raw
    input: with SHA-NI, the input's own SHA-256 made in the same pass (``kernel.sha256_pair``: the two
    compressions interleaved, ~13 ms for 2 x 20 MB against ~20 ms one after the other) and kept for
    ``raw_sha256_kept``. The same digests as hashlib's."""
    if (isinstance(content, Spans) and len(content) >= PAIR_MIN and type(content.raw) is bytes
            and _raw_digest.get(content.raw) is None):
        from operators.kernel import sha256_pair

        pair = sha256_pair(content.raw, content.raw, content.starts, content.ends) if sha256_pair else None
        if pair is not None:
            _raw_digest.keep(content.raw, (pair[0].hex(),))
            return pair[1].hex()
    return content_sha256(content)


def content_sha256(content) -> str:
    """The sha256 (hex) of a ref's content (bytes, or ``Spans``: views of the raw input), fed piece
    by piece. Computed once per ref: it names the blob, is the record's checksum and goes into the id."""
    h = sha256(size=len(content))
    for part in parts_of(content):
        h.update(part)
    return h.hexdigest()


def ref_digest(source: str, reason: str, sha256: str, size: int) -> str:
    """The digest a ref id is a prefix of: sha256 over length-prefixed fields (``len:field;`` each) of
    the source and the reason, then the content as its size and sha256 (``size:hex;``). The content
    is not hashed a second time for its id."""
    fields = [b"%d:%s;" % (len(field), field) for field in (source.encode("utf-8", "surrogateescape"), reason.encode())]
    return sha256_hex(b"".join(fields) + b"%d:%s;" % (size, sha256.encode("ascii")))


def pure_ref_id(source: str, reason: str, content: bytes) -> str:
    """The id a ref gets when its 6-hex prefix is free (the usual case)."""
    return "ctx_" + ref_digest(source, reason, content_sha256(content), len(content))[:REF_ID_LEN]


def assign_ids(source: str, type: str, reasons: dict, contents: dict) -> dict[str, Reference]:
    """The references of one plan's omissions (``contents``: group -> bytes or ``Spans``, in order;
    ``reasons``: group -> reason), each named as the store names it: its content hashed once
    (``content_sha256``), its ``ref_digest``, and as id the digest's shortest prefix of ``REF_ID_LEN``
    hex digits or more that no other content of the same plan took (the prefix ``Store.put`` would move
    to, writing the refs in this order). Pure: nothing is read or written. A prefix that other content
    already holds in the store is found only by ``put_ref``, which then writes under a longer id."""
    refs: dict[str, Reference] = {}
    taken: dict[str, str] = {}  # id -> the digest it is a prefix of
    for group, content in contents.items():
        sha = _content_and_raw_sha256(content)
        digest = ref_digest(source, reasons[group], sha, len(content))
        size = REF_ID_LEN
        while taken.setdefault("ctx_" + digest[:size], digest) != digest:
            size += 1
        refs[group] = Reference(id="ctx_" + digest[:size], source=source, type=type, reason=reasons[group],
                                content=content, digest=digest, sha256=sha, hashed=content)
    return refs


def _encode_content(content: bytes) -> tuple[str, str]:
    try:
        return "utf-8", content.decode("utf-8")
    except UnicodeDecodeError:
        return "base64", base64.b64encode(content).decode("ascii")


def _decode_content(record: RefFile) -> bytes:
    if record.encoding == "utf-8":
        return record.content.encode("utf-8")
    if record.encoding == "base64":
        return base64.b64decode(record.content, validate=True)
    raise ValueError(f"unknown encoding {record.encoding!r}")


_ref_decoder = msgspec.json.Decoder(RefFile)
_manifest_decoder = msgspec.json.Decoder(Manifest)
_manifest_refs_decoder = msgspec.json.Decoder(_ManifestRefs)
_ref_blob_decoder = msgspec.json.Decoder(_RefBlob)
_encoder = msgspec.json.Encoder()


def _temp_file(directory: Path | str) -> tuple[int, str]:
    """A new, empty file in ``directory`` with a random name ``.tmp-….part``, mode 0600: what
    ``tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".part")`` does, without importing
    ``tempfile`` (with ``random`` and ``shutil``: several ms of every ``tokens`` start)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | _BINARY
    for _ in range(100):
        name = os.path.join(directory, f".tmp-{os.urandom(6).hex()}.part")
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary file name in {directory}")


def write_parts(fd: int, data) -> None:
    """Write ``data`` (bytes or ``Spans``) to the new, empty file ``fd``: each part straight from its
    memory by ``os.write`` (no buffer in between), a short write continued. OSError when a write
    fails (disk full)."""
    for part in parts_of(data):
        view = memoryview(part).cast("B")
        while view:
            written = os.write(fd, view)
            if not written:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            view = view[written:]


def is_temp_name(name: str) -> bool:
    return name.startswith(".tmp-") and name.endswith(".part")


def kind_of(mode: int) -> str:
    """What a file is, in words (for messages about files that are not regular)."""
    if stat.S_ISREG(mode):
        return "a regular file"
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symlink")):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: Path | str, what: str = "store file"):
    """Open ``path`` for reading as a binary file object, only if it is a regular file: a symlink is
    refused (``O_NOFOLLOW``), a FIFO or device never blocks (``O_NONBLOCK``, then ``fstat``). Raises
    FileNotFoundError when it is missing, StoreError for anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise StoreError(f"{what} {path} is a symlink (refused)", exc.errno) from None
        raise StoreError(f"cannot read {what} {path}: {exc.strerror or exc}", exc.errno) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise StoreError(f"{what} {path} is {kind_of(mode)}, not a regular file")
        if _NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_regular(path: Path | str, what: str = "store file") -> bytes:
    """The bytes of a regular file (see ``open_regular``)."""
    with open_regular(path, what) as fh:
        try:
            return fh.read()
        except OSError as exc:
            raise StoreError(f"cannot read {what} {path}: {exc.strerror or exc}", exc.errno) from None


def check_target(path: Path | str, what: str = "output") -> bool:
    """Whether ``path`` exists as a regular file we may replace; False when it does not exist. A
    symlink or anything but a regular file there is a StoreError (never followed, never replaced)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(mode):
        raise StoreError(f"{what} {path} is {kind_of(mode)}, not a regular file (refused)")
    return True


def check_directory(path: Path | str, what: str = "directory", create: bool = True) -> bool:
    """Whether ``path`` is a real directory (made when missing and ``create``, mode 0700 whatever
    the umask, with any missing parent). A symlink or a file there is a StoreError; so is a failure
    to make it (read-only file system …)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        if not create:
            return False
        try:
            make_private_dirs(path)
        except OSError as exc:
            raise StoreError(f"cannot create {what} {path}: {exc.strerror or exc}", exc.errno) from None
        return check_directory(path, what, create=False)
    if not stat.S_ISDIR(mode):
        raise StoreError(f"{what} {path} is {kind_of(mode)}, not a directory (refused)")
    return True


def make_private_dirs(path: Path | str) -> None:
    """Make ``path`` and its missing parents, each mode 0700 (set after ``mkdir``: the umask does
    not decide). A directory made meanwhile by another process is fine."""
    missing = []
    at = Path(os.path.abspath(path))
    while not os.path.lexists(at) and at != at.parent:
        missing.append(at)
        at = at.parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, PRIVATE_DIR)
        except FileExistsError:
            continue
        os.chmod(directory, PRIVATE_DIR)


def check_private(path: Path | str, what: str = "store directory") -> None:
    """Refuse a directory of the store that another user owns or that others may write to (they
    could plant or swap records): one StoreError saying how to fix it. One of ours that others may
    read or enter is made 0700."""
    st = os.lstat(path)
    uid = getattr(os, "geteuid", lambda: None)()
    if uid is not None and st.st_uid != uid:
        raise StoreError(f"{what} {path} belongs to another user (uid {st.st_uid}, not {uid}): refused; "
                         "use a store of your own (NOLIFE_TOKENS_HOME)")
    if st.st_mode & 0o022:
        who = " and ".join(w for w, bit in (("its group", 0o020), ("other users", 0o002)) if st.st_mode & bit)
        raise StoreError(f"{what} {path} is writable by {who} (mode {stat.S_IMODE(st.st_mode):04o}): refused; "
                         f"make it private: chmod 700 {path}")
    if st.st_mode & 0o077:
        try:
            os.chmod(path, PRIVATE_DIR)
        except OSError:
            pass


def replace_file(path: Path | str, data, what: str = "output", mode: int = 0o600) -> None:
    """Write ``data`` (bytes or parts) to ``path`` atomically: a complete temp file with a fresh random
    name in the same directory (permissions ``mode``), then ``os.replace``. Never follows a symlink at
    ``path`` (refused, like any other non-regular file there). OSError (disk full, read-only) is a
    StoreError."""
    check_target(path, what)
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = _temp_file(directory)
    except OSError as exc:
        raise StoreError(f"cannot write {what} {path}: {exc.strerror or exc}", getattr(exc, "errno", None)) from None
    try:
        try:
            if mode != 0o600:
                os.fchmod(fd, mode)
            write_parts(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as exc:
        _unlink_quietly(tmp)
        raise StoreError(f"cannot write {what} {path}: {exc.strerror or exc}", exc.errno) from None


def _unlink_quietly(path: Path | str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _touch(path: Path | str) -> None:
    """Mark a record in use now (its mtime is its last use); a read-only store just keeps the old time."""
    try:
        os.utime(path, follow_symlinks=False)
    except (OSError, NotImplementedError):
        pass


class Store:
    def __init__(self, home: Path | str, retention: Retention | None = Retention()):
        self.home = Path(home)
        self.dir = self.home / "context"
        self.retention = retention  # None: no automatic gc
        self._size: list[int] | None = None  # [files, bytes], see size()
        self._size_at = 0.0
        self._dir_ok = False
        self._retain_checked = 0.0

    # -- refs ---------------------------------------------------------------------------------
    def put(self, source: str, type: str, reason: str, content, digest: str | None = None,
            sha256: str | None = None) -> tuple[Reference, bool]:
        """Store one omission (bytes, or ``Spans``); returns the reference and whether a file was written.

        ``sha256``: ``content_sha256(content)`` and ``digest``: ``ref_digest(…)`` when the caller
        already has them (OPTIMIZE does): then the content is not hashed here at all."""
        sha = sha256 or content_sha256(content)
        digest = digest or ref_digest(source, reason, sha, len(content))
        if len(content) >= SIDECAR_MIN:
            self._put_blob(sha, content)  # first: a record never points at a missing blob
            encoding, text = "sidecar", ""
        else:
            encoding, text = _encode_content(bytes(content))  # small: a copy costs nothing

        def record(ref_id: str) -> bytes:
            return _encoder.encode(
                RefFile(
                    id=ref_id, source=source, type=type, reason=reason, encoding=encoding,
                    content=text, bytes=len(content), sha256=sha, created=time.time(),
                )
            )

        def verdict(ref_id: str, data: bytes, ours: bytes) -> str:
            try:
                existing = _ref_decoder.decode(data)
            except msgspec.DecodeError:
                return _REPAIR if _damaged_ref_is_ours(data, ours) else _OTHER
            # equal sha256 and size of equal-keyed records: the same content
            if (existing.source, existing.reason, existing.sha256, existing.bytes) != (source, reason, sha, len(content)):
                return _OTHER
            if existing.id != ref_id or existing.encoding != encoding:
                return _REPAIR
            if encoding == "sidecar":
                return _SAME  # the blob was checked (or written) just now
            try:
                return _SAME if _decode_content(existing) == bytes(content) else _REPAIR
            except ValueError:
                return _REPAIR

        ref_id, created = self._put_record("ctx_", digest, REF_ID_LEN, record, verdict)
        ref = Reference(id=ref_id, source=source, type=type, reason=reason, content=content, digest=digest, sha256=sha,
                        hashed=content)
        return ref, created

    def put_ref(self, ref: Reference) -> tuple[Reference, bool]:
        """Store one reference (made by ``assign_ids``, or by a plug-in stage); its sha256 and digest are
        reused only while they are of its very content (``ref.hashed is ref.content``)."""
        hashed = ref.hashed is ref.content and ref.sha256 and ref.digest
        return self.put(ref.source, ref.type, ref.reason, ref.content,
                        digest=ref.digest if hashed else None, sha256=ref.sha256 if hashed else None)

    def get(self, text: str) -> Reference:
        ref_id = normalize_ref_id(text)
        path = self.dir / f"{ref_id}.json"
        record = self._read(path, _ref_decoder, f"unknown ref {ref_id} (not in {self.dir})")
        try:
            if record.encoding == "sidecar":
                content = self._get_blob(record.sha256, path)
            else:
                content = _decode_content(record)
        except ValueError as exc:
            raise StoreError(f"corrupt ref file {path}: {exc}") from None
        if record.id != ref_id or sha256_hex(content) != record.sha256 or len(content) != record.bytes:
            raise StoreError(f"corrupt ref file {path}: content does not match its recorded id, size or sha256")
        _touch(path)  # read back: in use
        return Reference(id=record.id, source=record.source, type=record.type, reason=record.reason, content=content)

    def holds(self, text: str, content, sha256: str | None = None) -> bool:
        """Whether the store gives back exactly ``content`` for this ref (a large blob is compared
        chunk by chunk, without a second copy in memory). Raises StoreError like ``get``.

        ``sha256``: the sha256 of ``content`` when the caller has it (``put`` returns it): the record
        must carry it, and the stored bytes, compared byte for byte, then need no second hash."""
        ref_id = normalize_ref_id(text)
        path = self.dir / f"{ref_id}.json"
        record = self._read(path, _ref_decoder, f"unknown ref {ref_id} (not in {self.dir})")
        if record.encoding != "sidecar" and sha256 is None:
            return self.get(ref_id).content == content
        if record.id != ref_id or record.bytes != len(content) or not re.fullmatch(r"[0-9a-f]{64}", record.sha256):
            return False
        if sha256 is not None and record.sha256 != sha256:
            return False
        if record.encoding != "sidecar":
            try:
                return _decode_content(record) == bytes(content)  # small: a copy costs nothing
            except ValueError:
                return False
        return self._blob_equals(self.dir / f"blob_{record.sha256}.bin", content, None if sha256 else record.sha256)

    @staticmethod
    def _blob_equals(path: Path, content, check_sha: str | None = None) -> bool:
        """Whether the file at ``path`` holds exactly ``content`` (bytes or Spans), read 1 MiB at a
        time whatever the sizes of the parts; ``check_sha``: also hash what is read and compare."""
        h = sha256(size=len(content)) if check_sha else None
        chunk = bytearray(min(1 << 20, max(len(content), 1)))  # read into again and again: no new pages a read
        view, got, at, pos = memoryview(chunk), 0, 0, 0
        try:
            with open_regular(path, "blob") as fh:
                if os.fstat(fh.fileno()).st_size != len(content):
                    return False
                for part in map(memoryview, parts_of(content)):
                    done = 0
                    while done < len(part):
                        if at == got:
                            got, at = fh.readinto(chunk), 0
                            if not got:
                                return False  # the blob is shorter
                            if h is not None:
                                h.update(view[:got])
                        n = min(len(part) - done, got - at)
                        if not chunk.startswith(part[done : done + n], at):  # memcmp within what was read, no copy
                            return False
                        done += n
                        at += n
                    pos += done
                if at != got or fh.read(1):
                    return False  # the blob is longer
        except (OSError, StoreError):
            return False
        return pos == len(content) and (h is None or h.hexdigest() == check_sha)

    def _put_blob(self, sha: str, content) -> None:
        self._ensure_dir()
        path = self.dir / f"blob_{sha}.bin"
        if os.path.lexists(path):
            if self._blob_equals(path, content):  # already there (the same input again): write nothing
                _touch(path)  # gc by age must not take it from a newer ref
                return
            check_target(path, "blob")  # a symlink or directory there is an error, never replaced
            self._replace(path, content)  # damaged (truncated, changed): we hold the right bytes
            return
        if not self._create_exclusive(path, content) and not self._blob_equals(path, content):
            self._replace(path, content)  # a racing writer's blob: equal unless damaged

    def _get_blob(self, sha: str, record_path: Path) -> bytes:
        if not re.fullmatch(r"[0-9a-f]{64}", sha):
            raise ValueError(f"bad sha256 {sha!r}")
        path = self.dir / f"blob_{sha}.bin"
        try:
            data = read_regular(path, "blob")
        except FileNotFoundError:
            raise StoreError(f"corrupt ref file {record_path}: its content file {path.name} is missing") from None
        _touch(path)
        return data

    # -- manifests ----------------------------------------------------------------------------
    def put_manifest(self, manifest: Manifest) -> str:
        digest = manifest.visible_sha256

        def record(pkt_id: str) -> bytes:
            return _encoder.encode(msgspec.structs.replace(manifest, id=pkt_id))

        def verdict(pkt_id: str, data: bytes, ours: bytes) -> str:
            try:
                existing = _manifest_decoder.decode(data)
            except msgspec.DecodeError:
                return _REPAIR if _same_head(data, ours, b'"refs":') else _OTHER
            if (existing.raw_sha256, existing.refs, existing.layout) != (manifest.raw_sha256, manifest.refs, manifest.layout):
                return _OTHER
            same = (existing.id, existing.visible_sha256, existing.raw_bytes) == (pkt_id, digest, manifest.raw_bytes)
            return _SAME if same else _REPAIR

        pkt_id, _ = self._put_record("pkt_", digest, PKT_ID_LEN, record, verdict)
        manifest.id = pkt_id
        self.retain()
        return pkt_id

    def put_visible(self, pkt_id: str, visible: bytes) -> None:
        """Keep the visible bytes of a packet (content-addressed by its id: written once, repaired
        when damaged)."""
        path = self.dir / f"{pkt_id}.visible"
        if not os.path.lexists(path) and self._create_exclusive(path, visible):
            return
        if self._blob_equals(path, visible):
            _touch(path)
            return
        check_target(path, "store file")
        self._replace(path, visible)

    def get_visible(self, manifest: Manifest) -> bytes:
        path = self.dir / f"{manifest.id}.visible"
        try:
            visible = read_regular(path)
        except FileNotFoundError:
            raise StoreError(f"the visible text of {manifest.id} is not in {self.dir}; pass the reduced file: tokens expand --full FILE") from None
        if sha256_hex(visible) != manifest.visible_sha256:
            raise StoreError(f"corrupt store file {path}: it does not match packet {manifest.id}")
        return visible

    def get_manifest(self, pkt_id: str) -> Manifest:
        if not PKT_ID_RE.fullmatch(pkt_id):
            raise StoreError(f"not a packet id: {pkt_id!r} (expected pkt_ followed by 12-64 lowercase hex digits)")
        path = self.dir / f"{pkt_id}.json"
        manifest = self._read(path, _manifest_decoder, f"unknown packet {pkt_id} (not in {self.dir})")
        _touch(path)
        return manifest

    def find_manifests_for_visible(self, visible: bytes) -> list[Manifest]:
        """Every packet whose visible text is exactly ``visible`` (its id is a prefix of that text's
        sha256: each length is looked up, a gap left by gc included)."""
        digest = sha256_hex(visible)
        self._check_dir()
        found = []
        for n in range(PKT_ID_LEN, 65):
            pkt_id = "pkt_" + digest[:n]
            if not os.path.lexists(self.dir / f"{pkt_id}.json"):
                continue
            manifest = self.get_manifest(pkt_id)
            if manifest.visible_sha256 == digest:
                found.append(manifest)
        return found

    def find_manifest_for_visible(self, visible: bytes) -> Manifest:
        """The one packet reduced to exactly ``visible``. Several packets with different originals
        (an input that was itself a reduced text, say) are refused: guessing could restore the wrong one."""
        found = self.find_manifests_for_visible(visible)
        if not found:
            raise StoreError("no packet in the store was reduced to exactly this text")
        originals = {m.raw_sha256 for m in found}
        if len(originals) > 1:
            ids = ", ".join(m.id for m in found)
            raise StoreError(f"this text matches {len(found)} packets with different originals ({ids}); "
                             "name the one you mean: tokens expand --full pkt_…")
        return found[0]

    def restore(self, manifest: Manifest, visible: bytes) -> bytes:
        if sha256_hex(visible) != manifest.visible_sha256:
            raise StoreError(f"visible text does not match packet {manifest.id}")
        contents = [self.get(ref_id).content for ref_id in manifest.refs]
        original = restore(visible, manifest_layout(manifest), contents)
        # the proof that the original came back: its size and sha256, recorded when it was reduced
        if len(original) != manifest.raw_bytes or sha256_hex(original) != manifest.raw_sha256:
            raise StoreError(f"packet {manifest.id} does not restore to the original it recorded (size or sha256 differ): "
                             "its manifest was changed")
        return original

    # -- hygiene ------------------------------------------------------------------------------
    def list_refs(self) -> list[RefInfo]:
        now = time.time()
        infos = []
        if not self._check_dir():
            return infos
        for path in sorted(self.dir.glob("ctx_*.json")):
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                infos.append(RefInfo(id=path.stem, source="?", reason=f"not a regular file ({kind_of(st.st_mode)})",
                                     bytes=-1, age_seconds=0.0, path=str(path)))
                continue
            try:
                record = _ref_decoder.decode(read_regular(path))
                source, reason, size = record.source, record.reason, record.bytes
            except (OSError, StoreError, msgspec.DecodeError):
                source, reason, size = "?", "corrupt ref file", -1
            infos.append(RefInfo(id=path.stem, source=source, reason=reason, bytes=size, age_seconds=now - st.st_mtime,
                                 path=str(path)))
        return infos

    def size(self) -> tuple[int, int]:
        """(files, bytes) held by the store: a directory scan at most every ``SIZE_RESCAN`` seconds,
        plus what this process wrote since (a long tail must not rescan a big store per window)."""
        now = time.monotonic()
        if self._size is None or now - self._size_at > SIZE_RESCAN:
            files = total = 0
            if self._check_dir():
                for entry in _owned_entries(self.dir):
                    if not is_temp_name(entry.name):
                        try:
                            total += entry.stat(follow_symlinks=False).st_size
                        except OSError:  # removed (by gc) since the directory was read
                            continue
                        files += 1
            self._size, self._size_at = [files, total], now
        return self._size[0], self._size[1]

    def gc(self, older_than: float | None = None, max_bytes: int | None = None,
           keep_newer: float = 0.0, orphan_grace: float = ORPHAN_GRACE) -> tuple[int, int]:
        """Remove records by last use: packets unused for ``older_than`` seconds, then refs no kept
        packet points to and unused as long; then, while the store holds more than ``max_bytes``, the
        least recently used packet or unreferenced ref. A ref a kept packet needs is never removed;
        nothing used in the last ``keep_newer`` seconds is removed. Debris of killed writers goes
        whatever the other limits: temp files and blobs no ref points to older than ``TEMP_GRACE``,
        refs no packet points to unused for ``orphan_grace`` seconds (with their blobs). Entries it
        does not own are skipped.

        Returns (files removed, bytes freed)."""
        if not self._check_dir():
            return 0, 0
        removed, freed = _collect(self.dir, self.home / "tail", older_than, max_bytes, keep_newer, orphan_grace)
        self._size = None
        return removed, freed

    def retain(self) -> None:
        """Apply the automatic budget (``self.retention``) if it was not applied in the last
        ``retention.every`` seconds, by any process. Never fails a write: problems are skipped."""
        policy = self.retention
        if policy is None:
            return
        now = time.monotonic()
        if self._retain_checked and now - self._retain_checked < min(policy.every, 60.0):
            return
        self._retain_checked = now
        stamp = self.dir / RETAIN_STAMP
        try:
            age = time.time() - os.lstat(stamp).st_mtime
        except FileNotFoundError:
            age = None
        except OSError:
            return
        try:
            if age is None:  # a new store: the clock starts now
                os.close(os.open(stamp, os.O_WRONLY | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o600))
                return
            if age < policy.every:
                return
            _touch(stamp)  # first: concurrent writers do not all collect at once
            self.gc(older_than=policy.max_age, max_bytes=policy.max_bytes, keep_newer=policy.keep_newer)
        except Exception:  # hygiene must never fail the write that triggered it; the next one tries again
            pass

    # -- internals ----------------------------------------------------------------------------
    def _check_dir(self) -> bool:
        """Whether the store directory exists; a symlink or a file there, or a directory another user
        owns or may write to (the store's or its home), is a StoreError."""
        if self._dir_ok:
            return True
        self._dir_ok = check_directory(self.dir, "store directory", create=False)
        if self._dir_ok:
            self._check_private()
        return self._dir_ok

    def _ensure_dir(self) -> None:
        if not self._dir_ok:
            self._dir_ok = check_directory(self.dir, "store directory", create=True)
            self._check_private()

    def _check_private(self) -> None:
        try:
            check_private(self.home, "store home")
            check_private(self.dir, "store directory")
        except StoreError:
            self._dir_ok = False
            raise

    def _put_record(self, prefix, digest, min_len, record, verdict) -> tuple[str, bool]:
        """Write the record under the shortest free prefix of ``digest``; reuse (and touch) our own
        record found there, repair it when damaged, or move to a longer prefix when it is another's."""
        self._ensure_dir()
        for n in range(min_len, len(digest) + 1):
            record_id = prefix + digest[:n]
            path = self.dir / f"{record_id}.json"
            data = record(record_id)
            for _ in range(3):
                if not os.path.lexists(path) and self._create_exclusive(path, data):
                    return record_id, True
                try:
                    existing = read_regular(path)
                except FileNotFoundError:  # removed by gc in between: try the same id again
                    continue
                found = verdict(record_id, existing, data)
                if found == _SAME:
                    _touch(path)  # reused: its last use is now
                    return record_id, False
                if found == _REPAIR:
                    self._replace(path, data)
                    return record_id, True
                break  # another record's prefix: a longer id
        raise StoreError(f"could not place record {prefix}{digest}: every prefix is taken by other content")

    def _write_error(self, exc: OSError) -> StoreError:
        return StoreError(f"cannot write to the store {self.dir}: {exc.strerror or exc}", getattr(exc, "errno", None))

    def _write_temp(self, data) -> str:
        """A complete temp file in the store directory holding ``data``; its name."""
        try:
            fd, tmp = _temp_file(self.dir)
        except OSError as exc:
            raise self._write_error(exc) from None
        try:
            try:
                write_parts(fd, data)
            finally:
                os.close(fd)
        except OSError as exc:
            _unlink_quietly(tmp)
            raise self._write_error(exc) from None
        return tmp

    def _create_exclusive(self, path: Path, data) -> bool:
        tmp = self._write_temp(data)
        try:
            try:
                os.link(tmp, path)
            except FileExistsError:
                return False
            except OSError as exc:
                raise self._write_error(exc) from None
            self._count(len(data))
            return True
        finally:
            _unlink_quietly(tmp)

    def _replace(self, path: Path, data) -> None:
        """Replace a damaged file of ours atomically (readers see the old or the new file, whole)."""
        tmp = self._write_temp(data)
        try:
            os.replace(tmp, path)
        except OSError as exc:
            _unlink_quietly(tmp)
            raise self._write_error(exc) from None
        self._count(len(data))

    def _count(self, size: int) -> None:
        if self._size is not None:
            self._size[0] += 1
            self._size[1] += size

    def _read(self, path: Path, decoder, missing: str):
        self._check_dir()
        try:
            data = read_regular(path)
        except FileNotFoundError:
            raise StoreError(missing) from None
        try:
            return decoder.decode(data)
        except msgspec.DecodeError as exc:
            raise StoreError(f"corrupt store file {path}: {exc}") from None


def _same_head(data: bytes, ours: bytes, field: bytes) -> bool:
    """Whether a damaged manifest is ours: it starts with our record's bytes up to ``field`` (its id,
    the original's size and sha256 and the visible text's sha256, written first)."""
    cut = ours.find(field)
    return cut > 0 and data.startswith(ours[:cut])


def _damaged_ref_is_ours(data: bytes, ours: bytes) -> bool:
    """Whether a ref record that no longer decodes is ours: the same id, source, type and reason, and
    either our content's size and sha256 still readable in it, or the whole of it a truncation of our
    record (everything up to ``created`` is the same for equal contents). Otherwise it may be another
    content's record under the same prefix: it is left alone."""
    if not _same_head(data, ours, b'"encoding":'):
        return False
    created = ours.rfind(b',"created":')
    size_and_sha = ours[ours.rfind(b',"bytes":', 0, created):created]
    return size_and_sha in data or (len(data) <= created and ours.startswith(data))


def _owned_entries(directory: Path):
    """The regular files of the store directory with names the store gives (records, blobs, visible
    copies, temp files); anything else (other names, directories, symlinks, FIFOs) is not ours."""
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                name = entry.name
                if not (is_temp_name(name) or (name.startswith(("ctx_", "pkt_", "blob_")) and name.endswith(STORE_SUFFIXES))):
                    continue
                try:
                    if entry.is_file(follow_symlinks=False):
                        yield entry
                except OSError:
                    continue
    except OSError as exc:
        raise StoreError(f"cannot read the store directory {directory}: {exc.strerror or exc}", exc.errno) from None


class _Unit(msgspec.Struct):
    """What gc removes at once: a packet (manifest and visible copy) or a ref (record, and its blob
    when no other ref shares it). ``used``: the last use (newest mtime of its files)."""

    used: float
    paths: list[str]
    size: int
    refs: list[str] = []  # a packet's refs
    blob: str = ""  # a ref's blob sha256


def _scan(directory: Path, now: float) -> tuple[dict, dict, dict, list]:
    """The store's own files: packets, refs and blobs as ``{name: [mtime, size, path]...}``, plus
    stale temp files ``(size, path)``."""
    packets: dict[str, list] = {}
    refs: dict[str, list] = {}
    blobs: dict[str, tuple[float, int, str]] = {}
    stale = []
    for entry in _owned_entries(directory):
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        name, path = entry.name, entry.path
        if is_temp_name(name):
            if now - st.st_mtime > TEMP_GRACE:
                stale.append((st.st_size, path))
        elif name.startswith("blob_") and name.endswith(".bin"):
            blobs[name[5:-4]] = (st.st_mtime, st.st_size, path)
        elif name.endswith((".json", ".visible")):
            stem = name.rsplit(".", 1)[0]
            (packets if stem.startswith("pkt_") else refs).setdefault(stem, []).append((st.st_mtime, st.st_size, path))
    return packets, refs, blobs, stale


def _units(directory: Path, now: float) -> tuple[dict[str, _Unit], dict[str, _Unit], list]:
    """Packets and refs as units, each ref with its blob; blobs no ref points to that are older than
    ``TEMP_GRACE`` (a writer killed between blob and record) come back as debris with the temp files."""
    packets, refs, blobs, debris = _scan(directory, now)
    pkt_units = {}
    for pkt_id, files in packets.items():
        manifest = next((p for _, _, p in files if p.endswith(".json")), None)
        try:
            needed = _manifest_refs_decoder.decode(read_regular(manifest)).refs if manifest else []
        except (OSError, StoreError, msgspec.DecodeError):
            needed = []  # unreadable: it keeps nothing alive
        pkt_units[pkt_id] = _Unit(used=max(m for m, _, _ in files), paths=[p for _, _, p in files],
                                  size=sum(s for _, s, _ in files), refs=needed)
    ref_units = {}
    for ref_id, files in refs.items():
        mtime, size, path = files[0]
        try:
            head = _ref_blob_decoder.decode(read_regular(path))
            blob = head.sha256 if head.encoding == "sidecar" and head.sha256 in blobs else ""
        except (OSError, StoreError, msgspec.DecodeError):
            blob = ""
        ref_units[ref_id] = _Unit(used=mtime, paths=[path], size=size, blob=blob)
    shared: dict[str, int] = {}
    for unit in ref_units.values():
        if unit.blob:
            shared[unit.blob] = shared.get(unit.blob, 0) + 1
    for sha, (mtime, size, path) in blobs.items():
        if sha not in shared and now - mtime > TEMP_GRACE:
            debris.append((size, path))
    for unit in ref_units.values():  # a blob goes with its last ref
        if unit.blob and shared[unit.blob] == 1:
            mtime, size, path = blobs[unit.blob]
            unit.paths.append(path)
            unit.size += size
            unit.used = max(unit.used, mtime)
    return pkt_units, ref_units, debris


def _stale_temps(directory: Path, now: float) -> list[tuple[int, str]]:
    """Temp files older than ``TEMP_GRACE`` in another directory of ours (the tail checkpoints)."""
    stale = []
    try:
        if not stat.S_ISDIR(os.lstat(directory).st_mode):
            return stale
        with os.scandir(directory) as entries:
            for entry in entries:
                if is_temp_name(entry.name) and entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    if now - st.st_mtime > TEMP_GRACE:
                        stale.append((st.st_size, entry.path))
    except OSError:
        pass
    return stale


def _remove(paths: list[str]) -> int:
    """Unlink ``paths``; the bytes freed (files already gone count nothing). A file that cannot be
    removed (read-only store) is a StoreError."""
    freed = 0
    for path in paths:
        try:
            size = os.lstat(path).st_size
            os.unlink(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise StoreError(f"cannot remove {path}: {exc.strerror or exc}", exc.errno) from None
        freed += size
    return freed


def _remove_orphans(refs: dict[str, _Unit], uses: dict[str, int], before: float) -> tuple[int, int]:
    """Remove (from ``refs`` and the disk) the refs no packet points to, last used before ``before``:
    a killed run's refs, no packet was ever written for them. Returns (files removed, bytes freed)."""
    removed = freed = 0
    for key in [key for key, unit in refs.items() if not uses.get(key) and unit.used < before]:
        unit = refs.pop(key)
        freed += _remove(unit.paths)
        removed += len(unit.paths)
    return removed, freed


def _collect(directory: Path, tail_dir: Path, older_than: float | None, max_bytes: int | None,
             keep_newer: float, orphan_grace: float = ORPHAN_GRACE) -> tuple[int, int]:
    """``Store.gc``: debris first, then packets by last use, then the refs no kept packet needs."""
    now = time.time()
    packets, refs, debris = _units(directory, now)
    debris += _stale_temps(tail_dir, now)
    removed, freed = len(debris), _remove([p for _, p in debris])
    uses: dict[str, int] = {}
    for unit in packets.values():
        for ref_id in set(unit.refs):
            uses[ref_id] = uses.get(ref_id, 0) + 1
    gone, gone_bytes = _remove_orphans(refs, uses, now - orphan_grace)
    removed, freed = removed + gone, freed + gone_bytes
    total = sum(u.size for u in packets.values()) + sum(u.size for u in refs.values())

    def removable(unit: _Unit) -> bool:
        return now - unit.used >= keep_newer

    # candidates by last use, oldest first: packets, and refs no packet needs (a ref joins when its last packet goes)
    heap = [(u.used, 0, key) for key, u in packets.items() if removable(u)]
    heap += [(u.used, 1, key) for key, u in refs.items() if not uses.get(key) and removable(u)]
    heapq.heapify(heap)
    while heap:
        used, kind, key = heap[0]
        too_old = older_than is not None and now - used > older_than
        too_big = max_bytes is not None and total > max_bytes
        if not (too_old or too_big):
            break
        heapq.heappop(heap)
        unit = (packets if kind == 0 else refs).pop(key)
        freed += _remove(unit.paths)
        removed += len(unit.paths)
        total -= unit.size
        for ref_id in set(unit.refs):
            uses[ref_id] -= 1
            ref = refs.get(ref_id)
            if not uses[ref_id] and ref is not None and removable(ref):
                heapq.heappush(heap, (ref.used, 1, ref_id))
    return removed, freed
