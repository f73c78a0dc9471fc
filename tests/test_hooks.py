"""``tokens hook claude-code|codex|gemini``: recorded payload shapes in, the documented output shape out,
and the rewritten command actually run (exit code, working directory, bytes) with a temporary store."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples

from flows import hooks

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


# payload shapes as the agents' hook documentation records them
def claude_payload(command: str, cwd: str = "/home/user/my-project", **tool_input) -> dict:
    return {
        "session_id": "abc123",
        "transcript_path": "/home/user/.claude/projects/my-project/00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "Run the test suite", "timeout": 120000, **tool_input},
        "tool_use_id": "toolu_01ABC123",
    }


def codex_payload(command: str, cwd: str = "/home/user/repo") -> dict:
    return {
        "session_id": "019a7c3e-5b1d-7a80-9f4e-2c1d0e8b4a11",
        "turn_id": "019a7c3e-6f00-7c12-8d3e-55aa01b2c3d4",
        "transcript_path": None,
        "cwd": cwd,
        "hook_event_name": "PreToolUse",
        "model": "gpt-5.1-codex",
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "call_pB1x7Qm2",
    }


def gemini_payload(command: str, cwd: str = "/home/user/project", **tool_input) -> dict:
    return {
        "session_id": "b7e1c2d4-9f3a-4c61-8e2b-6a0d5f1c3e77",
        "transcript_path": "/home/user/.gemini/tmp/3f2a/chats/session-2025-12-01T10-30.json",
        "cwd": cwd,
        "hook_event_name": "BeforeTool",
        "timestamp": "2025-12-01T10:30:00Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command, "description": "Run the tests", **tool_input},
    }


PAYLOADS = {"claude-code": claude_payload, "codex": codex_payload, "gemini": gemini_payload}


def hook(agent: str, payload, env: dict | None = None, skip=None) -> bytes:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    old = dict(os.environ)
    try:
        os.environ.update(env or {})
        return hooks.run_hook(agent, data, skip)
    finally:
        os.environ.clear()
        os.environ.update(old)


def rewritten(agent: str, payload) -> str:
    out = json.loads(hook(agent, payload))
    if agent == "gemini":
        return out["hookSpecificOutput"]["tool_input"]["command"]
    return out["hookSpecificOutput"]["updatedInput"]["command"]


@pytest.fixture(autouse=True)
def user_home(tmp_path, monkeypatch):
    """A home whose Claude Code settings allow every Bash command (the rewrite route then needs no
    other rule); the permission tests write their own rules."""
    home = tmp_path / "user-home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text('{"permissions": {"allow": ["Bash"]}}')
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.setenv("SHELL", "/bin/bash")
    return home


@pytest.fixture
def env(tmp_path):
    """The environment a rewritten command runs in: a temporary store, nothing written in the cwd."""
    e = dict(os.environ)
    e["NOLIFE_TOKENS_HOME"] = str(tmp_path / "store")
    e.pop("NOLIFE_TOKENS_HOOK_OFF", None)
    return e


def sh(command: str, cwd: Path, env: dict, path: str | None = None) -> subprocess.CompletedProcess:
    e = dict(env)
    if path is not None:
        e["PATH"] = path
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=e, capture_output=True, timeout=120)


# ------------------------------------------------------------------------------------ output shapes


def test_claude_code_shape_keeps_the_other_fields_and_allows_what_the_rules_allow():
    out = json.loads(hook("claude-code", claude_payload("sort -r notes.txt", run_in_background=False)))
    assert set(out) == {"hookSpecificOutput"}
    spec = out["hookSpecificOutput"]
    # the user's rules allow Bash (the user_home fixture): the rewritten line is allowed as the original was
    assert set(spec) == {"hookEventName", "permissionDecision", "updatedInput"} and spec["permissionDecision"] == "allow"
    assert spec["hookEventName"] == "PreToolUse"
    updated = spec["updatedInput"]
    assert updated["description"] == "Run the test suite" and updated["timeout"] == 120000
    assert updated["run_in_background"] is False
    assert shlex.split(updated["command"]) == hooks.tokens_argv() + ["run", "--host", "claude-code", "--", "sort", "-r",
                                                                      "notes.txt"]


def test_the_allow_bypass_variable_is_gone():
    settings = Path(os.environ["HOME"], ".claude", "settings.json")
    settings.write_text('{"permissions": {"deny": ["Bash(git push:*)"], "ask": ["Bash(rm:*)"]}}')
    for command in ("git push --force origin main", "rm -rf build", "ls"):
        assert hook("claude-code", claude_payload(command), env={"NOLIFE_TOKENS_HOOK_ALLOW": "1"}) == b""


def test_codex_shape_carries_the_allow_codex_requires_with_updated_input():
    out = json.loads(hook("codex", codex_payload("ls -la")))
    spec = out["hookSpecificOutput"]
    assert set(out) == {"hookSpecificOutput"}
    assert spec == {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                    "updatedInput": {"command": spec["updatedInput"]["command"]}}
    assert shlex.split(spec["updatedInput"]["command"])[-6:] == ["run", "--host", "codex", "--", "ls", "-la"]


def test_gemini_shape_merges_only_the_command():
    out = json.loads(hook("gemini", gemini_payload("ls -la")))
    assert out == {"hookSpecificOutput": {"hookEventName": "BeforeTool",
                                          "tool_input": {"command": out["hookSpecificOutput"]["tool_input"]["command"]}}}
    assert "decision" not in out
    assert shlex.split(rewritten("gemini", gemini_payload("ls -la")))[-6:] == ["run", "--host", "gemini", "--", "ls", "-la"]


@pytest.mark.parametrize("form", ["cli", "module"])
def test_the_installed_forms_speak_the_protocol_and_exit_0(form, env):
    argv = [str(Path(PY).parent / "tokens"), "hook", "claude-code"] if form == "cli" else hooks.hook_argv("claude-code")
    payload = json.dumps(claude_payload("ls && ls -a")).encode()
    proc = subprocess.run(argv, input=payload, capture_output=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    spec = json.loads(proc.stdout)["hookSpecificOutput"]
    assert shlex.split(spec["updatedInput"]["command"])[-2:] == ["-c", "ls && ls -a"]
    none = subprocess.run(argv, input=b"not json", capture_output=True, env=env, timeout=60)
    assert (none.returncode, none.stdout) == (0, b"")


def test_the_module_form_ignores_a_broken_config(tmp_path, env):
    bad = tmp_path / "bad.toml"
    bad.write_text("this is not = = toml\n")
    env = {**env, "NOLIFE_TOKENS_CONFIG": str(bad)}
    proc = subprocess.run(hooks.hook_argv("codex"), input=json.dumps(codex_payload("ls")).encode(),
                          capture_output=True, env=env, timeout=60)
    assert proc.returncode == 0 and json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"


# ------------------------------------------------------------------------------------ never rewritten


NEVER = [
    "tokens expand ctx_31154f",  # our own commands, and their output is never reduced again
    "tokens expand --full pkt_831c58e8bcf2 | head",
    "cd src && tokens show-ref ctx_31154f",
    "vim notes.txt", "less build.log", "top", "watch -n1 date", "ssh host uptime", "man ls",
    "tail -f app.log", "tail -fn 100 app.log", "tail --follow=name app.log", "journalctl -fu nginx",
    "kubectl logs -f pod/web-1", "docker run -it ubuntu bash", "python", "node",
    "cat <<EOF\nhello\nEOF", "cat <<-'EOF' > x.txt\nhi\nEOF",
    "ls > listing.txt", "ls >> listing.txt 2>&1", "ls -R &> out.txt", "echo hi >| f", "ls 1>out",
    "sleep 100 &", "sleep 100 & ls",
    "cd build", "pushd /tmp && ls", "ls && cd build && ls",
    "definitely-not-a-program-xyz --help",  # an alias or function of the agent's shell
    "echo 'unterminated", "ls # a comment",
    "if true; then vim x; fi", "sudo vim /etc/hosts", "time less x",
    "", "   ",
]


@pytest.mark.parametrize("agent", list(PAYLOADS))
@pytest.mark.parametrize("command", NEVER)
def test_never_rewritten(agent, command):
    assert hook(agent, PAYLOADS[agent](command)) == b""


CONTROLS = [  # (left alone, its nearest twin that is rewritten): the reason is the one tested
    ("ls > listing.txt", "ls"), ("ls -R &> out.txt", "ls -R 2>&1"), ("cat <<EOF\nhello\nEOF", "cat <<< hello"),
    ("sleep 100 &", "sleep 0"), ("tail -f app.log", "tail -n 5 app.log"), ("ls && cd build && ls", "ls && ls build"),
    ("ls # a comment", "ls"), ("echo 'unterminated", "echo 'terminated'"), ("cd build", "ls build"),
    ("time ls x", "ls x"), ("bash", "bash -c 'ls'"), ("export A=1", "A=1 env"), ("A=1", "A=1 env"),
    ("git commit", "git commit -qm x"), ("git add -p", "git add ."), ("npm run dev", "npm run test"),
    ("source .venv/bin/activate", "cat .venv/bin/activate"), ("f() { ls; }", "{ ls; }"),
]


@pytest.mark.parametrize("never,control", CONTROLS)
def test_the_twin_of_a_left_alone_command_is_rewritten(never, control):
    assert hook("claude-code", claude_payload(never)) == b""
    assert hook("claude-code", claude_payload(control)) != b""


def test_an_already_rewritten_command_is_left_alone():
    once = rewritten("claude-code", claude_payload("ls && ls -a"))
    assert hook("claude-code", claude_payload(once)) == b""
    via_module = shlex.join([PY, "-I", "-m", "flows.cli", "run", "--", "ls"])
    assert hook("claude-code", claude_payload(via_module)) == b""


def test_user_skip_list_from_env_and_option():
    assert hook("claude-code", claude_payload("sort notes.txt")) != b""
    assert hook("claude-code", claude_payload("sort notes.txt"), env={"NOLIFE_TOKENS_HOOK_SKIP": "cargo, sort"}) == b""
    assert hook("claude-code", claude_payload("ls && sort x"), skip=["sort"]) == b""
    assert hook("claude-code", claude_payload("ls -l"), skip=["sort"]) != b""


def test_switched_off_and_malformed_payloads():
    assert hook("claude-code", claude_payload("ls"), env={"NOLIFE_TOKENS_HOOK_OFF": "1"}) == b""
    for bad in (b"", b"not json", b"[1, 2]", b'{"tool_name": "Bash"}', b'{"tool_name": "Bash", "tool_input": {"command": 3}}',
                b'{"tool_name": "Bash", "tool_input": {"command": ["ls", "-l"]}}', b"{" * 100000):
        assert hook("claude-code", bad) == b""
    read = claude_payload("ls")
    read["tool_name"] = "Read"
    assert hook("claude-code", read) == b""
    post = claude_payload("ls")
    post["hook_event_name"] = "PostToolUse"
    assert hook("claude-code", post) == b""
    assert hook("gemini", claude_payload("ls")) == b""  # a Bash payload is not Gemini's shell tool


def test_background_flags_of_the_agents():
    assert hook("claude-code", claude_payload("ls -R", run_in_background=False)) != b""
    assert hook("claude-code", claude_payload("ls -R", run_in_background=True)) == b""
    assert hook("gemini", gemini_payload("ls -R", is_background=False)) != b""
    assert hook("gemini", gemini_payload("ls -R", is_background=True)) == b""


def test_allowed_redirects_and_quoted_operators_are_rewritten():
    for command in ("ls 2>&1", "ls >/dev/null 2>&1", "[[ -f notes.txt ]] && sort notes.txt", "{ ls; ls -a; }",
                    "git commit -qm 'fix: quote; && | > ok'", "! ls missing", "grep -c 'a > b' notes.txt", "echo \"x >> y\"",
                    "sort < input.txt", "git log --oneline | head -3"):
        assert hook("claude-code", claude_payload(command)) != b"", command


def test_the_hook_never_runs_the_command(tmp_path):
    marker = tmp_path / "ran"
    out = hook("claude-code", claude_payload(f"touch {marker}", cwd=str(tmp_path)))
    assert out and not marker.exists()


# ------------------------------------------------------------------------------------ running the rewrite


@pytest.mark.parametrize("agent", list(PAYLOADS))
def test_rewritten_commands_keep_the_exit_code(agent, tmp_path, env):
    work = tmp_path / "work"
    work.mkdir()
    for command, code in (("false", 1), ("sh -c 'exit 3'", 3), ("echo one && echo two; sh -c 'exit 5'", 5)):
        new = rewritten(agent, PAYLOADS[agent](command, cwd=str(work)))
        assert "tokens" in new and new != command
        proc = sh(new, work, env)
        assert proc.returncode == code, (command, new, proc.stderr)
    assert os.listdir(work) == []  # the store lives in NOLIFE_TOKENS_HOME, nothing in the cwd


TRICKY = [
    """printf '%s\\n' "it's \\$HOME" 'a"b' 'tab\there' 'ü ✓'""",
    "echo '$(touch pwned)' \"`echo backtick`\" $((1+2))",
    "printf 'line1\\nline2\\n' | sort -r",
    "for w in a b; do printf '[%s]' \"$w\"; done; echo",
    "X=7 sh -c 'echo \"x=$X\"'",
    "echo multi &&\necho line",
    "ls -a",
    "printf 'no final newline'",
    "/usr/bin/printf '[%s]' \"\\$HOME\" 'a\\b' \"q\\\"q\" x\\ y",
    "ls \\\n  -a",
    "/usr/bin/printf '%s|' a \\\n",
    "/usr/bin/printf '%s|' '' \"\" end",
]


@pytest.mark.parametrize("command", TRICKY)
def test_rewritten_command_prints_what_the_original_prints(command, tmp_path, env):
    """Short outputs pass through untouched, so the rewrite must give the very same bytes."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("a")
    original = sh(command, work, env)
    new = rewritten("claude-code", claude_payload(command, cwd=str(work)))
    proc = sh(new, work, env)
    assert proc.returncode == original.returncode, (new, proc.stderr)
    assert proc.stdout == original.stdout, (new, proc.stdout)  # byte-identical, no newline added
    assert not (work / "pwned").exists()


