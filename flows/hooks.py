"""Agent hooks: ``tokens hook claude-code|codex|gemini`` speaks each host's hook protocol.

Two routes (``tokens init`` installs one; docs/agents.md records each shape and where it was read):

* **Output route** (``flows.hooks_output``), the default where the host can replace a tool's output
  after it ran: Claude Code ``PostToolUse`` on ``Bash`` → ``updatedToolOutput`` in the Bash tool's own
  shape; Gemini CLI ``AfterTool`` on ``run_shell_command`` → ``"decision": "deny"`` with the reduced
  result as ``reason`` (the text the host sends the model instead). The command runs untouched; its
  output goes through the graph and the store.
* **Rewrite route** (this module), where the output cannot be replaced (Codex; Claude Code and Gemini
  CLI only with ``init --route rewrite``): before the host runs a line, the hook answers with the line
  wrapped whole in ``tokens run -- SHELL -c 'LINE'`` (the user's shell: bash or zsh from ``$SHELL``;
  bash for Gemini CLI, which runs lines under bash), or ``tokens run -- PROGRAM ARGS`` for one plain
  command that nothing expands. It is never split.

The rewrite shapes: Claude Code and Codex ``{"hookSpecificOutput": {"hookEventName": "PreToolUse",
"permissionDecision": "allow", "updatedInput": {…}}}`` (Codex applies ``updatedInput`` only with
``allow``; Claude Code would check its permission rules against the rewritten line, so there a line
is rewritten only when the user's allow rules allow the original, see ``flows.hooks_rules``); Gemini
CLI ``{"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": …}}}``.

A line is left alone (no answer, exit 0) when a rewrite could change what it does or escape a rule:
a command that changes the agent's shell (``cd``, ``export``, ``FOO=1`` alone, ``source``/``.``,
``set``, ``umask``, ``alias``, ``unset``, ``pushd``/``popd``, ``read``, ``trap``, ``exit`` … every
builtin but ``echo``, ``printf``, ``test``, ``[``, ``:``, ``true``, ``false``, ``pwd``, ``type``), a
function definition, ``time`` and ``exec``; interactive or never-ending programs (editors, pagers,
``top``, ``ssh``, bare REPLs, ``tail -f``, ``docker run -it``, ``git commit`` without a message,
``git add -p``, ``git rebase -i``, dev servers such as ``npm run dev``, ``sudo`` without ``-n``, and
every name in ``--skip``/``$NOLIFE_TOKENS_HOOK_SKIP``); heredocs, output redirected to a file,
background jobs; programs not found on PATH (an alias or function of the agent's shell); our own
commands; lines over ``LINE_MAX`` characters; anything not understood; and any line a host rule
denies or asks about. ``NOLIFE_TOKENS_HOOK_OFF=1`` turns the hook off. The line is data: it is only
ever quoted with ``shlex``, never evaluated here.

``tokens`` is called by an absolute path (``operators.launcher``). ``python -I -m flows.hooks AGENT``
(the form ``init --global`` installs) and ``tokens hook AGENT`` (``init --project``) read no config
and always exit 0: a hook that fails never blocks the host.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys

AGENT_NAMES = ("claude-code", "codex", "gemini")


class _Record:
    """A small value record (fields and defaults in ``_fields``), cheaper to import than a library's:
    the hook starts for every command the host runs."""

    _fields: tuple = ()

    def __init__(self, *args, **kwargs):
        values = dict(self._fields)
        values.update(zip((name for name, _ in self._fields), args))
        values.update(kwargs)
        for name, _ in self._fields:
            setattr(self, name, values[name])

    def replace(self, **changes):
        return type(self)(**{**{name: getattr(self, name) for name, _ in self._fields}, **changes})

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and all(getattr(self, n) == getattr(other, n) for n, _ in self._fields)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n, _ in self._fields)})"


class Agent(_Record):
    """One agent's pre-tool hook protocol: ``event`` (hook_event_name of the payload), ``tool``
    (tool_name of the shell tool), ``background_key`` (tool_input flag that runs it in the background)."""

    _fields = (("event", ""), ("tool", ""), ("background_key", None))


# the output route's event of each host that can replace (or hide and replace) a tool's result
OUTPUT_EVENTS = {"PostToolUse": "claude-code", "AfterTool": "gemini"}

PROTOCOLS = {
    "claude-code": Agent(event="PreToolUse", tool="Bash", background_key="run_in_background"),
    "codex": Agent(event="PreToolUse", tool="Bash", background_key=None),
    "gemini": Agent(event="BeforeTool", tool="run_shell_command", background_key="is_background"),
}

# programs that need a terminal or never end: their output must reach the agent as it is
INTERACTIVE = frozenset({
    "vi", "vim", "nvim", "view", "vimdiff", "nano", "pico", "emacs", "ed", "micro", "joe", "helix", "hx",
    "less", "more", "most", "man", "info", "top", "htop", "btop", "atop", "iotop", "nmon", "glances",
    "watch", "ssh", "mosh", "telnet", "ftp", "sftp", "nc", "ncat", "tmux", "screen", "byobu", "fzf",
    "ncdu", "ranger", "nnn", "mc", "tig", "lazygit", "gitui", "k9s", "gdb", "lldb", "pdb", "passwd",
    "su", "login", "crontab", "visudo", "vipw", "script", "expect", "dialog", "whiptail", "yes",
})
REPLS = frozenset({"python", "python3", "ipython", "bpython", "node", "deno", "bun", "irb", "pry", "ghci",
                   "R", "julia", "lua", "sqlite3", "psql", "mysql", "mongo", "mongosh", "redis-cli",
                   "bash", "sh", "zsh", "fish", "dash", "ksh", "php", "perl", "scala", "clojure", "erl", "iex"})
FOLLOWERS = frozenset({"kubectl", "docker", "podman", "nerdctl", "oc"})  # their `logs -f` never ends
TTY_RUNNERS = frozenset({"docker", "podman", "kubectl", "oc", "nerdctl"})  # -it/-t wants a terminal
WRAPPERS = frozenset({"sudo", "doas", "env", "time", "nice", "nohup", "command", "builtin", "stdbuf", "ionice",
                      "timeout", "exec", "chronic", "caffeinate"})
KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "in", "case",
                      "esac", "select", "function", "{", "}", "!", "[[", "]]", "coproc"})
BUILTINS = frozenset({
    ".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command", "compgen", "complete",
    "continue", "declare", "dirs", "disown", "echo", "enable", "eval", "exec", "exit", "export", "false", "fc",
    "fg", "getopts", "hash", "help", "history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd",
    "printf", "pushd", "pwd", "read", "readarray", "readonly", "return", "set", "shift", "shopt", "source",
    "suspend", "test", "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait",
})
DIR_CHANGERS = frozenset({"cd", "pushd", "popd"})
# builtins that only print or test: every other builtin may change the agent's shell (cd, export, set,
# source, alias, umask, read, jobs …) and a line holding one is left alone
PURE_BUILTINS = frozenset({"echo", "printf", "test", "[", ":", "true", "false", "pwd", "type"})
SERVERS = {"npm": ("dev", "start", "serve", "watch"), "yarn": ("dev", "start", "serve", "watch"),
           "pnpm": ("dev", "start", "serve", "watch"), "bun": ("dev", "start"), "next": ("dev", "start"),
           "vite": ("", "dev", "serve", "preview"), "rails": ("s", "server"), "flask": ("run",)}
LINE_MAX = 64 * 1024  # characters: a longer command line is left alone (the hook stays linear and fast)
NULL_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})

_OPS = ("&&", "||", ";;", "|&", ";", "|", "&", "\n")
_REDIR = re.compile(r"\d*(?:<<<|<<-|<<|<>|<&|>&|>>|>\||&>>|&>|<|>)")
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_WORD_STOP = set(" \t\n;&|()<>")
_GLOB = set("*?[]{}~")


class Tok:
    """One token of a shell command line: its kind (word, op, redir, paren), its raw text, where it
    is, and whether the shell would expand it ($, `, globs, ~, braces)."""

    __slots__ = ("kind", "text", "start", "end", "special")

    def __init__(self, kind: str, text: str, start: int, end: int, special: bool = False):
        self.kind, self.text, self.start, self.end, self.special = kind, text, start, end, special

    def __repr__(self) -> str:
        return f"Tok({self.kind!r}, {self.text!r}, {self.start}, {self.end}, {self.special})"


class Unparsed(Exception):
    """The command line is not one this module understands: leave it alone."""


# ---------------------------------------------------------------------------------------- scanning


def _skip_quoted(cmd: str, i: int, quote: str) -> tuple[int, bool]:
    """Index after the quoted run starting at ``cmd[i] == quote``, and whether it expands."""
    if quote == "'":
        j = cmd.find("'", i + 1)
        if j < 0:
            raise Unparsed("unterminated quote")
        return j + 1, False
    special = False
    j = i + 1
    while j < len(cmd):
        c = cmd[j]
        if c == "\\":
            j += 2
            special = True
            continue
        if c == '"':
            return j + 1, special
        if c == "`":
            j, _ = _skip_backtick(cmd, j)
            special = True
            continue
        if c == "$":
            j, _ = _skip_dollar(cmd, j)
            special = True
            continue
        j += 1
    raise Unparsed("unterminated quote")


def _skip_backtick(cmd: str, i: int) -> tuple[int, bool]:
    j = i + 1
    while j < len(cmd):
        if cmd[j] == "\\":
            j += 2
            continue
        if cmd[j] == "`":
            return j + 1, True
        j += 1
    raise Unparsed("unterminated backtick")


def _skip_dollar(cmd: str, i: int) -> tuple[int, bool]:
    """Index after ``$…`` starting at ``cmd[i] == '$'`` (``$(…)``, ``$((…))``, ``${…}``, ``$NAME``)."""
    nxt = cmd[i + 1:i + 2]
    if nxt == "(":
        return _skip_group(cmd, i + 1, "(", ")"), True
    if nxt == "{":
        return _skip_group(cmd, i + 1, "{", "}"), True
    return i + 1, True


def _skip_group(cmd: str, i: int, open_: str, close: str) -> int:
    """Index after the group opened at ``cmd[i] == open_``, nested groups and quotes included."""
    depth = 0
    j = i
    while j < len(cmd):
        c = cmd[j]
        if c == "\\":
            j += 2
            continue
        if c in "'\"":
            j, _ = _skip_quoted(cmd, j, c)
            continue
        if c == "`":
            j, _ = _skip_backtick(cmd, j)
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    raise Unparsed("unterminated group")


def _word(cmd: str, i: int) -> tuple[int, bool]:
    """End of the word starting at ``i`` and whether the shell would expand any of it."""
    special = False
    j = i
    while j < len(cmd) and cmd[j] not in _WORD_STOP:
        c = cmd[j]
        if c == "\\":
            if j + 1 >= len(cmd):
                raise Unparsed("trailing backslash")
            special = True  # escapes differ between shlex and bash (e.g. "\\$"): bash reads them
            j += 2
        elif c in "'\"":
            j, expands = _skip_quoted(cmd, j, c)
            special |= expands
        elif c == "`":
            j, special = _skip_backtick(cmd, j)[0], True
        elif c == "$":
            j, special = _skip_dollar(cmd, j)[0], True
        else:
            special |= c in _GLOB
            j += 1
    return j, special


def scan(cmd: str) -> list[Tok]:
    """The tokens of a shell command line; raises ``Unparsed`` for what it does not understand
    (an unterminated quote, a comment, a NUL byte)."""
    if "\0" in cmd:
        raise Unparsed("NUL byte")
    toks: list[Tok] = []
    i = 0
    while i < len(cmd):
        c = cmd[i]
        if c in " \t" or cmd.startswith("\\\n", i):
            i += 1 if c in " \t" else 2
            continue
        if c == "#":
            raise Unparsed("comment")
        m = _REDIR.match(cmd, i)
        if m:
            toks.append(Tok("redir", m.group(), i, m.end()))
            i = m.end()
            continue
        if c in "()":
            toks.append(Tok("paren", c, i, i + 1))
            i += 1
            continue
        op = next((o for o in _OPS if cmd.startswith(o, i)), None)
        if op:
            toks.append(Tok("op", op, i, i + len(op)))
            i += len(op)
            continue
        end, special = _word(cmd, i)
        toks.append(Tok("word", cmd[i:end], i, end, special))
        i = end
    return toks


# ---------------------------------------------------------------------------------------- analysis


class Simple:
    """One simple command: its tokens, and the operator that ends it (``None`` at the end)."""

    __slots__ = ("toks", "end_op")

    def __init__(self, toks: list[Tok], end_op: Tok | None = None):
        self.toks, self.end_op = toks, end_op

    @property
    def words(self) -> list[Tok]:
        return [t for t in self.toks if t.kind == "word"]


def split_commands(toks: list[Tok]) -> list[Simple]:
    commands = [Simple([])]
    for tok in toks:
        if tok.kind == "op":
            commands[-1].end_op = tok
            commands.append(Simple([]))
        else:
            commands[-1].toks.append(tok)
    return [c for c in commands if c.toks or c.end_op]


def literal(word: Tok) -> str:
    """The word as the shell would pass it when nothing in it expands (quotes removed)."""
    try:
        parts = shlex.split(word.text)
    except ValueError:
        raise Unparsed("unparsable word") from None
    return parts[0] if len(parts) == 1 else word.text


def command_name(words: list[str]) -> tuple[str, list[str]]:
    """The program a simple command runs and its arguments, past assignments, keywords and
    wrappers such as ``sudo``, ``env``, ``time`` or ``timeout 10``."""
    k = 0
    while k < len(words):
        w = words[k]
        if _ASSIGN.match(w) or w in KEYWORDS - {"for", "case", "select", "function", "[["}:
            k += 1
        elif os.path.basename(w) in WRAPPERS:
            wrapper = os.path.basename(w)
            k += 1
            while k < len(words) and words[k].startswith("-"):
                k += 1
            if wrapper == "timeout" and k < len(words):
                k += 1  # the duration
        else:
            return w, words[k + 1:]
    return "", []


def _follows(name: str, args: list[str]) -> bool:
    """``tail -f``, ``journalctl -fu x``, ``kubectl logs -f``, ``docker compose logs --follow``, ``stern`` …"""
    def short(letters: str) -> bool:
        return any(a.startswith("-") and not a.startswith("--") and any(c in a[1:] for c in letters) for a in args)

    def long() -> bool:
        return any(a == "--follow" or a.startswith("--follow=") for a in args)

    if name == "tail":
        return long() or "--retry" in args or short("fF")
    if name == "journalctl":
        return long() or short("f")
    if name in FOLLOWERS and "logs" in args:
        return long() or short("f")
    return name == "stern"


def _wants_tty(name: str, args: list[str]) -> bool:
    if name not in TTY_RUNNERS:
        return False
    return any(a in ("-it", "-ti", "-t", "--tty", "-i", "--interactive", "--stdin") for a in args)


def _ours(name: str, args: list[str]) -> bool:
    base = os.path.basename(name)
    if base in ("tokens", "tokens-run.sh"):
        return True
    return base.startswith("python") and any(a in ("flows.cli", "flows.hooks") for a in args[:3])


class Policy(_Record):
    """What the hook may rewrite: ``skip`` (the user's skip list), ``path`` (the agent's PATH, where
    programs are looked up), ``cwd``, ``shell`` (the user's bash or zsh from $SHELL, else bash on
    PATH), ``rules`` (``flows.hooks_rules.Rules`` of the host, or None), ``bypass`` (the session runs
    without permission prompts: Claude Code bypassPermissions), ``needs_allow`` (rewrite only what
    the rules allow, and answer "allow": Claude Code), ``host`` (the agent whose output limit sizes the
    budget: ``tokens run --host``)."""

    _fields = (("skip", frozenset()), ("path", None), ("cwd", "."), ("shell", ""), ("rules", None),
               ("bypass", False), ("needs_allow", False), ("host", ""))


def why_not(cmd: Simple, names: list[str], policy: Policy) -> str | None:
    """Why this simple command must not run under ``tokens run`` (``None``: it may)."""
    for tok in cmd.toks:
        if tok.kind == "redir" and _bad_redirect(cmd, tok):
            return "redirect"
    if not names:
        return None
    first = next((os.path.basename(w) for w in names if not _ASSIGN.match(w)), "")
    if first in ("time", "exec") or (first in ("sudo", "doas") and not {"-n", "--non-interactive"} & set(names)):
        return "interactive"  # time is the shell's keyword (its report goes to the shell); exec replaces it
    name, args = command_name(names)
    if not name:
        return "changes the shell" if names and all(_ASSIGN.match(w) for w in names) else None
    return _program_reason(name, args, policy)


def _program_reason(name: str, args: list[str], policy: Policy) -> str | None:
    """Why running this program (past assignments and wrappers) under ``tokens run`` could change
    what the line does (``None``: it cannot)."""
    base = os.path.basename(name)
    if _ours(name, args):
        return "ours"
    if base in INTERACTIVE or base in policy.skip or name in policy.skip:
        return "interactive"
    if (base in REPLS or re.fullmatch(r"python\d(\.\d+)?", base)) and not args:
        return "repl"
    if _follows(base, args) or _wants_tty(base, args):
        return "streaming"
    if base in DIR_CHANGERS or (name in BUILTINS and name not in PURE_BUILTINS):
        return "changes the shell"
    if _interactive_use(base, args):
        return "interactive"
    if not _resolvable(name, policy):
        return "not found"
    return None


def _gives_message(arg: str) -> bool:
    """A ``git commit`` option that supplies the message (so no editor opens): ``-m``, ``-qm``,
    ``--message=…``, ``-F``, ``--file``, ``-C``, ``--reuse-message``, ``--no-edit``, ``--fixup``."""
    if arg.startswith("--"):
        return arg.split("=", 1)[0] in ("--message", "--file", "--reuse-message", "--no-edit", "--fixup")
    return arg.startswith("-") and any(c in arg[1:] for c in "mFC")


def _interactive_use(base: str, args: list[str]) -> bool:
    """A use of a program that wants a terminal or never ends: ``git commit`` with no message,
    ``git add -p``, ``git rebase -i``, a dev server (``npm run dev``), ``sudo`` that may prompt."""
    if base == "git" and args:
        sub, rest = args[0], args[1:]
        if sub == "commit" and not any(_gives_message(a) for a in rest):
            return True
        if any(a in ("-p", "--patch", "-i", "--interactive", "-e", "--edit") for a in rest) and sub in (
                "add", "rebase", "checkout", "reset", "stash", "restore", "commit", "clean", "tag", "merge"):
            return True
        return sub in ("mergetool", "difftool", "citool", "gui", "gui--askpass")
    if base in SERVERS:
        words = [a for a in args if not a.startswith("-")]
        first = words[1] if base in ("npm", "pnpm", "yarn", "bun") and words[:1] == ["run"] and len(words) > 1 else \
            (words[0] if words else "")
        return first in SERVERS[base]
    if base in ("sudo", "doas"):
        return not any(a in ("-n", "--non-interactive") for a in args)
    return False


def _bad_redirect(cmd: Simple, tok: Tok) -> bool:
    op = tok.text.lstrip("0123456789")
    if op in ("<<", "<<-"):
        return True  # a heredoc
    if op in ("<", "<<<"):
        return False
    nxt = next((t for t in cmd.toks if t.start >= tok.end), None)
    if nxt is None or nxt.kind != "word":
        return True
    target = nxt.text
    if op in (">&", "<&") and re.fullmatch(r"\d+-?|-", target):
        return False  # 2>&1, >&2, 3<&-
    return target not in NULL_TARGETS


def _resolvable(name: str, policy: Policy) -> bool:
    """A program the shell will find: a builtin or keyword, an executable path, or one on PATH.
    An alias or a function of the agent's shell is not: it would not exist under ``bash -c``."""
    if name in BUILTINS or name in KEYWORDS or any(c in name for c in "$`"):
        return True
    if "/" in name:
        path = os.path.join(policy.cwd, os.path.expanduser(name))
        return os.path.isfile(path) and os.access(path, os.X_OK)
    import shutil

    return shutil.which(name, path=policy.path) is not None


# ---------------------------------------------------------------------------------------- rewriting


def tokens_argv() -> list[str]:
    """How to call the installed ``tokens`` whatever PATH is (``operators.launcher``)."""
    from operators.launcher import launcher_argv

    return launcher_argv()


def hook_argv(agent: str) -> list[str]:
    """The command an agent's settings run for the hook (see the module docstring)."""
    return [os.path.abspath(sys.executable), "-I", "-m", "flows.hooks", agent]


def rewrite(command: str, policy: Policy) -> str | None:
    """The command line that runs ``command`` under ``tokens run``, or ``None`` to leave it alone.

    The whole line is wrapped, never split: ``tokens run -- SHELL -c 'LINE'`` with the user's shell
    (or ``tokens run -- PROGRAM ARGS`` when the line is one plain command that nothing expands)."""
    if not command.strip() or len(command) > LINE_MAX:
        return None
    try:
        toks = scan(command)
        commands = split_commands(toks)
        if any(t.kind == "op" and t.text in ("&", ";;") for t in toks):
            return None  # a background job holds the pipe open; case arms are not commands
        if _defines_function(toks):
            return None
        for cmd in commands:
            words = [literal(w) for w in cmd.words]
            if cmd.words and cmd.words[0].text in ("for", "case", "select", "function"):
                words = words[:1] if cmd.words[0].text == "function" else []
            if why_not(cmd, words, policy):
                return None
        if not _rules_allow(command, commands, policy):
            return None
        argv = _direct_argv(commands)
    except Unparsed:
        return None
    if argv is None:
        argv = [policy.shell or _shell(policy), "-c", command]
    host = ["--host", policy.host] if policy.host else []  # the budget of what this host keeps of an output
    return shlex.join(tokens_argv() + ["run", *host, "--"] + argv)


def _defines_function(toks: list[Tok]) -> bool:
    """``f() { …; }`` or ``function f``: a definition lives in the agent's shell."""
    for a, b in zip(toks, toks[1:]):
        if a.kind == "word" and b.kind == "paren" and b.text == "(":
            return True
    return any(t.kind == "word" and t.text == "function" for t in toks)


def _command_texts(command: str, commands: list[Simple]) -> list[str]:
    """Each simple command's own text, and again without leading assignments or wrappers."""
    texts = []
    for cmd in commands:
        if not cmd.toks:
            continue
        texts.append(command[cmd.toks[0].start:cmd.toks[-1].end])
        words = [w.text for w in cmd.words]
        name, args = command_name(words)
        if name and name != words[0]:
            texts.append(" ".join([name] + args))
    return texts


def _rules_allow(command: str, commands: list[Simple], policy: Policy) -> bool:
    """Whether the host's rules let this line be rewritten (see ``flows.hooks_rules``)."""
    if policy.rules is None:
        return True
    from flows.hooks_rules import verdict

    said = verdict(policy.rules, command, _command_texts(command, commands), policy.bypass)
    if said == "deny":
        return False
    return said == "allow" or not policy.needs_allow


def _shell(policy: Policy) -> str:
    """The user's shell when it is bash or zsh (``$SHELL``), else bash on the agent's PATH."""
    user = os.environ.get("SHELL", "")
    if os.path.basename(user) in ("bash", "zsh") and os.path.isabs(user) and os.access(user, os.X_OK):
        return user
    import shutil

    return shutil.which("bash", path=policy.path) or "/bin/bash"


def _direct_argv(rest: list[Simple]) -> list[str] | None:
    """argv to run without a shell when the rest is one plain command (nothing the shell would
    expand, no redirect, no assignment, not a builtin); ``None``: it needs ``bash -c``."""
    if len(rest) != 1 or rest[0].end_op is not None:
        return None
    toks = rest[0].toks
    if any(t.kind != "word" or t.special for t in toks):
        return None
    argv = [literal(t) for t in toks]
    if not argv or _ASSIGN.match(argv[0]) or argv[0] in BUILTINS or argv[0] in KEYWORDS:
        return None
    return argv


def respond(agent: str, payload: object, policy: Policy) -> dict | None:
    """The JSON an agent expects for this payload, or ``None`` (print nothing, run unchanged)."""
    proto = PROTOCOLS[agent]
    if not isinstance(payload, dict) or payload.get("tool_name") != proto.tool:
        return None
    event = payload.get("hook_event_name")
    if event is not None and event != proto.event:
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict) or not isinstance(tool_input.get("command"), str):
        return None
    if proto.background_key and tool_input.get(proto.background_key):
        return None
    new = rewrite(tool_input["command"], policy)
    if new is None:
        return None
    if agent == "gemini":
        return {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": new}}}
    updated = dict(tool_input)
    updated["command"] = new
    out: dict = {"hookEventName": "PreToolUse"}
    # Codex applies updatedInput only with "allow"; Claude Code would check its rules against the
    # rewritten line, so a line is rewritten there only when its rules allow the original (hooks_rules)
    out["permissionDecision"] = "allow"
    out["updatedInput"] = updated
    return {"hookSpecificOutput": out}


def policy_for(payload: object, skip: list[str] | None = None, environ: dict | None = None) -> Policy:
    """The policy for one payload: the user's skip list (``--skip``, ``$NOLIFE_TOKENS_HOOK_SKIP``),
    the agent's PATH and working directory (Gemini's ``dir_path`` if given)."""
    env = os.environ if environ is None else environ
    names = set(re.split(r"[\s,]+", env.get("NOLIFE_TOKENS_HOOK_SKIP", "")))
    for item in skip or []:
        names.update(re.split(r"[\s,]+", item))
    names.discard("")
    cwd = "."
    if isinstance(payload, dict):
        cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else "."
        tool_input = payload.get("tool_input")
        if isinstance(tool_input, dict) and isinstance(tool_input.get("dir_path"), str):
            cwd = os.path.join(cwd, tool_input["dir_path"])
    return Policy(skip=frozenset(names), path=env.get("PATH"), cwd=cwd)


def host_policy(agent: str, payload: object, policy: Policy, environ: dict | None = None) -> Policy:
    """``policy`` with the host's shell and permission rules (``flows.hooks_rules``): Claude Code's
    settings rules (a rewrite only for what they allow), Codex's ``prefix_rule`` files; Gemini CLI
    checks its policy before the hook runs, on the line the model wrote, and runs it under bash."""
    from flows import hooks_rules

    env = os.environ if environ is None else environ
    home = env.get("HOME")
    if agent == "gemini":
        import shutil

        return policy.replace(shell=shutil.which("bash", path=policy.path) or "/bin/bash", host=agent)
    if agent == "codex":
        codex_home = env.get("CODEX_HOME") or (os.path.join(home, ".codex") if home else None)
        return policy.replace(rules=hooks_rules.codex_rules(policy.cwd, codex_home), host=agent)
    bypass = isinstance(payload, dict) and payload.get("permission_mode") == "bypassPermissions"
    return policy.replace(rules=hooks_rules.claude_rules(policy.cwd, home), bypass=bypass, needs_allow=True,
                          host=agent)


def run_hook(agent: str, data: bytes, skip: list[str] | None = None) -> bytes:
    """stdin bytes in, stdout bytes out; empty when the command is left alone or anything is wrong."""
    if os.environ.get("NOLIFE_TOKENS_HOOK_OFF", "") not in ("", "0"):
        return b""
    try:
        payload = json.loads(data)
    except (ValueError, RecursionError, TypeError):
        return b""
    event = payload.get("hook_event_name") if isinstance(payload, dict) else None
    if event in OUTPUT_EVENTS:
        if OUTPUT_EVENTS[event] != agent:
            return b""
        try:  # the output route: reduce what the command printed (flows.hooks_output)
            from flows.hooks_output import respond_output

            answer = respond_output(payload)
        except Exception:  # noqa: BLE001 - whatever happens, the host's own output stands
            return b""
    else:
        try:
            policy = policy_for(payload, skip)
            answer = respond(agent, payload, host_policy(agent, payload, policy))
        except (ValueError, RecursionError, TypeError, OSError):
            return b""
    return b"" if answer is None else json.dumps(answer).encode() + b"\n"


def hook_arguments(p) -> None:
    p.add_argument("agent", choices=AGENT_NAMES)
    p.add_argument("--skip", action="append", metavar="NAME", help="never rewrite this program (repeatable)")
    p.set_defaults(func=cmd_hook)


def cmd_hook(args, config) -> int:
    """``tokens hook AGENT``: always exits 0; a hook that fails must not block the agent."""
    out = run_hook(args.agent, sys.stdin.buffer.read(), getattr(args, "skip", None))
    sys.stdout.buffer.write(out)
    sys.stdout.buffer.flush()
    return 0


def main(argv: list[str]) -> int:
    """``python -m flows.hooks AGENT [--skip NAME]…``: the hook without the CLI and its config."""
    if not argv or argv[0] not in AGENT_NAMES:
        print(f"usage: python -m flows.hooks {{{','.join(AGENT_NAMES)}}} [--skip NAME]...", file=sys.stderr)
        return 0
    skip = [argv[i + 1] for i in range(1, len(argv) - 1) if argv[i] == "--skip"]
    try:
        out = run_hook(argv[0], sys.stdin.buffer.read(), skip)
        sys.stdout.buffer.write(out)
        sys.stdout.buffer.flush()
    except Exception:  # noqa: BLE001 - whatever happens, the agent's command runs unchanged
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
