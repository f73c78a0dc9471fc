"""The native ``tokens`` (``bin/tokens.c``) does what the Python fast path does, without the interpreter.

The program is built here from the source (the installed one is built the same way by ``setup.py``),
with its Python part ``tokens-python`` beside it, and every case runs three ways: through it, through
the Python fast path (``python -m flows.quick``) and through the full path (``NOLIFE_TOKENS_QUICK=0``).
Output, exit code and the error line must be the same; a short run is counted in ``usage.jsonl`` the
same way; a command it hands over is reduced by the full path as if Python had started it, runs once,
and still goes with ``tokens`` when ``tokens`` is killed."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import sleepers
from test_bad_inputs import CASES

PROJECT = Path(__file__).resolve().parent.parent
PKT = re.compile(rb"pkt_[0-9a-f]+")
FIXTURES = sorted((PROJECT / "fixtures").glob("*.*"))


@pytest.fixture(scope="module")
def launcher(tmp_path_factory) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None or not sys.platform.startswith("linux"):
        pytest.skip("no C compiler: tokens is the Python script (setup.py)")
    where = tmp_path_factory.mktemp("bin")
    subprocess.run([cc, "-O2", "-Wall", "-Werror", "-o", str(where / "tokens"), str(PROJECT / "bin" / "tokens.c")], check=True)
    script = (PROJECT / "bin" / "tokens-python").read_text().split("\n", 1)[1]
    (where / "tokens-python").write_text(f"#!{sys.executable}\n{script}")
    (where / "tokens-python").chmod(0o755)
    return where / "tokens"


def _env(tmp_path: Path, **extra: str) -> dict:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "NOLIFE_TOKENS_HOME": str(tmp_path / "home"),
           "PYTHONPATH": str(PROJECT), **extra}
    env.pop("NOLIFE_TOKENS_CONFIG", None)
    env.pop("NOLIFE_TOKENS_HANDOVER", None)
    return env


def _three(launcher: Path, tmp_path: Path, *cmd: str, **extra: str) -> subprocess.CompletedProcess:
    """Run ``tokens run -- CMD`` natively, by the Python fast path and by the full path: the same."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (tmp_path / "home").mkdir(exist_ok=True)
    ways = [([str(launcher)], {}), ([sys.executable, "-m", "flows.quick"], {}),
            ([sys.executable, "-m", "flows.quick"], {"NOLIFE_TOKENS_QUICK": "0"})]
    done = [subprocess.run([*argv, "run", "--", *cmd], env=_env(tmp_path, **extra, **more), cwd=work,
                           capture_output=True, timeout=120) for argv, more in ways]
    native = done[0]
    for other in done[1:]:
        assert native.returncode == other.returncode, (native.stderr[-500:], other.stderr[-500:])
        assert PKT.sub(b"pkt_", native.stdout) == PKT.sub(b"pkt_", other.stdout)
        assert native.stderr == other.stderr
    assert list(work.iterdir()) == []  # nothing written where it runs
    return native


def _usage(tmp_path: Path) -> list[dict]:
    path = tmp_path / "home" / "usage.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.parametrize("path", FIXTURES[::3], ids=lambda p: p.name)
def test_a_fixture_cut_short_prints_what_python_prints(launcher, tmp_path, path):
    short = tmp_path / "input"
    short.write_bytes(path.read_bytes()[: 200 + len(path.name) * 211 % 3_800])
    _three(launcher, tmp_path, "cat", str(short))


@pytest.mark.parametrize("name", sorted(CASES)[::2])
def test_a_bad_input_prints_what_python_prints(launcher, tmp_path, name):
    if len(CASES[name]) >= 3_000_000:
        pytest.skip("large: the graph's own tests cover it")
    path = tmp_path / "input"
    path.write_bytes(CASES[name][:3_000])
    _three(launcher, tmp_path, "bash", "-c", f'cat "{path}"; exit 2')


