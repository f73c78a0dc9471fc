"""The log type (operators/types/log.py): error lines and traces stay, rare lines stay, repeats fold into
templates with counts; real log shapes of several systems; byte-exact restore."""

import random
import re

import pytest

from conftest import examples, FIXTURES, reduce_bytes, reducing_any_size
from operators.config import Config
from operators.reduction import omissions
from operators.signals import load_sidecar
from operators.store import Store
from operators.types.log import reduce_log

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
    packet = reduce_bytes(raw, config=reducing_any_size())
    assert b"[INFO] request started \xc3\x97100\n" in packet.visible
    assert b"[INFO] config reloaded\n" in packet.visible
    assert packet.restore_pass


def test_identical_consecutive_error_lines_show_once_with_count():
    raw = b"INFO boot\n" + b"ERROR disk full on /dev/sda1\n" * 30 + b"INFO done\n" + b"x" * 600 + b"\n"
    packet = reduce_bytes(raw, forced_type="log", config=reducing_any_size())
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

    @settings(max_examples=examples(200), deadline=None)
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


def test_signal_indexes_read_from_the_line_starts_equal_the_newline_counts():
    """The reducer takes a signal span's line from the line starts it has (``_indexes_at``), the check
    counts newlines (``_line_indexes``): the same indexes, with or without a final newline, blank lines,
    CRs, and when most lines are distinct shapes (the raw scan instead of the shapes one)."""
    import random as rnd

    from operators.types import log
    from operators.vocab import signal_line_spans

    rng = rnd.Random(5)
    words = [b"ERROR x", b"ok", b"warn", b"", b"INFO", b'"GET /" 500 1', b"FooError", b"\r", b"id=%d"]
    for _ in range(1500):
        raw = b"\n".join(b" ".join(rng.choice(words) for _ in range(rng.randint(0, 3))) for _ in range(rng.randint(0, 12)))
        raw = raw.replace(b"%d", b"%x" % rng.getrandbits(64))
        raw += b"\n" if rng.random() < 0.5 else b""
        spans = signal_line_spans(raw)
        for mask in (True, False):
            starts, ids, shape_data, shape_ends, _ = log.scan_lines(raw, mask)
            want = log._line_indexes(raw, spans)
            assert log._indexes_at(starts, spans) == want, raw
            assert list(log._signals_from_shapes(raw, starts, ids, shape_data, shape_ends, shape_share=10**9)) == want


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


def test_a_word_template_too_long_for_the_room_shows_its_first_lines_and_folds_the_rest():
    """A scanner's requests (one path each, no digit: a template by their words) take more than the
    room: the first paths still show as they are while the room lasts, the rest fold with their count,
    instead of all of them folding into one line."""
    from itertools import product

    words = [a + b for a, b in product(["al", "bo", "cu", "de", "fi", "go", "hu", "ki", "lo", "mu"],
                                         ["pha", "reta", "sigma", "tau", "umbra", "vex", "wold", "xeno", "yarrow", "zest"])]
    paths = ([f"/{a}/{b}.php" for a, b in zip(words, reversed(words))] + [f"/{w}/admin/" for w in words]
             + [f"/{w}/login/" for w in words[:50]])
    lines = [f"2015-01-13 22:{k // 60 % 60:02d}:{k % 60:02d} 10.0.0.1 GET {path} - 80 - 183.60.244.30 "
             f"Mozilla/5.0+(compatible;+probe/1.0) - 200 0 0 1405 242 {300 + k}\n".encode() for k, path in enumerate(paths)]
    raw = b"".join(lines)
    assert 25_000 < len(raw) < 60_000
    packet = reduce_bytes(raw, source="access.log", forced_type="log")
    shown = [path.encode() + b" -" in packet.visible for path in paths]
    first = shown.index(False)
    assert 60 < first < len(paths) - 3 and not any(shown[first + 1 :])  # the first ones, in order
    assert f" ×{len(paths) - first + 1}\n".encode() in packet.visible  # the rest: the last shown line counts them
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass


