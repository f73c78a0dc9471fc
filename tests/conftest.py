"""Shared test helpers: every test gets its own store home; packets run through the real graph."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from operators.packet import ContextPacket

PROJECT = Path(__file__).resolve().parent.parent
FIXTURES = PROJECT / "fixtures"


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite fixtures/golden/*.reduced from the current reduced texts (tests/test_golden.py)")


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch) -> Path:
    """A private store home per test; no user config leaks in."""
    home = tmp_path / "home"
    monkeypatch.setenv("NOLIFE_TOKENS_HOME", str(home))
    monkeypatch.delenv("NOLIFE_TOKENS_CONFIG", raising=False)
    monkeypatch.delenv("NOLIFE_TOKENS_HOST", raising=False)  # nor the shell's agent host (its output ceiling)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))  # nor the user's config.toml
    # `tokens` is on PATH, as after an install: hints name it `tokens` (operators.launcher)
    monkeypatch.setenv("PATH", os.path.dirname(os.path.abspath(sys.executable)) + os.pathsep + os.environ.get("PATH", ""))
    return home


def reduce_bytes(raw: bytes, source: str = "test-input", **fields) -> ContextPacket:
    """Run one packet through the whole graph (all stages, real store) and return it finished."""
    from flows.runner import run_packets

    [packet] = run_packets([ContextPacket(source=source, raw=raw, **fields)])
    return packet


def tokens_cli(*args: str, stdin: bytes | None = None, env: dict | None = None, cwd: Path | None = None):
    """Run the installed `tokens` command in a subprocess (so exit codes and stderr are real)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "flows.cli", *args], input=stdin, capture_output=True,
        env=full_env, cwd=cwd or PROJECT, timeout=120,
    )


def run_cli(capsysbinary, *argv: str) -> tuple[int, bytes, bytes]:
    """Run ``tokens ARGV`` in this process (``flows.cli.main``): exit code, stdout, stderr."""
    from flows.cli import main
    from operators.trace import configure_trace

    try:
        code = main(list(argv))
    finally:  # the CLI may point the trace at this test's captured stderr, which closes after it
        configure_trace(json=True, stream=open(os.devnull, "w"))
    out, err = capsysbinary.readouterr()
    return code, out, err


def sleepers(tag: str) -> list[int]:
    """The pids of the ``sleep TAG`` processes still running (a test's way to see leftovers)."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    if fh.read().split(b"\0")[:2] == [b"sleep", tag.encode()]:
                        found.append(int(pid))
            except OSError:
                continue
    return found
