"""Log shapes of real systems (HDFS, sshd, Apache, kernel, Spark, Android, Windows CBS, Zookeeper):
lines differ by timestamps, ids, ports and counters. Folding must group by template while every rare
line and every warning/error line stays visible and verbatim."""

import random

import pytest

from conftest import reduce_bytes


def _hdfs(rng):
    blk = rng.randint(-9 * 10**18, 9 * 10**18)
    ip = f"10.251.{rng.randint(0, 255)}.{rng.randint(0, 255)}"
    return rng.choice([
        f"081109 {rng.randint(200000, 235959)} {rng.randint(1, 40)} INFO dfs.DataNode$PacketResponder: PacketResponder {rng.randint(0, 2)} for block blk_{blk} terminating",
        f"081109 {rng.randint(200000, 235959)} {rng.randint(1, 40)} INFO dfs.DataNode$DataXceiver: Receiving block blk_{blk} src: /{ip}:{rng.randint(30000, 60000)} dest: /{ip}:50010",
        f"081109 {rng.randint(200000, 235959)} {rng.randint(1, 40)} INFO dfs.FSNamesystem: BLOCK* NameSystem.addStoredBlock: blockMap updated: {ip}:50010 is added to blk_{blk} size 67108864",
    ])


def _sshd(rng):
    return rng.choice([
        f"Dec 10 06:{rng.randint(10, 59)}:{rng.randint(10, 59)} LabSZ sshd[{rng.randint(20000, 30000)}]: pam_unix(sshd:session): session opened for user fztu by (uid=0)",
        f"Dec 10 06:{rng.randint(10, 59)}:{rng.randint(10, 59)} LabSZ sshd[{rng.randint(20000, 30000)}]: Received disconnect from 183.62.140.{rng.randint(1, 254)}: 11: Bye Bye [preauth]",
        f"Dec 10 06:{rng.randint(10, 59)}:{rng.randint(10, 59)} LabSZ sshd[{rng.randint(20000, 30000)}]: Connection closed by 112.95.230.{rng.randint(1, 254)} [preauth]",
    ])


def _apache(rng):
    return rng.choice([
        f"[Sun Dec 04 04:{rng.randint(10, 59)}:{rng.randint(10, 59)} 2005] [notice] jk2_init() Found child {rng.randint(6000, 9000)} in scoreboard slot {rng.randint(6, 10)}",
        f"[Sun Dec 04 04:{rng.randint(10, 59)}:{rng.randint(10, 59)} 2005] [notice] workerEnv.init() ok /etc/httpd/conf/workers2.properties",
    ])


def _spark(rng):
    return rng.choice([
        f"17/06/09 20:{rng.randint(10, 59)}:{rng.randint(10, 59)} INFO storage.BlockManager: Found block rdd_{rng.randint(1, 99)}_{rng.randint(1, 99)} locally",
        f"17/06/09 20:{rng.randint(10, 59)}:{rng.randint(10, 59)} INFO executor.Executor: Finished task {rng.randint(1, 200)}.0 in stage {rng.randint(1, 9)}.0 (TID {rng.randint(1, 9999)}). 2087 bytes result sent to driver",
    ])


def _cbs(rng):
    return (f"2016-09-28 04:30:{rng.randint(10, 59)}, Info                  CBS    SQM: Queued {rng.randint(0, 9)} file(s) for upload "
            f"with pattern: C:\\Windows\\servicing\\sqm\\*_std.sqm, flags: 0x{rng.getrandbits(16):x}")


def _kernel(rng):
    return rng.choice([
        f"[{rng.randint(1, 99999)}.{rng.randint(100000, 999999)}] usb 1-{rng.randint(1, 4)}: new high-speed USB device number {rng.randint(2, 30)} using ehci-pci",
        f"[{rng.randint(1, 99999)}.{rng.randint(100000, 999999)}] IPv6: ADDRCONF(NETDEV_CHANGE): wlan0: link becomes ready",
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
    "hdfs": (_hdfs, [
        "081109 204655 556 WARN dfs.DataNode$DataXceiver: 10.251.70.211:50010:Got exception while serving blk_-7943 to /10.251.70.211:",
        "081109 213121 31 INFO dfs.FSNamesystem: BLOCK* NameSystem.delete: blk_-2837 is added to invalidSet of 10.251.71.16:50010",
    ]),
    "sshd": (_sshd, [
        "Dec 10 07:07:38 LabSZ sshd[24206]: Failed password for invalid user test9 from 52.80.34.196 port 36060 ssh2",
        "Dec 10 07:08:28 LabSZ sshd[24208]: reverse mapping checking getaddrinfo for ns.marryaldkfaczcz.com [173.234.31.186] failed - POSSIBLE BREAK-IN ATTEMPT!",
        "Dec 10 07:11:42 LabSZ sshd[24224]: Accepted password for fztu from 119.137.62.142 port 49116 ssh2",
    ]),
    "apache": (_apache, [
        "[Sun Dec 04 04:47:44 2005] [error] mod_jk child workerEnv in error state 6",
        "[Sun Dec 04 06:19:18 2005] [error] [client 61.138.216.91] Directory index forbidden by rule: /var/www/html/",
    ]),
    "spark": (_spark, [
        "17/06/09 20:11:11 ERROR executor.CoarseGrainedExecutorBackend: RECEIVED SIGNAL 15: SIGTERM",
        "17/06/09 20:10:58 INFO spark.SecurityManager: Changing modify acls to: yarn,curi",
    ]),
    "cbs": (_cbs, [
        "2016-09-28 04:30:31, Error                 CSI    00000001@2016/9/27:20:30:31.455 (F) CMIADAPTER: Inner Error Message HRESULT = 0x800f080d",
        "2016-09-28 04:40:12, Info                  CBS    Starting TrustedInstaller finalization.",
    ]),
    "kernel": (_kernel, [
        "[ 4519.201120] EXT4-fs error (device sda1): ext4_find_entry:1455: inode #2: comm systemd: reading directory lblock 0",
        "[ 4620.000001] Out of memory: Killed process 4242 (java) total-vm:8123456kB",
        "[ 4700.123456] wlan0: associated",
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
