"""The safety pass: no terminal control sequence, hidden character or marker look-alike reaches the
visible text, binary content and over-long lines stay small, and every input still restores byte for byte."""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples, FIXTURES, reduce_bytes
from operators.reduction import KEEP, MARK, OMIT, Plan, omissions, passthrough, render, restore, restores_to
from operators.safety import SafetySettings, clean, secure
from operators.store import MARKER_RE

FAMILIES = {
    "csi_colour": b"\x1b[31;1m",
    "csi_query": b"\x1b[6n",
    "clear_screen_cursor": b"\x1b[2J\x1b[H\x1b[10;5f",
    "osc52_clipboard": b"\x1b]52;c;cm0gLXJmIH4vCg==\x07",
    "window_title": b"\x1b]0;pwned\x1b\\",
    "dcs": b"\x1bP1$qm\x1b\\",
    "apc_pm": b"\x1b_app payload\x1b\\\x1b^privacy\x1b\\",
    "two_byte_escapes": b"\x1bc\x1b7\x1b(0\x1b8",
    "c0_controls": b"\x00\x07\x0b\x0c\x7f\x01\x1a",
    "backspace": b"x\x08y\x08",
    "c1_utf8": b"\xc2\x9b31m\xc2\x85\xc2\x9d0;t\xc2\x9c\xc2\x90q\xc2\x9c",
    "c1_raw": b"\x9b31m\x85 \x9d0;t\x9c",
    "bidi": "\u202etxt.exe\u202c\u2066\u2069\u202a\u200f\u061c".encode(),
    "invisible": "a\u200bb\u200dc\u2060\ufeff\U000e0041\U000e0042".encode(),
    "cr_overprint": b"rm -rf / # hidden\r",
}
TYPES = {  # content type: a real fixture of it
    "log": "sample.log",
    "text": "sample.txt",
    "json": "sample.json",
    "diff": "sample.diff",
    "build": "pytest_failure.txt",
    "filelist": "sample.filelist",
}

UNSAFE_BYTES = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)")
UNSAFE_CHARS = re.compile(
    "[\x80-\x9f\udc80-\udc9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
)


def unsafe(visible: bytes) -> list:
    """What a terminal would act on, or hide, in ``visible`` (checked independently of the module)."""
    found = [m.group() for m in UNSAFE_BYTES.finditer(visible)]
    found += [m.group() for m in UNSAFE_CHARS.finditer(visible.decode("utf-8", "surrogateescape"))]
    return found


def assert_restores(packet, raw: bytes) -> None:
    assert packet.restore_pass is True and packet.recovery_pass is True, packet.trace
    contents = [bytes(ref.content) if not isinstance(ref.content, bytes) else ref.content for ref in packet.references]
    assert restore(packet.visible, packet.layout, contents) == raw


def assert_lookalikes_quoted(visible: bytes, markers: list) -> None:
    """Every ``#ref:ctx_`` in the visible text starts a real marker (one the plan's MARK pieces made)."""
    real = {pos for pos, _ in markers}
    assert [m.start() for m in re.finditer(rb"#ref:ctx_", visible) if m.start() not in real] == []


