"""``tokens init``: installs (``--uninstall``: removes) the agent hook and a short note on markers.

    tokens init [--agent claude-code|codex|gemini] [--global|--project] [--show] [--uninstall]

For each agent it edits two files (``--global``, the default: under the user's home; ``--project``:
in the current directory):

=============  ====================================  ===============================  ============
agent          settings (hook)                       note                             hook event
=============  ====================================  ===============================  ============
claude-code    ~/.claude/settings.json               ~/.claude/CLAUDE.md              PreToolUse
               ./.claude/settings.json               ./CLAUDE.md                      (Bash)
codex          $CODEX_HOME/hooks.json (~/.codex)     $CODEX_HOME/AGENTS.md            PreToolUse
               ./.codex/hooks.json                   ./AGENTS.md                      (Bash)
gemini         ~/.gemini/settings.json               ~/.gemini/GEMINI.md              BeforeTool
               ./.gemini/settings.json               ./GEMINI.md                      (run_shell_command)
=============  ====================================  ===============================  ============

The hook is one matcher group of our own (other hooks are left alone) whose command is
``/abs/python -I -m flows.hooks AGENT`` (see ``flows.hooks``). The note sits between
``<!-- nolife-tokens:begin -->`` and ``<!-- nolife-tokens:end -->`` lines. Running init again
changes nothing (or replaces a stale hook command, e.g. after the venv moved).

Before the first change, the original bytes of each file (or the fact that it did not exist) are kept
in ``nolife-tokens-init/`` next to the settings file. ``--uninstall`` puts a file back byte for byte
when nobody changed it since (a file init created is removed again), and otherwise removes just our
group and our note. ``--show`` prints the change as a diff and writes nothing.

The home directory is ``$NOLIFE_TOKENS_INIT_HOME`` if set, else ``$HOME``. Every write goes to a temp
file in the same directory, then is renamed over the target; a symlinked file or directory is
refused, never written through.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import re
import shlex
import stat
import sys
import tempfile
from pathlib import Path

import msgspec

from operators.errors import UsageError

BEGIN = "<!-- nolife-tokens:begin (added by `tokens init`; `tokens init --uninstall` removes it) -->"
END = "<!-- nolife-tokens:end -->"
STATE_DIR = "nolife-tokens-init"
MANIFEST = "manifest.json"
HOOK_COMMAND = re.compile(r"(-m flows\.hooks|(^|[/'\"\s])tokens['\"]?\s+hook)\s+['\"]?(claude-code|codex|gemini)\b")


class Target(msgspec.Struct, frozen=True):
    """Where one agent keeps its hook and its notes, and the hook group we add."""

    agent: str
    settings: Path
    notes: Path
    event: str
    matcher: str
    entry: dict


class FileRecord(msgspec.Struct):
    """What init knows about a file it changed: did it exist, where are its original bytes."""

    existed: bool
    installed_sha256: str
    backup: str | None = None  # file name inside the state directory
    mode: int | None = None


class Manifest(msgspec.Struct):
    agent: str
    files: dict[str, FileRecord] = {}
    created_dirs: list[str] = []


class Change(msgspec.Struct):
    """One file's planned content: ``new is None`` removes it."""

    path: Path
    old: bytes | None
    new: bytes | None
    base: bytes | None = None  # the old content without our additions (a re-init after user edits)


# ------------------------------------------------------------------------------------------- places


def home_dir(environ=None) -> Path:
    env = os.environ if environ is None else environ
    home = env.get("NOLIFE_TOKENS_INIT_HOME") or env.get("HOME")
    if not home:
        raise UsageError("no home directory: set HOME (or NOLIFE_TOKENS_INIT_HOME)")
    return Path(home)


def hook_command(agent: str) -> str:
    from flows.hooks import hook_argv

    return shlex.join(hook_argv(agent))


