"""Token counts: the bytes/4 estimate, and real o200k/cl100k counts from the optional bpe-openai package.

The real-count tests are skipped when bpe-openai is not installed (CI installs only '.[dev]'). They
check for the package with ``find_spec`` rather than ``pytest.importorskip``: importing
``bpe_openai`` itself parses every bundled vocabulary in Python (~3 s), which ``count_real`` avoids.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import subprocess
import sys

import pytest
from structlog.testing import capture_logs

from bench.generate import make_diff, make_json, make_log
from operators import tokens
from operators.config import ConfigError
from operators.packet import ContextPacket
from conftest import FIXTURES, PROJECT

HAVE_BPE = importlib.util.find_spec("bpe_openai") is not None
needs_bpe = pytest.mark.skipif(not HAVE_BPE, reason="bpe-openai not installed (pip install '.[tokenizers]')")


@pytest.fixture
def no_bpe(monkeypatch):
    """Make the optional package look missing, with no tokenizer cached yet."""
    monkeypatch.setitem(sys.modules, "bpe_openai", None)  # `import bpe_openai` -> ImportError; find_spec -> None
    monkeypatch.setattr(tokens, "_counters", {})


def mixed_input() -> bytes:
    """A mid-size input with long lines, blank-line runs, CRLF, indentation, slashes, unicode, hex, digits."""
    rng = random.Random(11)
    pieces = ["\n", "\n\n", "  ", "\t", "/", "}", "{", "\r\n", "abc", "Déjà", "日本語", "123456", "'s", " ",
              "x/", "\u00a0", "<|endoftext|>", "é", "...", "0xdeadbeef", "\n    "]
    noise = "".join(rng.choice(pieces) for _ in range(40_000)).encode()
    minified = b'{"a":[' + b",".join(b'{"id":%d,"name":"item%d"}' % (i, i) for i in range(3000)) + b"]}"
    return make_log(120_000) + make_json(120_000) + make_diff(120_000) + noise + minified + b"1234567890" * 100


# -- the estimate ---------------------------------------------------------------------------------
def test_estimate_is_ceil_bytes_over_four():
    assert [tokens.estimate_tokens(n) for n in (0, 1, 3, 4, 5, 400)] == [0, 1, 1, 1, 2, 100]
    assert "estimated" in tokens.ESTIMATE_LABEL


# -- chunking (no tokenizer needed) -----------------------------------------------------------------
def test_chunks_cover_the_input_exactly_and_stay_under_the_limit():
    data = mixed_input()
    chunks = list(tokens.split_chunks(data, 1000, 1500))
    assert b"".join(chunks) == data
    assert all(0 < len(c) <= 1500 for c in chunks)
    assert len(chunks) > len(data) // 1500
    assert list(tokens.split_chunks(b"")) == []
    assert list(tokens.split_chunks(b"short")) == [b"short"]


def test_chunks_are_cut_after_a_newline_when_lines_allow_it():
    data = make_log(200_000)
    for chunk in list(tokens.split_chunks(data, 4096, 8192))[:-1]:
        assert chunk.endswith(b"\n")


def test_a_huge_line_without_safe_places_is_still_cut_within_the_limit():
    data = ("é" * 100_000).encode() + b"7" * 100_000
    chunks = list(tokens.split_chunks(data, 1000, 1500))
    assert b"".join(chunks) == data and all(len(c) <= 1500 for c in chunks)
    for chunk in chunks:
        chunk.decode("utf-8")  # never cut inside a UTF-8 sequence


# -- missing package -------------------------------------------------------------------------------
def test_missing_package_is_a_config_error_with_the_install_hint(no_bpe):
    with pytest.raises(tokens.TokenizerUnavailable) as err:
        tokens.count_real(b"hello", "o200k")
    assert isinstance(err.value, ConfigError)
    assert "nolife-tokens[tokenizers]" in str(err.value)
    with pytest.raises(ConfigError):
        tokens.require_tokenizer("cl100k")
    tokens.require_tokenizer("bytes4")  # the default needs nothing


def test_unknown_tokenizer_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown tokenizer"):
        tokens.count_real(b"hello", "p50k")


def test_cli_reports_a_missing_tokenizer_in_one_line(tmp_path):
    config = tmp_path / "cfg.toml"
    config.write_text('[reduce]\ntokenizer = "o200k"\n')
    code = ("import sys; sys.modules['bpe_openai'] = None; from flows.cli import main; "
            "raise SystemExit(main(sys.argv[1:]))")
    proc = subprocess.run([sys.executable, "-c", code, "--config", str(config), "analyze", str(FIXTURES / "sample.log")],
                          capture_output=True, cwd=PROJECT, timeout=120)
    err = proc.stderr.decode().strip()
    assert proc.returncode == 2
    assert err.startswith("tokens: error:") and "nolife-tokens[tokenizers]" in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


# -- real counts -----------------------------------------------------------------------------------
@needs_bpe
@pytest.mark.parametrize("tokenizer", ["o200k", "cl100k"])
def test_real_counts_are_positive_stable_and_known(tokenizer):
    assert tokens.count_real(b"hello world", tokenizer) == 2
    assert tokens.count_real(b"", tokenizer) == 0
    data = (FIXTURES / "sample.log").read_bytes()
    first = tokens.count_real(data, tokenizer)
    assert first > 0 and first == tokens.count_real(data, tokenizer)
    assert first != tokens.estimate_tokens(len(data))  # bytes/4 is an estimate, and here a poor one


@needs_bpe
@pytest.mark.parametrize("tokenizer", ["o200k", "cl100k"])
def test_chunked_total_equals_one_call(tokenizer):
    data = mixed_input()
    count = tokens._load_counter(tokenizer)
    whole = count(data.decode("utf-8", "replace"))
    # the pure-digit tail is the only place without a safe cut: leave it to the last chunk
    assert sum(count(c.decode("utf-8", "replace")) for c in tokens.split_chunks(data, 2000, 1_000_000)) == whole
    for target, limit in ((1000, 1500), (tokens.CHUNK_BYTES, tokens.MAX_CHUNK_BYTES)):
        chunks = list(tokens.split_chunks(data[:-1000], target, limit))
        assert sum(count(c.decode("utf-8", "replace")) for c in chunks) == count(data[:-1000].decode("utf-8", "replace"))
    assert tokens.count_real(data[:-1000], tokenizer) == count(data[:-1000].decode("utf-8", "replace"))


@needs_bpe
def test_invalid_utf8_counts_as_replacement_characters_and_special_text_as_text():
    assert tokens.count_real(b"ok \xff\xfe", "o200k") == tokens.count_real("ok \ufffd\ufffd".encode(), "o200k")
    assert tokens.count_real(b"<|endoftext|>", "o200k") > 1  # ordinary text, never refused


@needs_bpe
def test_public_api_fallback_gives_the_same_counts(monkeypatch):
    monkeypatch.setattr(tokens, "_counters", {})

    def moved(*_args):
        raise AttributeError("backend moved")

    monkeypatch.setattr(tokens, "_backend_counter", moved)
    data = make_log(60_000) + make_json(60_000) + b"<|endoftext|> \xff\n"
    via_public = tokens.count_real(data, "o200k")
    monkeypatch.setattr(tokens, "_counters", {})
    monkeypatch.undo()
    assert via_public == tokens.count_real(data, "o200k")


@needs_bpe
def test_the_graph_traces_real_counts_when_configured(tmp_path):
    from flows.runner import run_packets

    config = tmp_path / "cfg.toml"
    config.write_text('[reduce]\ntokenizer = "cl100k"\n')
    raw = (FIXTURES / "sample.log").read_bytes()
    with capture_logs() as logs:
        [packet] = run_packets([ContextPacket(source="t.log", raw=raw)], str(config))
    raw_event = next(e for e in logs if e["event"] == "MEASURE_RAW")
    opt_event = next(e for e in logs if e["event"] == "MEASURE_OPT")
    assert raw_event["cl100k_tokens"] == tokens.count_real(raw, "cl100k") > 0
    assert opt_event["cl100k_tokens"] == tokens.count_real(packet.visible, "cl100k") > 0
    assert packet.restore_pass


def test_cli_tokenizer_switch_overrides_the_config_and_reports_a_missing_package(tmp_path):
    code = ("import sys; sys.modules['bpe_openai'] = None; from flows.cli import main; "
            "raise SystemExit(main(sys.argv[1:]))")
    proc = subprocess.run([sys.executable, "-c", code, "--tokenizer", "cl100k", "analyze", str(FIXTURES / "sample.log")],
                          capture_output=True, cwd=PROJECT, timeout=120, env={**os.environ, "NOLIFE_TOKENS_HOME": str(tmp_path)})
    err = proc.stderr.decode().strip()
    assert proc.returncode == 2 and err.startswith("tokens: error:") and "nolife-tokens[tokenizers]" in err
    # bytes4 needs nothing, whatever the config file says
    config = tmp_path / "cfg.toml"
    config.write_text('[reduce]\ntokenizer = "o200k"\n')
    proc = subprocess.run([sys.executable, "-c", code, "--config", str(config), "--tokenizer", "bytes4", "analyze",
                           str(FIXTURES / "sample.log")], capture_output=True, cwd=PROJECT, timeout=120,
                          env={**os.environ, "NOLIFE_TOKENS_HOME": str(tmp_path)})
    assert proc.returncode == 0 and b"o200k_tokens" not in proc.stderr


@needs_bpe
def test_cli_tokenizer_switch_puts_real_counts_in_the_trace(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "flows.cli", "--tokenizer", "o200k", "analyze", "--trace",
                           str(FIXTURES / "sample.log")], capture_output=True, cwd=PROJECT, timeout=120,
                          env={**os.environ, "NOLIFE_TOKENS_HOME": str(tmp_path)})
    assert proc.returncode == 0
    events = [json.loads(line) for line in proc.stderr.decode().splitlines() if line.startswith("{")]
    raw_counts = [e.get("o200k_tokens") for e in events if e.get("stage") == "MEASURE_RAW"]
    assert raw_counts == [tokens.count_real((FIXTURES / "sample.log").read_bytes(), "o200k")]
