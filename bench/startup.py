"""What a wrapped command costs: the wall time ``tokens`` adds to a command, median of interleaved runs.

    .venv/bin/python bench/startup.py [--runs 20] [--tokens PATH | --venv]

For each case the bare command and the wrapped one run alternately (bare, wrapped, bare, …) so that
both see the same machine load; the printed figure is median(wrapped) - median(bare), in wall time and
in CPU time (user + system: steadier than wall time on a busy machine). Cases:

* ``tokens run -- true`` against ``true``                   (no output: the fast path prints it)
* ``tokens run -- cat 2KB`` against ``cat 2KB``              (2 KB of log lines: reduced)
* ``tokens run -- cat 20KB`` against ``cat 20KB``            (20 KB of log lines: reduced)
* ``tokens run -- git log -n 50`` against ``git log -n 50``  (in this repository, when it is one)
* ``tokens analyze 20KB`` against ``cat 20KB``

Targets (issue 23): short output (under ``min_bytes``) <= 10 ms added, 2 KB and 20 KB <= 60 ms added.
When ``rtk`` is on PATH, ``rtk CMD`` is timed beside (its added time, same runs).

``--baseline PATH`` runs another ``tokens`` (an older install) in the same turns, for a paired
before/after. ``--instructions`` adds, when valgrind is installed, the instructions each wrapped
command executes (callgrind's count, the command's own process, net of ``python -c pass`` of the same
interpreter): unlike wall and CPU time it does not move with the machine's load. ``--venv`` measures a non-editable install of this working tree, made in a temporary venv (its
dependencies are taken from this interpreter's site-packages): what users run. ``--tokens`` names
another console script; by default the one beside this interpreter (an editable install pays the
editable finder's start-up, a few ms). The store goes to a temporary home; nothing is written in
the working directory.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"true": 10.0, "cat 2KB": 60.0, "cat 20KB": 60.0, "git log -n 50": 60.0, "analyze 20KB": 60.0}
SHIPPED = ("pyproject.toml", "setup.py", "README.md", "bin", "flows", "operators", "config", "fixtures")


def log_lines(size: int) -> bytes:
    out, i = [], 0
    while sum(map(len, out)) < size:
        level = "ERROR" if i % 97 == 0 else "INFO"
        out.append(f"2026-12-03 08:{i // 60 % 60:02d}:{i % 60:02d} {level} worker-{i % 7} handled request {i} in {i % 13} ms\n".encode())
        i += 1
    return b"".join(out)[:size]


def timed(cmd: list[str], env: dict, cwd: Path) -> tuple[float, float]:
    """Wall and CPU (user + system, the command and its children) milliseconds of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    proc.returncode = 0  # reaped here
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def install(work: Path) -> str:
    """A non-editable install of this working tree in a fresh venv under ``work``; its ``tokens``."""
    src, venv = work / "src", work / "venv"
    for name in SHIPPED:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyc"))
        else:
            src.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, src / name)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    site = subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "zz_bench_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")  # bytewax, msgspec, …
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", str(src)], check=True)
    return str(venv / "bin" / "tokens")


