"""The content-addressed reference store under ``<home>/context/``.

Two kinds of record, each one JSON file written atomically and never overwritten:

* refs ``ctx_<hex>.json`` — one omission: source, type, reason and the exact bytes (UTF-8 text, or
  base64 when the bytes are not valid UTF-8), with a sha256 to detect corruption. Contents of
  ``SIDECAR_MIN`` bytes or more are kept raw in ``blob_<sha256>.bin`` beside the record (no JSON
  escaping or base64 of megabytes; equal contents share one blob);
* manifests ``pkt_<hex>.json`` — one reduced packet: its refs in order and the layout that splices
  visible bytes and ref contents back into the original (see ``operators.reduction``), with a copy
  of the visible bytes in ``pkt_<hex>.visible`` so ``tokens expand --full pkt_…`` needs nothing else.

Ids are a prefix of sha256 over an unambiguous, length-prefixed encoding of the record's key. A
prefix already taken by different content is lengthened, never overwritten. A new file is created by
``os.link`` from a complete temp file, which fails instead of replacing: concurrent writers (workers,
processes) can never produce a partial or mixed file.

Ids given by users are validated against ``ID_RE`` before any path is built from them.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import time
from pathlib import Path

import msgspec

from operators.errors import TokensError

from operators.packet import Reference
from operators.reduction import Layout, parts_of

REF_ID_RE = re.compile(r"ctx_[0-9a-f]{6,64}")
PKT_ID_RE = re.compile(r"pkt_[0-9a-f]{12,64}")
MARKER_RE = re.compile(rb"#ref:ctx_[0-9a-f]{6,64}")
REF_ID_LEN = 6
PKT_ID_LEN = 12
SIZE_RESCAN = 10.0  # seconds
SIDECAR_MIN = 64 * 1024  # bytes: larger contents go to a raw sidecar file
STORE_SUFFIXES = (".json", ".visible", ".bin")


class StoreError(TokensError):
    """A clear, user-facing problem with the store or an id."""


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


def content_sha256(content) -> str:
    """The sha256 (hex) of a ref's content (bytes, or ``Spans``: views of the raw input), fed piece
    by piece. Computed once per ref: it names the blob, is the record's checksum and goes into the id."""
    h = hashlib.sha256()
    for part in parts_of(content):
        h.update(part)
    return h.hexdigest()


def ref_digest(source: str, reason: str, sha256: str, size: int) -> str:
    """The digest a ref id is a prefix of: sha256 over length-prefixed fields (``len:field;`` each) of
    the source and the reason, then the content as its size and sha256 (``size:hex;``). The content
    is not hashed a second time for its id."""
    h = hashlib.sha256()
    for field in (source.encode("utf-8", "surrogateescape"), reason.encode()):
        h.update(b"%d:%s;" % (len(field), field))
    h.update(b"%d:%s;" % (size, sha256.encode("ascii")))
    return h.hexdigest()


def pure_ref_id(source: str, reason: str, content: bytes) -> str:
    """The id a ref gets when its 6-hex prefix is free (the usual case)."""
    return "ctx_" + ref_digest(source, reason, content_sha256(content), len(content))[:REF_ID_LEN]


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
_encoder = msgspec.json.Encoder()


