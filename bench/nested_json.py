"""What deeply nested JSON costs: peak memory and wall time of a whole ``tokens analyze``.

    .venv/bin/python bench/nested_json.py [--size 1000000] [--tokens PATH]

Cases, each ``2 * size`` bytes or so (the default: about 2 MB):

* ``arrays``   ``'[' * size + '1' + ']' * size``          (the hostile-input case)
* ``objects``  ``'{"a":' * (size // 2.5) + '1' + '}' * …``  (one member per level)
* ``pending``  ``'[' * (size // 2) + '1' + ',1]' * …``      (work left on every level)

Each runs under ``/usr/bin/time -v`` and prints the peak RSS and the elapsed time. Target (the
``arrays`` case at 2 MB): peak RSS under 100 MB and under 2 s on a 2-core machine; memory and time
stay linear in the input at any depth. The store goes to a temporary home; inputs are written to a
temporary directory; nothing is written in the working directory.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

TARGET_RSS_MB = 100.0
TARGET_SECONDS = 2.0


def cases(size: int) -> dict[str, bytes]:
    levels = int(size // 2.5)
    half = size // 2
    return {
        "arrays": b"[" * size + b"1" + b"]" * size,
        "objects": b'{"a":' * levels + b"1" + b"}" * levels,
        "pending": b"[" * half + b"1" + b",1]" * half,
    }


def measure(tokens: str, path: Path, home: str) -> tuple[float, float, int]:
    """(peak RSS in MB, elapsed seconds, exit code) of ``tokens analyze path``."""
    env = {**os.environ, "NOLIFE_TOKENS_HOME": home}
    proc = subprocess.run(["/usr/bin/time", "-v", tokens, "analyze", str(path)], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", proc.stderr)
    if rss is None or wall is None:
        raise SystemExit(f"nested_json: could not read /usr/bin/time's figures:\n{proc.stderr[-2000:]}")
    hours, minutes, seconds = wall.groups()
    elapsed = int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds)
    return int(rss.group(1)) / 1024, elapsed, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="nesting levels of the arrays case")
    parser.add_argument("--tokens", default=str(Path(sys.executable).with_name("tokens")))
    args = parser.parse_args()
    if not Path("/usr/bin/time").exists():
        raise SystemExit("nested_json: needs /usr/bin/time (GNU time)")
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'CASE':<8} {'BYTES':>10} {'PEAK RSS':>10} {'TIME':>7}  EXIT")
        for name, raw in cases(args.size).items():
            path = Path(tmp) / f"{name}.json"
            path.write_bytes(raw)
            rss, elapsed, code = measure(args.tokens, path, str(Path(tmp) / "home"))
            flag = ""
            if name == "arrays":
                ok = rss < TARGET_RSS_MB and elapsed < TARGET_SECONDS
                flag = f"  target <{TARGET_RSS_MB:.0f} MB, <{TARGET_SECONDS:.0f} s: {'met' if ok else 'MISSED'}"
            print(f"{name:<8} {len(raw):>10,} {rss:>8.1f}MB {elapsed:>6.2f}s  {code}{flag}")


if __name__ == "__main__":
    main()
