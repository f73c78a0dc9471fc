"""operators.digest gives hashlib's digests whichever implementation a size picks (that a small call
of tokens never loads OpenSSL's hashlib: tests/test_small_path.py)."""

from __future__ import annotations

import hashlib

from hypothesis import given, settings, strategies as st

from operators import digest


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=2048), st.sampled_from([0, 1, digest.SMALL - 1, digest.SMALL, digest.SMALL + 1]))
def test_every_size_gives_hashlibs_sha256(data, pad):
    data = data + b"\x00" * pad
    assert digest.sha256_hex(data) == hashlib.sha256(data).hexdigest()
    fed = digest.sha256(size=len(data))
    fed.update(data[:7])
    fed.update(data[7:])
    assert fed.hexdigest() == hashlib.sha256(data).hexdigest()
    assert digest.sha256_stream(data).hexdigest() == hashlib.sha256(data).hexdigest()


def test_small_and_big_inputs_take_different_implementations():
    small, big = digest.sha256(b"x"), digest.sha256(size=digest.SMALL + 1)
    assert type(small) is not type(big)
    assert type(big) is type(hashlib.sha256())


def test_blake2b_is_hashlibs():
    assert digest.blake2b(b"abc", digest_size=16).digest() == hashlib.blake2b(b"abc", digest_size=16).digest()