def _temp_file(directory: Path) -> tuple[int, str]:
    """A new, empty file in ``directory`` with a random name ``.tmp-….part``, mode 0600: what
    ``tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".part")`` does, without importing
    ``tempfile`` (with ``random`` and ``shutil``: several ms of every ``tokens`` start)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        name = os.path.join(directory, f".tmp-{os.urandom(6).hex()}.part")
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary file name in {directory}")


class Store:
    def __init__(self, home: Path | str):
        self.home = Path(home)
        self.dir = self.home / "context"
        self._size: list[int] | None = None  # [files, bytes], see size()
        self._size_at = 0.0

    # -- refs ---------------------------------------------------------------------------------
    def put(self, source: str, type: str, reason: str, content, digest: str | None = None,
            sha256: str | None = None) -> tuple[Reference, bool]:
        """Store one omission (bytes, or ``Spans``); returns the reference and whether a new file was written.

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

        def same(data: bytes) -> bool:
            try:
                existing = _ref_decoder.decode(data)
            except msgspec.DecodeError:
                return False
            # equal sha256 and size of equal-keyed records: the same content
            return (existing.source, existing.reason, existing.sha256, existing.bytes) == (source, reason, sha, len(content))

        ref_id, created = self._put_record("ctx_", digest, REF_ID_LEN, record, same)
        ref = Reference(id=ref_id, source=source, type=type, reason=reason, content=content, digest=digest, sha256=sha,
                        hashed=content)
        return ref, created

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
        if record.id != ref_id or hashlib.sha256(content).hexdigest() != record.sha256 or len(content) != record.bytes:
            raise StoreError(f"corrupt ref file {path}: content does not match its recorded id, size or sha256")
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
        pos, h = 0, (hashlib.sha256() if sha256 is None else None)
        chunk, at = b"", 0  # the blob is read 1 MiB at a time, whatever the sizes of the parts
        try:
            with open(self.dir / f"blob_{record.sha256}.bin", "rb") as fh:
                for part in map(memoryview, parts_of(content)):
                    done = 0
                    while done < len(part):
                        if at == len(chunk):
                            chunk, at = fh.read(1 << 20), 0
                            if not chunk:
                                return False  # the blob is shorter
                            if h is not None:
                                h.update(chunk)
                        n = min(len(part) - done, len(chunk) - at)
                        if not chunk.startswith(part[done : done + n], at):  # memcmp, no copy
                            return False
                        done += n
                        at += n
                    pos += done
                if at != len(chunk) or fh.read(1):
                    return False  # the blob is longer
        except OSError:
            return False
        return pos == len(content) and (h is None or h.hexdigest() == record.sha256)

    def _put_blob(self, sha: str, content) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.dir / f"blob_{sha}.bin"
        try:  # already there (the same input again): mark it in use, write nothing
            os.utime(path)  # gc by age must not take it from a newer ref
            return
        except FileNotFoundError:
            pass
        if not self._create_exclusive(path, content):
            try:
                os.utime(path)  # in use again: gc by age must not take it from a newer ref
            except OSError:
                pass

    def _get_blob(self, sha: str, record_path: Path) -> bytes:
        if not re.fullmatch(r"[0-9a-f]{64}", sha):
            raise ValueError(f"bad sha256 {sha!r}")
        path = self.dir / f"blob_{sha}.bin"
        try:
            return path.read_bytes()
        except OSError:
            raise StoreError(f"corrupt ref file {record_path}: its content file {path.name} is missing") from None

    # -- manifests ----------------------------------------------------------------------------
    def put_manifest(self, manifest: Manifest) -> str:
        digest = manifest.visible_sha256

        def record(pkt_id: str) -> bytes:
            return _encoder.encode(msgspec.structs.replace(manifest, id=pkt_id))

        def same(data: bytes) -> bool:
            try:
                existing = _manifest_decoder.decode(data)
            except msgspec.DecodeError:
                return False
            return (existing.raw_sha256, existing.refs, existing.layout) == (
                manifest.raw_sha256, manifest.refs, manifest.layout)

        pkt_id, _ = self._put_record("pkt_", digest, PKT_ID_LEN, record, same)
        manifest.id = pkt_id
        return pkt_id

    def put_visible(self, pkt_id: str, visible: bytes) -> None:
        """Keep the visible bytes of a packet (content-addressed by its id: written once)."""
        path = self.dir / f"{pkt_id}.visible"
        if not path.exists():
            self._create_exclusive(path, visible)

    def get_visible(self, manifest: Manifest) -> bytes:
        path = self.dir / f"{manifest.id}.visible"
        try:
            visible = path.read_bytes()
        except OSError:
            raise StoreError(f"the visible text of {manifest.id} is not in {self.dir}; pass the reduced file: tokens expand --full FILE") from None
        if hashlib.sha256(visible).hexdigest() != manifest.visible_sha256:
            raise StoreError(f"corrupt store file {path}: it does not match packet {manifest.id}")
        return visible

    def get_manifest(self, pkt_id: str) -> Manifest:
        if not PKT_ID_RE.fullmatch(pkt_id):
            raise StoreError(f"not a packet id: {pkt_id!r} (expected pkt_ followed by 12-64 lowercase hex digits)")
        path = self.dir / f"{pkt_id}.json"
        return self._read(path, _manifest_decoder, f"unknown packet {pkt_id} (not in {self.dir})")

    def find_manifest_for_visible(self, visible: bytes) -> Manifest:
        digest = hashlib.sha256(visible).hexdigest()
        for n in range(PKT_ID_LEN, 65):
            try:
                manifest = self.get_manifest("pkt_" + digest[:n])
            except StoreError:
                break
            if manifest.visible_sha256 == digest:
                return manifest
        raise StoreError("no packet in the store was reduced to exactly this text")

    def restore(self, manifest: Manifest, visible: bytes) -> bytes:
        from operators.reduction import restore

        if hashlib.sha256(visible).hexdigest() != manifest.visible_sha256:
            raise StoreError(f"visible text does not match packet {manifest.id}")
        contents = [self.get(ref_id).content for ref_id in manifest.refs]
        original = restore(visible, manifest_layout(manifest), contents)
        # the proof that the original came back: its size and sha256, recorded when it was reduced
        if len(original) != manifest.raw_bytes or hashlib.sha256(original).hexdigest() != manifest.raw_sha256:
            raise StoreError(f"packet {manifest.id} does not restore to the original it recorded (size or sha256 differ): "
                             "its manifest was changed")
        return original

    # -- hygiene ------------------------------------------------------------------------------
    def list_refs(self) -> list[RefInfo]:
        now = time.time()
        infos = []
        for path in sorted(self.dir.glob("ctx_*.json")):
            try:
                record = _ref_decoder.decode(path.read_bytes())
                source, reason, size = record.source, record.reason, record.bytes
            except (OSError, msgspec.DecodeError):
                source, reason, size = "?", "corrupt ref file", -1
            try:
                age = now - path.stat().st_mtime
            except OSError:
                continue
            infos.append(RefInfo(id=path.stem, source=source, reason=reason, bytes=size, age_seconds=age, path=str(path)))
        return infos

    def size(self) -> tuple[int, int]:
        """(files, bytes) held by the store: a directory scan at most every ``SIZE_RESCAN`` seconds,
        plus what this process wrote since (a long tail must not rescan a big store per window)."""
        now = time.monotonic()
        if self._size is None or now - self._size_at > SIZE_RESCAN:
            files = total = 0
            if self.dir.is_dir():
                with os.scandir(self.dir) as entries:
                    for entry in entries:
                        if entry.name.endswith(STORE_SUFFIXES) and not entry.name.startswith(".tmp-"):
                            files += 1
                            total += entry.stat().st_size
            self._size, self._size_at = [files, total], now
        return self._size[0], self._size[1]

    def gc(self, older_than: float | None = None, max_bytes: int | None = None) -> tuple[int, int]:
        """Delete records older than ``older_than`` seconds, then oldest first until under ``max_bytes``.

        Returns (files removed, bytes freed).
        """
        if not self.dir.is_dir():
            return 0, 0
        now = time.time()
        entries = []
        for path in self.dir.iterdir():
            if path.name.startswith(".tmp-") or not path.name.endswith(STORE_SUFFIXES):
                continue
            try:
                st = path.stat()
            except OSError:
                continue
            entries.append((st.st_mtime, st.st_size, path))
        entries.sort()
        removed = freed = 0
        total = sum(size for _, size, _ in entries)
        for mtime, size, path in entries:
            too_old = older_than is not None and now - mtime > older_than
            too_big = max_bytes is not None and total > max_bytes
            if not (too_old or too_big):
                continue
            try:
                path.unlink()
            except FileNotFoundError:
                continue
            removed += 1
            freed += size
            total -= size
        self._size = None
        return removed, freed

    # -- internals ----------------------------------------------------------------------------
    def _put_record(self, prefix, digest, min_len, record, same) -> tuple[str, bool]:
        self.dir.mkdir(parents=True, exist_ok=True)
        for n in range(min_len, len(digest) + 1):
            record_id = prefix + digest[:n]
            path = self.dir / f"{record_id}.json"
            if not path.exists() and self._create_exclusive(path, record(record_id)):
                return record_id, True
            try:
                existing = path.read_bytes()
            except FileNotFoundError:  # removed by gc in between: try the same id again
                if self._create_exclusive(path, record(record_id)):
                    return record_id, True
                existing = path.read_bytes()
            if same(existing):
                return record_id, False
        raise StoreError(f"could not place record {prefix}{digest}: every prefix is taken by other content")

    def _create_exclusive(self, path: Path, data: bytes) -> bool:
        fd, tmp = _temp_file(self.dir)
        try:
            with os.fdopen(fd, "wb") as fh:
                for part in parts_of(data):
                    fh.write(part)
            try:
                os.link(tmp, path)
            except FileExistsError:
                return False
            if self._size is not None:
                self._size[0] += 1
                self._size[1] += len(data)
            return True
        finally:
            os.unlink(tmp)

    def _read(self, path: Path, decoder, missing: str):
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise StoreError(missing) from None
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc.strerror}") from None
        try:
            return decoder.decode(data)
        except msgspec.DecodeError as exc:
            raise StoreError(f"corrupt store file {path}: {exc}") from None
