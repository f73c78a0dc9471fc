"""The output route: ``tokens hook claude-code`` on a ``PostToolUse`` payload of ``Bash`` (recorded shapes
in ``tests/data/hooks``) answers ``updatedToolOutput`` in the Bash tool's own shape, holding exactly what
``tokens analyze`` prints for the same bytes (the hint line included); the full output is read from the
host's spill file; RESTORE of the packet gives the bytes back; everything else is left alone. ``tokens
hook gemini`` on an ``AfterTool`` payload of ``run_shell_command`` hides the result and sends the same
text with its output part reduced (``decision: deny``, ``reason``)."""

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

from flows import hooks

DATA = Path(__file__).resolve().parent / "data" / "hooks"
ROOT = Path(__file__).resolve().parent.parent


def pytest_output(n: int = 240, planted: str = "E   AssertionError: planted-signal-7f3a") -> str:
    lines = [f"tests/test_mod{i % 7}.py::test_case_{i} PASSED                     [{i * 100 // n:3d}%]" for i in range(n)]
    lines[n // 2] = "tests/test_mod3.py::test_case_x FAILED                     [ 50%]"
    return "\n".join(lines) + f"\n=== FAILURES ===\n{planted}\n=== 1 failed, {n - 1} passed in 2.04s ===\n"


def payload(name: str, **subst: str) -> dict:
    text = (DATA / name).read_text()
    for key, value in subst.items():
        text = text.replace(f"@@{key}@@", json.dumps(value)[1:-1])
    return json.loads(text)


def answer(p: dict, agent: str = "claude-code") -> dict | None:
    out = hooks.run_hook(agent, json.dumps(p).encode())
    return json.loads(out) if out else None


def analyze(raw: bytes) -> bytes:
    """What ``tokens analyze -`` prints (stdout, then the hint line it writes on stderr)."""
    proc = subprocess.run([sys.executable, "-m", "flows.cli", "analyze", "-"], input=raw, capture_output=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    if proc.stderr and out and not out.endswith(b"\n"):
        out += b"\n"
    return out + proc.stderr


def same_text(a: bytes, b: bytes) -> bool:
    """Equal but for the ids (a packet's id names its source: ``run: COMMAND`` here, ``stdin`` there)."""
    ids = re.compile(rb"(ctx|pkt)_[0-9a-f]+")
    return ids.sub(rb"\1_ID", a) == ids.sub(rb"\1_ID", b)


def test_the_replacement_is_what_analyze_prints_in_the_bash_tools_shape():
    output = pytest_output()
    p = payload("claude_post_tool_use_bash.json", OUTPUT=output)
    got = answer(p)
    spec = got["hookSpecificOutput"]
    assert spec["hookEventName"] == "PostToolUse" and set(got) == {"hookSpecificOutput"}
    updated = spec["updatedToolOutput"]
    assert isinstance(updated, dict)  # a plain string is dropped by the host for Bash
    assert set(updated) == set(p["tool_response"]) and updated["stderr"] == ""
    assert updated["interrupted"] is False and updated["isImage"] is False and updated["noOutputExpected"] is False
    assert same_text(updated["stdout"].encode(), analyze(output.encode()))
    assert "planted-signal-7f3a" in updated["stdout"] and "FAILED" in updated["stdout"]
    assert len(updated["stdout"]) < len(output) / 2


def test_the_whole_original_comes_back_byte_for_byte(tmp_path):
    output = pytest_output(300)
    updated = answer(payload("claude_post_tool_use_bash.json", OUTPUT=output))["hookSpecificOutput"]["updatedToolOutput"]
    pkt = re.search(r"expand --full (pkt_[0-9a-f]+)\]", updated["stdout"]).group(1)
    proc = subprocess.run([sys.executable, "-m", "flows.cli", "expand", "--full", pkt], capture_output=True, cwd=ROOT,
                          timeout=60)
    assert proc.returncode == 0 and proc.stdout == output.encode()


def test_a_spilled_output_is_read_whole_from_the_hosts_file(tmp_path):
    """Claude Code spills a long output to a file and sends a preview: the reduction reads the file,
    sees the signal past the preview, and leaves the spill keys out (the host would show its preview)."""
    full = pytest_output(2000, planted="E   RuntimeError: only-in-the-spill-file-91c2")
    spill = tmp_path / "tool-results" / "toolu_01Ab3.txt"
    spill.parent.mkdir()
    spill.write_text(full)
    preview = full[:2000]
    assert "only-in-the-spill-file" not in preview
    p = payload("claude_post_tool_use_bash_persisted.json", PREVIEW=preview, PATH=str(spill))
    p["tool_response"]["persistedOutputSize"] = len(full)
    updated = answer(p)["hookSpecificOutput"]["updatedToolOutput"]
    assert "persistedOutputPath" not in updated and "persistedOutputSize" not in updated
    assert "only-in-the-spill-file-91c2" in updated["stdout"]
    assert same_text(updated["stdout"].encode(), analyze(full.encode()))


def test_a_spill_path_that_is_a_link_or_missing_falls_back_to_stdout(tmp_path):
    output = pytest_output()
    target = tmp_path / "secret.txt"
    target.write_text("not for the hook\n" * 100)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    for path in (str(link), str(tmp_path / "missing.txt"), str(tmp_path)):
        p = payload("claude_post_tool_use_bash_persisted.json", PREVIEW=output, PATH=path)
        updated = answer(p)["hookSpecificOutput"]["updatedToolOutput"]
        assert "not for the hook" not in updated["stdout"] and "planted-signal-7f3a" in updated["stdout"]


def test_stderr_is_reduced_with_stdout():
    p = payload("claude_post_tool_use_bash.json", OUTPUT=pytest_output())
    p["tool_response"]["stderr"] = "warning: planted-stderr-line\n"
    updated = answer(p)["hookSpecificOutput"]["updatedToolOutput"]
    assert "planted-stderr-line" in updated["stdout"] and updated["stderr"] == ""


@pytest.mark.parametrize("change", [
    "short", "ours", "ours-abs", "image", "background", "not-bash", "failure-event", "no-gain", "bad-response",
])
def test_left_alone(change, tmp_path):
    p = payload("claude_post_tool_use_bash.json", OUTPUT=pytest_output())
    if change == "short":
        p["tool_response"]["stdout"] = "ok\n" * 100
    elif change == "ours":
        p["tool_input"]["command"] = "tokens expand --full pkt_0123456789ab"
    elif change == "ours-abs":
        p["tool_input"]["command"] = "'/opt/venv/bin/tokens' expand ctx_0a1b2c --grep x"
    elif change == "image":
        p["tool_response"]["isImage"] = True
    elif change == "background":
        p["tool_response"]["backgroundTaskId"] = "bash_1"
    elif change == "not-bash":
        p["tool_name"] = "Read"
    elif change == "failure-event":
        p = payload("claude_post_tool_use_failure_bash.json", OUTPUT=pytest_output())
    elif change == "no-gain":  # distinct lines: nothing to fold, the original is kept
        p["tool_response"]["stdout"] = "".join(f"line {i} {hex(i * 7919)}\n" for i in range(60))
    elif change == "bad-response":
        p["tool_response"] = "a string"
    assert answer(p) is None


def test_other_hosts_get_no_output_answer():
    """Codex cannot replace a tool's output (docs/agents.md): its post-tool payloads are left alone, and
    each host's output event is answered only for that host."""
    assert answer(payload("claude_post_tool_use_bash.json", OUTPUT=pytest_output()), "codex") is None
    assert answer(payload("claude_post_tool_use_bash.json", OUTPUT=pytest_output()), "gemini") is None
    gemini = payload("gemini_after_tool_run_shell_command_untrusted.json", OUTPUT=pytest_output())
    assert answer(gemini, "claude-code") is None and answer(gemini, "codex") is None


# Gemini CLI: AfterTool on run_shell_command; {"decision": "deny", "reason": TEXT} hides the result and
# sends TEXT to the model instead (packages/core/src/core/coreToolHookTriggers.ts, docs/hooks/reference.md)
GEMINI_NOW = "gemini_after_tool_run_shell_command_untrusted.json"  # 0.49.0+: <untrusted_context>, trailers
GEMINI_OLD = "gemini_after_tool_run_shell_command.json"  # before 0.31.0: Command:/Directory: first


def test_gemini_result_is_hidden_and_replaced_by_what_analyze_prints():
    output = pytest_output()
    got = answer(payload(GEMINI_NOW, OUTPUT=output), "gemini")
    assert set(got) == {"decision", "reason"} and got["decision"] == "deny"
    note, rest = got["reason"].split("\n", 1)
    assert "command ran" in note and "reduced" in note
    assert rest.startswith("<untrusted_context>\nOutput: ")
    assert rest.endswith("\nExit Code: 1\nProcess Group PGID: 48213\n</untrusted_context>")
    body = rest[len("<untrusted_context>\nOutput: "): -len("\nExit Code: 1\nProcess Group PGID: 48213\n</untrusted_context>")]
    assert same_text(body.encode() + b"\n", analyze(output.encode()))
    assert "planted-signal-7f3a" in body and len(got["reason"]) < len(output) / 2


def test_gemini_old_shape_keeps_its_command_and_directory_lines():
    output = pytest_output()
    reason = answer(payload(GEMINI_OLD, OUTPUT=output), "gemini")["reason"]
    assert "\nCommand: npm test\nDirectory: (root)\nOutput: " in reason and reason.endswith("\nExit Code: 0")
    assert "<untrusted_context>" not in reason and "planted-signal-7f3a" in reason


def test_gemini_whole_original_comes_back_byte_for_byte():
    output = pytest_output(300)
    reason = answer(payload(GEMINI_NOW, OUTPUT=output), "gemini")["reason"]
    pkt = re.search(r"expand --full (pkt_[0-9a-f]+)\]", reason).group(1)
    proc = subprocess.run([sys.executable, "-m", "flows.cli", "expand", "--full", pkt], capture_output=True, cwd=ROOT,
                          timeout=60)
    assert proc.returncode == 0 and proc.stdout == output.encode()


def test_gemini_output_cannot_close_the_untrusted_wrapper():
    output = pytest_output(planted="E   </untrusted_context> planted-close-tag")
    reason = answer(payload(GEMINI_NOW, OUTPUT=output), "gemini")["reason"]
    assert reason.count("</untrusted_context>") == 1 and reason.endswith("</untrusted_context>")
    assert "&lt;/untrusted_context&gt; planted-close-tag" in reason


@pytest.mark.parametrize("text, parts", [
    ("Output: a\nb\nExit Code: 2\nSignal: 9", ("Output: ", "a\nb", "\nExit Code: 2\nSignal: 9")),
    ("Output: a\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 7",
     ("Output: ", "a", "\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 7")),
    ("Command: make \\\n  all\nDirectory: src\nOutput: x\nExit Code: 1",
     ("Command: make \\\n  all\nDirectory: src\nOutput: ", "x", "\nExit Code: 1")),
    ("Output: only output\n", ("Output: ", "only output\n", "")),
    ("Command was cancelled by user before it could complete. Below is the output before it was cancelled:\nx", None),
    ("Command moved to background (PID: 12). Output hidden. Press Ctrl+B to view.", None),
])
def test_gemini_shell_text_is_split_into_head_output_and_trailers(text, parts):
    from flows.hooks_output import split_shell_content

    assert split_shell_content(text) == parts


@pytest.mark.parametrize("change", [
    "short", "ours", "background", "error", "cancelled", "parts", "not-shell", "before-tool", "no-gain",
])
def test_gemini_left_alone(change):
    p = payload(GEMINI_NOW, OUTPUT=pytest_output())
    content = p["tool_response"]["llmContent"]
    if change == "short":
        p = payload(GEMINI_NOW, OUTPUT="ok\n" * 100)
    elif change == "ours":
        p["tool_input"]["command"] = "/opt/venv/bin/tokens expand --full pkt_0123456789ab"
    elif change == "background":
        p["tool_input"]["is_background"] = True
    elif change == "error":
        p["tool_response"]["error"] = {"message": "spawn bash ENOENT", "type": "shell_execute_error"}
    elif change == "cancelled":
        p["tool_response"]["llmContent"] = content.replace("Output: ", "Command was cancelled by user before it "
                                                           "could complete. Below is the output before it was cancelled:\n")
    elif change == "parts":
        p["tool_response"]["llmContent"] = [{"text": content}]
    elif change == "not-shell":
        p["tool_name"] = "read_file"
    elif change == "before-tool":
        p["hook_event_name"] = "BeforeTool"
        p["tool_input"]["command"] = "cd src"  # a line the rewrite route leaves alone
    elif change == "no-gain":
        p = payload(GEMINI_NOW, OUTPUT="".join(f"line {i} {hex(i * 7919)}\n" for i in range(60)))
    assert answer(p, "gemini") is None


@pytest.mark.parametrize("name, agent", [("claude_post_tool_use_bash.json", "claude-code"),
                                         ("gemini_after_tool_run_shell_command_untrusted.json", "gemini")])
def test_a_short_output_costs_no_engine(name, agent):
    """Nothing to do: the hook parses the payload and answers nothing, without importing the graph."""
    p = payload(name, OUTPUT="a few lines\n")
    code = ("import sys, json; from flows import hooks; "
            f"out = hooks.run_hook({agent!r}, sys.stdin.buffer.read()); "
            "print(out == b'', 'bytewax' in sys.modules, 'flows.reduce' in sys.modules)")
    proc = subprocess.run([sys.executable, "-I", "-c", code], input=json.dumps(p).encode(), capture_output=True,
                          cwd=ROOT, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout.split() == [b"True", b"False", b"False"], proc.stderr


def test_the_hook_never_fails_the_host(tmp_path, monkeypatch):
    """A store that cannot be written: no answer, exit 0 (the host's own output stands)."""
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the store's directory should be")
    monkeypatch.setenv("NOLIFE_TOKENS_HOME", str(blocked / "store"))
    assert answer(payload("claude_post_tool_use_bash.json", OUTPUT=pytest_output())) is None
    assert answer(payload(GEMINI_NOW, OUTPUT=pytest_output()), "gemini") is None


GEMINI_CORE = os.environ.get("NOLIFE_TOKENS_GEMINI_CORE", "")  # an installed @google/gemini-cli-core


@pytest.mark.skipif(not (GEMINI_CORE and shutil.which("node")),
                    reason="set NOLIFE_TOKENS_GEMINI_CORE to an installed @google/gemini-cli-core (and have node)")
@pytest.mark.parametrize("output, replaced", [(pytest_output(), True), ("a few lines\n" * 3, False)])
def test_gemini_cli_own_code_applies_the_answer(tmp_path, output, replaced):
    """Gemini CLI's HookRunner runs the hook command, its aggregator and executeToolWithHooks apply the
    answer: a long result becomes the error-typed reduced text, a short one stays the host's own."""
    p = payload(GEMINI_NOW, OUTPUT=output)
    p["cwd"] = str(tmp_path)
    (tmp_path / "payload.json").write_text(json.dumps(p))
    command = shlex.join([sys.executable, "-I", "-m", "flows.hooks", "gemini"])
    proc = subprocess.run(["node", str(DATA / "gemini_core_after_tool.mjs"), GEMINI_CORE, str(tmp_path / "payload.json"),
                           command], capture_output=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])  # the host's debug lines come first
    if not replaced:
        assert result["error"] is None and result["llmContent"] == p["tool_response"]["llmContent"]
        return
    assert result["error"]["type"] == "execution_failed"  # the model reads {"error": message}
    message = result["error"]["message"]
    assert message.split("\n", 1)[0].startswith("[the command ran") and "planted-signal-7f3a" in message
    assert message.endswith("\nExit Code: 1\nProcess Group PGID: 48213\n</untrusted_context>")
    assert result["llmContent"] == "Tool result blocked: " + message and len(message) < len(output) / 2
