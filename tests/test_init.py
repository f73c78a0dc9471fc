"""``tokens init``: installs the hook and the note, idempotent, other hooks left alone, ``--show`` writes
nothing, ``--uninstall`` gives back every file byte for byte (or removes a file it created)."""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from flows.cli import main
from flows.init import BEGIN, END

AGENTS = ["claude-code", "codex", "gemini"]
PLACES = {  # agent -> (settings, note) relative to the home (global) or the project
    ("claude-code", "global"): (".claude/settings.json", ".claude/CLAUDE.md"),
    ("claude-code", "project"): (".claude/settings.json", "CLAUDE.md"),
    ("codex", "global"): (".codex/hooks.json", ".codex/AGENTS.md"),
    ("codex", "project"): (".codex/hooks.json", "AGENTS.md"),
    ("gemini", "global"): (".gemini/settings.json", ".gemini/GEMINI.md"),
    ("gemini", "project"): (".gemini/settings.json", "GEMINI.md"),
}
EVENT = {"claude-code": ("PostToolUse", "Bash"), "codex": ("PreToolUse", "Bash"), "gemini": ("BeforeTool", "run_shell_command")}  # each agent's default route

# settings as users have them: odd formatting, other keys, another hook on the same event and matcher
USER_SETTINGS = {
    "claude-code": b'{"model": "opus",\n  "permissions": {"allow": ["Bash(npm test:*)"], "deny": []},\n'
                   b'  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", '
                   b'"command": "$CLAUDE_PROJECT_DIR/.claude/hooks/guard.sh"}]}],\n'
                   b'            "PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "npx prettier --write"}]}]}}',
    "codex": b'{\n    "hooks": {\n        "PreToolUse": [\n            {"matcher": "Bash", "hooks": [{"type": "command", '
             b'"command": "python3 ~/.codex/hooks/policy.py", "statusMessage": "Checking"}]}\n        ],\n'
             b'        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 30}]}]\n    }\n}\n',
    "gemini": b'{\n\t"theme": "GitHub",\n\t"security": {"auth": {"selectedType": "oauth-personal"}},\n\t"hooks": {\n'
              b'\t\t"BeforeTool": [{"matcher": "write_file|replace", "hooks": [{"name": "secret-scan", "type": "command", '
              b'"command": "$GEMINI_PROJECT_DIR/.gemini/hooks/scan.sh", "timeout": 5000}]}]\n\t}\n}',
}
USER_NOTES = "# Project notes\r\n\r\nUse `uv run pytest`.\r\nNo final newline, CRLF, ünïcode".encode()


