"""What the agent hook costs the host per call, as installed (``python -I -m flows.hooks AGENT``).

    .venv/bin/python bench/hook_cost.py [--runs 21]

Each case is one hook process fed one payload on stdin, timed from start to exit (what the host
waits), median of ``--runs`` runs (at least 20), with the interpreter's own start (``python -I -c
pass``) measured the same way for reference. The cases:

* ``nothing (output route)``: a PostToolUse of Bash whose output is short: parse, answer nothing;
* ``left alone (rewrite route)``: a PreToolUse line that changes the shell (``cd src``);
* ``rewrite``: a PreToolUse line that is rewritten (Codex, ``make test``);
* ``reduce 28 KB (output route)``: a pytest output reduced through the graph and stored.

Target: a hook with nothing to do adds at most 15 ms to the interpreter's start. The store is a
temporary directory; nothing is written elsewhere.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def pytest_output(n: int = 400) -> str:
    lines = [f"tests/test_mod{i % 9}.py::test_case_{i} PASSED                          [{i * 100 // n:3d}%]"
             for i in range(n)]
    lines[n // 3] = "tests/test_mod3.py::test_case_x FAILED                          [ 33%]"
    return "\n".join(lines) + "\n=== FAILURES ===\nE   AssertionError: 1 != 2\n=== 1 failed in 2.0s ===\n"


def cases(work: str) -> list[tuple[str, list[str], bytes]]:
    hook = [sys.executable, "-I", "-m", "flows.hooks"]
    post = {"hook_event_name": "PostToolUse", "tool_name": "Bash", "cwd": work, "tool_input": {"command": "ls"},
            "tool_response": {"stdout": "a.txt\nb.txt\n", "stderr": "", "interrupted": False, "isImage": False}}
    big = dict(post, tool_input={"command": "pytest -v"},
               tool_response=dict(post["tool_response"], stdout=pytest_output()))
    pre = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": work, "tool_input": {"command": "cd src"}}
    rewrite = dict(pre, tool_input={"command": "make test"})
    return [
        ("interpreter start (reference)", [sys.executable, "-I", "-c", "pass"], b""),
        ("nothing (output route)", hook + ["claude-code"], json.dumps(post).encode()),
        ("left alone (rewrite route)", hook + ["codex"], json.dumps(pre).encode()),
        ("rewrite (codex)", hook + ["codex"], json.dumps(rewrite).encode()),
        ("reduce 28 KB (output route)", hook + ["claude-code"], json.dumps(big).encode()),
    ]


def timed(argv: list[str], data: bytes, env: dict, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT,
                       check=False)
        out.append((time.perf_counter() - start) * 1000)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args(argv)
    runs = max(20, args.runs)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NOLIFE_TOKENS_HOME": os.path.join(tmp, "store"), "HOME": tmp}
        results = [(name, statistics.median(timed(cmd, data, env, runs))) for name, cmd, data in cases(tmp)]
    base = results[0][1]
    print(f"median of {runs} runs each (ms); added = minus the interpreter's start")
    for name, ms in results:
        added = "" if name.startswith("interpreter") else f"   added {ms - base:6.1f}"
        print(f"  {name:32} {ms:7.1f}{added}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