def test_edge_cases(launcher, tmp_path):
    assert _three(launcher, tmp_path, "true").stdout == b""
    assert _three(launcher, tmp_path, "false").stdout == b"[command failed: exit code 1]\n"
    assert _three(launcher, tmp_path, "printf", "no newline").stdout == b"no newline"
    assert _three(launcher, tmp_path, "printf", "a\\r\\nb\\r\\n").stdout == b"a\r\nb\r\n"
    assert _three(launcher, tmp_path, "printf", "a\\rb\\n").stdout.startswith(b"b\n")  # a lone CR: handed over, drawn
    assert _three(launcher, tmp_path, "bash", "-c", "kill -TERM $$").returncode == 128 + 15
    assert _three(launcher, tmp_path, "bash", "-c", "sleep 0.4; echo late").stdout == b"late\n"
    assert _three(launcher, tmp_path, "echo", "API_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB").stdout.count(b"ghp_") == 0
    assert _three(launcher, tmp_path, "echo", "caf\u00e9").stdout == "caf\u00e9\n".encode()  # not ASCII: the Python way
    missing = _three(launcher, tmp_path, "no-such-command-xyz")
    assert missing.returncode == 127 and missing.stderr == b"tokens: error: command not found: no-such-command-xyz\n"
    assert b"#ref:ctx_" in _three(launcher, tmp_path, "cat", str(PROJECT / "fixtures" / "sample.log")).stdout  # long: reduced


def test_a_short_run_is_counted_as_python_counts_it(launcher, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "home").mkdir()
    cmd = ["printf", "%s\\n", "it's", "a b", "x\"y\\z"]
    for argv in ([str(launcher)], [sys.executable, "-m", "flows.quick"]):
        subprocess.run([*argv, "run", "--", *cmd], env=_env(tmp_path), cwd=work, check=True, capture_output=True)
    native, python = _usage(tmp_path)
    assert abs(native.pop("t") - python.pop("t")) < 60
    assert native == python == {"cmd": "run-quick", "id": "run: printf '%s\\n' 'it'\"'\"'s' 'a b' 'x\"y\\z'",
                                "bytes": len("it's\na b\nx\"y\\z\n")}


def test_other_calls_and_a_stale_handover_go_the_python_way(launcher, tmp_path):
    env = _env(tmp_path)
    version = subprocess.run([str(launcher), "--version"], env=env, capture_output=True, timeout=60)
    assert version.returncode == 0 and version.stdout.startswith(b"tokens")
    stale = _env(tmp_path, NOLIFE_TOKENS_HANDOVER="1 1 0 0 0 0 -1 0")  # names no child, no pipe: ignored
    (tmp_path / "work").mkdir()
    done = subprocess.run([str(launcher), "run", "--", "echo", "hi"], env=stale, cwd=tmp_path / "work", capture_output=True, timeout=60)
    assert done.returncode == 0 and done.stdout == b"hi\n" and done.stderr == b""


def test_a_command_handed_over_runs_once_and_reads_whole(launcher, tmp_path):
    marks = tmp_path / "marks"
    big = "".join(f"line {i} of a long output\n" for i in range(3000))
    script = f"echo started >> {marks}; printf '%s' '{big}'; sleep 0.4; echo ERROR late"
    out = _three(launcher, tmp_path, "sh", "-c", script).stdout
    assert marks.read_bytes() == b"started\n" * 3 and b"ERROR late" in out


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGTERM"])
def test_killing_tokens_after_the_handover_leaves_nothing_running(launcher, tmp_path, sig):
    """The watchdog's pipe and the blocked signals cross the ``exec``: the Python part forwards SIGTERM to
    the command's group, and SIGKILL still takes the group with it."""
    tag = f"73.{os.getpid() % 1000:03d}{('SIGKILL', 'SIGTERM').index(sig)}"
    (tmp_path / "home").mkdir()
    proc = subprocess.Popen([str(launcher), "run", "--", "bash", "-c", f"echo started; sleep {tag}; echo x"],
                            env=_env(tmp_path), cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while not sleepers(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sleepers(tag)
    time.sleep(1.0)  # past the fast path's wait: the Python part holds the command now ...
    assert sleepers(tag) and proc.poll() is None  # ... and the watchdog let it live across the exec
    proc.send_signal(getattr(signal, sig))
    proc.wait(timeout=20)
    deadline = time.monotonic() + 15
    while sleepers(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sleepers(tag) == []


def test_a_command_that_exits_during_the_handover_is_reaped_once(launcher, tmp_path):
    """Its output ended within the fast path's wait but it exited just after: handed over as still
    running, it has exited by the time the Python part takes it, which must not reap it unseen (the
    full path would then wait for it for ever)."""
    (tmp_path / "home").mkdir()
    for _ in range(3):
        done = subprocess.run([str(launcher), "run", "--", "sh", "-c", "echo hi; exec >&- 2>&-; sleep 0.27; exit 4"],
                              env=_env(tmp_path), cwd=tmp_path, capture_output=True, timeout=30)
        assert done.returncode == 4 and done.stdout == b"[command failed: exit code 4]\nhi\n"