def planted(kind: str, payload: bytes) -> bytes:
    """The fixture of ``kind`` with ``payload`` planted in its third line, in a middle line, around a
    signal line's first word, and at the end of its last line."""
    raw = (FIXTURES / TYPES[kind]).read_bytes()
    lines = raw.split(b"\n")
    third, middle = 2, len(lines) // 2
    if kind == "json":  # inside string values
        lines[third] = lines[third].replace(b': "', b': "' + payload, 1)
        lines[middle] = lines[middle].replace(b'"', b'"' + payload, 1)
    else:
        lines[third] = payload + lines[third]
        lines[middle] = lines[middle] + payload
    signal = next((i for i, line in enumerate(lines) if re.search(rb"ERROR|FAILED|error|^\+ ", line)), 0)
    lines[signal] = re.sub(rb"(ERROR|FAILED|error|\+ )", payload.replace(b"\\", b"\\\\") + rb"\1", lines[signal], count=1)
    lines[-2] = lines[-2] + payload
    return b"\n".join(lines)


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("kind", sorted(TYPES))
def test_every_control_family_in_every_type_is_removed_and_restores(kind, family):
    raw = planted(kind, FAMILIES[family])
    assert unsafe(raw) or b"#ref:" in raw  # the planted payload is there to be found
    packet = reduce_bytes(raw, source=f"{kind}-{family}", forced_type=kind)
    assert packet.error == ""
    assert unsafe(packet.visible) == [], packet.visible.decode("utf-8", "replace")[-600:]
    assert_restores(packet, raw)
    assert packet.signal_pass is True, packet.missing_signals
    notes = re.findall(rb"\[terminal control sequences removed: [\d,]+[^\n]*; original bytes: #ref:ctx_[0-9a-f]+\]\n",
                       packet.visible)
    if kind == "json" and family in ("bidi", "invisible", "c1_utf8", "cr_overprint"):
        assert notes == []  # shown as \u escapes (a lone CR as a newline): the JSON decodes the same, no note
    elif "safety:controls" in packet.plan.reasons:  # lines were cleaned here: one note line says so
        assert len(notes) == 1, packet.visible[-400:]
    else:  # the reducer showed those lines its own way (escaped names, its own escape removal) or folded them
        assert packet.visible.count(b"[terminal control sequences removed") == 0


def test_a_signal_line_with_escapes_stays_visible_as_displayed():
    raw = b"".join(b"2026-01-01 10:00:%02d INFO request ok id=%d\n" % (i % 60, i) for i in range(300))
    raw += b"2026-01-01 10:05:00 \x1b[31mERROR\x1b[0m payment \xe2\x80\xaefailed\xe2\x80\xac for order 7\n"
    raw += b"progress 10%\rprogress 90%\r2026-01-01 10:05:01 WARN disk at 91%\n"
    packet = reduce_bytes(raw, forced_type="log")
    assert packet.signal_pass is True, packet.missing_signals
    assert b"2026-01-01 10:05:00 ERROR payment failed for order 7\n" in packet.visible
    assert b"\n2026-01-01 10:05:01 WARN disk at 91%\n" in packet.visible  # the last frame, as a terminal shows it
    assert b"progress 10%" not in packet.visible
    assert unsafe(packet.visible) == []
    assert_restores(packet, raw)


def test_a_signal_line_is_reported_missing_when_it_is_not_shown():
    """The SIGNAL check still bites on cleaned lines: drop the signal line and it fails."""
    from operators.signals import auto_signals, missing_signals

    raw = b"ok line\nERROR \x1b[31mboom\x1b[0m \xe2\x80\xae here\nlast\n"
    auto = auto_signals("log", raw)
    assert auto == [b"ERROR boom  here"]
    assert missing_signals(b"ok line\nERROR boom  here\nlast\n", [], auto) == []
    assert missing_signals(b"ok line\nlast\n", [], auto) == ["ERROR boom  here"]


def test_clean_handles_each_family_and_counts_it():
    assert clean(b"a\x1b[31mred\x1b[0m b").text == b"ared b"
    assert clean(b"x\x1b]52;c;ZXZpbA==\x07y\x1b]0;t\x1b\\z").text == b"xyz"
    assert clean(b"q\x1b[6n!").text == b"q!"
    assert clean(b"\xc2\x9b2J\xc2\x85ok \x9b31m\x85").text == b"ok 31m"  # raw C1 bytes outside UTF-8 go alone
    assert clean("\u20ac \u65e5 caf\u00e9".encode()).text == "\u20ac \u65e5 caf\u00e9".encode()  # UTF-8 untouched
    assert clean(b"bold B\x08B under _\x08u").text == b"bold B under u"
    # a backspace moves back, what follows overwrites, what nothing overwrote stays (as a terminal shows it)
    assert clean(b"got 3\x08\nspin |\x08/\x08-\x08done\n\x08\x08x\n").text == b"got 3\nspin done\nx\n"
    assert clean("a\u00e9\x08\x08x\u00e9!".encode()).text == "x\u00e9!".encode()
    assert clean(b"abc\x08\x08\x08xy").text == b"xy"  # a shorter text written over: that text
    assert clean(b"one\rtwo\r\nthree\r\r\n").text == b"two\r\nthree\r\n"
    assert clean(b"text\r   \rnew\n").text == b"new\n"
    done = clean(b"see #ref:ctx_abcdef and \x1b[1m#ref:\x1b[0mctx_123456")
    assert done.text == b"see #ref\\:ctx_abcdef and #ref\\:ctx_123456" and done.quoted == 2 and done.removed == 2
    assert clean(b'"#ref:ctx_abcdef"', "json").text == b'"\\u0023ref:ctx_abcdef"'