def _trace_log() -> bytes:
    tick = [b"12:00:%02d INFO tick %d\n" % (i % 60, i) for i in range(90)]
    same = b"12:01:00 ERROR PaymentService charge failed\n    at Gateway.charge(Gateway.java:421)\n    at Main.run(Main.java:9)\n"
    other = b"12:01:00 ERROR PaymentService charge failed\n    at Gateway.refund(Gateway.java:88)\n"
    return b"".join(tick[:30]) + same + b"".join(tick[30:60]) + same + b"".join(tick[60:]) + other + same


@pytest.mark.parametrize("granularity", ["coarse", "fine"])
def test_identical_signal_blocks_fold_with_a_count_even_far_apart_distinct_ones_stay(granularity, home):
    raw = _trace_log()
    packet = reduce_bytes(raw, source="app.log", forced_type="log", granularity=granularity,
                          config=reducing_any_size())
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


def _nginx(rng):
    return rng.choice([
        f"2026/11/30 14:{rng.randint(10, 59)}:{rng.randint(10, 59)} [notice] {rng.randint(900, 999)}#{rng.randint(900, 999)}: "
        f"signal process started",
        f"2026/11/30 14:{rng.randint(10, 59)}:{rng.randint(10, 59)} [info] {rng.randint(900, 999)}#{rng.randint(900, 999)}: "
        f"*{rng.randint(1, 99999)} client 192.168.{rng.randint(0, 9)}.{rng.randint(1, 254)} closed keepalive connection",
    ])


def _redis(rng):
    return rng.choice([
        f"{rng.randint(1000, 9999)}:M 30 Nov 2026 14:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100, 999)} * "
        f"{rng.randint(1, 100)} changes in 300 seconds. Saving...",
        f"{rng.randint(1000, 9999)}:C 30 Nov 2026 14:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100, 999)} * "
        f"DB saved on disk",
        f"{rng.randint(1000, 9999)}:M 30 Nov 2026 14:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100, 999)} * "
        f"Background saving started by pid {rng.randint(1000, 9999)}",
    ])


def _sshd(rng):
    return rng.choice([
        f"Nov 30 14:{rng.randint(10, 59)}:{rng.randint(10, 59)} build-07 sshd[{rng.randint(1000, 9000)}]: "
        f"pam_unix(sshd:session): session opened for user deploy(uid=1001) by (uid=0)",
        f"Nov 30 14:{rng.randint(10, 59)}:{rng.randint(10, 59)} build-07 sshd[{rng.randint(1000, 9000)}]: "
        f"Received disconnect from 198.51.100.{rng.randint(1, 254)} port {rng.randint(30000, 60000)}:11: disconnected by user",
    ])


def _klog(rng):
    return rng.choice([
        f"I1130 14:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100000, 999999)}    {rng.randint(1, 9)} "
        f"reconciler.go:{rng.randint(100, 400)}] \"operationExecutor.VerifyControllerAttachedVolume started\" "
        f"pod=\"shop/cart-{rng.getrandbits(24):06x}\"",
        f"I1130 14:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100000, 999999)}    {rng.randint(1, 9)} "
        f"kubelet.go:{rng.randint(2000, 2500)}] \"SyncLoop UPDATE\" source=\"api\" pods=[\"shop/cart-{rng.getrandbits(24):06x}\"]",
    ])


def _java(rng):
    return rng.choice([
        f"2026-11-30 14:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100, 999)} INFO  [http-nio-8080-exec-{rng.randint(1, 9)}] "
        f"c.e.shop.CartController - added item {rng.randint(1, 9999)} to cart {rng.getrandbits(32):08x}",
        f"2026-11-30 14:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100, 999)} DEBUG [pool-2-thread-{rng.randint(1, 4)}] "
        f"c.e.shop.PriceCache - refreshed {rng.randint(10, 500)} prices in {rng.randint(1, 90)} ms",
    ])


