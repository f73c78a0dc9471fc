import re

import pytest

from conftest import FIXTURES, reduce_bytes
from operators.config import Config
from operators.reduction import omissions
from operators.types.log import reduce_log
from operators.signals import load_sidecar
from operators.store import Store

SAMPLE = (FIXTURES / "sample.log").read_bytes()
PLANTED = load_sidecar(FIXTURES / "signals.toml")["sample.log"]


@pytest.mark.parametrize("granularity", ["coarse", "fine"])
def test_fixture_keeps_signals_saves_75_percent_and_restores(granularity, home):
    packet = reduce_bytes(SAMPLE, source="fixtures/sample.log", granularity=granularity, expected_signals=PLANTED)
    assert packet.type == "log"
    for signal in PLANTED:
        assert signal.encode() in packet.visible
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass
    assert packet.measure.saved_pct >= 75.0
    if granularity == "coarse":
        assert len(packet.references) == 1
    else:
        assert len(packet.references) > 1
    # every ref in the store holds exactly the omitted bytes: all raw lines not shown verbatim
    shown = set()
    for line in packet.visible.splitlines():
        shown.add(line)
        shown.add(re.sub(rb" \xc3\x97\d+( #ref:ctx_[0-9a-f]+)?$", b"", line))  # "line ×N"
    hidden = [line for line in SAMPLE.splitlines() if line not in shown]
    stored = b"".join(Store(home).get(ref.id).content for ref in packet.references)
    assert sorted(stored.splitlines()) == sorted(hidden)


def test_error_lines_and_stack_trace_stay_in_place():
    raw = b"".join(b"12:00:%02d INFO tick %d\n" % (i, i) for i in range(40))
    raw += b"12:01:00 ERROR PaymentService line 421 failed\n    at Gateway.charge(Gateway.java:421)\n    at Main.run(Main.java:9)\n"
    raw += b"".join(b"12:02:%02d INFO tick %d\n" % (i, i) for i in range(40))
    plan = reduce_log(raw, "coarse", Config().log)
    visible = b"".join(p[1] if p[0] == 1 else raw[p[1]:p[2]] if p[0] == 0 else b"" for p in plan.pieces)
    lines = visible.split(b"\n")
    i = lines.index(b"12:01:00 ERROR PaymentService line 421 failed")
    assert lines[i + 1] == b"    at Gateway.charge(Gateway.java:421)"
    assert lines[i + 2] == b"    at Main.run(Main.java:9)"
    assert lines[0].startswith(b"12:00:00 INFO tick 0") and b" \xc3\x9780" in lines[0]
    assert i == 1  # the folded ticks are no longer in front of it


def test_rare_lines_stay_and_repeats_are_counted():
    raw = b"[INFO] request started\n" * 50 + b"[INFO] config reloaded\n" + b"[INFO] request started\n" * 50
    packet = reduce_bytes(raw)
    assert b"[INFO] request started \xc3\x97100\n" in packet.visible
    assert b"[INFO] config reloaded\n" in packet.visible
    assert packet.restore_pass


def test_identical_consecutive_error_lines_show_once_with_count():
    raw = b"INFO boot\n" + b"ERROR disk full on /dev/sda1\n" * 30 + b"INFO done\n" + b"x" * 600 + b"\n"
    packet = reduce_bytes(raw, forced_type="log")
    assert packet.visible.count(b"ERROR disk full on /dev/sda1") == 1
    assert b"ERROR disk full on /dev/sda1 \xc3\x9730" in packet.visible
    assert packet.signal_pass and packet.restore_pass


@pytest.mark.parametrize("ending", [b"\n", b"\r\n"])
@pytest.mark.parametrize("final", [True, False])
def test_line_endings_and_missing_final_newline_restore_exactly(ending, final):
    lines = [b"2026-01-01 10:00:%02d INFO poll id=%d" % (i % 60, i) for i in range(200)]
    lines.insert(100, b"2026-01-01 10:01:40 WARN slow poll")
    raw = ending.join(lines) + (ending if final else b"")
    packet = reduce_bytes(raw)
    assert packet.restore_pass and packet.recovery_pass
    assert b"2026-01-01 10:01:40 WARN slow poll" + ending in packet.visible
    assert packet.measure.saved_pct > 50


def test_fine_granularity_puts_one_marker_per_template():
    raw = b"".join(b"GET /a/%d 200\nPOST /b/%d 201\n" % (i, i) for i in range(30)) + b"ERROR boom\n"
    plan = reduce_log(raw, "fine", Config().log)
    groups = omissions(plan)
    assert len(groups) == 2
    marks = [p for p in plan.pieces if p[0] == 3]
    assert sorted(m[1] for m in marks) == sorted(groups)


def test_invalid_utf8_and_nul_bytes_survive():
    raw = b"\xff\xfe INFO start\n" + b"INFO \x00 tick\n" * 100 + b"ERROR \xc3\x28 bad bytes\n"
    packet = reduce_bytes(raw, forced_type="log")
    assert b"ERROR \xc3\x28 bad bytes" in packet.visible
    assert packet.restore_pass