def instructions(cmd: list[str], env: dict, cwd: Path) -> float | None:
    """Millions of instructions ``cmd`` executes under callgrind (its children not followed), or None."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([valgrind, "--tool=callgrind", f"--callgrind-out-file={tmp}/out", *cmd], env=env, cwd=cwd,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found = [line.split()[-1] for line in done.stderr.splitlines() if "Collected :" in line]
    return int(found[-1]) / 1e6 if found else None


def cases(tok: str, small: Path, big: Path) -> dict[str, tuple[list[str], list[str]]]:
    out = {
        "true": (["true"], [tok, "run", "--", "true"]),
        "cat 2KB": (["cat", str(small)], [tok, "run", "--", "cat", str(small)]),
        "cat 20KB": (["cat", str(big)], [tok, "run", "--", "cat", str(big)]),
        "git log -n 50": (["git", "log", "-n", "50"], [tok, "run", "--", "git", "log", "-n", "50"]),
        "analyze 20KB": (["cat", str(big)], [tok, "analyze", str(big)]),
    }
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        del out["git log -n 50"]
    return out


def _added(runs: list[tuple[float, float]], bare: list[tuple[float, float]], index: int) -> float:
    return statistics.median(x[index] for x in runs) - statistics.median(x[index] for x in bare)


def measure(name: str, bare: list[str], wrapped: list[str], env: dict, runs: int, rtk: str | None,
            baseline: list[str] | None = None) -> str:
    """One row: bare, wrapped (and rtk, and the baseline's wrapped command) run in turn, ``runs`` times."""
    b, w, r, o = [], [], [], []
    rtk_cmd = [rtk, *bare] if rtk and name != "analyze 20KB" else None
    for _ in range(runs):
        b.append(timed(bare, env, ROOT))
        w.append(timed(wrapped, env, ROOT))
        if rtk_cmd:
            r.append(timed(rtk_cmd, env, ROOT))
        if baseline:
            o.append(timed(baseline, env, ROOT))
    mb, mw = statistics.median(x[0] for x in b), statistics.median(x[0] for x in w)
    added = mw - mb
    verdict = "ok" if added <= TARGETS[name] else f"MISS by {added - TARGETS[name]:.0f} ms"
    rtk_col = f"{_added(r, b, 0):>8.1f}" if r else f"{'-':>8}"
    base_col = f" {_added(o, b, 0):>9.1f} {_added(o, b, 1):>9.1f}" if o else ""
    return (f"{name:<14} {mb:>8.1f} {mw:>10.1f} {added:>8.1f} {_added(w, b, 1):>8.1f}{base_col} {rtk_col} "
            f"{TARGETS[name]:>7.0f}  {verdict}")


def print_instructions(todo: dict, env: dict, tok: str, baseline: str | None) -> None:
    """Instructions of each wrapped command (and of the baseline's). With the native launcher
    (``bin/tokens.c``) its own count, whole, and the Python part's (``tokens-python``, which it runs
    for what it hands over) net of the interpreter's start; a Python ``tokens`` net of it."""
    python = Path(tok).with_name("python")
    idle = instructions([str(python), "-c", "pass"], env, ROOT)
    if idle is None:
        print("(valgrind not installed: no instruction counts)")
        return
    native = Path(tok).read_bytes()[:4] == b"\x7fELF"
    part = str(Path(tok).with_name("tokens-python"))
    print(f"instructions, millions, net of `{python.name} -c pass` ({idle:.1f} M)"
          + (": the native launcher's own (whole; 'exec': it handed the call over, and callgrind does not follow an exec), then the Python part's"
             " run alone (tokens-python: what a handed-over call adds)" if native else ":"))
    for name, (_, wrapped) in todo.items():
        own = instructions(wrapped, env, ROOT)
        base = instructions([baseline, *wrapped[1:]], env, ROOT) if baseline else None
        if native:
            py = instructions([part, *wrapped[1:]], env, ROOT)
            mine = f"{own:>8.2f}" if own is not None else f"{'exec':>8}"  # handed over: no count past the exec
            row = f"  {name:<14} native {mine}   python part {py - idle:>8.1f}"
        else:
            row = f"  {name:<14} {own - idle:>8.1f}"
        print(row + (f"   base {base - idle:>8.1f}" if base is not None else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--tokens", default=str(Path(sys.executable).with_name("tokens")))
    where.add_argument("--venv", action="store_true", help="measure a non-editable install made in a temporary venv")
    parser.add_argument("--baseline", metavar="PATH", help="another tokens (an older install) run in the same turns")
    parser.add_argument("--instructions", action="store_true", help="also count instructions with valgrind (callgrind)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        tok = install(work) if args.venv else args.tokens
        small, big = work / "2KB.log", work / "20KB.log"
        small.write_bytes(log_lines(2048))
        big.write_bytes(log_lines(20480))
        env = {**os.environ, "NOLIFE_TOKENS_HOME": str(work / "home"), "XDG_CONFIG_HOME": str(work / "cfg")}
        env.pop("NOLIFE_TOKENS_CONFIG", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode cached, as after any first run of an install
        rtk = shutil.which("rtk")
        todo = cases(tok, small, big)
        for bare, wrapped in todo.values():  # warm up: bytecode caches, the store's directories
            timed(bare, env, ROOT)
            timed(wrapped, env, ROOT)
        load = os.getloadavg()
        print(f"tokens = {tok}; {os.cpu_count()} cores, load average {load[0]:.2f}; median of {args.runs} "
              f"interleaved runs each")
        base = f" {'base +ms':>9} {'base +cpu':>9}" if args.baseline else ""
        print(f"{'case':<14} {'bare ms':>8} {'wrapped ms':>10} {'added ms':>8} {'+cpu ms':>8}{base} {'rtk +ms':>8} "
              f"{'target':>7}  verdict")
        for name, (bare, wrapped) in todo.items():
            old = [args.baseline, *wrapped[1:]] if args.baseline else None
            print(measure(name, bare, wrapped, env, args.runs, rtk, old), flush=True)
        print("added = median wall of the wrapped command - median wall of the bare one (the target is judged on it);\n"
              "+cpu = the same for user+system CPU time: it moves far less than wall time when the machine is busy"
              + ("; base = the same for --baseline, run in the same turns" if args.baseline else ""))
        if not rtk:
            print("(rtk not installed: no rtk column)")
        if args.instructions:
            print_instructions(todo, env, tok, args.baseline)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
