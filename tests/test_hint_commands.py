"""Every hint a reduction prints runs from the agent's shell: the reductions run in an environment whose
PATH lacks the venv (as after the documented venv install), and each command their hint lines name is
run from a fresh shell with a minimal PATH (``env -i PATH=/usr/bin:/bin HOME=… sh -c HINT``): exit 0,
and the bytes it prints are the ones the hint promises."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from operators.launcher import launcher_argv, tokens_command

ROOT = Path(__file__).resolve().parent.parent
MINIMAL_PATH = "/usr/bin:/bin"
EXE = r"(?:'[^']*'|\S+)"  # the command word a hint names: tokens, /abs/tokens or a quoted path
REFS = re.compile(rf"\[refs: ({EXE}(?: -I -m flows\.cli)?) expand (\S+) \[--grep .*?\]; whole original: "
                  rf"({EXE}(?: -I -m flows\.cli)?) expand --full (pkt_[0-9a-f]+)\]")


def big_log() -> bytes:
    lines = [f"2026-03-01 10:{i // 60:02d}:{i % 60:02d} INFO request {i % 9} served in {i % 17} ms" for i in range(400)]
    lines[200] = "2026-03-01 10:03:20 ERROR planted failure: connection refused (db-7)"
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture
def fresh(tmp_path):
    """A minimal environment: HOME only (the store is its default per-user place), PATH without the venv."""
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": MINIMAL_PATH, "HOME": str(home), "LC_ALL": "C.UTF-8"}
    work = tmp_path / "work"
    work.mkdir()
    (work / "app.log").write_bytes(big_log())
    return env, work


def run_in(env: dict, work: Path, argv: list[str], stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=work, env=env, input=stdin, capture_output=True, timeout=120)


def hint_shell(env: dict, work: Path, command: str) -> subprocess.CompletedProcess:
    """The hint run as the agent's shell would run it: a fresh sh, minimal PATH."""
    return subprocess.run(["env", "-i", f"PATH={MINIMAL_PATH}", f"HOME={env['HOME']}", "sh", "-c", command],
                          cwd=work, capture_output=True, timeout=120)


def check_refs_hint(text: bytes, env: dict, work: Path, original: bytes) -> None:
    m = REFS.search(text.decode())
    assert m, text[-400:]
    exe, ref_id, exe2, pkt = m.groups()
    assert exe == exe2 and exe != "tokens"  # not on PATH here: the hint names the launcher itself
    if ref_id == "ID":
        ref_id = re.search(r"#ref:(ctx_[0-9a-f]+)", text.decode()).group(1)
    whole = hint_shell(env, work, f"{exe} expand --full {pkt}")
    assert whole.returncode == 0 and whole.stdout == original, whole.stderr
    part = hint_shell(env, work, f"{exe} expand {ref_id}")
    assert part.returncode == 0 and part.stdout, part.stderr
    assert set(part.stdout.splitlines()) <= set(original.splitlines())  # the omitted lines, as they were
    grep = hint_shell(env, work, f"{exe} expand --full {pkt} --grep 'planted failure' -C 1")
    assert grep.returncode == 0 and b"planted failure" in grep.stdout


def test_the_hint_of_tokens_run_works_from_a_fresh_shell(fresh):
    env, work = fresh
    proc = run_in(env, work, launcher_argv() + ["run", "--", "cat", "app.log"])
    assert proc.returncode == 0 and b"planted failure" in proc.stdout
    check_refs_hint(proc.stdout, env, work, big_log())


def test_the_hint_of_analyze_works_from_a_fresh_shell(fresh):
    env, work = fresh
    proc = run_in(env, work, launcher_argv() + ["analyze", "app.log"])
    assert proc.returncode == 0
    check_refs_hint(proc.stderr, env, work, big_log())