def test_works_when_the_agents_path_lacks_the_venv(tmp_path, env):
    work = tmp_path / "work"
    work.mkdir()
    new = rewritten("codex", codex_payload("ls /", cwd=str(work)))
    proc = sh(new, work, env, path="/usr/bin:/bin")
    assert proc.returncode == 0 and b"usr" in proc.stdout


def test_fallback_without_console_script_runs_the_module(monkeypatch, tmp_path, env):
    monkeypatch.setattr(hooks.os.path, "isfile", lambda p: False)
    argv = hooks.tokens_argv()
    assert argv == [os.path.abspath(sys.executable), "-I", "-m", "flows.cli"]
    monkeypatch.undo()
    proc = subprocess.run(argv + ["run", "--", "bash", "-c", "exit 6"], cwd=tmp_path, env=env, capture_output=True, timeout=60)
    assert proc.returncode == 6


def test_reduced_output_keeps_the_signal_and_restores_byte_exact(tmp_path, env):
    """A noisy command through the hook: the planted error stays visible, every ref loads, and the
    whole original comes back byte for byte from the packet."""
    work = tmp_path / "work"
    work.mkdir()
    script = work / "noisy.sh"
    script.write_text(
        "for i in $(seq 1 400); do echo \"2026-08-16 09:00:$((i % 60)) [INFO] request finished req_id=$i\"; done\n"
        "echo '2026-08-16 09:01:28 ERROR PaymentService line 421: charge declined PLANTED-7f3a'\n"
        "printf 'tail without newline \\r\\x01'\n"
        "exit 2\n")
    command = "bash noisy.sh"
    original = sh(command, work, env)
    new = rewritten("claude-code", claude_payload(command, cwd=str(work)))
    proc = sh(new, work, env)
    assert proc.returncode == 2 == original.returncode
    assert b"PLANTED-7f3a" in proc.stdout
    assert len(proc.stdout) < len(original.stdout) / 3
    tokens = hooks.tokens_argv()
    refs = set(re.findall(rb"#ref:(ctx_[0-9a-f]+)", proc.stdout))
    assert refs
    for ref in refs:
        got = subprocess.run(tokens + ["expand", ref.decode()], env=env, capture_output=True, cwd=work, timeout=60)
        assert got.returncode == 0 and got.stdout and got.stdout in original.stdout
    pkt = re.search(rb"pkt_[0-9a-f]+", proc.stdout)
    assert pkt is not None
    full = subprocess.run(tokens + ["expand", "--full", pkt.group().decode()], env=env, capture_output=True, cwd=work, timeout=60)
    assert full.stdout == original.stdout


