"""Log shapes of real systems (nginx, Redis, sshd under journald, the kernel, Kubernetes klog, a Java
service, dpkg): lines differ by timestamps, ids, ports and counters. Folding must group by template
while every rare line and every warning/error line stays visible and verbatim. The line shapes are
the formats these programs write (hosts, users and values made up here)."""

import random

import pytest

from conftest import reduce_bytes


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
    assert packet.measure.saved_pct >= 80, packet.measure.saved_pct
    assert len(packet.references) == 1


# -- real outputs gathered for the fixtures (fixtures/signals.toml lists their must-see strings) ------
from conftest import FIXTURES  # noqa: E402
from operators.signals import load_sidecar  # noqa: E402

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