def test_nothing_to_do_returns_the_same_plan():
    for name in ("sample.log", "sample.txt", "sample.diff", "sample.filelist", "gcc_errors.txt"):
        plan = passthrough((FIXTURES / name).read_bytes())
        assert secure(plan, None) is plan
    crlf = passthrough(b"line one\r\nline two\r\n" * 100)
    assert secure(crlf, None) is crlf


def _render(plan: Plan):
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, markers = render(plan, ids)
    contents = omissions(plan)
    return visible, layout, [contents[group] for group in plan.reasons], markers


def test_reducer_text_is_cleaned_and_reducer_refs_are_kept():
    raw = b"keep \x1b[1mthis\x1b[0m\nfold me\nfold me too\nend #ref:ctx_abcdef\n"
    plan = Plan(raw)
    plan.keep(0, raw.index(b"fold"))
    plan.show(b"[folded \x1b]0;title\x07 \xe2\x80\xae2 lines: ")
    plan.omit(raw.index(b"fold"), raw.index(b"end"), "fold", "folded lines")
    plan.mark("fold")
    plan.show(b"]\n")
    plan.keep_rest().finish()
    safe = secure(plan, None)
    visible, layout, contents, markers = _render(safe)
    assert visible.startswith(b"keep this\n[folded  2 lines: #ref:ctx_000000]\nend #ref\\:ctx_abcdef\n")
    assert visible.endswith(b"; original bytes: #ref:ctx_000001]\n")
    assert unsafe(visible) == []
    assert contents[0] == b"fold me\nfold me too\n"  # the reducer's ref is untouched
    assert restores_to(raw, visible, layout, contents)
    assert_lookalikes_quoted(visible, markers)


def test_marker_lookalikes_are_quoted_and_real_markers_stay(tmp_path):
    from conftest import tokens_cli

    raw = b"".join(b"2026-01-01 10:00:%02d INFO request ok id=%d\n" % (i % 60, i) for i in range(300))
    raw += b"2026-01-01 10:04:00 INFO see #ref:ctx_abcdef for the details (#ref:ctx_123456789a)\n"
    packet = reduce_bytes(raw, forced_type="log")
    visible = packet.visible
    assert b"see #ref\\:ctx_abcdef for the details (#ref\\:ctx_123456789a)" in visible
    shown = [m.start() for m in MARKER_RE.finditer(visible)]
    assert shown and set(shown) == {pos for pos, _ in _store_markers(packet)}  # each one a real marker
    assert_restores(packet, raw)
    path = tmp_path / "in.log"
    path.write_bytes(raw)
    home = tmp_path / "home"
    out = tokens_cli("analyze", str(path), env={"NOLIFE_TOKENS_HOME": str(home)})
    assert out.returncode == 0, out.stderr[-500:]
    (tmp_path / "reduced.txt").write_bytes(out.stdout)
    back = tokens_cli("expand", "--full", str(tmp_path / "reduced.txt"), env={"NOLIFE_TOKENS_HOME": str(home)})
    assert back.returncode == 0 and back.stdout == raw


def _store_markers(packet):
    from operators.store import Store

    return Store(os.environ["NOLIFE_TOKENS_HOME"]).get_manifest(packet.manifest_id).markers


