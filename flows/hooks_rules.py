"""The host's own permission rules, read by the rewrite route so a rewrite never gets around them.

A host that checks its rules against the command a ``PreToolUse`` hook returns (Claude Code) would
match ``Bash(git push:*)`` against ``tokens run -- …`` and no longer deny, ask or allow what the user
meant. So before rewriting a line the hook reads the rules that apply and:

* leaves the line alone when any rule that denies or asks matches it or one of its commands;
* for Claude Code, rewrites only a line its allow rules allow (the whole line, or each of its
  commands; or any line when the session runs with ``bypassPermissions``), and then answers
  ``permissionDecision: "allow"`` (the rewritten line would no longer match the allow rule);
* for Codex, reads its ``prefix_rule(pattern=[…], decision="forbidden"|"prompt"|"allow")`` rules and
  leaves alone every line a ``forbidden`` or ``prompt`` rule matches.

Claude Code rules (``permissions.allow|deny|ask`` in ``~/.claude/settings.json``,
``.claude/settings.json``, ``.claude/settings.local.json`` of the project, and the managed settings):
``Bash`` (the whole tool), ``Bash(npm run test:*)`` (a prefix, legacy form), ``Bash(git commit *)``
(``*`` matches anything), ``Bash(git status)`` (exactly). A settings file that cannot be read or parsed
counts as holding rules we cannot see: nothing is rewritten then (the safe side).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

MANAGED = ("/etc/claude-code/managed-settings.json", "/Library/Application Support/ClaudeCode/managed-settings.json")
_BASH_RULE = re.compile(r"Bash(?:\((.*)\))?\Z", re.S)
_PREFIX_RULE = re.compile(r"prefix_rule\s*\((.*?)\)\s*(?:\n|$)", re.S)
_PATTERN = re.compile(r"pattern\s*=\s*\[(.*?)\]", re.S)
_DECISION = re.compile(r"decision\s*=\s*[\"'](\w+)[\"']")
_STRING = re.compile(r"\"((?:[^\"\\]|\\.)*)\"|'((?:[^'\\]|\\.)*)'")


class Rules:
    """The Bash rules that apply (each a rule's content: ``None`` for the whole tool, ``git push:*``,
    ``git commit *``, …); ``unreadable``: a settings file held something we could not read, so
    nothing is rewritten."""

    def __init__(self, allow=None, deny=None, ask=None, unreadable: bool = False):
        self.allow, self.deny, self.ask = list(allow or []), list(deny or []), list(ask or [])
        self.unreadable = unreadable


def rule_regex(content: str | None) -> re.Pattern:
    """The command texts a rule's content matches: ``None`` (plain ``Bash``) matches every command;
    ``x:*`` is the prefix ``x``; ``*`` is any run of characters; else the exact text."""
    if content is None or content.strip() in ("", "*"):
        return re.compile(r".*", re.S)
    text = content.strip()
    if text.endswith(":*"):
        prefix = re.escape(text[:-2])
        return re.compile(prefix + r"(?:\s.*)?\Z", re.S)
    tail = ""
    if text.endswith(" *"):  # "git commit *" also matches "git commit" alone
        text, tail = text[:-2], r"(?:\s.*)?"
    pattern = r".*".join(re.escape(p) for p in text.split("*")) + tail
    return re.compile(pattern + r"\Z", re.S)


def matches(rules: list[str], text: str) -> bool:
    text = text.strip()
    return any(rule_regex(r).match(text) for r in rules)


def touches(rules: list[str], text: str) -> bool:
    """``matches``, or the text starts with a rule's fixed part (``git push`` of ``git push:*`` also
    touches ``git pushx``): the wider reading, for the rules that deny or ask."""
    text = text.strip()
    for rule in rules:
        if rule is None or rule_regex(rule).match(text):
            return True
        fixed = rule.strip().split("*", 1)[0].removesuffix(":")
        if fixed.strip() and text.startswith(fixed.strip()):
            return True
    return False


def _bash_contents(entries: object) -> tuple[list, bool]:
    """The ``Bash`` rules' contents (``None`` for plain ``Bash``) of a rule list; and whether the list
    had a shape we could not read."""
    if entries is None:
        return [], False
    if not isinstance(entries, list):
        return [], True
    out = []
    for entry in entries:
        if not isinstance(entry, str):
            return out, True
        m = _BASH_RULE.match(entry.strip())
        if m:
            out.append(m.group(1))
    return out, False


def claude_settings_files(cwd: str, home: str | None) -> list[Path]:
    files = [Path(p) for p in MANAGED]
    if home:
        files.append(Path(home, ".claude", "settings.json"))
    files += [Path(cwd, ".claude", "settings.json"), Path(cwd, ".claude", "settings.local.json")]
    return files


def claude_rules(cwd: str, home: str | None) -> Rules:
    """Every Bash rule of the Claude Code settings that apply in ``cwd``."""
    rules = Rules(allow=[], deny=[], ask=[])
    for path in claude_settings_files(cwd, home):
        try:
            data = path.read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            rules.unreadable = True
            continue
        try:
            perms = json.loads(data).get("permissions") or {}
        except (ValueError, AttributeError, RecursionError):
            rules.unreadable = True
            continue
        if not isinstance(perms, dict):
            rules.unreadable = True
            continue
        for kind in ("allow", "deny", "ask"):
            contents, bad = _bash_contents(perms.get(kind))
            rules.unreadable |= bad
            getattr(rules, kind).extend(contents)
    return rules


def codex_rules(cwd: str, codex_home: str | None) -> Rules:
    """Codex's ``prefix_rule`` rules (``~/.codex/rules/*.rules`` and the project's ``.codex/rules``):
    ``forbidden`` is a deny, ``prompt`` an ask, ``allow`` an allow (each a prefix of words)."""
    rules = Rules(allow=[], deny=[], ask=[])
    dirs = [Path(codex_home, "rules")] if codex_home else []
    dirs.append(Path(cwd, ".codex", "rules"))
    for directory in dirs:
        try:
            files = sorted(directory.glob("*.rules"))
        except OSError:
            continue
        for path in files:
            try:
                text = path.read_text("utf-8", "replace")
            except OSError:
                rules.unreadable = True
                continue
            _read_prefix_rules(text, rules)
    return rules


def _read_prefix_rules(text: str, rules: Rules) -> None:
    for m in _PREFIX_RULE.finditer(text):
        body = m.group(1)
        pattern = _PATTERN.search(body)
        decision = _DECISION.search(body)
        if not pattern:
            rules.unreadable = True
            continue
        words = [a or b for a, b in _STRING.findall(pattern.group(1))]
        if not words or "[" in pattern.group(1):  # alternatives ([["a", "b"], …]): not read, stay safe
            rules.unreadable = True
            continue
        kind = {"forbidden": "deny", "prompt": "ask", "allow": "allow"}.get(decision.group(1) if decision else "allow")
        if kind is None:
            rules.unreadable = True
            continue
        getattr(rules, kind).append(" ".join(words) + ":*")


def verdict(rules: Rules, line: str, commands: list[str], bypass: bool = False) -> str:
    """``deny`` (a deny or ask rule matches the line or one of its commands: leave it alone),
    ``allow`` (an allow rule matches each of its commands, as the host requires of a compound line;
    or ``bypass``), or ``none`` (no rule says)."""
    if rules.unreadable:
        return "deny"
    texts = [line] + commands
    if any(touches(rules.deny, t) or touches(rules.ask, t) for t in texts):
        return "deny"
    if bypass or (commands and all(matches(rules.allow, c) for c in commands)):
        return "allow"
    return "none"


def home_of(environ=None) -> str | None:
    env = os.environ if environ is None else environ
    return env.get("HOME")
