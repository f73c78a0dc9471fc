"""Retrieval for agents: slices of a ref (--lines/--grep/--head/--tail), the hint line, our own
commands passed through raw, tokens search, analyze --json/--trace, NO_COLOR, --version, progress."""

from __future__ import annotations

import io
import json
import os
import re
import sys
import time

import pytest

from conftest import FIXTURES, reduce_bytes, run_cli, tokens_cli
from flows import hooks
from operators.store import Store
from operators.trace import configure_trace

LOG = FIXTURES / "sample.log"
HINT_RE = re.compile(rb"\[refs: tokens expand \S+ \[--grep PAT \[-C N\] \| --lines A:B \| --head N\]; "
                     rb"whole original: tokens expand --full (pkt_[0-9a-f]{12,})\]\n")


# bytes where exactness matters: CRLF, invalid UTF-8, NUL, an escape, no final newline
AWKWARD = (b"first line\r\n" b"second \xff\xfe bytes\r\n" b"third \x00 nul\n" b"fourth \x1b[31mred\x1b[0m\n"
           b"fifth without newline")


def put(home, content: bytes, source: str = "test") -> str:
    ref, _ = Store(home).put(source, "log", "test content", content)
    return ref.id


# ------------------------------------------------------------------------------------------ slices


def test_expand_without_option_prints_each_ref_exactly(home, capsysbinary):
    packet = reduce_bytes(LOG.read_bytes(), source="fixtures/sample.log")
    assert packet.references
    for ref in packet.references:
        code, out, _ = run_cli(capsysbinary, "expand", ref.id)
        assert code == 0 and out == bytes(ref.content) and not out.startswith(b"[ctx_")


def test_lines_head_and_tail_are_the_exact_bytes_under_a_header(home, capsysbinary):
    ref = put(home, AWKWARD)
    code, out, _ = run_cli(capsysbinary, "expand", ref, "--lines", "2:3")
    assert code == 0
    assert out == f"[{ref} lines 2-3 of 5]\n".encode() + b"second \xff\xfe bytes\r\n" + b"third \x00 nul\n"
    _, out, _ = run_cli(capsysbinary, "expand", f"#ref:{ref}", "--head", "1")
    assert out == f"[{ref} lines 1-1 of 5]\n".encode() + b"first line\r\n"
    _, out, _ = run_cli(capsysbinary, "expand", ref, "--tail", "2")
    assert out == (f"[{ref} lines 4-5 of 5]\n".encode() + b"fourth \x1b[31mred\x1b[0m\n" + b"fifth without newline"
                   + b"\n[no newline at the end of this ref]\n")
    _, out, _ = run_cli(capsysbinary, "expand", ref, "--lines", "4:99")  # clipped to the end
    assert out.startswith(f"[{ref} lines 4-5 of 5]\n".encode())
    _, out, _ = run_cli(capsysbinary, "expand", ref, "--lines", "3")
    assert out == f"[{ref} lines 3-3 of 5]\n".encode() + b"third \x00 nul\n"
    _, out, _ = run_cli(capsysbinary, "expand", ref, "--lines", "9:12")
    assert out == f"[{ref} no lines of 5]\n".encode()
    # every slice together gives back the whole content
    parts = []
    for n in range(1, 6):
        _, out, _ = run_cli(capsysbinary, "expand", ref, "--lines", f"{n}:{n}")
        parts.append(out.split(b"\n", 1)[1].removesuffix(b"\n[no newline at the end of this ref]\n"))
    assert b"".join(parts) == AWKWARD


@pytest.mark.parametrize("argv, message", [
    (["--lines", "0:2"], "--lines"), (["--lines", "5:2"], "--lines"), (["--lines", "a:b"], "--lines"),
    (["--lines", "1:2", "--grep", "x"], "one of"), (["-C", "2"], "goes with --grep"), (["--head", "-1"], "0 or more"),
    (["--grep", "("], "bad --grep pattern"), (["--grep", r"(a)\1"], "bad --grep pattern"),
])
def test_bad_slice_options_are_one_error_line(home, argv, message):
    ref = put(home, AWKWARD)
    result = tokens_cli("expand", ref, *argv)
    err = result.stderr.decode()
    assert result.returncode == 2 and result.stdout == b""
    assert err.count("\n") == 1 and err.startswith("tokens: error:") and message in err, err


