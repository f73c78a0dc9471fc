"""``tokens init``: installs (``--uninstall``: removes) the agent hook and a short note on markers.

    tokens init [--agent claude-code|codex|gemini] [--global|--project] [--route output|rewrite]
                [--show] [--uninstall]

For each agent it edits two files (``--global``, the default: under the user's home; ``--project``:
in the current directory):

=============  ====================================  ===============================  ==================
agent          settings (hook)                       note                             hook event
=============  ====================================  ===============================  ==================
claude-code    ~/.claude/settings.json               ~/.claude/CLAUDE.md              PostToolUse (Bash);
               ./.claude/settings.json               ./CLAUDE.md                      --route rewrite:
                                                                                      PreToolUse
codex          $CODEX_HOME/hooks.json (~/.codex)     $CODEX_HOME/AGENTS.md            PreToolUse
               ./.codex/hooks.json                   ./AGENTS.md                      (Bash)
gemini         ~/.gemini/settings.json               ~/.gemini/GEMINI.md              BeforeTool
               ./.gemini/settings.json               ./GEMINI.md                      (run_shell_command);
                                                                                      --route output:
                                                                                      AfterTool
=============  ====================================  ===============================  ==================

Routes (``flows.hooks``): Claude Code can replace a tool's output after it ran, so the default there
is the output route (the command runs untouched, its output is reduced); Gemini CLI can only hide the
output and send the reduced text as the reason of a failed call, so its output route is installed on
request (``--route output``); Gemini CLI by default and Codex get the rewrite route (safe lines only,
under ``tokens run``).

The hook is one matcher group of our own (other hooks are left alone; our group in any other event is
removed, so switching routes never leaves both). Its command is ``/abs/python -I -m flows.hooks AGENT``
for ``--global`` (this machine's settings) and ``tokens hook AGENT`` for ``--project`` (a file a team
commits: no path of this machine, ``tokens`` found on each user's PATH); init prints the steps each
host needs by hand. The note sits between ``<!-- nolife-tokens:begin -->`` and
``<!-- nolife-tokens:end -->`` lines. Running init again changes nothing.

Settings are read and written by ``flows.jsonkeep``: every value init does not change is written back
as read (``1e400`` stays ``1e400``, big integers, strings, repeated keys, key order). Each edit is made
under an exclusive ``flock`` on the settings file's directory (concurrent inits wait their turn),
written to a temp file and renamed over the target, then read back and checked before init reports it.
Before the first change, the original bytes of each file (or the fact that it did not exist) are kept
in ``nolife-tokens-init/`` next to the settings file. ``--uninstall`` puts a file back byte for byte
when nobody changed it since (a file init created is removed again), and otherwise removes just our
group and our note. ``--show`` prints the change as a diff and writes nothing.

The home directory is ``$NOLIFE_TOKENS_INIT_HOME`` if set, else ``$HOME``. A symlinked file or
directory is refused, never written through.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import fcntl
import os
import re
import shlex
import stat
import sys
import tempfile
from pathlib import Path

import msgspec

from flows import jsonkeep
from flows.jsonkeep import Obj
from operators.errors import UsageError
from operators.digest import sha256_hex

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
    scope: str = "global"


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


def hook_command(agent: str, scope: str = "global") -> str:
    """The hook's command line: for ``--global`` (this machine's settings) the absolute interpreter
    with ``-I -m flows.hooks AGENT``; for ``--project`` (a file a team commits) ``tokens hook AGENT``,
    found on each user's PATH, with no path of this machine in it."""
    if scope == "project":
        return f"tokens hook {agent}"
    from flows.hooks import hook_argv

    return shlex.join(hook_argv(agent))


ROUTES = ("output", "rewrite")
OUTPUT_EVENTS = ("PostToolUse", "AfterTool")  # the events of the output route (flows.hooks.OUTPUT_EVENTS)
GEMINI_OUTPUT_NOTE = ("- A reduced shell result reaches you as a tool error starting with `[the command ran; …]`:",
                      "  the command did run, and its `Exit Code:` line says how it ended (0 when there is none).")


def route_of(agent: str, route: str | None) -> str:
    """The route installed: Claude Code (``PostToolUse``) replaces a tool's output after it ran, the
    default there; Gemini CLI (``AfterTool``) can only hide it and send the reduced text as a failed
    call's reason, so its output route is installed on request (``--route output``) and the rewrite
    route is its default; Codex cannot (see docs/agents.md), so it gets the rewrite route."""
    if agent == "codex":
        if route == "output":
            raise UsageError(f"{agent} cannot replace a tool's output after it ran; use the rewrite route")
        return "rewrite"
    if agent == "gemini":  # its output route reaches the model as a failed tool call: on request only
        return route or "rewrite"
    return route or "output"