def test_json_lookalikes_keep_the_document_valid():
    import json

    doc = {"id": 1, "note": "#ref:ctx_abcdef", "items": [{"n": i, "pad": "x" * 40} for i in range(60)]}
    raw = json.dumps(doc, indent=2).encode()
    packet = reduce_bytes(raw, forced_type="json")
    assert b"#ref:ctx_abcdef" not in packet.visible
    assert json.loads(packet.visible)["note"] == "#ref:ctx_abcdef"
    assert_restores(packet, raw)


def test_json_shows_hidden_characters_as_escapes_and_stays_valid():
    import json

    doc = {"id": 1, "file": "invoice\u202egnp.exe", "note": "a\u200bb\x7f\u0085\U000e0041",
           "items": [{"n": i, "pad": "x" * 40} for i in range(60)]}
    raw = json.dumps(doc, indent=2, ensure_ascii=False).encode()
    packet = reduce_bytes(raw, forced_type="json")
    assert b'"file": "invoice\\u202egnp.exe"' in packet.visible
    shown = json.loads(packet.visible)
    assert shown["file"] == doc["file"] and shown["note"] == doc["note"]  # decodes to the very same strings
    assert unsafe(packet.visible) == []
    assert_restores(packet, raw)


def test_a_50_mb_single_line_gives_a_small_visible_text(tmp_path):
    raw = b"".join(b"%07d " % i + b"payload " * 131071 for i in range(50)) + b"ERROR at the very end"
    assert len(raw) > 50_000_000
    packet = reduce_bytes(raw, forced_type="text")
    assert len(packet.visible) < 10_000
    assert re.search(rb"^0000000 payload payload .* \xe2\x80\xa6 \[[\d,]+ bytes cut: #ref:ctx_[0-9a-f]+\] \xe2\x80\xa6 .*"
                     rb"payload ERROR at the very end", packet.visible), packet.visible[:300]
    assert packet.signal_pass is True and packet.restore_pass is True and packet.recovery_pass is True


def test_30_mb_of_random_bytes_give_one_described_line():
    raw = os.urandom(30_000_000)
    packet = reduce_bytes(raw)
    assert len(packet.visible) < 10_000, packet.visible[:300]
    assert packet.visible.startswith(b"[binary data: 30,000,000 bytes, ")
    assert ("starts " + raw[:16].hex(" ")).encode() in packet.visible
    assert unsafe(packet.visible) == []
    assert packet.restore_pass is True and packet.recovery_pass is True


def test_an_elf_binary_is_described_by_its_magic():
    raw = open("/bin/true", "rb").read()
    assert raw[:4] == b"\x7fELF"
    packet = reduce_bytes(raw)
    assert packet.visible.startswith(f"[binary data: {len(raw):,} bytes, ELF executable; starts 7f 45 4c 46".encode())
    assert len(packet.visible) < 400 and unsafe(packet.visible) == []
    assert_restores(packet, raw)


def test_binary_appended_to_text_keeps_the_text_and_describes_the_rest():
    text = b"".join(b"line %d of the build output\n" % i for i in range(4000))
    raw = text + os.urandom(300_000) + b"\nERROR after the blob\n"
    plan = secure(passthrough(raw), None)
    visible, layout, contents, _ids = _render(plan)
    assert visible.startswith(b"line 0 of the build output\n")
    assert b"[binary data: " in visible and len(visible) < len(text) + 70_000
    assert restores_to(raw, visible, layout, contents)
    assert unsafe(visible) == []


def test_long_lines_are_cut_by_their_kind():
    normal = b"x" * 5000
    signal = b"ERROR " + b"y" * 9000
    huge_signal = b"ERROR " + b"z" * 20000 + b" the end"
    raw = b"short\n" + normal + b"\n" + signal + b"\n" + huge_signal + b"\nlast"
    plan = secure(passthrough(raw), SimpleConfig())
    visible, layout, contents, _ids = _render(plan)
    assert b"\n" + signal + b"\n" in visible  # a signal line up to line_cap stays whole
    assert normal not in visible and b"x" * 1024 + b" \xe2\x80\xa6 [3,720 bytes cut: #ref:" in visible
    assert b" the end\nlast" in visible and huge_signal not in visible
    assert len(visible) < len(signal) + 4_000
    assert restores_to(raw, visible, layout, contents)