@pytest.fixture
def places(tmp_path, monkeypatch):
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir()
    project.mkdir()
    monkeypatch.setenv("NOLIFE_TOKENS_INIT_HOME", str(home))
    monkeypatch.setenv("NOLIFE_TOKENS_HOME", str(tmp_path / "store"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.chdir(project)
    return home, project


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and directory (None) under root, links included as their target text."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath, name)
            rel = str(p.relative_to(root))
            out[rel] = os.readlink(p).encode() if p.is_symlink() else None if p.is_dir() else p.read_bytes()
    return out


def init(capsys, *args) -> tuple[int, str, str]:
    code = main(["init", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def text_of(*paths: Path) -> str:
    return "".join(p.read_text() for p in paths)


def both(places):
    home, project = places
    return {"global": home, "project": project}


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("scope", ["global", "project"])
def test_init_then_uninstall_is_byte_identical(agent, scope, places, capsys):
    base = both(places)[scope]
    settings_rel, notes_rel = PLACES[agent, scope]
    settings, notes = base / settings_rel, base / notes_rel
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_bytes(USER_SETTINGS[agent])
    os.chmod(settings, 0o600)
    notes.write_bytes(USER_NOTES)
    before_home, before_project = tree(places[0]), tree(places[1])

    code, out, _ = init(capsys, "--agent", agent, f"--{scope}")
    assert code == 0 and str(settings) in out
    data = json.loads(settings.read_bytes())
    user = json.loads(USER_SETTINGS[agent])
    event, matcher = EVENT[agent]
    ours = [g for g in data["hooks"][event] if g not in user["hooks"].get(event, [])]
    assert len(ours) == 1 and ours[0]["matcher"] == matcher and len(ours[0]["hooks"]) == 1
    command = ours[0]["hooks"][0]["command"]
    if scope == "global":  # this machine's settings: the absolute interpreter, whatever PATH is
        assert shlex.split(command)[-3:] == ["-m", "flows.hooks", agent]
    else:  # a file the team commits: no path of this machine
        committed = text_of(settings, notes)
        assert shlex.split(command) == ["tokens", "hook", agent]
        assert os.path.dirname(sys.executable) not in committed and "flows.hooks" not in committed
    for key, value in user.items():  # everything of the user's is still there, unchanged
        if key != "hooks":
            assert data[key] == value
    for ev, groups in user["hooks"].items():
        assert all(g in data["hooks"][ev] for g in groups)
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600
    text = notes.read_bytes()
    assert text.startswith(USER_NOTES) and text.count(BEGIN.encode()) == 1 and text.count(END.encode()) == 1
    assert b"#ref:ctx_" in text and b"tokens expand --full pkt_" in text
    backups = [p for p in tree(settings.parent) if "nolife-tokens-init" in p]
    assert backups  # the original bytes are kept
    assert (settings.parent / "nolife-tokens-init" / (settings.name + ".orig")).read_bytes() == USER_SETTINGS[agent]

    installed = tree(places[0]), tree(places[1])
    code, out, _ = init(capsys, "--agent", agent, f"--{scope}")  # idempotent
    assert code == 0 and "nothing to install" in out
    assert (tree(places[0]), tree(places[1])) == installed

    code, out, _ = init(capsys, "--agent", agent, f"--{scope}", "--uninstall")
    assert code == 0
    assert tree(places[0]) == before_home and tree(places[1]) == before_project
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600


@pytest.mark.parametrize("agent", AGENTS)
def test_files_init_created_are_removed_again(agent, places, capsys):
    home, project = places
    assert tree(home) == {} and tree(project) == {}
    code, out, _ = init(capsys, "--agent", agent)
    assert code == 0 and [line.split()[0] for line in out.splitlines()][:2] == ["created", "created"]
    assert tree(project) == {}  # --global writes nothing in the current directory
    assert not [p for p in tree(home) if p.endswith(".tmp")]
    code, _, _ = init(capsys, "--agent", agent, "--uninstall")
    assert code == 0 and tree(home) == {} and tree(project) == {}


def test_project_scope_writes_only_in_the_project(places, capsys):
    home, project = places
    code, _, _ = init(capsys, "--project")
    assert code == 0 and tree(home) == {}
    assert (project / ".claude" / "settings.json").is_file() and (project / "CLAUDE.md").is_file()
    init(capsys, "--project", "--uninstall")
    assert tree(project) == {}


def test_show_prints_the_change_and_writes_nothing(places, capsys):
    home, project = places
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_bytes(USER_SETTINGS["claude-code"])
    before = tree(home), tree(project)
    code, out, _ = init(capsys, "--show")
    assert code == 0 and (tree(home), tree(project)) == before
    assert "nothing written" in out and "+            \"command\": " in out and "flows.hooks claude-code" in out
    assert "+" + BEGIN in out
    init(capsys)
    installed = tree(home)
    code, out, _ = init(capsys, "--show", "--uninstall")
    assert code == 0 and tree(home) == installed and "-" + BEGIN in out


def test_uninstall_after_user_edits_removes_only_ours(places, capsys):
    home, _ = places
    init(capsys, "--agent", "gemini")
    settings = home / ".gemini" / "settings.json"
    notes = home / ".gemini" / "GEMINI.md"
    data = json.loads(settings.read_bytes())
    data["theme"] = "Dracula"
    data["hooks"]["AfterTool"] = [{"matcher": "*", "hooks": [{"type": "command", "command": "log.sh"}]}]
    settings.write_text(json.dumps(data))
    notes.write_bytes(notes.read_bytes() + b"\nMy own line after the block.\n")
    code, _, _ = init(capsys, "--agent", "gemini", "--uninstall")
    assert code == 0
    left = json.loads(settings.read_bytes())
    assert left == {"theme": "Dracula", "hooks": {"AfterTool": data["hooks"]["AfterTool"]}}
    assert notes.read_bytes() == b"\nMy own line after the block.\n"
    assert not (home / ".gemini" / "nolife-tokens-init").exists()


def test_reinit_after_user_edits_keeps_the_edits_on_uninstall(places, capsys):
    home, _ = places
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(b'{"model": "opus"}')
    init(capsys)
    data = json.loads(settings.read_bytes())
    data["hooks"]["PostToolUse"][0]["hooks"][0]["command"] = "/old/venv/bin/python -I -m flows.hooks claude-code"
    data["env"] = {"FOO": "1"}
    settings.write_text(json.dumps(data, indent=4))
    code, out, _ = init(capsys)  # the stale command is replaced, not doubled
    assert code == 0 and "updated" in out
    groups = json.loads(settings.read_bytes())["hooks"]["PostToolUse"]
    commands = [h["command"] for g in groups for h in g["hooks"]]
    assert len(commands) == 1 and "/old/venv" not in commands[0]
    init(capsys, "--uninstall")
    assert json.loads(settings.read_bytes()) == {"model": "opus", "env": {"FOO": "1"}}


def test_symlinks_and_bad_json_are_refused_untouched(places, capsys, tmp_path):
    home, _ = places
    real = tmp_path / "dotfiles-settings.json"
    real.write_bytes(b'{"model": "opus"}')
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").symlink_to(real)
    code, _, err = init(capsys)
    assert code == 2 and err.startswith("tokens: error: ") and "symbolic link" in err and err.count("\n") == 1
    assert real.read_bytes() == b'{"model": "opus"}' and (home / ".claude" / "settings.json").is_symlink()
    (home / ".claude" / "settings.json").unlink()
    (home / ".claude" / "settings.json").write_bytes(b'{"model": "opus",}')
    code, _, err = init(capsys)
    assert code == 2 and "not valid JSON" in err
    assert (home / ".claude" / "settings.json").read_bytes() == b'{"model": "opus",}'
    assert not (home / ".claude" / "CLAUDE.md").exists()


def test_home_comes_from_HOME_when_no_override(places, capsys, monkeypatch, tmp_path):
    other = tmp_path / "other-home"
    other.mkdir()
    monkeypatch.delenv("NOLIFE_TOKENS_INIT_HOME")
    monkeypatch.setenv("HOME", str(other))
    code, _, _ = init(capsys, "--agent", "codex")
    assert code == 0 and (other / ".codex" / "hooks.json").is_file()
    init(capsys, "--agent", "codex", "--uninstall")
    assert tree(other) == {}


def test_the_installed_hook_command_answers_a_payload(places, capsys):
    """The output route as installed: the command runs untouched; its long output comes back reduced,
    in the Bash tool's own shape, from a shell whose PATH lacks the venv."""
    home, project = places
    init(capsys)
    group = json.loads((home / ".claude" / "settings.json").read_bytes())["hooks"]["PostToolUse"][0]
    command = group["hooks"][0]["command"]
    output = "".join(f"tests/test_a.py::test_{i} PASSED [{i}%]\n" for i in range(200)) + "E   planted-signal-42\n"
    payload = {"session_id": "s", "cwd": str(project), "hook_event_name": "PostToolUse", "tool_name": "Bash",
               "tool_input": {"command": "pytest -v", "description": "Run tests"},
               "tool_response": {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}}
    proc = subprocess.run(["bash", "-c", command], input=json.dumps(payload).encode(), capture_output=True,
                          cwd=project, timeout=60, env={**os.environ, "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    updated = json.loads(proc.stdout)["hookSpecificOutput"]["updatedToolOutput"]
    assert set(updated) == {"stdout", "stderr", "interrupted", "isImage"} and updated["interrupted"] is False
    assert "planted-signal-42" in updated["stdout"] and len(updated["stdout"]) < len(output)


def test_the_rewrite_route_is_installed_only_on_request(places, capsys):
    home, _ = places
    code, out, _ = init(capsys, "--route", "rewrite")
    hooks = json.loads((home / ".claude" / "settings.json").read_bytes())["hooks"]
    assert code == 0 and list(hooks) == ["PreToolUse"] and "route: rewrite" in out
    code, out, _ = init(capsys)  # back to the output route: the rewrite group goes, nothing doubles
    hooks = json.loads((home / ".claude" / "settings.json").read_bytes())["hooks"]
    assert code == 0 and list(hooks) == ["PostToolUse"] and len(hooks["PostToolUse"]) == 1
    code, _, err = init(capsys, "--agent", "codex", "--route", "output")
    assert code == 2 and "cannot replace" in err


def test_gemini_gets_the_rewrite_route_and_the_output_route_on_request(places, capsys):
    """Gemini CLI: BeforeTool on run_shell_command by default (its output route reaches the model as a
    failed call); AfterTool only with --route output; switching routes leaves one group of ours and
    the user's own BeforeTool hook alone."""
    home, _ = places
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(USER_SETTINGS["gemini"])
    code, out, _ = init(capsys, "--agent", "gemini", "--route", "output")
    hooks = json.loads(settings.read_bytes())["hooks"]
    assert code == 0 and "route: output" in out and "hook: AfterTool on run_shell_command" in out
    assert [g["matcher"] for g in hooks["AfterTool"]] == ["run_shell_command"]
    assert [g["matcher"] for g in hooks["BeforeTool"]] == ["write_file|replace"]
    code, out, _ = init(capsys, "--agent", "gemini")
    hooks = json.loads(settings.read_bytes())["hooks"]
    assert code == 0 and "route: rewrite" in out and "AfterTool" not in hooks
    assert [g["matcher"] for g in hooks["BeforeTool"]] == ["write_file|replace", "run_shell_command"]
    init(capsys, "--agent", "gemini", "--route", "output")
    hooks = json.loads(settings.read_bytes())["hooks"]
    assert [g["matcher"] for g in hooks["BeforeTool"]] == ["write_file|replace"] and len(hooks["AfterTool"]) == 1


def test_the_installed_gemini_hook_answers_an_after_tool_payload(places, capsys):
    """As installed, from a shell whose PATH lacks the venv: the run_shell_command result comes back
    hidden and replaced (decision deny, the reduced text as reason), its exit code line kept."""
    home, project = places
    init(capsys, "--agent", "gemini", "--route", "output")
    group = json.loads((home / ".gemini" / "settings.json").read_bytes())["hooks"]["AfterTool"][0]
    output = "".join(f"tests/test_a.py::test_{i} PASSED [{i}%]\n" for i in range(200)) + "E   planted-signal-43\n"
    payload = {"session_id": "s", "transcript_path": "", "cwd": str(project), "hook_event_name": "AfterTool",
               "timestamp": "2026-08-21T16:20:31.512Z", "tool_name": "run_shell_command",
               "tool_input": {"command": "pytest -v", "description": "Run tests"},
               "tool_response": {"llmContent": f"<untrusted_context>\nOutput: {output}\nExit Code: 1\n</untrusted_context>",
                                 "returnDisplay": output}}
    proc = subprocess.run(["bash", "-c", group["hooks"][0]["command"]], input=json.dumps(payload).encode(),
                          capture_output=True, cwd=project, timeout=60, env={**os.environ, "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["decision"] == "deny" and "planted-signal-43" in answer["reason"]
    assert answer["reason"].endswith("\nExit Code: 1\n</untrusted_context>") and len(answer["reason"]) < len(output)
    note = (home / ".gemini" / "GEMINI.md").read_text()
    assert "`[the command ran; …]`" in note and answer["reason"].startswith("[the command ran; ")
    init(capsys, "--agent", "gemini")  # the rewrite route (the default): its results are no errors
    assert "[the command ran" not in (home / ".gemini" / "GEMINI.md").read_text()


def test_project_scope_prints_the_manual_steps(places, capsys):
    code, out, _ = init(capsys, "--project")
    assert code == 0 and "next: the hook runs `tokens` from PATH" in out and "/hooks" in out


@pytest.mark.parametrize("raw", [
    b'{"n": 1e400, "m": -1E-400, "big": 123456789012345678901234567890, "f": 1.10, "z": -0.0,\n'
    b' "s": "\\ud83d \\u00e9 \xc3\xa9 \xe2\x98\x83 \\\" \\/", "dup": 1, "dup": 2, "order": {"b": 1, "a": 2}}',
    b'{"hooks": {"PostToolUse": []}, "x": [1e400, {"y": 2.50e+10}]}',
])
def test_values_are_written_back_exactly_as_read(raw, places, capsys):
    """Numbers (1e400 stays 1e400, never Infinity), strings, repeated keys and key order survive
    an install; uninstall gives the bytes back."""
    home, _ = places
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(raw)
    code, _, _ = init(capsys)
    assert code == 0
    new = settings.read_bytes()
    def as_text(data: bytes):  # numbers as their source text, objects as their pairs in order (repeats kept)
        return json.loads(data, parse_float=str, parse_int=str, parse_constant=lambda c: ("CONSTANT", c),
                          object_pairs_hook=list)
    before, after = as_text(raw), as_text(new)
    hooks_before = [v for k, v in before if k == "hooks"]
    assert [p for p in after if p[0] != "hooks"] == [p for p in before if p[0] != "hooks"]
    if hooks_before and hooks_before[0]:  # the user's own event, still there, still first
        assert [p for p in dict(after)["hooks"] if p[0] != "PostToolUse"] == []
    assert b"Infinity" not in new and b"NaN" not in new and b"1e400" in new
    json.loads(new)  # still JSON for any reader
    init(capsys, "--uninstall")
    assert settings.read_bytes() == raw


def test_a_thousand_concurrent_edits_lose_nothing(places, capsys, tmp_path):
    """1,000 edits of one settings file at once (threads, each its own lock descriptor) and init runs
    between them: every key every edit added is there at the end, and the hook once."""
    import threading

    from flows import init as init_mod
    from flows import jsonkeep

    home, _ = places
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(b'{"n": 1e400}')

    def add(i: int) -> None:
        def transform(old):
            obj = jsonkeep.loads(old)
            obj.set(f"k{i}", i)
            return (jsonkeep.dumps(obj) + "\n").encode()
        init_mod.edit_file(settings, transform)

    threads = [threading.Thread(target=add, args=(i,)) for i in range(1000)]
    for i, t in enumerate(threads):
        t.start()
        if i == 500:
            assert init(capsys)[0] == 0
    for t in threads:
        t.join()
    data = jsonkeep.loads(settings.read_bytes())
    assert all(data.get(f"k{i}") == str(i) for i in range(1000)) and data.get("n") == "1e400"
    assert len(data.get("hooks").get("PostToolUse")) == 1


def test_concurrent_init_processes_and_edits_lose_nothing(places, tmp_path):
    """Separate processes: 8 editors of 25 edits each and 4 init runs, at once."""
    home, project = places
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(b'{"keep": 1e400}')
    editor = ("import sys; from pathlib import Path; from flows import init, jsonkeep\n"
              "p = Path(sys.argv[1]); w = sys.argv[2]\n"
              "def t(old, i):\n    o = jsonkeep.loads(old); o.set(f'{w}-{i}', i); return (jsonkeep.dumps(o) + '\\n').encode()\n"
              "for i in range(25):\n    init.edit_file(p, lambda old: t(old, i))\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    procs = [subprocess.Popen([sys.executable, "-c", editor, str(settings), f"w{w}"], env=env) for w in range(8)]
    procs += [subprocess.Popen([sys.executable, "-m", "flows.cli", "init"], env=env, cwd=project,
                               stdout=subprocess.DEVNULL) for _ in range(4)]
    assert [p.wait(timeout=120) for p in procs] == [0] * len(procs)
    data = json.loads(settings.read_bytes().replace(b"1e400", b"1"))
    assert all(f"w{w}-{i}" in data for w in range(8) for i in range(25))
    assert len(data["hooks"]["PostToolUse"]) == 1 and b"1e400" in settings.read_bytes()


def test_codex_home_is_honoured(places, capsys, monkeypatch, tmp_path):
    home = tmp_path / "plain-home"
    codex_home = tmp_path / "codex-home"
    home.mkdir()
    codex_home.mkdir()
    monkeypatch.delenv("NOLIFE_TOKENS_INIT_HOME")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    code, _, _ = init(capsys, "--agent", "codex")
    assert code == 0 and (codex_home / "hooks.json").is_file() and (codex_home / "AGENTS.md").is_file()
    assert tree(home) == {}
    init(capsys, "--agent", "codex", "--uninstall")
    assert tree(codex_home) == {}


def test_unexpected_hooks_shape_is_refused_untouched(places, capsys):
    home, _ = places
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(b'{"hooks": {"PreToolUse": "not a list"}}')
    code, _, err = init(capsys)
    assert code == 2 and "unexpected shape" in err
    assert settings.read_bytes() == b'{"hooks": {"PreToolUse": "not a list"}}'
    assert sorted(tree(home)) == [".claude", ".claude/settings.json"]
