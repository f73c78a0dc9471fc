"""Benchmark of ``tokens tail`` (a script, not a test).

1. **Latency**: a writer appends ``--rate`` lines/s (default 10,000) to a log for ``--seconds``; every
   ``--error-every`` seconds one of them is an ERROR line carrying its write time. ``tokens tail`` runs
   in a subprocess with its output on a pipe; the time from writing an ERROR line to reading it on
   the pipe is the latency (p50 / p99 / max). Target: p99 < 1 s.
2. **Memory**: a log of ``--size-mb`` (default 100) is generated, then tailed from its start
   (``--from-start -o FILE``) until the checkpoint reaches its end; the peak RSS (``VmHWM``) of the
   tail process is read from ``/proc``. The same for ``--small-mb`` to show it does not grow with the
   file. Target: < 200 MB, independent of the file size.

    .venv/bin/python bench/tail_bench.py                         # the full run (~2-3 minutes)
    .venv/bin/python bench/tail_bench.py --seconds 3 --size-mb 20 --small-mb 5   # a quick one

The tail uses the project config (``config/default.toml``: window_lines=500, idle_ms=500, max_ms=2000,
poll_ms=100) unless ``--config`` names another; its store goes to a temporary home.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
LATENCY_TARGET_S = 1.0
RSS_TARGET_MB = 200


def start_tail(home: Path, config: str | None, *args: str, stdout=subprocess.DEVNULL) -> subprocess.Popen:
    env = {**os.environ, "NOLIFE_TOKENS_HOME": str(home)}
    cmd = [sys.executable, "-m", "flows.cli"] + (["--config", config] if config else []) + ["tail", *args]
    return subprocess.Popen(cmd, cwd=PROJECT, env=env, stdout=stdout, stderr=subprocess.DEVNULL)


def wait_following(home: Path, proc: subprocess.Popen, timeout: float = 30) -> None:
    """The tail checkpoints its start positions before it reads: wait for that file."""
    deadline = time.monotonic() + timeout
    while not glob.glob(str(home / "tail" / "*.json")):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("tokens tail did not start")
        time.sleep(0.02)
    time.sleep(0.3)  # handlers and partitions are up shortly after


def info_line(n: int, rnd: random.Random) -> bytes:
    return (b"2024-05-01T10:%02d:%02d.%03dZ INFO  http GET /api/v1/items/%d 200 %dms req=%016x\n"
            % (n // 60000 % 60, n // 1000 % 60, n % 1000, rnd.randint(1, 10**5), rnd.randint(1, 80), rnd.getrandbits(64)))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def bench_latency(work: Path, seconds: float, rate: int, error_every: float, config: str | None) -> bool:
    home, log = work / "home-latency", work / "service.log"
    log.write_bytes(b"")
    proc = start_tail(home, config, str(log), stdout=subprocess.PIPE)
    wait_following(home, proc)
    seen: dict[int, float] = {}
    marker = re.compile(rb"ERROR bench-latency id=(\d+) t=([0-9.]+)")

    def read() -> None:
        for line in proc.stdout:
            m = marker.search(line)
            if m:
                seen[int(m.group(1))] = time.time() - float(m.group(2))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    rnd = random.Random(1)
    tick = 0.01  # write rate/100 lines every 10 ms
    per_tick = max(1, round(rate * tick))
    sent = lines = 0
    next_error = time.monotonic() + error_every
    start = time.monotonic()
    with open(log, "ab", buffering=0) as fh:
        t = start
        while t - start < seconds:
            chunk = b"".join(info_line(lines + i, rnd) for i in range(per_tick))
            lines += per_tick
            if time.monotonic() >= next_error:
                chunk += b"2024-05-01T10:00:00.000Z ERROR bench-latency id=%d t=%.6f payment declined\n" % (sent, time.time())
                sent += 1
                lines += 1
                next_error += error_every
            fh.write(chunk)
            t += tick
            time.sleep(max(0.0, t - time.monotonic()))
    elapsed = time.monotonic() - start
    deadline = time.monotonic() + 10
    while len(seen) < sent and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    proc.wait(30)
    reader.join(5)
    lat = [seen[i] for i in sorted(seen)]
    print(f"latency: {lines:,} lines in {elapsed:.1f} s ({lines / elapsed:,.0f} lines/s), "
          f"{sent} ERROR lines, {len(lat)} seen on the output")
    if not lat:
        print("  no ERROR line reached the output: FAIL")
        return False
    p50, p99 = percentile(lat, 0.50), percentile(lat, 0.99)
    ok = p99 < LATENCY_TARGET_S and len(lat) == sent
    print(f"  error line -> output   p50 {p50 * 1000:7.0f} ms   p99 {p99 * 1000:7.0f} ms   max {max(lat) * 1000:7.0f} ms"
          f"   (target: p99 < {LATENCY_TARGET_S * 1000:.0f} ms)  {'PASS' if ok else 'FAIL'}")
    return ok


def generate_log(path: Path, size_mb: int) -> int:
    """A realistic service log: templated INFO/DEBUG lines, some WARN, rare ERRORs, ids everywhere."""
    rnd = random.Random(7)
    target, size, n = size_mb * 1024 * 1024, 0, 0
    with open(path, "wb") as fh:
        while size < target:
            lines = []
            for _ in range(5000):
                n += 1
                ts = b"2024-05-01T%02d:%02d:%02d.%03dZ" % (n // 3600000 % 24, n // 60000 % 60, n // 1000 % 60, n % 1000)
                r = rnd.random()
                if r < 0.0005:
                    lines.append(b"%s ERROR payment-svc order=%d charge failed: card declined (code=%d)\n" % (ts, n, rnd.randint(1, 99)))
                elif r < 0.005:
                    lines.append(b"%s WARN  cache-svc slow lookup key=user:%d took %dms\n" % (ts, rnd.randint(1, 10**6), rnd.randint(200, 900)))
                elif r < 0.5:
                    lines.append(b"%s INFO  http GET /api/v1/items/%d 200 %dms req=%016x\n" % (ts, rnd.randint(1, 10**5), rnd.randint(1, 80), rnd.getrandbits(64)))
                else:
                    lines.append(b"%s DEBUG worker-%d heartbeat seq=%d queue_depth=%d\n" % (ts, rnd.randint(1, 8), n, rnd.randint(0, 20)))
            data = b"".join(lines)
            fh.write(data)
            size += len(data)
    return size


def vm_hwm_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def bench_rss(work: Path, size_mb: int, config: str | None) -> tuple[bool, float]:
    log, out, home = work / f"big-{size_mb}mb.log", work / f"out-{size_mb}mb.txt", work / f"home-rss-{size_mb}"
    t0 = time.monotonic()
    size = generate_log(log, size_mb)
    gen_s = time.monotonic() - t0
    proc = start_tail(home, config, str(log), "--from-start", "-o", str(out))
    t0 = time.monotonic()
    offset, peak = 0, 0
    while offset < size:
        if proc.poll() is not None:
            print(f"  tokens tail exited early with {proc.returncode}")
            return False, 0.0
        peak = max(peak, vm_hwm_kb(proc.pid))
        for cp in glob.glob(str(home / "tail" / "*.json")):
            try:
                offset = max(f["offset"] for f in json.loads(Path(cp).read_bytes())["files"].values())
            except (OSError, ValueError, KeyError):
                pass
        time.sleep(0.1)
    took = time.monotonic() - t0
    peak = max(peak, vm_hwm_kb(proc.pid))
    proc.send_signal(signal.SIGTERM)
    proc.wait(60)
    out_size = out.stat().st_size
    store = home / "context"
    refs = len(list(store.glob("ctx_*.json"))) if store.is_dir() else 0
    windows = len(list(store.glob("pkt_*.json"))) if store.is_dir() else 0
    mb = peak / 1024
    ok = mb < RSS_TARGET_MB
    print(f"memory: {size / 2**20:,.0f} MB log (generated in {gen_s:.1f} s) tailed from the start in {took:.1f} s "
          f"({size / 2**20 / took:.1f} MB/s), {windows:,} windows, {refs:,} refs, "
          f"output {out_size / 2**20:.2f} MB ({100 * (1 - out_size / size):.1f}% smaller)")
    print(f"  peak RSS {mb:7.1f} MB   (target: < {RSS_TARGET_MB} MB, independent of file size)  {'PASS' if ok else 'FAIL'}")
    for path in (log, out):
        path.unlink(missing_ok=True)
    return ok, mb


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="latency run length (default 10)")
    parser.add_argument("--rate", type=int, default=10_000, help="lines per second written (default 10000)")
    parser.add_argument("--error-every", type=float, default=0.1, help="seconds between ERROR lines (default 0.1)")
    parser.add_argument("--size-mb", type=int, default=100, help="size of the big log (default 100)")
    parser.add_argument("--small-mb", type=int, default=10, help="a smaller log for comparison (0: skip; default 10)")
    parser.add_argument("--skip-latency", action="store_true")
    parser.add_argument("--skip-rss", action="store_true")
    parser.add_argument("--config", help="TOML config for the tail (default: the project's)")
    parser.add_argument("--workdir", help="where to put logs and stores (default: a temporary directory)")
    args = parser.parse_args()

    ok = True
    with tempfile.TemporaryDirectory(prefix="tail-bench-", dir=args.workdir) as tmp:
        work = Path(tmp)
        if not args.skip_latency:
            ok &= bench_latency(work, args.seconds, args.rate, args.error_every, args.config)
        if not args.skip_rss:
            sizes = [s for s in (args.small_mb, args.size_mb) if s > 0]
            peaks = []
            for size_mb in sizes:
                passed, peak = bench_rss(work, size_mb, args.config)
                ok &= passed
                peaks.append(peak)
            if len(peaks) == 2:
                print(f"  RSS {sizes[0]} MB log: {peaks[0]:.1f} MB; {sizes[1]} MB log: {peaks[1]:.1f} MB "
                      f"({peaks[1] - peaks[0]:+.1f} MB for {sizes[1] / sizes[0]:.0f}x the bytes)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