def target(agent: str, scope: str, environ=None, cwd: Path | None = None, route: str | None = None) -> Target:
    env = os.environ if environ is None else environ
    home = home_dir(env)
    project = Path.cwd() if cwd is None else cwd
    command = hook_command(agent, scope)
    route = route_of(agent, route)
    if agent == "claude-code":
        base = project / ".claude" if scope == "project" else home / ".claude"
        notes = project / "CLAUDE.md" if scope == "project" else base / "CLAUDE.md"
        event = "PostToolUse" if route == "output" else "PreToolUse"
        return Target(agent, base / "settings.json", notes, event, "Bash",
                      {"type": "command", "command": command}, scope)
    if agent == "codex":
        codex_home = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") and "NOLIFE_TOKENS_INIT_HOME" not in env \
            else home / ".codex"
        base = project / ".codex" if scope == "project" else codex_home
        notes = project / "AGENTS.md" if scope == "project" else base / "AGENTS.md"
        return Target(agent, base / "hooks.json", notes, "PreToolUse", "Bash",
                      {"type": "command", "command": command}, scope)
    base = project / ".gemini" if scope == "project" else home / ".gemini"
    notes = project / "GEMINI.md" if scope == "project" else base / "GEMINI.md"
    what = "reduce long shell outputs" if route == "output" else "run shell commands through tokens run"
    return Target(agent, base / "settings.json", notes, "AfterTool" if route == "output" else "BeforeTool",
                  "run_shell_command", {"name": "nolife-tokens", "type": "command", "command": command,
                                        "description": f"{what} (reduced output, nothing lost)"}, scope)


