"""What a wrapped command costs: the wall time ``tokens`` adds to a command, median of interleaved runs.

    .venv/bin/python bench/startup.py [--runs 20] [--tokens PATH]

For each case the bare command and the wrapped one run alternately (bare, wrapped, bare, …) so that
both see the same machine load; the printed figure is median(wrapped) - median(bare). Cases:

* ``tokens run -- true`` against ``true``            (no output: under ``min_bytes``, passes through)
* ``tokens run -- cat 2KB`` against ``cat 2KB``       (2 KB of log lines)
* ``tokens run -- cat 20KB`` against ``cat 20KB``     (20 KB of log lines: reduced through the graph)
* ``tokens analyze 20KB`` against ``cat 20KB``

Targets (issue: start-up): under ``min_bytes`` <= 20 ms added, 20 KB <= 60 ms added. ``--tokens``
names the console script to measure (default: the one beside this interpreter); a non-editable
install (``pip install .``) skips the editable finder's start-up cost, as users' installs do.
The store goes to a temporary home; nothing is written in the working directory.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {"true": 20.0, "cat 2KB": 20.0, "cat 20KB": 60.0, "analyze 20KB": 60.0}


def log_lines(size: int) -> bytes:
    out, i = [], 0
    while sum(map(len, out)) < size:
        level = "ERROR" if i % 97 == 0 else "INFO"
        out.append(f"2026-12-03 08:{i // 60 % 60:02d}:{i % 60:02d} {level} worker-{i % 7} handled request {i} in {i % 13} ms\n".encode())
        i += 1
    return b"".join(out)[:size]


def timed(cmd: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--tokens", default=str(Path(sys.executable).with_name("tokens")))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        small, big = work / "2KB.log", work / "20KB.log"
        small.write_bytes(log_lines(2048))
        big.write_bytes(log_lines(20480))
        env = {**os.environ, "NOLIFE_TOKENS_HOME": str(work / "home"), "PYTHONDONTWRITEBYTECODE": ""}
        env.pop("NOLIFE_TOKENS_CONFIG", None)
        tok = args.tokens
        cases = {
            "true": (["true"], [tok, "run", "--", "true"]),
            "cat 2KB": (["cat", str(small)], [tok, "run", "--", "cat", str(small)]),
            "cat 20KB": (["cat", str(big)], [tok, "run", "--", "cat", str(big)]),
            "analyze 20KB": (["cat", str(big)], [tok, "analyze", str(big)]),
        }
        for bare, wrapped in cases.values():  # warm up: bytecode caches, the store's directories
            timed(bare, env)
            timed(wrapped, env)
        print(f"{'case':<14} {'bare ms':>9} {'wrapped ms':>11} {'added ms':>9} {'target':>8}  verdict")
        for name, (bare, wrapped) in cases.items():
            b, w = [], []
            for _ in range(args.runs):
                b.append(timed(bare, env))
                w.append(timed(wrapped, env))
            mb, mw = statistics.median(b), statistics.median(w)
            added = mw - mb
            ok = "PASS" if added <= TARGETS[name] else "MISS"
            print(f"{name:<14} {mb:>9.1f} {mw:>11.1f} {added:>9.1f} {TARGETS[name]:>8.0f}  {ok}", flush=True)
        print(f"\nmedian of {args.runs} interleaved runs each; tokens = {tok}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
