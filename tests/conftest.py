"""Shared test helpers: every test gets its own store home; packets run through the real graph."""

from __future__ import annotations

import gzip
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from operators.packet import ContextPacket
from operators.reduction import omissions, render, restores_to
from operators.signals import load_sidecar

PROJECT = Path(__file__).resolve().parent.parent
FIXTURES = PROJECT / "fixtures"


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite fixtures/golden/*.reduced from the current reduced texts (tests/test_golden.py)")


DEEP = bool(os.environ.get("NOLIFE_TOKENS_DEEP_TESTS"))


def examples(n: int) -> int:
    """Hypothesis examples for a property: a quarter of `n` (at least 100) in the everyday run, all `n` with
    NOLIFE_TOKENS_DEEP_TESTS=1 (the deep run, for a change to a kernel function or its twin)."""
    return n if DEEP else max(100, n // 4)


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


def reduce_bytes(raw: bytes, source: str = "test-input", config=None, **fields) -> ContextPacket:
    """Run one packet through the whole graph (all stages, real store) and return it finished
    (``config``: a loaded configuration, else the default one is loaded)."""
    from flows.runner import run_packets

    [packet] = run_packets([ContextPacket(source=source, raw=raw, **fields)], config=config)
    return packet


def reducing_any_size():
    """The default configuration but for ``[reduce] min_bytes`` 0: a test of what a reducer does to a
    short input (shorter than the default's 4 KB, which passes through) sends it through the graph."""
    import msgspec

    from operators.config import load_config

    config = load_config(None)
    return msgspec.structs.replace(config, reduce=msgspec.structs.replace(config.reduce, min_bytes=0))


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


# -- helpers of the per-type tests (tests/types/) ---------------------------------------------------

def fixture_bytes(name: str) -> bytes:
    """The bytes of a bundled fixture, ``fixtures/NAME``."""
    return (FIXTURES / name).read_bytes()


TYPE_DATA = Path(__file__).resolve().parent / "data" / "types"


def type_data(name: str) -> bytes:
    """The bytes of a real output kept for the per-type tests, ``tests/data/types/NAME`` (``.gz``: unpacked)."""
    raw = (TYPE_DATA / name).read_bytes()
    return gzip.decompress(raw) if name.endswith(".gz") else raw


def cut(module, kind: str, raw: bytes, budget: int, config=None) -> bytes:
    """The type's plan cut to ``budget`` by the output ceiling: its visible text, restore checked."""
    from operators.ceiling import fit
    from operators.config import Config

    config = config or Config()
    plan = fit(module.reduce(raw, "coarse", config), budget, kind, config)
    contents = omissions(plan)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, _ = render(plan, ids)
    assert restores_to(raw, visible, layout, [contents[g] for g in plan.reasons])
    return visible


def planted(name: str) -> list[str]:
    """The must-see strings recorded for ``fixtures/NAME`` in ``fixtures/signals.toml``."""
    return load_sidecar(FIXTURES / "signals.toml")[name]


class Alone(NamedTuple):
    """One type's plan on some bytes, rendered without the graph (placeholder ids, nothing stored)."""

    plan: object
    visible: bytes
    contents: dict  # group -> the group's omitted bytes
    ids: dict  # group -> its placeholder id, ctx_000000, ctx_000001, … in the plan's order

    def by_id(self) -> dict:
        """``{id: bytes}`` of every group."""
        return {self.ids[group]: bytes(content) for group, content in self.contents.items()}


def reduce_alone(module, raw: bytes, config=None, granularity: str = "coarse", named: bool = False) -> Alone:
    """``module.reduce`` on ``raw`` rendered with placeholder ids; asserts the visible bytes and the groups
    rebuild ``raw`` exactly. ``named``: also that every group is named by its marker in the visible text
    and holds some bytes."""
    plan = module.reduce(raw, granularity, config)
    contents = omissions(plan)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, _ = render(plan, ids)
    assert restores_to(raw, visible, layout, [contents[group] for group in plan.reasons])
    for group, content in contents.items() if named else ():
        assert f"#ref:{ids[group]}".encode() in visible and len(content) > 0, group
    return Alone(plan, visible, contents, ids)


def check_fixture_through_the_graph(name: str, expected_type: str) -> ContextPacket:
    """``fixtures/NAME`` through the whole graph: classified as ``expected_type``, every planted string
    visible, SIGNAL, RECOVERY and RESTORE pass, every ref named in the visible text and not empty, and no
    byte neither shown nor stored."""
    raw = fixture_bytes(name)
    packet = reduce_bytes(raw, source=f"fixtures/{name}", expected_signals=planted(name))
    assert packet.type == expected_type
    assert [s for s in planted(name) if s.encode() not in packet.visible] == []
    assert packet.signal_pass, packet.missing_signals
    assert packet.recovery_pass and packet.restore_pass
    for ref in packet.references:
        assert f"#ref:{ref.id}".encode() in packet.visible and len(ref.content) > 0, ref.id
    assert len(raw) - sum(len(ref.content) for ref in packet.references) <= len(packet.visible)
    return packet


def odd_variants(raw: bytes, seed: str, junk: bytes, cuts: int = 15):
    """``raw`` with CRLF line ends, without its final newline, then ``cuts`` random slices of it and as many
    copies with 5 random bytes replaced by bytes of ``junk`` (seeded by ``seed``: the same every run)."""
    yield raw.replace(b"\n", b"\r\n")
    yield raw.rstrip(b"\n")
    rng = random.Random(seed)
    for _ in range(cuts):
        a = rng.randrange(len(raw))
        b = rng.randrange(a, len(raw) + 1)
        yield raw[a:b]
        mutated = bytearray(raw)
        for _ in range(5):
            mutated[rng.randrange(len(mutated))] = rng.choice(junk)
        yield bytes(mutated)