def _kernel(rng):
    return rng.choice([
        f"[{rng.randint(1, 99999)}.{rng.randint(100000, 999999)}] audit: type=1400 audit({rng.randint(10**9, 2 * 10**9)}.{rng.randint(100, 999)}:{rng.randint(1, 999)}): "
        f"apparmor=\"STATUS\" operation=\"profile_replace\" name=\"snap.update\"",
        f"[{rng.randint(1, 99999)}.{rng.randint(100000, 999999)}] eth0: renamed from veth{rng.getrandbits(24):06x}",
    ])


def _dpkg(rng):
    # hundreds of packages: each name is rare, only the message shape repeats
    pkg = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(4, 12)))
    pkg += f"{rng.choice(['', '3', '-common', '6'])}:{rng.choice(['amd64', 'all'])}"
    version = f"{rng.randint(1, 9)}.{rng.randint(0, 40)}-{rng.randint(1, 9)}+deb12u{rng.randint(1, 9)}"
    return rng.choice([
        f"2025-06-24 14:36:{rng.randint(10, 59)} status half-installed {pkg} {version}",
        f"2025-06-24 14:36:{rng.randint(10, 59)} status unpacked {pkg} {version}",
        f"2025-06-24 14:36:{rng.randint(10, 59)} configure {pkg} {version} <none>",
        f"2025-06-24 14:36:{rng.randint(10, 59)} install {pkg} <none> {version}",
    ])


SYSTEMS = {
    "dpkg": (_dpkg, [
        "2025-06-24 14:40:02 startup archives unpack",
        "2025-06-24 14:40:09 remove cron:amd64 3.0pl1-162 <none>",
    ]),
    "nginx": (_nginx, [
        "2026/11/30 14:31:07 [error] 931#931: *4412 open() \"/srv/www/favicon.ico\" failed (2: No such file or directory), "
        "client: 192.168.3.7, server: shop.internal, request: \"GET /favicon.ico HTTP/1.1\"",
        "2026/11/30 14:44:51 [warn] 932#932: *5120 an upstream response is buffered to a temporary file",
    ]),
    "redis": (_redis, [
        "2211:M 30 Nov 2026 14:33:12.418 # WARNING Memory overcommit must be enabled! Without it, a background save may fail.",
        "2211:M 30 Nov 2026 14:35:40.002 * Replica 10.20.0.14:6379 asks for synchronization",
    ]),
    "sshd": (_sshd, [
        "Nov 30 14:12:09 build-07 sshd[4410]: Failed password for invalid user oracle from 203.0.113.77 port 50122 ssh2",
        "Nov 30 14:13:40 build-07 sshd[4418]: error: kex_exchange_identification: Connection closed by remote host",
        "Nov 30 14:20:02 build-07 sshd[4431]: Accepted publickey for ci-runner from 10.8.0.5 port 41022 ssh2",
    ]),
    "klog": (_klog, [
        "E1130 14:22:31.104233    7 pod_workers.go:1298] \"Error syncing pod, skipping\" err=\"failed to \\\"StartContainer\\\" "
        "for \\\"cart\\\" with CrashLoopBackOff\" pod=\"shop/cart-7f9c4d\"",
        "I1130 14:25:00.000001    1 leaderelection.go:260] successfully acquired lease kube-system/kube-scheduler",
    ]),
    "java": (_java, [
        "2026-11-30 14:27:44.512 ERROR [http-nio-8080-exec-3] c.e.shop.CheckoutService - payment declined for order 88412: card expired",
        "2026-11-30 14:29:10.031 INFO  [main] c.e.shop.Application - Started Application in 6.412 seconds",
    ]),
    "kernel": (_kernel, [
        "[ 4519.201120] EXT4-fs error (device nvme0n1p2): ext4_find_entry:1683: inode #131: comm cron: reading directory lblock 0",
        "[ 4620.000001] Out of memory: Killed process 7311 (python3) total-vm:4123456kB, anon-rss:3012345kB",
        "[ 4700.123456] wlp2s0: associated",
    ]),
}


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_real_log_shapes_fold_but_keep_every_rare_and_signal_line(system):
    make, planted = SYSTEMS[system]
    rng = random.Random(system)
    lines = [make(rng) for _ in range(1500)]
    for k, line in enumerate(planted):
        lines.insert(200 + 400 * k, line)
    raw = ("\n".join(lines) + "\n").encode()
    packet = reduce_bytes(raw, source=f"{system}.log", forced_type="log")
    for line in planted:  # rare lines and warnings/errors: visible, verbatim, whole
        assert (line + "\n").encode() in packet.visible, line
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass
    # (dpkg's lines differ in their package names: the first of them show as they are while the room lasts)
    assert packet.measure.saved_pct >= (75 if system == "dpkg" else 80), packet.measure.saved_pct
    assert len(packet.references) == 1