def target(agent: str, scope: str, environ=None, cwd: Path | None = None) -> Target:
    env = os.environ if environ is None else environ
    home = home_dir(env)
    project = Path.cwd() if cwd is None else cwd
    command = hook_command(agent)
    if agent == "claude-code":
        base = project / ".claude" if scope == "project" else home / ".claude"
        notes = project / "CLAUDE.md" if scope == "project" else base / "CLAUDE.md"
        return Target(agent, base / "settings.json", notes, "PreToolUse", "Bash",
                      {"type": "command", "command": command})
    if agent == "codex":
        codex_home = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") and "NOLIFE_TOKENS_INIT_HOME" not in env \
            else home / ".codex"
        base = project / ".codex" if scope == "project" else codex_home
        notes = project / "AGENTS.md" if scope == "project" else base / "AGENTS.md"
        return Target(agent, base / "hooks.json", notes, "PreToolUse", "Bash",
                      {"type": "command", "command": command})
    base = project / ".gemini" if scope == "project" else home / ".gemini"
    notes = project / "GEMINI.md" if scope == "project" else base / "GEMINI.md"
    return Target(agent, base / "settings.json", notes, "BeforeTool", "run_shell_command",
                  {"name": "nolife-tokens", "type": "command", "command": command,
                   "description": "run shell commands through tokens run (reduced output, nothing lost)"})


def note_text() -> str:
    from flows.hooks import tokens_argv

    exe = shlex.join(tokens_argv())
    return "\n".join([
        BEGIN,
        "## Shell output is reduced by nolife-tokens",
        "",
        "Shell commands run through `tokens run`: you see a reduced copy of their output, the exit code is",
        "the command's own, and nothing is lost.",
        "",
        "- `#ref:ctx_…` marks bytes left out of the output. `tokens expand ctx_…` prints exactly those bytes;",
        "  `tokens show-ref ctx_…` adds where they came from.",
        "- `[folded N lines: …]` and `×N` count lines folded into one; the exact lines are behind the ref.",
        "- `tokens expand --full pkt_…` prints the whole original output, byte for byte.",
        "- `[command failed: exit code N]` comes first when the command failed.",
        "- `tokens …` commands themselves are never reduced. If `tokens` is not on PATH, use",
        f"  `{exe}`.",
        END,
        "",
    ])


# --------------------------------------------------------------------------------------- file access


def _refuse_links(path: Path) -> None:
    for p in (path, path.parent):
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(st.st_mode):
            raise UsageError(f"{p} is a symbolic link; tokens init does not write through links")
        if p == path and not stat.S_ISREG(st.st_mode):
            raise UsageError(f"{p} is not a regular file")