def test_block_boundaries_do_not_change_the_plan(monkeypatch):
    from hypothesis import given, settings
    from hypothesis import strategies as st

    import operators.types.log as logmod
    from operators.kernel import log_twins

    lines = st.sampled_from([b"INFO tick 1", b"INFO tick 22", b"", b"ERROR x", b"WARN y 0x1f", b"\r", b"  at z"])

    @settings(max_examples=200, deadline=None)
    @given(parts=st.lists(lines, max_size=40), final=st.booleans(), block=st.integers(min_value=1, max_value=40))
    def check(parts, final, block):
        raw = b"\n".join(parts) + (b"\n" if final else b"")
        monkeypatch.setattr(log_twins, "SHAPE_BLOCK", 1 << 22)
        whole = logmod.reduce_log(raw, "coarse", Config().log).pieces
        monkeypatch.setattr(log_twins, "SHAPE_BLOCK", block)
        assert logmod.reduce_log(raw, "coarse", Config().log).pieces == whole

    check()


def test_a_huge_rare_line_is_cut_with_a_marker_but_a_huge_signal_line_stays_whole():
    blob = "é" * 60_000  # 120 KB, two bytes per character: the cut must not split one
    raw = b"".join(b"10:00:%02d INFO tick %d\n" % (i % 60, i) for i in range(30))
    raw += b"10:01:00 INFO payload " + blob.encode() + b"\n"
    raw += b"10:01:01 ERROR payload " + blob.encode() + b"\n"
    packet = reduce_bytes(raw, forced_type="log")
    assert packet.restore_pass and packet.recovery_pass and packet.signal_pass
    lines = packet.visible.split(b"\n")
    cut = next(line for line in lines if line.startswith(b"10:01:00 INFO payload"))
    assert len(cut) < 4096 + 200 and b"more bytes of this line: #ref:ctx_" in cut
    cut.decode("utf-8")  # still valid UTF-8
    # the signal line stays whole in the log's plan; past the safety pass's line_cap (16 KiB) its head
    # and tail stay around the cut
    signal = next(line for line in lines if line.startswith(b"10:01:01 ERROR payload "))
    assert b" bytes cut: #ref:ctx_" in signal and signal.endswith(blob.encode()[-200:])
    reasons = {ref.reason for ref in packet.references}
    assert "cut from long lines" in reasons


def test_signal_line_indexes_match_a_per_line_search():
    import random as rnd

    from operators.types.log import signal_line_indexes
    from operators.vocab import SIGNAL_RE

    rng = rnd.Random(3)
    words = [b"ERROR x", b"ok", b"warn", b"", b"INFO", b'"GET /" 500 1', b"FooError", b"\r"]
    for _ in range(2000):
        raw = b"\n".join(b" ".join(rng.choice(words) for _ in range(rng.randint(0, 3))) for _ in range(rng.randint(0, 12)))
        raw += b"\n" if rng.random() < 0.5 else b""
        want = [i for i, line in enumerate(raw.split(b"\n")) if SIGNAL_RE.search(line)]
        assert signal_line_indexes(raw) == want, raw


def test_ids_after_an_underscore_are_masked_like_other_hex_ids():
    # every line unique (a session id), so every line's shape is rare and gets masked; the user ids
    # (u_1a2, u_7b3, ...) leave one letter per pattern: masked only after "=" they would make six templates
    import random

    rng = random.Random(3)
    lines = []
    for i in range(600):
        session = "".join(rng.choice("abcdef") for _ in range(3)) + "7" + "".join(rng.choice("abcdef") for _ in range(3))
        user = f"{rng.randint(1, 9)}{'abcdef'[i % 6]}{rng.randint(1, 9)}"
        lines.append(f"2026-01-01 10:00:{i % 60:02d} INFO login ok sess={session} user=u_{user}\n".encode())
    visible = reduce_bytes(b"".join(lines), "ids.log").visible
    assert visible.count(b"login ok") == 1  # one template: every id masked
    assert b" \xc3\x97600\n" in visible


def test_uuids_fold_into_one_template_even_with_a_group_of_letters_only():
    import random
    import uuid

    rng = random.Random(5)
    ids = [uuid.UUID(int=rng.getrandbits(128)) for _ in range(400)]
    ids[7] = uuid.UUID("52e6b438-f2a7-4269-abab-0c5ca6a3a450")  # a group without a digit
    ids[9] = uuid.UUID("0ce5af69-2e5f-433a-aeea-a0f04fdebbec")
    raw = b"".join(b"2026-01-01 10:00:%02d INFO done request_id=%s\n" % (i % 60, str(u).encode()) for i, u in enumerate(ids))
    visible = reduce_bytes(raw, "uuids.log").visible
    assert visible.count(b"INFO done") == 1 and b" \xc3\x97400\n" in visible


# -- a frequent template never absorbs a rare variant; exact signal copies fold, distinct ones stay ----
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "olivia", "peggy"]


