"""Peak memory of ``tokens analyze`` net of the interpreter, for every input type at 20 MB and 100 MB.

    .venv/bin/python bench/memory.py [--sizes 20,100] [--runs 3] [--kinds log,idlog,json,ndjson,diff,text,search,gitlog,blame,diagnostics,diagfull,source]

Each input is generated (bench/generate.py: the same inputs as bench/throughput.py), then reduced by
``tokens analyze FILE`` in a child process; its peak RSS comes from ``wait4``. Each input is made by
a child process too: Linux starts a child's peak RSS at its parent's peak (``subprocess`` uses vfork,
and exec keeps the old memory's high-water mark), so a parent that built 100 MB of input in memory
would raise every child's figure to its own. The interpreter's idle RSS is the peak of ``tokens
analyze`` on a 20 KB log (every module loaded, next to no data). Printed per input: peak RSS, RSS/in
(gross) and net/in = (peak - idle) / input size. Each input is reduced ``--runs`` times (a fresh store
each time): the highest peak RSS is printed, and the median wall and CPU time (one run's CPU time on
this shared machine varies by up to a fifth: a single run of the 100 MB id log read 112 MB/s where
seven read 138–166, median 158). ``idlog``: a log with a request id in every line
(no two lines alike until the ids are masked), the log type's hard case; ``search``: ``rg -n`` output,
``gitlog``: ``git log -p`` (``make_search``, ``make_git_log_p``); ``diagfull``: a linter's diagnostics in
ruff's (and rustc's) default format, source snippets and fixes under each (``make_diagnostics_full``);
``jsonstorm``, ``errorstorm``: JSON-lines and
plain-text logs whose every line is an error or a warning, ``mixedlog``: a log ~30% of whose lines are warnings or errors
(``make_json_storm``, ``make_error_storm``, ``make_mixed_log``; not in the default kinds).
Target (issue: start-up and memory): net/in <= 2.5x for every type at 20 MB and 100 MB.
Needs about 2 GB of free disk under the temporary directory for the 100 MB inputs.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import (make_blame, make_diag_clippy, make_diag_gcc, make_diag_pyright, make_diag_stylish,  # noqa: E402
                      make_diag_tsc, make_diagnostics, make_diagnostics_full, make_diff, make_error_storm,
                      make_git_log_p, make_id_log, make_json, make_json_storm, make_log, make_mixed_log, make_ndjson,
                      make_search, make_source)

MB = 1024 * 1024
TARGET_NET = 2.5
MAKERS = {"log": make_log, "idlog": make_id_log, "json": make_json, "ndjson": make_ndjson, "diff": make_diff,
          "search": make_search, "gitlog": make_git_log_p, "blame": make_blame, "diagnostics": make_diagnostics,
          "diagfull": make_diagnostics_full, "source": make_source, "jsonstorm": make_json_storm,
          "errorstorm": make_error_storm, "mixedlog": make_mixed_log, "diagstylish": make_diag_stylish,
          "diagtsc": make_diag_tsc, "diagpyright": make_diag_pyright, "diaggcc": make_diag_gcc,
          "diagclippy": make_diag_clippy}


def make_text(target: int) -> bytes:
    """Prose-like lines with repeats: the text type's input."""
    words = b"the quick brown fox jumps over a lazy dog while the build keeps running".split()
    out, i = [], 0
    size = 0
    while size < target:
        line = b" ".join(words[(i * 7 + k) % len(words)] for k in range(3 + i % 9)) + b"\n"
        out.append(line * (1 + (i % 5 == 0) * 3))
        size += len(out[-1])
        i += 1
    return b"".join(out)[:target]


MAKERS["text"] = make_text


def make(kind: str, size: int, path: Path) -> None:
    """Write the ``kind`` input of ``size`` bytes to ``path`` from a child process: this process stays
    small, so its peak RSS does not become the measured child's (see the module docstring)."""
    code = "import sys, memory; open(sys.argv[3], 'wb').write(memory.MAKERS[sys.argv[1]](int(sys.argv[2])))"
    subprocess.run([sys.executable, "-c", code, kind, str(size), str(path)], check=True,
                   env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent)})


def peak(cmd: list[str], env: dict) -> tuple[int, float, int, float]:
    """(peak RSS in bytes, wall seconds, exit code, CPU seconds) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    return (usage.ru_maxrss * 1024, time.perf_counter() - start, os.waitstatus_to_exitcode(status),
            usage.ru_utime + usage.ru_stime)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20,100", help="input sizes in MB")
    parser.add_argument("--kinds", default="log,idlog,json,ndjson,diff,text,search,gitlog,blame,diagnostics,diagfull,source")
    parser.add_argument("--runs", type=int, default=3, help="runs per input: the highest peak RSS, the median times")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    tokens = [sys.executable, "-m", "flows.cli", "analyze"]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = {**os.environ, "NOLIFE_TOKENS_HOME": str(work / "home")}
        env.pop("NOLIFE_TOKENS_CONFIG", None)
        small = work / "small.log"
        make("log", 20 * 1024, small)
        idle = min(peak([*tokens, str(small)], env)[0] for _ in range(3))
        print(f"interpreter idle RSS (tokens analyze of 20 KB): {idle / MB:.0f} MB; each input reduced {args.runs}x: "
              f"the highest peak RSS, the median wall and CPU time\n")
        print(f"{'input':<8} {'size':>7} {'peak RSS':>9} {'RSS/in':>7} {'net/in':>7} {'wall':>7} {'cpu':>7} {'MB/s cpu':>8}  "
              f"target net <= {TARGET_NET}x")
        worst = 0.0
        for size_mb in (int(s) for s in args.sizes.split(",")):
            for kind in args.kinds.split(","):
                path = work / f"input.{kind}"
                make(kind, size_mb * MB, path)
                size = path.stat().st_size
                runs = []
                for _ in range(args.runs):
                    runs.append(peak([*tokens, str(path)], env))
                    subprocess.run(["rm", "-rf", str(work / "home")], check=False)
                rss = max(r[0] for r in runs)
                rc = next((r[2] for r in runs if r[2]), 0)
                wall, cpu = statistics.median(r[1] for r in runs), statistics.median(r[3] for r in runs)
                net = max(0, rss - idle) / size
                worst = max(worst, net)
                verdict = "FAILED" if rc else ("PASS" if net <= TARGET_NET else "MISS")
                print(f"{kind:<8} {size / MB:>5.0f}MB {rss / MB:>7.0f}MB {rss / size:>6.2f}x {net:>6.2f}x {wall:>6.1f}s "
                      f"{cpu:>6.1f}s {size / MB / cpu:>8.1f}  {verdict}",
                      flush=True)
                path.unlink()
        print(f"\nworst net/in: {worst:.2f}x (this process's own peak RSS, a floor for every figure: "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