# ------------------------------------------------------------------------------------ properties

SHELLISH = st.text(alphabet=st.sampled_from(list(" \t\n'\"\\$`*?[]{}~!#;&|<>()=-_aZ09.,:/%@^+") + ["ü", "x"]),
                   max_size=40)


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SHELLISH)
def test_rewrite_never_raises_and_always_wraps_in_tokens_run(text):
    for command in (text, "ls " + text, "cd d && ls " + text):
        out = hooks.rewrite(command, hooks.Policy(path=os.environ.get("PATH"), cwd="/"))
        if out is not None:
            assert shlex.join(hooks.tokens_argv() + ["run", "--"]) in out


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SHELLISH)
def test_a_command_run_without_a_shell_gets_the_arguments_bash_would_give(text):
    """When the hook runs a command directly (no ``bash -c``), its argv must be what bash passes."""
    command = "/usr/bin/printf '%s\\0' start " + text
    out = hooks.rewrite(command, hooks.Policy(path=os.environ.get("PATH"), cwd="/"))
    if out is None:
        return
    argv = shlex.split(out)[len(hooks.tokens_argv()) + 2:]
    if argv[:2] == [argv[0], "-c"] and argv[0].endswith("bash"):
        assert argv[2].strip() == command.strip() or command.startswith(argv[2].strip())
        return
    bash = subprocess.run(["bash", "-c", command], capture_output=True, cwd="/", timeout=10)
    assert bash.returncode == 0
    assert bash.stdout.split(b"\0")[:-1] == [a.encode() for a in argv[2:]], (command, argv)