class SimpleConfig:
    safety = SafetySettings()


def test_settings_are_validated():
    import msgspec

    with pytest.raises(ValueError):
        SafetySettings(long_line=1000, keep_head=900, keep_tail=200)
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"long_line": 10}, SafetySettings)
    assert msgspec.convert({"line_cap": 32768}, SafetySettings).line_cap == 32768


hostile = st.lists(
    st.one_of(
        st.binary(max_size=40),
        st.sampled_from(list(FAMILIES.values()) + [b"#ref:ctx_abcdef", b"\r\n", b"\n", b"\r", b"\xe2\x80", b"\xc2"]),
    ),
    max_size=30,
).map(b"".join)


def _in_turns(raw: bytes, cuts: int) -> Plan:
    """A plan that keeps, omits and shows in turn, over ``cuts + 1`` equal parts of ``raw``."""
    plan = Plan(raw)
    step = max(len(raw) // (cuts + 1), 1)
    pos, turn = 0, 0
    while pos < len(raw):
        end = min(pos + step, len(raw))
        if turn % 3 == 1:
            plan.omit(pos, end, "g", "test")
            plan.mark("g")
        else:
            plan.keep(pos, end)
        if turn % 3 == 2:
            plan.show(b"[" + raw[pos:end][:8] + b"]")  # reducer text derived from the input
        pos, turn = end, turn + 1
    plan.finish()
    return plan


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile, st.integers(min_value=0, max_value=6), st.sampled_from(["text", "json"]))
def test_random_bytes_with_escapes_restore_exactly(raw, cuts, kind):
    """Any bytes, under a plan that keeps, omits and shows in turn: the secured plan covers the raw
    bytes once, restores them exactly and shows nothing unsafe."""
    plan = _in_turns(raw, cuts)
    safe = secure(plan, SimpleConfig(), kind)
    safe.finish()
    assert sum(e - s for k, s, e in zip(safe.pieces.kinds, safe.pieces.starts, safe.pieces.ends) if k in (KEEP, OMIT)) == len(raw)
    visible, layout, contents, markers = _render(safe)
    assert restores_to(raw, visible, layout, contents)
    assert restore(visible, layout, [bytes(c) for c in contents]) == raw
    assert unsafe(visible) == []
    assert_lookalikes_quoted(visible, markers)


def test_level_0_overview_shows_no_controls(tmp_path):
    from conftest import tokens_cli

    raw = b"".join(b"2026-01-01 10:00:%02d INFO ok %d\n" % (i % 60, i) for i in range(200))
    raw += b"2026-01-01 10:01:00 \x1b]52;c;cm0=\x07ERROR deploy \xe2\x80\xaegnp.exe\xe2\x80\xac \xc2\x9b6n failed\n"
    path = tmp_path / "deploy.log"
    path.write_bytes(raw)
    out = tokens_cli("analyze", "--level", "0", str(path), env={"NOLIFE_TOKENS_HOME": str(tmp_path / "home")})
    assert out.returncode == 0, out.stderr[-500:]
    assert b"  2026-01-01 10:01:00 ERROR deploy gnp.exe  failed\n" in out.stdout
    assert unsafe(out.stdout) == []


@pytest.mark.parametrize("raw", [
    b"\x1b[31mhi\x1b[0m\n",  # shorter than min_bytes: passed through, still cleaned
    b"a\x1b]0;t\x07\n" * 200,  # a plan no smaller than the input falls back to the cleaned input
])
def test_passed_through_inputs_are_cleaned_too(raw):
    packet = reduce_bytes(raw)
    assert unsafe(packet.visible) == [] and b"\x1b" not in packet.visible
    assert_restores(packet, raw)