def _authfail_log(variant: bool) -> tuple[bytes, bytes]:
    lines = [b"Mar  2 08:00:%02d ap0 hostapd: heartbeat seq=%d" % (k % 60, k) for k in range(120)]
    for k, name in enumerate(NAMES):  # one line per station: each shape rare, grouped by their words
        lines.insert(5 + 8 * k, b"Mar  2 08:01:%02d ap0 hostapd: AuthFail sta=host-%s reason = PrevAuthNotValid:%d"
                     % (k, name.encode(), k % 3 + 2))
    odd = b"Mar  2 08:01:59 ap0 hostapd: AuthFail sta=host-trent reason = DeauthInd:3"
    if variant:
        lines.insert(60, odd)
    return b"\n".join(lines) + b"\n", odd


@pytest.mark.parametrize("granularity", ["coarse", "fine"])
def test_a_rare_variant_inside_a_frequent_word_template_stays_visible(granularity, monkeypatch):
    from operators.types import log

    monkeypatch.setattr(log, "ROOM_SHARE", 0)  # no room known: rare lines fold by their words
    raw, odd = _authfail_log(variant=True)
    packet = reduce_bytes(raw, source="hostapd.log", forced_type="log", granularity=granularity)
    assert odd + b"\n" in packet.visible
    assert " ×13".encode() in packet.visible  # the thirteen AuthFail lines still fold together
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass
    # without the split the variant would be one of the folded copies
    monkeypatch.setattr(log, "_split_variants", lambda *args: args[4:7])
    hidden = reduce_bytes(raw, source="hostapd.log", forced_type="log", granularity=granularity)
    assert odd not in hidden.visible and " ×14".encode() in hidden.visible


def test_members_that_differ_only_in_ids_are_no_variants(monkeypatch):
    from operators.types import log

    monkeypatch.setattr(log, "ROOM_SHARE", 0)
    raw, _ = _authfail_log(variant=False)
    packet = reduce_bytes(raw, source="hostapd.log", forced_type="log")
    assert packet.visible.count(b"AuthFail") == 1 and " ×13".encode() in packet.visible


def test_rare_lines_that_differ_in_a_user_or_host_stay_while_there_is_room(monkeypatch):
    """Below the output ceiling, lines that differ in a word (a station, a user) are news: each shows as
    it is, and only true repeats (the heartbeat: numbers alone differ) fold."""
    from operators.types import log

    raw, odd = _authfail_log(variant=True)
    packet = reduce_bytes(raw, source="hostapd.log", forced_type="log")
    for name in NAMES:
        assert b"AuthFail sta=host-%s reason" % name.encode() in packet.visible
    assert odd in packet.visible and " ×120".encode() in packet.visible
    assert packet.signal_pass and packet.restore_pass
    # the room is what decides: a ceiling too small for them folds them by their words again
    monkeypatch.setattr(log, "ROOM_SHARE", 0.01)
    tight = reduce_bytes(raw, source="hostapd.log", forced_type="log")
    assert tight.visible.count(b"AuthFail sta=host-") < len(NAMES)


def _trace_log() -> bytes:
    tick = [b"12:00:%02d INFO tick %d\n" % (i % 60, i) for i in range(90)]
    same = b"12:01:00 ERROR PaymentService charge failed\n    at Gateway.charge(Gateway.java:421)\n    at Main.run(Main.java:9)\n"
    other = b"12:01:00 ERROR PaymentService charge failed\n    at Gateway.refund(Gateway.java:88)\n"
    return b"".join(tick[:30]) + same + b"".join(tick[30:60]) + same + b"".join(tick[60:]) + other + same


@pytest.mark.parametrize("granularity", ["coarse", "fine"])
def test_identical_signal_blocks_fold_with_a_count_even_far_apart_distinct_ones_stay(granularity, home):
    raw = _trace_log()
    packet = reduce_bytes(raw, source="app.log", forced_type="log", granularity=granularity)
    visible = packet.visible
    head = b"12:01:00 ERROR PaymentService charge failed"
    assert visible.count(head) == 2  # the block shown once with ×3, the block with another trace once
    assert re.search(rb"charge failed \xc3\x973( #ref:ctx_[0-9a-f]+)?\n    at Gateway\.charge", visible)
    assert visible.count(b"at Gateway.charge(Gateway.java:421)") == 1
    assert b"    at Gateway.refund(Gateway.java:88)\n" in visible
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass
    stored = b"".join(Store(home).get(ref.id).content for ref in packet.references)
    assert stored.count(b"at Gateway.charge(Gateway.java:421)") == 2  # the two later copies, exact


def test_distinct_signal_lines_all_stay():
    raw = b"".join(b"12:00:%02d ERROR job %d failed: disk quota exceeded on /dev/sd%s\n" % (i, i, b"abcdefgh"[i % 8:i % 8 + 1])
                   for i in range(40))
    packet = reduce_bytes(raw, source="jobs.log", forced_type="log")
    for line in raw.split(b"\n")[:-1]:
        assert line + b"\n" in packet.visible