def note_text(scope: str = "global", event: str = "") -> str:
    """The note on markers; for ``--project`` (a committed file) it names no path of this machine:
    the hint lines of each output name the command that works there. Gemini CLI's output route
    (``AfterTool``) delivers a reduced result as a tool error: the note says so."""
    from operators.launcher import tokens_command

    where = ("- Each output's last line names the exact command to read more (`tokens`, or its full path",
             "  when `tokens` is not on PATH).") if scope == "project" else \
        ("- `tokens …` commands themselves are never reduced. If `tokens` is not on PATH, use",
         f"  `{tokens_command('')}`.")
    return "\n".join([
        BEGIN,
        "## Shell output is reduced by nolife-tokens",
        "",
        "Long shell outputs reach you reduced: the exit code is the command's own, and nothing is lost.",
        "",
        "- `#ref:ctx_…` marks bytes left out of the output. `tokens expand ctx_…` prints exactly those bytes;",
        "  `tokens show-ref ctx_…` adds where they came from.",
        "- `[folded N lines: …]` and `×N` count lines folded into one; the exact lines are behind the ref.",
        "- `tokens expand --full pkt_…` prints the whole original output, byte for byte.",
        "- `[command failed: exit code N]` comes first when the command failed.",
        *(GEMINI_OUTPUT_NOTE if event == "AfterTool" else ()),
        *where,
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
    created = []
    for d in reversed(missing):
        try:
            os.mkdir(d)
            created.append(str(d))
        except FileExistsError:  # made at the same moment by another init
            if os.path.islink(d) or not os.path.isdir(d):
                raise UsageError(f"{d} is not a directory (or is a symbolic link)") from None
    return created


@contextlib.contextmanager
def locked(directory: Path):
    """Hold an exclusive ``flock`` on ``directory`` (the settings file's own directory, made if
    missing; yields the directories made): every ``tokens init`` that edits a file there waits its
    turn, and no lock file is left."""
    created = make_dirs(directory)
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield created
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def edit_file(path: Path, transform) -> bytes | None:
    """Apply ``transform(old bytes or None) -> new bytes or None`` to ``path`` under the directory's
    lock, write atomically, read back and check; returns what is now in the file."""
    with locked(path.parent):
        old = read_bytes(path)
        new = transform(old)
        if new is None or new == old:
            return old
        atomic_write(path, new)
        verify(path, new)
        return new


def verify(path: Path, expected: bytes) -> None:
    """Read ``path`` back: it must hold exactly ``expected`` (and a settings file must parse)."""
    got = read_bytes(path)
    if got != expected:
        raise UsageError(f"{path} does not hold what was written (changed at the same moment?); run init again")
    if path.suffix == ".json":
        _load_settings(path, got)


def _sha(data: bytes) -> str:
    return sha256_hex(data)


# ------------------------------------------------------------------------------------------ contents


def _load_settings(path: Path, data: bytes | None) -> Obj:
    """The settings as read (``flows.jsonkeep``: every number, string and key order kept)."""
    if data is None or not data.strip():
        return Obj()
    try:
        obj = jsonkeep.loads(data)
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"{path} is not valid JSON ({exc}); fix it or move it away, then run init again") from None
    if not isinstance(obj, Obj):
        raise UsageError(f"{path} does not hold a JSON object")
    return obj


def _dump(obj: Obj) -> bytes:
    return (jsonkeep.dumps(obj) + "\n").encode("utf-8", "surrogatepass")


def _is_ours(entry: object) -> bool:
    return isinstance(entry, Obj) and isinstance(entry.get("command"), str) and bool(HOOK_COMMAND.search(entry.get("command")))


def _strip_ours(groups: list) -> list:
    """The event's groups without our entries; a group left empty by that is dropped."""
    kept = []
    for group in groups:
        entries = group.get("hooks") if isinstance(group, Obj) else None
        if not isinstance(entries, list) or isinstance(entries, Obj):
            kept.append(group)
            continue
        mine = [e for e in entries if not _is_ours(e)]
        if len(mine) == len(entries):
            kept.append(group)
        elif mine:
            copy = Obj(group)
            copy.set("hooks", mine)
            kept.append(copy)
    return kept


def _hooks_of(t: Target, obj: Obj) -> Obj:
    hooks = obj.get("hooks", Obj())
    if not isinstance(hooks, Obj) or any(not isinstance(g, list) or isinstance(g, Obj) for _, g in hooks):
        raise UsageError(f"{t.settings}: 'hooks' has an unexpected shape; not editing it")
    return hooks


def _without_ours(hooks: Obj) -> Obj:
    """Every event's groups without our entries; an event left with no group is dropped."""
    out = Obj()
    for event, groups in hooks:
        kept = _strip_ours(groups)
        if kept or not groups:
            out.append((event, kept))
    return out


def _our_group(t: Target) -> Obj:
    return Obj([("matcher", t.matcher), ("hooks", [Obj(t.entry.items())])])


def settings_with_hook(t: Target, data: bytes | None) -> bytes | None:
    """The settings with our group in its event and nowhere else (``None``: already so)."""
    obj = _load_settings(t.settings, data)
    hooks = _hooks_of(t, obj)
    new_hooks = _without_ours(hooks)
    if new_hooks.has(t.event):
        new_hooks.set(t.event, new_hooks.get(t.event) + [_our_group(t)])
    else:
        new_hooks.append((t.event, [_our_group(t)]))
    if jsonkeep.plain(new_hooks) == jsonkeep.plain(hooks) and obj.has("hooks"):
        return None
    obj.set("hooks", new_hooks)
    return _dump(obj)


def settings_without_hook(t: Target, data: bytes) -> bytes:
    obj = _load_settings(t.settings, data)
    hooks = obj.get("hooks")
    if not isinstance(hooks, Obj):
        return data
    new_hooks = Obj()
    for event, groups in hooks:
        if isinstance(groups, list) and not isinstance(groups, Obj):
            groups = _strip_ours(groups)
            if not groups:
                continue
        new_hooks.append((event, groups))
    if jsonkeep.plain(new_hooks) == jsonkeep.plain(hooks):
        return data
    if new_hooks:
        obj.set("hooks", new_hooks)
    else:
        obj.drop("hooks")
    return _dump(obj)


_BLOCK = re.compile(re.escape("<!-- nolife-tokens:begin").encode() + rb"[^\n]*\n.*?" + re.escape(END.encode()) + rb"\n?",
                    re.S)


def notes_with_block(data: bytes | None, scope: str = "global", event: str = "") -> bytes | None:
    block = note_text(scope, event).encode()
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
                              (t.notes, lambda d: notes_with_block(d, t.scope, t.event), notes_without_block)):
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
        return len(_load_settings(path, data)) > 0
    return bool(data.strip())


def _backup_bytes(t: Target, record: FileRecord) -> bytes:
    data = read_bytes(_state_dir(t) / record.backup) if record.backup else None
    if data is None:
        raise UsageError(f"the backup of a file is missing from {_state_dir(t)}; not restoring")
    return data