def test_grep_numbers_matches_and_context_like_grep_n():
    from flows.retrieve import grep_lines, line_starts

    lines = [f"line {i} ok\n".encode() for i in range(1, 21)]
    lines[4] = b"ERROR disk full on /var\n"
    lines[14] = b"  ERROR is not at the start here\n"
    data = b"".join(lines)
    body, found, more = grep_lines(data, line_starts(data), "ERROR", 1)
    assert (found, more) == (2, 0)
    assert body == (b"4-line 4 ok\n5:ERROR disk full on /var\n6-line 6 ok\n--\n"
                    b"14-line 14 ok\n15:  ERROR is not at the start here\n16-line 16 ok\n")
    body, found, _ = grep_lines(data, line_starts(data), "^ERROR", 0)  # ^ is the line's start
    assert found == 1 and body == b"5:ERROR disk full on /var\n"
    body, found, _ = grep_lines(data, line_starts(data), "ok$", 0)  # $ is the line's end
    assert found == 18


def test_grep_through_the_cli_has_a_header_and_is_bounded(home, capsysbinary):
    from flows.retrieve import GREP_MAX

    ref = put(home, b"".join(b"%d WARN retry\n" % i for i in range(1000)) + b"last ERROR line\n")
    code, out, _ = run_cli(capsysbinary, "expand", ref, "--grep", "WARN|ERROR", "-C", "0")
    head, _, body = out.partition(b"\n")
    assert code == 0
    assert head == f"[{ref} grep 'WARN|ERROR': 1,001 matching lines of 1,001; first {GREP_MAX} shown, narrow the pattern or use --lines]".encode()
    assert body.count(b"\n") == GREP_MAX and body.startswith(b"1:0 WARN retry\n")
    _, out, _ = run_cli(capsysbinary, "expand", ref, "--grep", "ERROR")
    assert out == f"[{ref} grep 'ERROR': 1 matching line of 1,001]\n".encode() + b"1001:last ERROR line\n"


def test_a_hostile_pattern_runs_in_linear_time(home, capsysbinary):
    ref = put(home, (b"a" * 5000 + b"\n") * 200)
    start = time.monotonic()
    code, out, _ = run_cli(capsysbinary, "expand", ref, "--grep", "(a+)+$b", "-C", "0")
    assert code == 0 and out.startswith(f"[{ref} grep '(a+)+$b': 0 matching lines of 200]".encode())
    assert time.monotonic() - start < 5  # a backtracking engine would not finish


def test_full_original_of_a_packet_can_be_sliced_too(home, capsysbinary):
    raw = LOG.read_bytes()
    packet = reduce_bytes(raw, source="fixtures/sample.log")
    code, out, _ = run_cli(capsysbinary, "expand", "--full", packet.manifest_id, "--grep", "PaymentService")
    assert code == 0
    head, _, body = out.partition(b"\n")
    originals = [(n, line) for n, line in enumerate(raw.split(b"\n"), 1) if b"PaymentService" in line]
    assert head.startswith(f"[{packet.manifest_id} (original) grep 'PaymentService': {len(originals)} matching".encode())
    assert body == b"".join(b"%d:%s\n" % (n, line) for n, line in originals)
    code, out, _ = run_cli(capsysbinary, "expand", "--full", packet.manifest_id)  # no option: the raw original
    assert out == raw


# ------------------------------------------------------------------------------ the hint, our commands


def test_run_ends_with_one_hint_line_and_its_saved_output_restores(home, tmp_path):
    result = tokens_cli("run", "--", "cat", str(LOG))
    assert result.returncode == 0
    out = result.stdout
    hints = HINT_RE.findall(out)
    assert len(hints) == 1 and out.endswith(HINT_RE.search(out).group())
    assert b"[full output:" not in out
    saved = tmp_path / "run-output.txt"
    saved.write_bytes(out)
    restored = tokens_cli("expand", "--full", str(saved))
    assert restored.returncode == 0, restored.stderr
    assert restored.stdout == LOG.read_bytes()
    by_id = tokens_cli("expand", "--full", hints[0].decode())
    assert by_id.stdout == LOG.read_bytes()


def test_analyze_keeps_stdout_exact_and_puts_the_hint_on_stderr(home, tmp_path):
    result = tokens_cli("analyze", str(LOG))
    assert result.returncode == 0
    assert not HINT_RE.search(result.stdout)
    m = HINT_RE.fullmatch(result.stderr)  # not a terminal: the hint and nothing else (no trace)
    assert m, result.stderr
    ref = re.search(rb"#ref:(ctx_[0-9a-f]+)", result.stdout).group(1)
    assert b"tokens expand " + ref in result.stderr
    (tmp_path / "r.txt").write_bytes(result.stdout)
    assert tokens_cli("expand", "--full", str(tmp_path / "r.txt")).stdout == LOG.read_bytes()