# ------------------------------------------------------------------------------------ permission rules


def claude_rules(home: Path, project: Path | None = None, **perms) -> None:
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": perms}))


RULES = {"allow": ["Bash(git status:*)", "Bash(make:*)", "Bash(ls:*)", "Bash(npm run test *)", "Bash(git push:*)"],
         "deny": ["Bash(git push --force:*)", "Bash(rm:*)"], "ask": ["Bash(git push:*)", "Bash(curl *)"]}


@pytest.mark.parametrize("command,expected", [
    ("git status", "allow"), ("git status -s", "allow"), ("make && make test", "allow"), ("ls | ls -a", "allow"),
    ("npm run test -- --ci", "allow"), ("npm run test", "allow"),
    ("git push origin main", None),  # ask rule: the host must ask about the original line
    ("git push --force origin main", None), ("rm -rf build", None),  # deny
    ("ls && rm -rf build", None), ("make; curl http://x", None),  # one command of the line is denied / asked
    ("FOO=1 rm -rf x", None), ("sudo -n rm -rf x", None),  # past assignments and wrappers
    ("git statusx", None), ("ls | wc -l", None),  # wc is not allowed: no rewrite, the host asks as usual
    ("python3 -c 'print(1)'", None),  # no rule says: left alone (a rewrite would be asked about every time)
])
def test_claude_code_rewrites_only_what_the_rules_allow(command, expected, user_home):
    claude_rules(user_home, **RULES)
    out = hook("claude-code", claude_payload(command))
    if expected is None:
        assert out == b"", command
    else:
        spec = json.loads(out)["hookSpecificOutput"]
        assert spec["permissionDecision"] == "allow" and "run --" in spec["updatedInput"]["command"]


