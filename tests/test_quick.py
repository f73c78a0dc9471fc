"""The fast path of ``tokens run`` (flows/quick.py) prints byte for byte what the graph prints.

Every fixture and every bad input, cut short (under ``min_bytes``) or whole, is printed by a command
run through ``tokens run`` twice: with the fast path (the default) and without it
(``NOLIFE_TOKENS_QUICK=0``: the full graph). The outputs and exit codes must be the same; where the
fast path handed the command over, the packet ids in the last line name the same original."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import FIXTURES
from operators.sources import fixture_paths
from test_bad_inputs import CASES

PKT = re.compile(rb"pkt_[0-9a-f]+")
INPUTS = {p.name: p.read_bytes() for p in fixture_paths()}
INPUTS.update({f"bad:{name}": raw for name, raw in CASES.items() if len(raw) < 3_000_000})


def _run(tmp_path, quick: bool, *cmd: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "NOLIFE_TOKENS_QUICK": "1" if quick else "0", "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    env.pop("NOLIFE_TOKENS_CONFIG", None)
    return subprocess.run([sys.executable, "-m", "flows.quick", "run", "--", *cmd], env=env, cwd=tmp_path,
                          capture_output=True, timeout=120)


def _same(tmp_path, *cmd: str) -> bytes:
    fast, full = _run(tmp_path, True, *cmd), _run(tmp_path, False, *cmd)
    assert fast.returncode == full.returncode, (fast.stderr[-500:], full.stderr[-500:])
    assert PKT.sub(b"pkt_", fast.stdout) == PKT.sub(b"pkt_", full.stdout)
    return fast.stdout


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_a_short_output_prints_what_the_graph_prints(tmp_path, name):
    path = tmp_path / "input"
    cut = 100 + len(name) * 379 % 3_990  # a different length under min_bytes (4,096) for each input
    path.write_bytes(INPUTS[name][:cut])
    if len(name) % 2:  # half of them from a command that fails
        _same(tmp_path, "bash", "-c", f'cat "{path}"; exit 3')
    else:
        _same(tmp_path, "cat", str(path))


def test_the_fast_path_knows_the_default_min_bytes():
    from flows.quick import DEFAULT_MIN_BYTES
    from operators.config import Config

    assert DEFAULT_MIN_BYTES == Config().reduce.min_bytes == 4096


@pytest.mark.parametrize("name", ["sample.log", "pytest_failure.txt", "sample.json", "bad:crlf-bom-nul.txt"])
def test_a_long_output_is_handed_over_and_reduced_the_same(tmp_path, name):
    path = tmp_path / "input"
    path.write_bytes(INPUTS[name])
    out = _same(tmp_path, "cat", str(path))
    assert b"#ref:ctx_" in out  # reduced by the graph, not passed through


def test_edge_cases_print_what_the_graph_prints(tmp_path):
    assert _same(tmp_path, "true") == b""
    assert _same(tmp_path, "false") == b"[command failed: exit code 1]\n"
    assert _same(tmp_path, "printf", "no newline") == b"no newline"  # byte-identical: no newline added
    assert _same(tmp_path, "printf", "a\\r\\nb\\r\\n") == b"a\r\nb\r\n"
    assert _same(tmp_path, "printf", "x\\033[31mred\\033[0m\\n").count(b"\x1b") == 0  # handed over: secured
    assert _same(tmp_path, "bash", "-c", "sleep 0.4; echo late") == b"late\n"  # slower than the fast path waits
    env_like = b"HOME=/home/dev\nAPI_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\nSHELL=/bin/bash\n"
    (tmp_path / "env.txt").write_bytes(env_like)
    shown = _same(tmp_path, "cat", str(tmp_path / "env.txt"))  # short, but a secret: the graph hides it
    assert b"ghp_0123456789" not in shown and b"HOME=/home/dev" in shown
    (tmp_path / "env.txt").unlink()
    missing = _run(tmp_path, True, "no-such-command-xyz")
    assert missing.returncode == 127 and missing.stderr == b"tokens: error: command not found: no-such-command-xyz\n"


def test_nothing_is_written_where_it_runs_and_a_user_config_turns_it_off(tmp_path, home):
    assert _run(tmp_path, True, "echo", "hi").stdout == b"hi\n"
    assert list(tmp_path.iterdir()) == []  # not in the working directory ...
    assert not list(home.glob("**/pkt_*"))  # ... and nothing stored: nothing was omitted
    config = tmp_path / "cfg" / "nolife-tokens" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[reduce]\nmin_bytes = 0\n")  # a config may change what is short: the graph decides
    assert _run(tmp_path, True, "echo", "hi").stdout == b"hi\n"
    assert list(home.glob("**/pkt_*"))


def test_a_command_handed_over_runs_once(tmp_path):
    """A command slower than the fast path waits is handed to the full path, which reads the same
    process: it runs once, also as ``python -m flows.quick`` (the fast path's state lives in the
    module ``flows.quick``, not in ``__main__``), and its output is printed whole."""
    marks = tmp_path / "marks"
    done = _run(tmp_path, True, "sh", "-c", f"echo started >> {marks}; sleep 0.4; echo late")
    assert done.returncode == 0 and done.stdout == b"late\n", done.stderr[-500:]
    assert marks.read_bytes() == b"started\n"  # not started a second time by the full path