def test_the_level_0_overview_names_commands_that_work(fresh):
    env, work = fresh
    proc = run_in(env, work, launcher_argv() + ["analyze", "--level", "0", "app.log"])
    text = proc.stdout.decode()
    show = re.search(rf"refs: (ctx_[0-9a-f]+)[^\n]*-> ({EXE}) show-ref ID", text)
    original = re.search(rf"original: ({EXE}) expand --full (pkt_[0-9a-f]+)", text)
    assert show and original, text
    assert hint_shell(env, work, f"{show.group(2)} show-ref {show.group(1)}").returncode == 0
    restored = hint_shell(env, work, f"{original.group(1)} expand --full {original.group(2)}")
    assert restored.returncode == 0 and restored.stdout == big_log()


def test_the_search_footer_works_from_a_fresh_shell(fresh):
    env, work = fresh
    run_in(env, work, launcher_argv() + ["run", "--", "cat", "app.log"])
    proc = run_in(env, work, launcher_argv() + ["search", "served"])
    footer = re.search(rf"read one: ({EXE}) expand ID --grep PAT -C 3\]", proc.stdout.decode())
    ref = re.search(r"^(ctx_[0-9a-f]+) \|", proc.stdout.decode(), re.M)
    assert footer and ref, proc.stdout
    got = hint_shell(env, work, f"{footer.group(1)} expand {ref.group(1)} --grep served -C 3")
    assert got.returncode == 0 and b"served" in got.stdout


def test_the_output_route_hint_works_from_a_fresh_shell(fresh):
    """The hook as init installs it, its PATH minimal: the replaced output's hint runs."""
    env, work = fresh
    payload = {"hook_event_name": "PostToolUse", "tool_name": "Bash", "cwd": str(work),
               "tool_input": {"command": "cat app.log"},
               "tool_response": {"stdout": big_log().decode(), "stderr": "", "interrupted": False, "isImage": False}}
    hook = [os.path.abspath(sys.executable), "-I", "-m", "flows.hooks", "claude-code"]
    proc = run_in(env, work, hook, json.dumps(payload).encode())
    assert proc.returncode == 0, proc.stderr
    text = json.loads(proc.stdout)["hookSpecificOutput"]["updatedToolOutput"]["stdout"].encode()
    check_refs_hint(text, env, work, big_log())


def test_pack_names_commands_that_work(fresh):
    env, work = fresh
    lines = [f"line {i}: ERROR item {i * 7919 % 10007} failed with code {i % 13}" for i in range(300)]
    (work / "varied.log").write_text("\n".join(lines) + "\n")
    proc = run_in(env, work, launcher_argv() + ["pack", "--budget", "400", "varied.log"])
    rest = re.search(rf"rest: ({EXE}) expand --full (pkt_[0-9a-f]+)", proc.stdout.decode())
    assert rest, proc.stdout
    restored = hint_shell(env, work, f"{rest.group(1)} expand --full {rest.group(2)}")
    assert restored.returncode == 0 and restored.stdout == (work / "varied.log").read_bytes()


def test_on_path_the_hint_is_the_short_name(tmp_path):
    bin_dir = os.path.dirname(launcher_argv()[0])
    assert tokens_command(bin_dir + os.pathsep + MINIMAL_PATH) == "tokens"
    assert tokens_command(MINIMAL_PATH) != "tokens"
    other = tmp_path / "bin"
    other.mkdir()
    (other / "tokens").write_text("#!/bin/sh\nexit 9\n")
    (other / "tokens").chmod(0o755)
    assert tokens_command(f"{other}{os.pathsep}{bin_dir}") != "tokens"  # another program of that name comes first


def test_shell_join_is_shlex_join():
    """``operators.launcher.shell_join``/``shell_quote`` (the fast paths' own, without importing shlex)
    quote every word as ``shlex`` does: ASCII, Unicode letters and digits, quotes, controls, the empty word."""
    import random
    import shlex

    from operators.launcher import shell_join, shell_quote

    rnd = random.Random(7)
    alphabet = [chr(i) for i in range(0x250)] + ["😀", "٣", "ǅ", "Ⅷ", "²", "ß"]
    words = ["", "a b", "it's", "$HOME", "--flag=1", "@%+=:,./-_"] + [
        "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 6))) for _ in range(5000)]
    assert [shell_quote(w) for w in words] == [shlex.quote(w) for w in words]
    assert shell_join(words) == shlex.join(words)