def test_binary_detection_keeps_text_with_stray_control_bytes():
    from operators.safety import binary_regions

    assert binary_regions(b"\xff\xfe INFO start\n" + b"INFO \x00 tick\n" * 100) == []  # a NUL a line: still text
    assert binary_regions("日志 ERROR 失败\n".encode("gbk") * 500) == []  # another encoding: still text
    utf16 = "INFO all good\n".encode("utf-16") * 50
    assert binary_regions(utf16) == [(0, len(utf16))]
    assert binary_regions(os.urandom(5000)) == [(0, 5000)]
    tail = b"text line\n" * 20_000 + os.urandom(200_000)
    [(start, end)] = binary_regions(tail)
    assert end == len(tail) and 200_000 - 65_536 < start <= 200_000


def test_c1_bytes_after_an_out_of_range_four_byte_lead_are_removed():
    """``\\xf4\\xa0\\x80\\x80`` is no character (past U+10FFFF): its 0x80 bytes are raw C1 controls and
    go like any other, also at the end of a kept run after backspaces (the case hypothesis found)."""
    raw = b"\x08" * 6 + b" " + b"\x08" * 6 + b" " + b"\x00" * 6 + b"\x08" * 5 + b" " * 14 + b"\x00" * 3 + b"\xf4\xa0\x80\x80"
    plan = _in_turns(raw, 5)
    safe = secure(plan, SimpleConfig(), "text")
    safe.finish()
    visible, layout, contents, _markers = _render(safe)
    assert unsafe(visible) == []
    assert restore(visible, layout, [bytes(c) for c in contents]) == raw


def test_matching_spans_finds_what_search_finds_span_by_span():
    """The direct program call gives, span by span, what ``search(raw, start, end)`` gives: matches
    at a span's edges (``\\A``, ``\\z``, a CR that ends the span, a character cut by it) included."""
    import random
    import re

    import re2

    from operators import secrets
    from operators.safety import FIND_RE, matching_spans

    rng = random.Random(3)
    pieces = [b"plain text line\n", b"\x1b[31mred\x1b[0m\n", b"cr\rlf\n", b"caf\xc3\xa9 \xe2\x80\x8b\n",
              b"#ref:ctx_abcdef\n", b"password=hunter2secret\n", b"\xc2\x9b1m\n", b"token: ghp_" + b"a" * 36 + b"\n"]
    raw = b"".join(rng.choice(pieces) for _ in range(400))
    spans = []
    for _ in range(3000):
        start = rng.randrange(len(raw))
        spans.append((start, min(len(raw), start + rng.choice([1, 2, 3, 5, 9, 17, 40, 200]))))
    spans.append((0, 0))
    spans.append((len(raw), len(raw)))
    for regex in (FIND_RE, secrets.SECRET_RE):
        expected = [(s, e) for s, e in spans if regex.search(raw, s, e) is not None]
        assert 0 < len(expected) < len(spans)
        assert list(matching_spans(regex, raw, spans)) == expected
        # one span at a time: the joined search that rules spans out must never miss a span's match,
        # whatever its edges read around it (a CR or a lead byte at its end, a word going on past it)
        for span in spans:
            assert list(matching_spans(regex, raw, [span])) == [span for span in [span] if span in expected], span
    # assertions only, each true or false by the bytes around the span: the joined search must read them
    edges = re2.compile(rb"\bx\b|\Ay|z\z|(?m)^w$|\Bq")
    text = b"ax x\nyz\nw\nzaqz"
    cases = [(1, 2), (3, 4), (5, 6), (6, 7), (8, 9), (10, 11), (0, 1), (9, 10), (12, 13), (11, 13), (13, 14)]
    want = [(s, e) for s, e in cases if edges.search(text, s, e) is not None]
    assert want == [(3, 4), (8, 9), (12, 13), (11, 13), (13, 14)]
    assert list(matching_spans(edges, text, cases)) == want
    assert [c for c in cases if list(matching_spans(edges, text, [c]))] == want
    plain = re.compile(rb"\x1b")  # a pattern without an RE2 program: searched the usual way
    assert list(matching_spans(plain, raw, spans)) == [(s, e) for s, e in spans if plain.search(raw, s, e)]
