"""Token counts: the ``ceil(utf8_bytes / 4)`` estimate, and optional real BPE counts, offline.

``estimate_tokens`` is the default everywhere: an estimate, never a billed count.

``count_real(data, "o200k" | "cl100k")`` is a real byte-pair-encoding count with the OpenAI
vocabularies, computed by the ``bpe-openai`` package (the Rust ``bpe-openai`` crate; the
vocabularies ship inside the wheel, nothing is downloaded). It is an optional extra:
``pip install 'nolife-tokens[tokenizers]'``. Without it, ``count_real`` raises
``TokenizerUnavailable`` (a ``ConfigError``: the CLI prints one line).

Details that matter for the figures:

* The bytes are decoded as UTF-8 with ``errors="replace"``: every invalid byte sequence is counted
  as U+FFFD (usually one or two tokens), not as its raw bytes.
* Special-token text (``<|endoftext|>`` …) is counted as ordinary text, never refused.
* Input is counted in chunks of about ``CHUNK_BYTES``, cut after a newline whose next line starts
  (after any spaces or tabs) with printable ASCII, and not with ``/`` right away: a place where both
  vocabularies' pre-tokenizers always start a new piece, so the total equals one call over the
  whole input (``tests/test_tokens.py`` checks it). A line longer than
  ``MAX_CHUNK_BYTES`` is cut between an ASCII letter and ASCII punctuation, a space or a digit (also
  a piece boundary); only a run of that length with no such place (48 KB of bare digits) is cut
  anywhere, which may move the count by a token at that cut.
* Speed: the Rust backend counts about 5–15 MB/s on one core (measured by ``bench/throughput.py``;
  it holds the GIL), so a real count of a 100 MB input adds 7–20 s; visible texts are small and cheap.
* Loading: the package's own ``import bpe_openai`` parses all three bundled vocabularies in Python
  (about 3 s). We load its compiled backend directly instead (about 0.1–0.3 s per vocabulary,
  once per process) and fall back to the public ``bpe_openai.get_encoding`` API if the backend's
  layout ever changes.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import re
from _thread import allocate_lock  # threading.Lock itself, without importing threading (~0.5 ms)
from typing import Callable

from operators.config import ConfigError

ESTIMATE_LABEL = "estimated (bytes/4)"

ENCODINGS = {"o200k": "o200k_base", "cl100k": "cl100k_base"}
INSTALL_HINT = "install nolife-tokens[tokenizers] (pip install 'bpe-openai>=0.1.4') for o200k/cl100k counts"

CHUNK_BYTES = 32 * 1024  # chunks are cut near this size ...
MAX_CHUNK_BYTES = 48 * 1024  # ... and never exceed it: <= 200,000 tokens even for 4-token characters

# Where both vocabularies' pre-tokenizers always start a new piece:
# after a newline, when the next line starts (after spaces/tabs) with printable ASCII; not right
# before '/': o200k's punctuation piece `` ?[^\s\p{L}\p{N}]+[\r\n/]*`` runs on through it;
_LINE_CUT = re.compile(rb"\n(?=[ \t]*[!-~])(?!/)")
# after an ASCII letter followed by ASCII punctuation, a digit or a space (not an apostrophe: 's
# joins the word), or after a digit followed by a letter (hex ids).
_LETTER_CUT = re.compile(rb"[A-Za-z](?=[ !-&(-@\[-`{-~])|[0-9](?=[A-Za-z])")


class TokenizerUnavailable(ConfigError):
    """A real token count was asked for, but the optional tokenizer package is not installed."""


def estimate_tokens(n_bytes: int) -> int:
    return -(-n_bytes // 4)


_counters: dict[str, Callable[[str], int]] = {}
_lock = allocate_lock()


def require_tokenizer(tokenizer: str) -> None:
    """Load ``tokenizer`` now (cached per process), or raise ``TokenizerUnavailable``/``ConfigError``.

    Call it when the graph is built: an error raised inside a running bytewax step surfaces as a
    ``BytewaxRuntimeError`` with a Rust panic, not as the one-line ``ConfigError`` the CLI prints.
    """
    if tokenizer != "bytes4":
        _counters.get(tokenizer) or _load_counter(tokenizer)


def count_real(data: bytes, tokenizer: str) -> int:
    """The number of ``tokenizer`` ("o200k" or "cl100k") tokens in ``data`` (UTF-8, invalid bytes as U+FFFD)."""
    count = _counters.get(tokenizer) or _load_counter(tokenizer)
    return sum(count(chunk.decode("utf-8", "replace")) for chunk in split_chunks(data))


def split_chunks(data: bytes, target: int = CHUNK_BYTES, limit: int = MAX_CHUNK_BYTES):
    """Cut ``data`` into pieces of about ``target`` bytes (at most ``limit``) at pre-token boundaries."""
    n = len(data)
    limit = max(limit, target, 2)
    start = 0
    while n - start > limit:
        cut = _cut(data, start, target, limit)
        yield data[start:cut]
        start = cut
    if start < n:
        yield data[start:]


def _cut(data: bytes, start: int, target: int, limit: int) -> int:
    hi = start + limit
    m = _LINE_CUT.search(data, start + target - 1, hi)
    if m is not None:
        return m.end()
    for pattern in (_LINE_CUT, _LETTER_CUT):  # a very long line: the last safe place before the limit
        last = None
        for last in pattern.finditer(data, start, hi):
            pass
        if last is not None:
            return last.end()
    cut = hi  # the last resort: anywhere not inside a UTF-8 sequence (may move the count by a token)
    while cut > start + 1 and 0x80 <= data[cut] < 0xC0:
        cut -= 1
    return cut


def _load_counter(tokenizer: str) -> Callable[[str], int]:
    if tokenizer not in ENCODINGS:
        raise ConfigError(f"unknown tokenizer {tokenizer!r} (expected one of: {', '.join(ENCODINGS)})")
    with _lock:
        if tokenizer not in _counters:
            _counters[tokenizer] = _build_counter(ENCODINGS[tokenizer])
        return _counters[tokenizer]


def _build_counter(encoding: str) -> Callable[[str], int]:
    try:
        spec = importlib.util.find_spec("bpe_openai")
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise TokenizerUnavailable(f"the {encoding} tokenizer is not installed: {INSTALL_HINT}")
    try:
        return _backend_counter(spec, encoding)
    except Exception:  # the compiled backend moved or changed: use the public API
        return _public_counter(encoding)


def _backend_counter(spec, encoding: str) -> Callable[[str], int]:
    """The compiled backend's ``count``, loaded without running ``bpe_openai/__init__`` (3 s of vocab parsing)."""
    found = importlib.machinery.PathFinder.find_spec("_bindings", list(spec.submodule_search_locations or []))
    if found is None or found.loader is None:
        raise ImportError("bpe_openai._bindings not found")
    module = importlib.util.module_from_spec(found)
    found.loader.exec_module(module)
    counter = module.tokenizer_for_encoding(encoding).count
    if counter("hello world") != 2:  # a sanity check of what we are calling
        raise ImportError("unexpected bpe_openai backend")
    return counter


def _public_counter(encoding: str) -> Callable[[str], int]:
    try:
        import bpe_openai
    except ImportError:
        raise TokenizerUnavailable(f"the {encoding} tokenizer is not installed: {INSTALL_HINT}") from None
    enc = bpe_openai.get_encoding(encoding)
    return lambda text: len(enc.encode_ordinary(text))