def read_bytes(path: Path) -> bytes | None:
    _refuse_links(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as f:
        return f.read()


def atomic_write(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to a temp file in the same directory, then rename it over ``path``."""
    _refuse_links(path)
    if mode is None:
        try:
            mode = stat.S_IMODE(os.lstat(path).st_mode)
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o644 & ~umask
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def make_dirs(path: Path) -> list[str]:
    """Create missing parents of ``path`` (refusing symlinks); the ones created, outermost first."""
    missing = []
    p = path
    while not os.path.lexists(p):
        missing.append(p)
        p = p.parent
    if os.path.islink(p) or not p.is_dir():
        raise UsageError(f"{p} is not a directory (or is a symbolic link)")
    for d in reversed(missing):
        os.mkdir(d)
    return [str(d) for d in reversed(missing)]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ------------------------------------------------------------------------------------------ contents


def _load_settings(path: Path, data: bytes | None) -> dict:
    if data is None or not data.strip():
        return {}
    try:
        obj = json.loads(data)
    except ValueError as exc:
        raise UsageError(f"{path} is not valid JSON ({exc}); fix it or move it away, then run init again") from None
    if not isinstance(obj, dict):
        raise UsageError(f"{path} does not hold a JSON object")
    return obj


def _dump(obj: dict) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode()


def _is_ours(entry: object) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("command"), str) and bool(HOOK_COMMAND.search(entry["command"]))


def _strip_ours(groups: list) -> list:
    """The event's groups without our entries; a group left empty by that is dropped."""
    kept = []
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            kept.append(group)
            continue
        entries = [e for e in group["hooks"] if not _is_ours(e)]
        if len(entries) == len(group["hooks"]):
            kept.append(group)
        elif entries:
            kept.append({**group, "hooks": entries})
    return kept


def settings_with_hook(t: Target, data: bytes | None) -> bytes | None:
    """The settings with our group (``None``: already there, nothing to change)."""
    obj = _load_settings(t.settings, data)
    hooks = obj.get("hooks", {})
    if not isinstance(hooks, dict) or not isinstance(hooks.get(t.event, []), list):
        raise UsageError(f"{t.settings}: 'hooks' / 'hooks.{t.event}' has an unexpected shape; not editing it")
    groups = hooks.get(t.event, [])
    ours = {"matcher": t.matcher, "hooks": [t.entry]}
    if ours in groups and sum(_is_ours(e) for g in groups if isinstance(g, dict) for e in g.get("hooks", [])) == 1:
        return None
    obj = {**obj, "hooks": {**hooks, t.event: _strip_ours(groups) + [ours]}}
    return _dump(obj)


def settings_without_hook(t: Target, data: bytes) -> bytes:
    obj = _load_settings(t.settings, data)
    hooks = obj.get("hooks")
    if not isinstance(hooks, dict):
        return data
    new_hooks = {}
    for event, groups in hooks.items():
        if isinstance(groups, list):
            groups = _strip_ours(groups)
            if not groups:
                continue
        new_hooks[event] = groups
    if new_hooks == hooks:
        return data
    obj = {**obj, "hooks": new_hooks} if new_hooks else {k: v for k, v in obj.items() if k != "hooks"}
    return _dump(obj)


_BLOCK = re.compile(re.escape("<!-- nolife-tokens:begin").encode() + rb"[^\n]*\n.*?" + re.escape(END.encode()) + rb"\n?",
                    re.S)


def notes_with_block(data: bytes | None) -> bytes | None:
    block = note_text().encode()
    text = data or b""
    m = _BLOCK.search(text)
    if m:
        return None if m.group() == block else text[:m.start()] + block + text[m.end():]
    if not text:
        return block
    return text + (b"" if text.endswith(b"\n") else b"\n") + b"\n" + block


def notes_without_block(data: bytes) -> bytes:
    m = _BLOCK.search(data)
    if not m:
        return data
    head = data[:m.start()]
    if head.endswith(b"\n\n"):
        head = head[:-1]
    return head + data[m.end():]


# ------------------------------------------------------------------------------------------ planning


def _state_dir(t: Target) -> Path:
    return t.settings.parent / STATE_DIR


def read_manifest(t: Target) -> Manifest | None:
    data = read_bytes(_state_dir(t) / MANIFEST) if os.path.isdir(_state_dir(t)) else None
    if data is None:
        return None
    try:
        return msgspec.json.decode(data, type=Manifest)
    except msgspec.DecodeError:
        raise UsageError(f"{_state_dir(t) / MANIFEST} is damaged; remove it to start over") from None


def plan_install(t: Target) -> list[Change]:
    changes = []
    for path, make, strip in ((t.settings, lambda d: settings_with_hook(t, d), lambda d: settings_without_hook(t, d)),
                              (t.notes, notes_with_block, notes_without_block)):
        old = read_bytes(path)
        new = make(old)
        if new is not None and new != old:
            changes.append(Change(path, old, new, None if old is None else strip(old)))
    return changes


def plan_uninstall(t: Target, manifest: Manifest | None) -> list[Change]:
    changes = []
    for path, strip in ((t.settings, lambda d: settings_without_hook(t, d)), (t.notes, notes_without_block)):
        old = read_bytes(path)
        record = manifest.files.get(str(path)) if manifest else None
        if record is not None and old is not None and _sha(old) == record.installed_sha256:
            new = _backup_bytes(t, record) if record.existed else None
        elif old is None:
            continue
        else:
            new = strip(old)
            if record is not None and not record.existed and not _has_content(path, new, t):
                new = None
        if new != old:
            changes.append(Change(path, old, new))
    return changes


def _has_content(path: Path, data: bytes, t: Target) -> bool:
    if path == t.settings:
        return _load_settings(path, data) != {}
    return bool(data.strip())


def _backup_bytes(t: Target, record: FileRecord) -> bytes:
    data = read_bytes(_state_dir(t) / record.backup) if record.backup else None
    if data is None:
        raise UsageError(f"the backup of a file is missing from {_state_dir(t)}; not restoring")
    return data


# ------------------------------------------------------------------------------------------ applying


def install(t: Target, changes: list[Change]) -> None:
    manifest = read_manifest(t) or Manifest(agent=t.agent)
    state = _state_dir(t)
    created = make_dirs(state)
    manifest.created_dirs = manifest.created_dirs or created[:-1]
    for change in changes:
        created = make_dirs(change.path.parent)
        manifest.created_dirs += [d for d in created if d not in manifest.created_dirs]
        record = manifest.files.get(str(change.path))
        if record is None:
            record = FileRecord(existed=change.old is not None, installed_sha256="")
            if change.old is not None:
                record.backup = change.path.name + ".orig"
                record.mode = stat.S_IMODE(os.lstat(change.path).st_mode)
                atomic_write(state / record.backup, change.old, 0o600)
            manifest.files[str(change.path)] = record
        elif change.old is not None and _sha(change.old) != record.installed_sha256:
            # changed by someone since the last init: that (without our additions) is the new original
            record.existed, record.backup = True, change.path.name + ".orig"
            record.mode = stat.S_IMODE(os.lstat(change.path).st_mode)
            atomic_write(state / record.backup, change.base, 0o600)
        atomic_write(change.path, change.new)
        record.installed_sha256 = _sha(change.new)
    atomic_write(state / MANIFEST, msgspec.json.encode(manifest) + b"\n", 0o600)


def uninstall(t: Target, changes: list[Change], manifest: Manifest | None) -> None:
    for change in changes:
        record = manifest.files.get(str(change.path)) if manifest else None
        if change.new is None:
            _refuse_links(change.path)
            os.unlink(change.path)
        else:
            atomic_write(change.path, change.new, record.mode if record and record.existed else None)
    state = _state_dir(t)
    if manifest is not None:
        for record in manifest.files.values():
            if record.backup:
                _remove(state / record.backup)
        _remove(state / MANIFEST)
        _rmdir(state)
        for d in reversed(manifest.created_dirs):
            _rmdir(Path(d))


def _remove(path: Path) -> None:
    try:
        if not os.path.islink(path):
            os.unlink(path)
    except FileNotFoundError:
        pass


def _rmdir(path: Path) -> None:
    try:
        os.rmdir(path)  # only when empty
    except OSError:
        pass


# ------------------------------------------------------------------------------------------ command


def _show(changes: list[Change], out) -> None:
    for change in changes:
        old = (change.old or b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = (change.new or b"").decode("utf-8", "replace").splitlines(keepends=True)
        before = str(change.path) if change.old is not None else "/dev/null"
        after = str(change.path) if change.new is not None else "/dev/null"
        out.writelines(difflib.unified_diff(old, new, before, after))
        if new and not new[-1].endswith("\n"):
            out.write("\n")


def cmd_init(args: argparse.Namespace, config) -> int:
    t = target(args.agent, args.scope)
    manifest = read_manifest(t) if args.uninstall else None
    changes = plan_uninstall(t, manifest) if args.uninstall else plan_install(t)
    out = sys.stdout
    verb = "uninstall" if args.uninstall else "install"
    if args.show:
        out.write(f"tokens init{' --uninstall' if args.uninstall else ''} --show: {t.agent} ({args.scope}); "
                  f"{len(changes)} file(s) would change, nothing written\n")
        _show(changes, out)
        return 0
    if args.uninstall:
        uninstall(t, changes, manifest)
    elif changes:
        install(t, changes)
    for change in changes:
        what = "removed" if change.new is None else "created" if change.old is None else "updated"
        out.write(f"{what:8} {change.path}\n")
    if not changes:
        out.write(f"nothing to {verb}: {t.agent} ({args.scope}) is {'not ' if args.uninstall else ''}installed\n")
    elif not args.uninstall:
        out.write(f"hook: {t.event} on {t.matcher} runs {t.entry['command']}\n")
    out.flush()
    return 0