REAL_LOGS = ["postgres_server.log", "python_http_server.log"]


@pytest.mark.parametrize("name", REAL_LOGS)
def test_real_logs_keep_every_must_see_string_and_save_70_percent(name):
    raw = (FIXTURES / name).read_bytes()
    planted = load_sidecar(FIXTURES / "signals.toml")[name]
    packet = reduce_bytes(raw, source=f"fixtures/{name}", expected_signals=planted)
    assert packet.type == "log"
    for signal in planted:
        assert signal.encode() in packet.visible, signal
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass
    assert packet.measure.saved_pct >= 70, packet.measure.saved_pct


def test_real_postgres_log_keeps_every_error_fatal_and_statement_line():
    raw = (FIXTURES / "postgres_server.log").read_bytes()
    packet = reduce_bytes(raw, source="fixtures/postgres_server.log")
    lines = raw.split(b"\n")
    for k, line in enumerate(lines):
        if b" ERROR:  " in line or b" FATAL:  " in line:
            assert line in packet.visible, line
            if k + 1 < len(lines) and b"STATEMENT:  " in lines[k + 1] and b"(7, 'dup'" not in lines[k + 1]:
                assert lines[k + 1] in packet.visible, lines[k + 1]


def test_real_access_log_exact_duplicates_fold_with_a_count_distinct_ones_stay():
    raw = (FIXTURES / "python_http_server.log").read_bytes()
    packet = reduce_bytes(raw, source="fixtures/python_http_server.log")
    dup = b"127.0.0.1 - - [03/Dec/2026 09:29:45] code 404, message File not found"
    assert raw.count(dup + b"\n") == 4  # four copies, each after a GET line (not consecutive)
    assert packet.visible.count(dup) == 1 and dup + " ×4".encode() + b"\n" in packet.visible
    later = b"127.0.0.1 - - [03/Dec/2026 09:29:46] code 404, message File not found"  # another second: distinct
    assert later + b"\n" in packet.visible
    for line in raw.split(b"\n"):
        if b'" 404 ' in line or b'" 501 ' in line:
            assert line + b"\n" in packet.visible, line


def test_a_log_of_json_records_keeps_its_error_records_whole(home):
    """A service logging JSON lines (pino): it is a log; its error records are signal lines, shown whole
    and in place, not folded into a count of "lines with errors" as a JSON reducer folds array items."""
    import json as _json

    records = []
    for i in range(400):
        req = {"id": i, "method": "GET", "url": f"/carts/c{i % 97}", "headers": {"host": "127.0.0.1:8706"}}
        if i % 23 == 5:
            records.append({"level": 50, "time": 1796355502786 + i, "svc": "cart-api", "req": req,
                            "err": {"type": "TypeError", "message": f"Cannot read properties of undefined (cart {i})"},
                            "msg": "unhandled error"})
        else:
            records.append({"level": 30, "time": 1796355502786 + i, "svc": "cart-api", "req": req,
                            "res": {"statusCode": 200}, "responseTime": i % 7, "msg": "request completed"})
    raw = "".join(_json.dumps(r, separators=(",", ":")) + "\n" for r in records).encode()
    packet = reduce_bytes(raw)
    assert packet.type == "log" and packet.signal_pass and packet.restore_pass
    errors = [line for line in raw.split(b"\n") if b'"level":50' in line]
    shown = [line for line in errors if line in packet.visible.split(b"\n")]
    assert len(errors) == 18 and len(shown) >= 12, len(shown)