def test_project_rules_and_local_rules_count_too(user_home, tmp_path):
    claude_rules(user_home, allow=["Bash"])
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    (project / ".claude" / "settings.local.json").write_text('{"permissions": {"deny": ["Bash(make deploy:*)"]}}')
    assert hook("claude-code", claude_payload("make deploy", cwd=str(project))) == b""
    assert hook("claude-code", claude_payload("make test", cwd=str(project))) != b""
    (project / ".claude" / "settings.json").write_text("{broken")  # rules we cannot read: nothing is rewritten
    assert hook("claude-code", claude_payload("make test", cwd=str(project))) == b""


def test_bypass_permissions_mode_still_honours_deny_and_ask(user_home):
    claude_rules(user_home, deny=["Bash(rm:*)"], ask=["Bash(git push:*)"])
    bypass = claude_payload("python3 -c 'print(1)'")
    bypass["permission_mode"] = "bypassPermissions"
    assert hook("claude-code", bypass) != b""
    for command in ("rm -rf x", "git push"):
        p = claude_payload(command)
        p["permission_mode"] = "bypassPermissions"
        assert hook("claude-code", p) == b""


def test_codex_prefix_rules_keep_forbidden_and_prompt_lines_alone(user_home, tmp_path):
    rules = user_home / ".codex" / "rules"
    rules.mkdir(parents=True)
    (rules / "default.rules").write_text(
        'prefix_rule(pattern=["git", "push"], decision="prompt")\n'
        'prefix_rule(\n    pattern = ["rm", "-rf"],\n    decision = "forbidden",\n)\n'
        'prefix_rule(pattern=["make"], decision="allow")\n')
    for command in ("git push origin main", "ls && rm -rf build", "git push"):
        assert hook("codex", codex_payload(command)) == b"", command
    for command in ("make test", "ls -la", "git status"):
        assert hook("codex", codex_payload(command)) != b"", command
    (rules / "odd.rules").write_text('prefix_rule(pattern=[["git", "hg"], "push"], decision="prompt")\n')
    assert hook("codex", codex_payload("ls -la")) == b""  # a rule we cannot read: the safe side


def test_gemini_runs_the_line_under_bash(monkeypatch):
    monkeypatch.setenv("SHELL", "/usr/bin/zsh")
    new = rewritten("gemini", gemini_payload("ls | wc -l"))
    assert shlex.split(new)[-3:-1] == [shutil.which("bash"), "-c"]