def test_tokens_run_of_our_own_expand_passes_the_bytes_through(home):
    ref = put(home, LOG.read_bytes(), source="fixtures/sample.log")  # would fold, were it reduced
    direct = tokens_cli("expand", ref)
    assert direct.stdout == LOG.read_bytes()
    wrapped = tokens_cli("run", "--", sys.executable, "-m", "flows.cli", "expand", ref)
    assert wrapped.returncode == 0
    assert wrapped.stdout == LOG.read_bytes()  # not reduced again: no new marker, no hint
    sliced = tokens_cli("run", "--", sys.executable, "-m", "flows.cli", "expand", ref, "--grep", "ERROR")
    assert sliced.stdout == tokens_cli("expand", ref, "--grep", "ERROR").stdout
    failing = tokens_cli("run", "--", sys.executable, "-m", "flows.cli", "expand", "ctx_000000")
    assert failing.returncode == 1  # its exit code kept


def test_own_command_detection():
    from flows.retrieve import own_command

    assert own_command(["tokens", "expand", "ctx_abcdef"])
    assert own_command(["/home/u/.venv/bin/tokens", "show-ref", "ctx_abcdef"])
    assert own_command([sys.executable, "-I", "-m", "flows.cli", "expand", "ctx_abcdef"])
    assert not own_command(["cat", "tokens"]) and not own_command(["python3", "-m", "http.server"])
    assert not own_command([])


@pytest.mark.parametrize("command", [
    "tokens expand ctx_31154f --grep 'ERROR|WARN' -C 3",
    "tokens expand ctx_31154f --lines 120:180 | head -50",
    "cd src && tokens expand --full pkt_831c58e8bcf2 --tail 20",
    "/home/user/.venv/bin/tokens show-ref ctx_31154f",
    "python3 -m flows.cli expand ctx_31154f --head 5",
    "tokens search PaymentService",
])
def test_the_hook_never_rewrites_retrieval(command):
    policy = hooks.Policy(cwd="/")
    assert hooks.rewrite(command, policy) is None
    twin = command.replace("tokens", "cat", 1).replace("python3 -m flows.cli", "cat")
    if not twin.startswith(("cd ", "/home")):
        assert hooks.rewrite(twin, policy) is not None  # the same shape with another program is rewritten


# ------------------------------------------------------------------------------------------ search


def test_search_finds_a_folded_line_with_its_ref_source_and_line_number(home, capsysbinary):
    packet = reduce_bytes(LOG.read_bytes(), source="fixtures/sample.log")
    [ref] = packet.references
    lines = bytes(ref.content).split(b"\n")
    number, line = next((n, l) for n, l in enumerate(lines, 1) if n > 30 and b"session:" in l)
    word = re.search(rb"session:([0-9a-f]+)", line).group(1).decode()
    assert word.encode() not in packet.visible  # only a ref holds it
    assert not (home / "index.sqlite").exists()  # a run only notes its packet: the search indexes it
    assert (home / "index.pending").read_text().split() == [packet.manifest_id]
    code, out, _ = run_cli(capsysbinary, "search", word)
    text = out.decode()
    assert code == 0
    assert os.stat(home / "index.sqlite").st_mode & 0o777 == 0o600  # private, like the store
    assert not list(home.glob("index.pending*"))  # every noted packet indexed
    assert f"{ref.id} | fixtures/sample.log | line {number}" in text
    assert f"  {number}: {line.decode()}" in text
    _, shown, _ = run_cli(capsysbinary, "expand", ref.id, "--lines", f"{number}:{number}")
    assert shown.split(b"\n")[1] == line  # the number search gives is the one expand takes
    code, out, _ = run_cli(capsysbinary, "search", word, "--json")
    [hit] = json.loads(out)
    assert hit["ref"] == ref.id and hit["packet"] == packet.manifest_id and hit["lines"] == [[number, line.decode()]]
    code, out, _ = run_cli(capsysbinary, "search", "nosuchwordanywhere")
    assert code == 0 and out.startswith(b"no stored ref")


def test_search_output_is_bounded(home, capsysbinary):
    from operators.index import HITS_LINES

    for k in range(4):
        raw = b"".join(b"2026-01-01 10:00:%02d INFO worker %d polled queue alpha\n" % (i % 60, k) for i in range(400))
        reduce_bytes(raw + b"2026-01-01 10:01:00 ERROR worker %d crashed\n" % k, source=f"w{k}.log")
    code, out, _ = run_cli(capsysbinary, "search", "polled alpha", "--limit", "2")
    text = out.decode()
    assert code == 0
    assert text.count(" | w") == 2 and text.rstrip().endswith("[2 refs; read one: tokens expand ID --grep PAT -C 3]")
    code, out, _ = run_cli(capsysbinary, "search", "polled", "--json")
    hits = json.loads(out)
    assert len(hits) == 4 and all(len(h["lines"]) <= HITS_LINES and h["more_lines"] for h in hits)
    # newest first
    assert [h["source"] for h in hits] == ["w3.log", "w2.log", "w1.log", "w0.log"]