def test_an_access_log_in_json_shows_its_rare_records_not_its_first_and_last(home):
    """An access log written as JSON with no level (nginx's ``log_format ... escape=json``): read as a log,
    each kind of record stays visible (the rare user agents, planted) instead of the first and last lines
    of a run of same-shaped JSON objects, which is what a JSON reducer shows of it; so does each record
    whose ``response`` is a 5xx status."""
    import json as _json

    rnd = random.Random(5)
    rare = ["curl (probe)", "Go-http-client (scanner)", "python-requests (mirror sync)", "Zabbix (monitor)",
            "Googlebot (crawl)", "Prometheus (blackbox)"]
    records = []
    for i in range(3000):
        agent = rare[i // 500] if i % 500 == 250 else "Debian APT-HTTP/1.3 (0.8.16~exp12ubuntu10.%d)" % (i % 17)
        records.append({"time": "17/May/2015:%02d:%02d:%02d +0000" % (8 + i // 3600, i // 60 % 60, i % 60),
                        "remote_ip": "%d.%d.%d.%d" % tuple(rnd.randint(1, 250) for _ in range(4)),
                        "remote_user": "-", "request": "GET /downloads/product_%d HTTP/1.1" % (1 + i % 3),
                        "response": 502 if i in (700, 2100) else 304, "bytes": 0, "referrer": "-", "agent": agent})
    raw = "".join(_json.dumps(r) + "\n" for r in records).encode()
    packet = reduce_bytes(raw)
    assert packet.type == "log" and packet.signal_pass and packet.restore_pass
    shown = packet.visible.split(b"\n")
    planted = [line for line in raw.split(b"\n") if any(a.encode() in line for a in rare)]
    assert len(planted) == 6 and all(line in shown for line in planted), [line[-60:] for line in planted if line not in shown]
    failed = [line for line in raw.split(b"\n") if b'"response": 502' in line]  # a 5xx status is signal, as in a plain access log
    assert len(failed) == 2 and all(line in shown for line in failed)


def test_lines_that_differ_only_in_a_hex_id_are_one_template_whatever_its_letters():
    """A session or request id in hex (8 digits, letters or not): its lines fold as one template, not
    one per pattern of letters and digits (``1600a35a``, ``8d116ece`` and ``92276658`` were three)."""
    rnd = random.Random(11)
    raw = b"".join(b"2026-08-16 00:00:%02d.%03d DEBUG [pool-3-thread-%d] c.a.cache.Cache - hit key=session:%08x\n"
                   % (i % 60, i % 1000, i % 16, rnd.getrandbits(32) | 0x10000000) for i in range(3000))
    plan = reduce_log(raw, "coarse", Config().log)
    from operators.reduction import render

    visible = render(plan, {g: f"ctx_{i:06x}" for i, g in enumerate(plan.reasons)})[0]
    hits = [line for line in visible.split(b"\n") if b"hit key=session:" in line]
    assert len(hits) <= 3 and any(line.endswith(b"\xc3\x97" + b"%d" % n) for line in hits for n in range(2900, 3001)), hits[:5]


def _uvicorn_log(requests: int = 120) -> bytes:
    """uvicorn's default log (a level, no timestamp) of an app whose failures print Python tracebacks:
    the trace lines outnumber the records."""
    out = [b"INFO:     Started server process [22761]", b"INFO:     Application startup complete."]
    for k in range(requests):
        if k % 5 == 3:
            out += [b"ERROR:    Exception in ASGI application", b"Traceback (most recent call last):"]
            for depth in range(6):
                out += [b'  File "/srv/venv/lib/python3.11/site-packages/starlette/routing.py", line %d, in app' % (70 + depth),
                        b"    await route.handle(scope, receive, send)"]
            out.append(b"KeyError: 'note-%d'" % k)
            out.append(b'INFO:     127.0.0.1:%d - "GET /notes/%d HTTP/1.1" 500 Internal Server Error' % (40000 + k, k))
        else:
            out.append(b'INFO:     127.0.0.1:%d - "GET /notes/%d HTTP/1.1" 200 OK' % (40000 + k, k))
    return b"\n".join(out) + b"\n"


def test_a_log_whose_tracebacks_outnumber_its_records_is_a_log():
    from operators.classify import classify

    raw = _uvicorn_log()
    lines = raw.splitlines()
    assert sum(1 for line in lines if line.startswith((b"INFO:", b"ERROR:"))) < len(lines) / 2
    assert classify(raw)[0] == "log"
    packet = reduce_bytes(raw)
    assert packet.restore_pass and packet.signal_pass
    assert b"KeyError: 'note-3'" in packet.visible and b"ERROR:    Exception in ASGI application" in packet.visible


def test_redis_log_lines_are_log_records():
    """Redis writes ``pid:role DD Mon YYYY HH:MM:SS.mmm <level mark> message`` (no level word)."""
    from operators.classify import classify

    rows = []
    for k in range(60):
        mark = "#" if k % 17 == 3 else "*"
        text = "Error accepting a client connection: Connection reset by peer" if k % 17 == 3 else \
            f"Background saving started by pid {7199 + k}"
        rows.append(f"7147:M 04 Dec 2026 15:11:{k:02d}.562 {mark} {text}")
    raw = ("\n".join(rows) + "\n").encode()
    assert classify(raw)[0] == "log"
    packet = reduce_bytes(raw)
    assert packet.restore_pass and packet.signal_pass
    assert b"Error accepting a client connection" in packet.visible


def _laravel_log(records: int) -> bytes:
    """Laravel's (Monolog's) log as it writes it: a record line, its exception's JSON context running on
    over a ``[stacktrace]`` of ``#N path(line): call`` frames, a ``[previous exception]``, ``"}`` to close."""
    out = []
    for r in range(records):
        error = r % 4 == 1
        level = "local.ERROR" if error else "local.INFO"
        if not error:
            out.append(f"[2023-05-15 18:{r // 60:02d}:{r % 60:02d}] {level}: Request handled for route /crm/{r}")
            continue
        out.append(f'[2023-05-15 18:{r // 60:02d}:{r % 60:02d}] {level}: Target class [App\\\\Cors{r}] does not exist. '
                   f'{{"exception":"[object] (Illuminate\\\\BindingResolutionException(code: 0): Target class at '
                   f'/srv/crm/vendor/laravel/framework/src/Illuminate/Container/Container.php:916)')
        out.append("[stacktrace]")
        out += [f"#{k} /srv/crm/vendor/laravel/framework/src/Illuminate/Pipeline/Pipeline.php({100 + k}): "
                f"Illuminate\\\\Pipeline\\\\Pipeline->handle(Object(Illuminate\\\\Http\\\\Request))" for k in range(18)]
        out.append("#18 {main}")
        out.append('[previous exception] [object] (ReflectionException(code: -1): Class does not exist at /srv/crm/a.php:914)')
        out.append("[stacktrace]")
        out += [f"#{k} Command line code(1): ReflectionClass->__construct('App\\\\Cors{r}')" for k in range(3)]
        out.append('"} ')
    return ("\n".join(out) + "\n").encode()


def test_a_php_log_whose_traces_outnumber_its_records_is_a_log():
    """PHP frames (``#0 /a.php(9): f()``, ``#12 {main}``) and Monolog's ``[stacktrace]``/``"}`` lines go on
    with the record before them: a Laravel log of errors with their traces (a twentieth of its lines
    timestamped) is a log, each error shown with its trace, not text cut blind."""
    from operators.classify import classify

    raw = _laravel_log(40)
    lines = raw.splitlines()
    assert sum(1 for line in lines if line.startswith(b"[2023-")) * 4 < len(lines)
    assert classify(raw)[0] == "log"
    packet = reduce_bytes(raw)
    assert packet.restore_pass and packet.signal_pass
    assert b"local.ERROR: Target class [App\\\\Cors1] does not exist." in packet.visible
    assert b"#0 /srv/crm/vendor/laravel/framework/src/Illuminate/Pipeline/Pipeline.php(100)" in packet.visible
