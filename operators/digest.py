"""The project's SHA-256 and BLAKE2b, without loading OpenSSL for small inputs.

Importing ``hashlib`` loads OpenSSL's libcrypto: about 15 M instructions (2-3 ms) on every call of
``tokens``, though hashing a 20 KB output takes a few microseconds either way. ``sha256(data, size)``
uses the interpreter's own implementation (module ``_sha256`` up to Python 3.11, ``_sha2`` from 3.12)
for at most ``SMALL`` bytes, and ``hashlib``'s (OpenSSL: about 6x faster per byte on big buffers,
imported when first needed) for more, and for a stream of unknown size (``sha256_stream``). The digests are the
same either way (``tests/test_digest.py``). ``blake2b`` is the interpreter's own in both cases
(``hashlib.blake2b`` is ``_blake2.blake2b``).
"""

from __future__ import annotations

SMALL = 256 * 1024  # bytes: the built-in SHA-256 costs at most ~1 ms here

try:  # the interpreter's own implementations (what hashlib falls back to without OpenSSL)
    from _sha2 import sha256 as _small_sha256  # Python >= 3.12
except ImportError:
    try:
        from _sha256 import sha256 as _small_sha256  # Python <= 3.11
    except ImportError:  # a build without them: hashlib for every size
        _small_sha256 = None
try:
    from _blake2 import blake2b
except ImportError:
    import hashlib

    blake2b = hashlib.blake2b


def sha256(data=b"", size: int | None = None):
    """A SHA-256 hash object holding ``data``; ``size``: all that will be fed to it (default
    ``len(data)``)."""
    if _small_sha256 is not None and (len(data) if size is None else size) <= SMALL:
        return _small_sha256(data)
    return sha256_stream(data)


def sha256_stream(data=b""):
    """A SHA-256 hash object holding ``data``, for a stream whose size is not known in advance."""
    import hashlib

    return hashlib.sha256(data)


def sha256_hex(data) -> str:
    """The SHA-256 of ``data`` (bytes-like), as 64 lowercase hex digits."""
    return sha256(data, len(data)).hexdigest()