def test_long_lines_are_clipped_in_search_and_grep_and_say_how_to_get_them(home, capsysbinary):
    from flows.retrieve import LINE_MAX
    from operators.index import HIT_LINE_MAX

    from types import SimpleNamespace

    from operators.index import _index

    long_line = b"INFO payload " + b"z" * 9000
    content = b"".join(b"INFO tick %d\n" % i for i in range(40)) + long_line + b"\nINFO done\n"
    ref, _ = Store(home).put("long.log", "log", "test content", content)
    _index(home, [(SimpleNamespace(id="pkt_" + "0" * 12, created=time.time()), [ref])])  # a ref of no packet
    _, out, _ = run_cli(capsysbinary, "search", "payload", "--json")
    [hit] = json.loads(out)
    assert hit["ref"] == ref.id and hit["lines"] == [[41, long_line[:HIT_LINE_MAX].decode() + " …"]]
    _, out, _ = run_cli(capsysbinary, "expand", ref.id, "--grep", "payload")
    assert out.endswith(b"41:" + long_line[:LINE_MAX] + f" … [{len(long_line) - LINE_MAX:,} more bytes: --lines 41]\n".encode())
    _, out, _ = run_cli(capsysbinary, "expand", ref.id, "--lines", "41")
    assert out.split(b"\n")[1] == long_line


@pytest.mark.parametrize("damage", ["directory", "garbage", "symlink"])
def test_a_broken_index_never_fails_a_run(home, damage, capsysbinary):
    home.mkdir(parents=True)
    index = home / "index.sqlite"
    if damage == "directory":
        index.mkdir()
    elif damage == "garbage":
        index.write_bytes(b"not a database at all" * 100)
    else:
        os.symlink(home / "elsewhere.sqlite", index)
    packet = reduce_bytes(LOG.read_bytes(), source="fixtures/sample.log")
    assert packet.references and packet.recovery_pass and packet.restore_pass and not packet.error
    assert not (home / "elsewhere.sqlite").exists()  # the symlink was not followed
    code, out, err = run_cli(capsysbinary, "search", "heartbeat")
    assert code != 0 or out.startswith(b"no stored ref")
    assert b"Traceback" not in err