# ------------------------------------------------------------------------------------------ applying


def install(t: Target, changes: list[Change], made: list[str] | None = None) -> None:
    """Write the planned changes (the caller holds ``locked(t.settings.parent)``, which made ``made``)."""
    manifest = read_manifest(t) or Manifest(agent=t.agent)
    state = _state_dir(t)
    created = make_dirs(state)
    manifest.created_dirs = manifest.created_dirs or (made or []) + created[:-1]
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
        verify(change.path, change.new)
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


def _apply(t: Target, args: argparse.Namespace) -> list[Change]:
    """Plan and write under the settings directory's lock (nothing is locked or made for an
    uninstall where there is nothing)."""
    if args.uninstall and not t.settings.parent.is_dir():
        changes = plan_uninstall(t, None)
        uninstall(t, changes, None)
        return changes
    with locked(t.settings.parent) as made:
        if args.uninstall:
            manifest = read_manifest(t)
            changes = plan_uninstall(t, manifest)
            uninstall(t, changes, manifest)
        else:
            changes = plan_install(t)
            if changes:
                install(t, changes, made)
            else:
                for d in reversed(made):
                    _rmdir(Path(d))
    return changes


MANUAL = {
    "claude-code": ["review the hook once in Claude Code: /hooks (hooks from a project's .claude/settings.json "
                    "run once you trust the project)"],
    "codex": ["Codex runs hooks from 0.124.0 on; open /hooks once to review and trust the new hook "
              "(project hooks load only in a trusted project)"],
    "gemini": ["hooks run by default from Gemini CLI 0.26.0 (0.24-0.25: /settings -> Enable Hooks System); "
               "the /hooks panel lists nolife-tokens",
               "project hooks run once you trust them for this project"],
}


def _steps(t: Target) -> list[str]:
    from operators.launcher import launcher_argv, on_path

    steps = list(MANUAL[t.agent])
    if t.scope == "project":
        steps.insert(0, "the hook runs `tokens` from PATH: each user of this project installs nolife-tokens and "
                        "puts `tokens` on PATH")
        if not on_path():
            steps.insert(1, f"`tokens` is not on PATH here: e.g. ln -s {shlex.quote(launcher_argv()[0])} "
                            "~/.local/bin/tokens (with ~/.local/bin on PATH)")
    return steps


def init_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--agent", choices=["claude-code", "codex", "gemini"], default="claude-code")
    scope = p.add_mutually_exclusive_group()
    scope.add_argument("--global", dest="scope", action="store_const", const="global", help="user settings (default)")
    scope.add_argument("--project", dest="scope", action="store_const", const="project",
                       help="settings in the current directory")
    p.add_argument("--show", action="store_true", help="print what would change; change nothing")
    p.add_argument("--uninstall", action="store_true", help="remove exactly what init added")
    p.add_argument("--route", choices=["output", "rewrite"], default=None,
                   help="claude-code: reduce the output after the command ran (default) or rewrite the command; gemini: rewrite (default) or output (reaches the model as a failed call)")
    p.set_defaults(func=cmd_init, scope="global")


def cmd_init(args: argparse.Namespace, config) -> int:
    t = target(args.agent, args.scope, route=getattr(args, "route", None))
    out = sys.stdout
    verb = "uninstall" if args.uninstall else "install"
    if args.show:
        manifest = read_manifest(t) if args.uninstall else None
        changes = plan_uninstall(t, manifest) if args.uninstall else plan_install(t)
        out.write(f"tokens init{' --uninstall' if args.uninstall else ''} --show: {t.agent} ({args.scope}); "
                  f"{len(changes)} file(s) would change, nothing written\n")
        _show(changes, out)
        return 0
    changes = _apply(t, args)
    for change in changes:
        what = "removed" if change.new is None else "created" if change.old is None else "updated"
        out.write(f"{what:8} {change.path}\n")
    if not changes:
        out.write(f"nothing to {verb}: {t.agent} ({args.scope}) is {'not ' if args.uninstall else ''}installed\n")
    if not args.uninstall:
        route = "output (the command runs untouched; its output is reduced)" if t.event in OUTPUT_EVENTS else \
            "rewrite (safe lines run under tokens run)"
        out.write(f"hook: {t.event} on {t.matcher} runs {t.entry['command']}; route: {route}\n")
        for step in _steps(t):
            out.write(f"next: {step}\n")
    out.flush()
    return 0