def test_search_indexes_every_packet_noted_since_the_last_search(home, capsysbinary):
    for k in range(40):  # more than one search indexed at most before
        reduce_bytes(b"".join(b"2026-01-01 10:%02d:%02d INFO tick %d of batch%d\n" % (i // 60, i % 60, i, k) for i in range(120)),
                     source=f"b{k}.log")
    code, out, _ = run_cli(capsysbinary, "search", "batch0")
    assert code == 0 and b" | b0.log | " in out
    code, out, _ = run_cli(capsysbinary, "search", "batch39")
    assert code == 0 and b" | b39.log | " in out
    code, out, _ = run_cli(capsysbinary, "search", "tick", "--json", "--limit", "100")
    assert len(json.loads(out)) == 40


def test_an_overgrown_note_keeps_its_newer_half(home, monkeypatch):
    from operators import index as index_module

    monkeypatch.setattr(index_module, "PENDING_MAX", 10 * 17)
    home.mkdir(parents=True)
    ids = [f"pkt_{k:012x}" for k in range(11)]
    for pkt_id in ids:
        index_module._defer(home, [pkt_id])
    assert (home / "index.pending").read_text().split() == ids[5:]
    assert [p.name for p in home.iterdir()] == ["index.pending"] and os.stat(home / "index.pending").st_mode & 0o777 == 0o600


def test_search_skips_refs_gone_from_the_store(home, capsysbinary):
    reduce_bytes(LOG.read_bytes(), source="fixtures/sample.log")
    code, out, _ = run_cli(capsysbinary, "search", "heartbeat")
    assert b"fixtures/sample.log" in out
    Store(home).gc(max_bytes=0)
    code, out, _ = run_cli(capsysbinary, "search", "heartbeat")
    assert code == 0 and out.startswith(b"no stored ref")
    from operators.index import indexed_refs

    assert indexed_refs(home) == []  # dropped from the index too


# ---------------------------------------------------------------------------- analyze, conventions


def test_analyze_json_is_the_result_and_stderr_is_quiet(home):
    plain = tokens_cli("analyze", str(LOG))
    result = tokens_cli("analyze", str(LOG), "--json")
    assert result.returncode == 0 and result.stderr == b""  # not a terminal, no --trace: no trace
    doc = json.loads(result.stdout)
    assert doc["visible"].encode() == plain.stdout
    assert doc["invariants"] == {"signal": True, "recovery": True, "restore": True}
    assert doc["packet"].startswith("pkt_") and doc["type"] == "log"
    assert [r["id"] for r in doc["refs"]] == [m.decode()[5:] for m in re.findall(rb"#ref:ctx_[0-9a-f]+", plain.stdout)]
    assert doc["figures"]["raw_bytes"] == LOG.stat().st_size and doc["figures"]["level"] == 1
    assert [e["stage"] for e in doc["trace"]][:2] == ["LOAD", "CLASSIFY"] and doc["trace"][-1]["stage"] == "LEVELS"
    restored = tokens_cli("expand", "--full", doc["packet"])
    assert restored.stdout == LOG.read_bytes()
    traced = tokens_cli("analyze", str(LOG), "--json", "--trace")
    events = [json.loads(line) for line in traced.stderr.decode().splitlines()]
    assert events[0]["stage"] == "LOAD" and events[-1]["stage"] == "LEVELS"


def test_analyze_json_carries_exact_bytes_of_invalid_utf8(home):
    import base64

    plain = tokens_cli("analyze", "-", stdin=AWKWARD)
    result = tokens_cli("analyze", "-", "--json", stdin=AWKWARD)
    doc = json.loads(result.stdout)
    assert b"\xff\xfe" in plain.stdout
    assert base64.b64decode(doc["visible_base64"]) == plain.stdout  # the printed bytes, exactly
    assert doc["visible"] == plain.stdout.decode("utf-8", "replace")


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_console_trace_colours_unless_no_color(monkeypatch):
    from operators.trace import emit

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    for no_color, coloured in ((None, True), ("1", False)):
        if no_color:
            monkeypatch.setenv("NO_COLOR", no_color)
        stream = FakeTTY()
        configure_trace(stream=stream)
        emit("RESTORE", "x.log", {"result": True, "packet": "pkt_0"})
        emit("SIGNAL", "x.log", {"result": False})
        text = stream.getvalue()
        assert ("\x1b[32mPASS" in text and "\x1b[31mFAIL" in text) is coloured
        assert ("\x1b[" in text) is coloured
        assert "RESTORE" in text and "PASS" in text and "FAIL" in text
    configure_trace(json=True, stream=open(os.devnull, "w"))


def test_version_comes_from_the_package_metadata():
    from importlib.metadata import version

    result = tokens_cli("--version")
    assert result.returncode == 0
    assert result.stdout.decode().strip() == f"tokens (nolife-tokens) {version('nolife-tokens')}"


def test_progress_only_on_a_terminal_and_for_big_inputs():
    from operators.trace import PROGRESS_MIN, progress

    tty, pipe = FakeTTY(), io.StringIO()
    progress("reducing", "big.log", PROGRESS_MIN + 1, stream=tty)
    progress("reducing", "big.log", PROGRESS_MIN + 1, stream=pipe)
    progress("reducing", "small.log", PROGRESS_MIN - 1, stream=tty)
    assert tty.getvalue() == "tokens: reducing big.log (50 MB)…\n" and pipe.getvalue() == ""


@pytest.mark.parametrize("data", [b"", b"\n", b"a\n", b"a\n\n", b"a", b"ok\r\nok\n", b"x\ny", AWKWARD,
                                  b"ERROR a\nok\n  ERROR b\nERRORS\n\nlast ERROR"])
@pytest.mark.parametrize("pattern", ["^$", "$", "^", "a", "ok$", "^y$", "[^a]", r"\s", "ERROR", "^ERROR", r"ERROR\b",
                                     "x*", r"\x00", "(?i)error", "a\nb"])
def test_the_whole_buffer_search_matches_a_line_by_line_search(data, pattern):
    import re2

    from flows.retrieve import _matching_lines, compile_pattern, line_starts

    starts = line_starts(data)
    one = re2.compile(pattern.encode())
    by_line = [i for i, start in enumerate(starts)
               if one.search(data[start : starts[i + 1] - 1 if i + 1 < len(starts) else len(data) - data.endswith(b"\n")])
               is not None]
    assert _matching_lines(compile_pattern(pattern), data, starts) == by_line
