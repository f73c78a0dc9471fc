"""Deterministic generators of large realistic inputs for the benchmarks (logs, JSON, NDJSON, diff)."""

from __future__ import annotations

import json
import random
from typing import Callable


def _lines(target_bytes: int, line_of: Callable[[int], bytes]) -> bytes:
    """Lines ``line_of(1)``, ``line_of(2)``, … each ended by a newline, until ``target_bytes`` is reached."""
    out = []
    size = 0
    n = 0
    while size < target_bytes:
        n += 1
        line = line_of(n)
        out.append(line)
        size += len(line) + 1
    return b"\n".join(out) + b"\n"


def make_log(target_bytes: int, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    templates = [
        lambda: b"INFO  [http-nio-8080-exec-%d] c.a.api.RequestLogger - GET /api/orders/%d 200 %dms" % (rng.randint(1, 64), rng.randint(1, 10**6), rng.randint(1, 900)),
        lambda: b"DEBUG [pool-3-thread-%d] c.a.cache.Cache - hit key=session:%08x" % (rng.randint(1, 16), rng.getrandbits(32)),
        lambda: b"INFO  [scheduler-1] c.a.jobs.Heartbeat - heartbeat ok seq=%d" % rng.randint(1, 10**9),
        lambda: b"INFO  [http-nio-8080-exec-%d] c.a.api.RequestLogger - POST /api/payments 201 %dms" % (rng.randint(1, 64), rng.randint(5, 2000)),
        lambda: b"DEBUG [db-pool-%d] c.a.db.Pool - acquired connection %d/%d" % (rng.randint(1, 8), rng.randint(1, 50), 50),
    ]

    def line_of(n: int) -> bytes:
        ts = b"2026-08-16 %02d:%02d:%02d.%03d " % ((n // 3600000) % 24, (n // 60000) % 60, (n // 1000) % 60, n % 1000)
        if n % 5000 == 0:
            return ts + b"ERROR [http-nio-8080-exec-7] c.a.pay.PaymentService - line 421: upstream timeout after 30000ms"
        if n % 1777 == 0:
            return ts + b"WARN  [db-pool-2] c.a.db.Pool - slow query took %dms" % rng.randint(1000, 9000)
        if n % 3001 == 0:
            return ts + b"INFO  [main] c.a.Config - reloaded config generation %d with %d feature flags" % (n, rng.randint(1, 99))
        return ts + rng.choice(templates)()

    return _lines(target_bytes, line_of)


def make_id_log(target_bytes: int, seed: int = 7) -> bytes:
    """An application log with a request id (uuid) and a user id in every line: no two lines have the
    same shape, the hard case for memory (every line is a distinct shape until ids are masked)."""
    rng = random.Random(seed)
    paths = [b"/api/v1/items", b"/api/v1/orders", b"/api/v1/users/me", b"/healthz", b"/api/v1/cart"]

    def line_of(n: int) -> bytes:
        ts = b"2026-08-16T%02d:%02d:%02d.%03dZ" % ((n // 3600000) % 24, (n // 60000) % 60, (n // 1000) % 60, n % 1000)
        rid = b"%08x-%04x-4%03x-a%03x-%012x" % (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(12),
                                                rng.getrandbits(12), rng.getrandbits(48))
        if n % 4000 == 0:
            return ts + b" ERROR request_id=%s payment failed: card declined (code 51)" % rid
        if n % 1500 == 0:
            return ts + b" WARN  request_id=%s slow upstream call took %dms" % (rid, rng.randint(1000, 9000))
        return ts + b" INFO  request_id=%s user=u_%x GET %s 200 %dms" % (
            rid, rng.getrandbits(40), rng.choice(paths), rng.randint(1, 900))

    return _lines(target_bytes, line_of)


def make_ndjson(target_bytes: int, seed: int = 7) -> bytes:
    """Structured logs, one JSON object per line (NDJSON), with ids, levels and nested context."""
    rng = random.Random(seed)

    def line_of(n: int) -> bytes:
        level = "error" if n % 4000 == 0 else "warn" if n % 1500 == 0 else "info"
        record = {"ts": f"2026-08-16T09:{(n // 60000) % 60:02d}:{(n // 1000) % 60:02d}.{n % 1000:03d}Z", "level": level,
                  "msg": "payment failed" if level == "error" else "request done", "request_id": f"{rng.getrandbits(64):016x}",
                  "http": {"method": "GET", "path": f"/api/v1/items/{rng.randint(1, 10**6)}", "status": 500 if level == "error" else 200},
                  "duration_ms": rng.randint(1, 900), "debug": {"host": f"node-{rng.randint(1, 99)}", "pid": rng.randint(100, 9999)}}
        return json.dumps(record, separators=(",", ":")).encode()

    return _lines(target_bytes, line_of)


def make_json(target_bytes: int, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    items = []
    size = 0
    i = 0
    while size < target_bytes:
        i += 1
        item = {
            "id": i, "status": rng.choice(["ok", "ok", "ok", "failed"]), "amount": rng.randint(1, 10**5),
            "telemetry": {"spans": [{"name": f"span{j}", "duration_us": rng.randint(1, 10**6)} for j in range(5)]},
            "debug": {"host": f"node-{rng.randint(1, 99)}", "trace_id": f"{rng.getrandbits(64):016x}"},
            "padding_1": "x" * 40, "padding_2": "y" * 40,
        }
        text = json.dumps(item, indent=2)
        items.append(text)
        size += len(text) + 2
    return ('{"id": "batch-1", "status": "partial", "items": [\n' + ",\n".join(items) + "\n]}\n").encode()


def make_diff(target_bytes: int, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    out = []
    size = 0
    f = 0
    while size < target_bytes:
        f += 1
        name = f"src/module{f // 10}/File{f}.php"
        block = [f"diff --git a/{name} b/{name}", f"index {rng.getrandbits(28):07x}..{rng.getrandbits(28):07x} 100644",
                 f"--- a/{name}", f"+++ b/{name}"]
        line_no = 1
        for _h in range(rng.randint(1, 4)):
            line_no += rng.randint(10, 200)
            body = [f" {'    ' * rng.randint(0, 3)}$value{rng.randint(1, 999)} = $this->compute({rng.randint(1, 99)});" for _ in range(rng.randint(6, 30))]
            pos = rng.randint(3, len(body) - 3)
            body[pos:pos] = [f"-        return $old{rng.randint(1, 99)};", f"+        return $new{rng.randint(1, 99)};"]
            block.append(f"@@ -{line_no},{len(body) - 1} +{line_no},{len(body) - 1} @@ class File{f}")
            block.extend(body)
        text = "\n".join(block) + "\n"
        out.append(text)
        size += len(text)
    return "".join(out).encode()


_WORDS = ("config", "value", "result", "handler", "request", "session", "parser", "buffer", "client", "token",
          "index", "record", "stream", "options", "context", "worker", "cache", "logger", "schema", "module")


def _code_line(rng: random.Random, word: str) -> str:
    """One line of source code that mentions ``word`` (Python, TypeScript or Go flavoured)."""
    other, name = rng.choice(_WORDS), rng.choice(_WORDS)
    indent = "    " * rng.randint(0, 3)
    shapes = (
        f"{indent}{name}_{word} = self.{other}.get({word!r}, None)",
        f"{indent}const {word}{rng.randint(1, 99)} = await {other}.load({name}, {{ retries: {rng.randint(1, 5)} }});",
        f"{indent}if err := {word}.Validate({other}); err != nil {{",
        f"{indent}def {word}_{name}(self, {other}: dict | None = None) -> \"{name.title()}\":",
        f"{indent}# TODO({rng.choice(('ana', 'bo', 'chen', 'dmitri'))}): {word} must not outlive the {other}",
        f"{indent}return {{\"{word}\": {other}[{rng.randint(0, 9)}], \"{name}\": {rng.randint(0, 10**6)}}}",
        f"{indent}import {{ {word.title()}{name.title()} }} from '../{other}/{word}';",
        f"{indent}log.debug(\"{word} %s for {name} %d\", {other}, {rng.randint(1, 999)})",
    )
    return rng.choice(shapes)


def make_search(target_bytes: int, seed: int = 7) -> bytes:
    """``grep -rn``/``rg -n`` output over a large tree: ``path:line:text`` hits grouped by file (a few to
    a few hundred per file, line numbers going up), now and then ``-C``-style context blocks
    (``path-line-text`` and ``--``), a minified file whose matching lines are several KB long, and
    ``Binary file … matches`` notices."""
    rng = random.Random(seed)
    word = "config"
    out, size, f = [], 0, 0
    while size < target_bytes:
        f += 1
        ext = rng.choice(("py", "ts", "go", "py", "tsx", "js"))
        path = f"./{rng.choice(('src', 'lib', 'pkg', 'tests'))}/{rng.choice(_WORDS)}{f // 40}/{rng.choice(_WORDS)}_{f}.{ext}"
        block = []
        if f % 97 == 0:
            block.append(f"Binary file {path[:-len(ext)]}bin matches")
        elif f % 53 == 0:  # a minified bundle: few hits, each a very long line
            for _ in range(rng.randint(1, 4)):
                body = ";".join(f"var {rng.choice(_WORDS)}{i}={word}.{rng.choice(_WORDS)}({i})" for i in range(rng.randint(80, 400)))
                block.append(f"{path[:-len(ext)]}min.js:1:{body}")
        else:
            line = 0
            context = rng.random() < 0.2
            for _ in range(int(rng.paretovariate(1.2) * 3)):
                line += rng.randint(1, 60)
                if context:
                    block.extend(f"{path}-{line + k}-{_code_line(rng, rng.choice(_WORDS))}" for k in range(2))
                    line += 2
                block.append(f"{path}:{line}:{_code_line(rng, word)}")
                if context:
                    block.append(f"{path}-{line + 1}-{_code_line(rng, rng.choice(_WORDS))}")
                    block.append("--")
                    line += 1
        text = "\n".join(block) + "\n"
        out.append(text)
        size += len(text)
    return "".join(out).encode()


def _file_diff(rng: random.Random, name: str) -> list[str]:
    """One file's part of a patch: git's header lines, then 1-4 hunks of context, removed and added lines."""
    block = [f"diff --git a/{name} b/{name}", f"index {rng.getrandbits(28):07x}..{rng.getrandbits(28):07x} 100644",
             f"--- a/{name}", f"+++ b/{name}"]
    line_no = 1
    for _h in range(rng.randint(1, 4)):
        line_no += rng.randint(10, 200)
        before = [" " + _code_line(rng, rng.choice(_WORDS)) for _ in range(3)]
        removed = ["-" + _code_line(rng, rng.choice(_WORDS)) for _ in range(rng.randint(0, 6))]
        added = ["+" + _code_line(rng, rng.choice(_WORDS)) for _ in range(rng.randint(1, 12))]
        after = [" " + _code_line(rng, rng.choice(_WORDS)) for _ in range(3)]
        old, new = 6 + len(removed), 6 + len(added)
        block.append(f"@@ -{line_no},{old} +{line_no},{new} @@ def {rng.choice(_WORDS)}_{rng.choice(_WORDS)}(")
        block.extend(before + removed + added + after)
    return block


def make_git_log_p(target_bytes: int, seed: int = 7) -> bytes:
    """``git log -p`` of a busy repository: commits (hash, author, date, a subject and sometimes a body)
    each with the patch of 1-6 files; now and then a merge commit (no patch) and a binary file."""
    rng = random.Random(seed)
    authors = ("Ana Lima <ana@example.org>", "Bo Chen <bo.chen@example.com>", "Dmitri Volkov <dv@example.net>",
               "Priya Nair <priya@example.io>", "Sam O'Neil <sam@example.dev>")
    days = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
    out, size, c = [], 0, 0
    while size < target_bytes:
        c += 1
        stamp = f"{days[c % 7]} Aug {1 + c % 28} {c % 24:02d}:{c % 60:02d}:{(c * 7) % 60:02d} 2026 +0200"
        block = [f"commit {rng.getrandbits(160):040x}"]
        if c % 29 == 0:
            block += [f"Merge: {rng.getrandbits(28):07x} {rng.getrandbits(28):07x}"]
        block += [f"Author: {rng.choice(authors)}", f"Date:   {stamp}", "",
                  f"    {rng.choice(('fix', 'feat', 'refactor', 'test', 'docs'))}({rng.choice(_WORDS)}): "
                  f"{rng.choice(('handle', 'drop', 'add', 'rename', 'cache'))} {rng.choice(_WORDS)} in {rng.choice(_WORDS)}"]
        if rng.random() < 0.4:
            block += ["", f"    The {rng.choice(_WORDS)} was read twice when the {rng.choice(_WORDS)} changed;",
                      f"    now it is read once. Closes #{rng.randint(100, 9999)}."]
        block.append("")
        if c % 29 != 0:
            for _ in range(rng.randint(1, 6)):
                name = f"{rng.choice(('src', 'lib', 'pkg'))}/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}_{rng.randint(1, 400)}.py"
                if rng.random() < 0.02:
                    block += [f"diff --git a/{name}.png b/{name}.png", "new file mode 100644",
                              f"index 0000000..{rng.getrandbits(28):07x}", f"Binary files /dev/null and b/{name}.png differ"]
                else:
                    block += _file_diff(rng, name)
            block.append("")
        text = "\n".join(block) + "\n"
        out.append(text)
        size += len(text)
    return "".join(out).encode()


def make_blame(target_bytes: int, seed: int = 7) -> bytes:
    """``git blame FILE`` of a long file: each line ``<hash> (<author> <date> <n>) <code>``, runs of
    lines from one commit, a boundary commit (``^hash``) now and then, the code with its definitions."""
    rng = random.Random(seed)
    authors = ("Ana Lima", "Bo Chen", "Dmitri Volkov", "Priya Nair", "Sam O'Neil")
    commits = [(f"{rng.getrandbits(40):010x}"[:8], rng.choice(authors), f"2026-{1 + k % 12:02d}-{1 + k % 28:02d} "
                f"{k % 24:02d}:{k % 60:02d}:{(k * 7) % 60:02d} +0200") for k in range(400)]
    out, size, n = [], 0, 0
    while size < target_bytes:
        sha, author, date = rng.choice(commits)
        for _ in range(rng.randint(1, 12)):
            n += 1
            code = (f"def {rng.choice(_WORDS)}_{n}(self, {rng.choice(_WORDS)}):" if n % 23 == 0
                    else f"class {rng.choice(_WORDS).title()}{n}:" if n % 211 == 0 else _code_line(rng, rng.choice(_WORDS)))
            line = f"{'^' if n % 500 == 0 else ''}{sha} ({author:<13} {date} {n:>6}) {code}\n"
            out.append(line)
            size += len(line)
    return "".join(out).encode()


def make_diagnostics(target_bytes: int, seed: int = 7) -> bytes:
    """A linter and type checker over a big tree: ``ruff check --output-format concise`` lines
    (``path:line:col: CODE message``), a few rules over many places and many rules over a few, then
    ``Found N errors.``."""
    rng = random.Random(seed)
    rules = [(f"{p}{k:03d}", f"{rng.choice(_WORDS).title()} {rng.choice(('is', 'must be', 'should not be'))} "
              f"{rng.choice(('unused', 'shadowed', 'too complex', 'undocumented', 'mutable'))}")
             for k, p in enumerate(("E", "F", "W", "B", "C", "D", "UP", "ANN", "PLR", "RUF") * 8)]
    out, size, n = [], 0, 0
    f = 0
    while size < target_bytes:
        f += 1
        path = f"src/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}_{f}.py"
        line = 0
        for _ in range(rng.randint(1, 40)):
            line += rng.randint(1, 30)
            code, message = rules[min(len(rules) - 1, int(rng.paretovariate(1.1)) - 1)]
            if rng.random() < 0.3:
                message += f": `{rng.choice(_WORDS)}_{rng.randint(1, 99)}`"
            text = f"{path}:{line}:{rng.randint(1, 80)}: {code} {message}\n"
            out.append(text)
            size += len(text)
            n += 1
    out.append(f"Found {n} errors.\n")
    return "".join(out).encode()


def make_diagnostics_full(target_bytes: int, seed: int = 7) -> bytes:
    """The same linter in its default format (``ruff check``, as rustc prints too): each diagnostic a
    ``CODE [*] message`` line, its `` --> path:line:col`` line, a source snippet with a line-number
    gutter and a caret line, a ``help:`` line and often a suggested fix (``- old``, ``12 + new``), then a
    blank line; a few rules with no snippet (a missing file header); then ``Found N errors.``."""
    rng = random.Random(seed)
    rules = [(f"{p}{k:03d}", f"{rng.choice(_WORDS).title()} {rng.choice(('is', 'must be', 'should not be'))} "
              f"{rng.choice(('unused', 'shadowed', 'too complex', 'undocumented', 'mutable'))}",
              f"{rng.choice(('Remove', 'Rename', 'Annotate', 'Move', 'Replace'))} {rng.choice(_WORDS)}")
             for k, p in enumerate(("E", "F", "W", "B", "C", "D", "UP", "ANN", "PLR", "RUF") * 8)]
    out, size, n, f = [], 0, 0, 0
    while size < target_bytes:
        f += 1
        path = f"src/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}_{f}.py"
        line = 0
        for _ in range(rng.randint(1, 40)):
            line += rng.randint(1, 30)
            code, message, help_text = rules[min(len(rules) - 1, int(rng.paretovariate(1.1)) - 1)]
            col = rng.randint(1, 40)
            fix = rng.random() < 0.4
            block = [f"{code}{' [*]' if fix else ''} {message}\n"]
            if code.startswith("D") and rng.random() < 0.5:  # no snippet: the file as a whole
                block.append(f"--> {path}:1:1\n\n")
            else:
                width = len(str(line + 2))
                gutter = " " * width + " |"
                block.append(f"{' ' * width}--> {path}:{line}:{col}\n{gutter}\n")
                for k in range(max(1, line - 2), line + 3):
                    text = "    " * rng.randint(0, 3) + _code_line(rng, rng.choice(_WORDS)).strip()
                    block.append(f"{k:<{width}} | {text}\n")
                    if k == line:
                        block.append(f"{gutter} {' ' * (col - 1)}{'^' * rng.randint(1, 12)}\n")
                block.append(f"{gutter}\nhelp: {help_text}\n")
                if fix:
                    old, new = (_code_line(rng, rng.choice(_WORDS)).strip() for _ in range(2))
                    block.append(f"{gutter}\n{' ' * (width + 1)}- {old}\n{line:<{width}} + {new}\n{gutter}\n")
                block.append("\n")
            text = "".join(block)
            out.append(text)
            size += len(text)
            n += 1
    out.append(f"Found {n} errors.\n")
    return "".join(out).encode()


def _rule_table(rng: random.Random, names: list[str], messages: tuple[str, ...]) -> list[tuple[str, str]]:
    """(rule, message template) pairs: ``{w}``/``{n}`` in a template become a word and a number per place."""
    return [(name, rng.choice(messages)) for name in names]


def _pick(rng: random.Random, rules: list) -> tuple:
    """A rule, a few very frequent and a long tail of rare ones (Pareto)."""
    return rules[min(len(rules) - 1, int(rng.paretovariate(1.1)) - 1)]


def _fill(rng: random.Random, template: str) -> str:
    return template.replace("{w}", f"{rng.choice(_WORDS)}{rng.choice(('', 'Id', 'Map', '_list', 'Ref'))}").replace(
        "{n}", str(rng.randint(1, 9)))


def _tree_path(rng: random.Random, f: int, ext: str, root: str = "") -> str:
    return (f"{root}{rng.choice(('src', 'lib', 'packages/core/src', 'apps/web/src', 'tests'))}/{rng.choice(_WORDS)}/"
            f"{rng.choice(_WORDS)}{rng.choice(('', 'Utils', 'Service', '_impl'))}_{f}.{ext}")


_ESLINT_RULES = ["no-unused-vars", "@typescript-eslint/no-explicit-any", "quotes", "no-console", "semi", "eqeqeq",
                 "prefer-const", "@typescript-eslint/no-unused-vars", "no-undef", "react-hooks/exhaustive-deps",
                 "import/no-unresolved", "no-shadow", "curly", "max-len", "no-empty", "complexity",
                 "@typescript-eslint/ban-ts-comment", "no-prototype-builtins", "no-useless-escape", "indent",
                 "jsdoc/require-param", "import/order", "no-param-reassign", "camelcase", "no-var", "object-shorthand",
                 "@typescript-eslint/no-non-null-assertion", "react/prop-types", "no-case-declarations",
                 "prefer-template", "spaced-comment", "unicorn/prefer-node-protocol"]
_ESLINT_MESSAGES = ("'{w}' is defined but never used", "Unexpected any. Specify a different type",
                    "Strings must use doublequote", "Unexpected console statement", "Missing semicolon",
                    "Expected '===' and instead saw '=='", "'{w}' is never reassigned. Use 'const' instead",
                    "'{w}' is not defined", "React Hook useEffect has a missing dependency: '{w}'. Either include it "
                    "or remove the dependency array", "Unable to resolve path to module '../{w}'",
                    "'{w}' is already declared in the upper scope on line {n} column {n}",
                    "Expected {ok} after 'if' condition", "This line has a length of 1{n}4. Maximum allowed is 100",
                    "Empty block statement", "Function '{w}' has a complexity of 2{n}. Maximum allowed is 20",
                    "Expected indentation of {n} spaces but found {n}", "Missing JSDoc @param \"{w}\" declaration")


def make_diag_stylish(target_bytes: int, seed: int = 7) -> bytes:
    """``eslint`` over a big tree in its default (stylish) format: a blank line and the file's path, then
    ``  12:5  error  message  rule`` lines, message and rule columns aligned to the file's longest; then
    ``✖ N problems (E errors, W warnings)`` and the fixable line."""
    rng = random.Random(seed)
    rules = _rule_table(rng, _ESLINT_RULES, _ESLINT_MESSAGES)
    out, size, n, errors = [], 0, 0, 0
    f = 0
    while size < target_bytes:
        f += 1
        entries, line = [], 0
        for _ in range(rng.randint(1, 30)):
            line += rng.randint(1, 40)
            rule, template = _pick(rng, rules)
            sev = "error" if rng.random() < 0.35 else "warning"
            errors += sev == "error"
            entries.append((f"{line}:{rng.randint(1, 80)}", sev, _fill(rng, template).replace("{ok}", "'{'"), rule))
        pos = max(len(e[0]) for e in entries)
        msg = max(len(e[2]) for e in entries)
        block = [f"\n/home/ci/work/{_tree_path(rng, f, rng.choice(('js', 'ts', 'tsx')))}\n"]
        for where, sev, message, rule in entries:
            block.append(f"  {where:>{pos}}  {sev:<7}  {message:<{msg}}  {rule}\n")
        text = "".join(block)
        out.append(text)
        size += len(text)
        n += len(entries)
    out.append(f"\n\u2716 {n} problems ({errors} errors, {n - errors} warnings)\n"
               f"  {errors // 7} errors and {n // 5} warnings potentially fixable with the `--fix` option.\n\n")
    return "".join(out).encode()


_TSC_MESSAGES = ("TS2345", "Argument of type '{w}' is not assignable to parameter of type 'string'.",
                 "TS2339", "Property '{w}' does not exist on type 'Window & typeof globalThis'.",
                 "TS7006", "Parameter '{w}' implicitly has an 'any' type.",
                 "TS2307", "Cannot find module '@scope/{w}' or its corresponding type declarations.",
                 "TS2322", "Type 'string | undefined' is not assignable to type 'string'.",
                 "TS18048", "'{w}' is possibly 'undefined'.",
                 "TS2532", "Object is possibly 'undefined'.",
                 "TS7053", "Element implicitly has an 'any' type because expression of type 'string' can't be used "
                           "to index type '{w}'.",
                 "TS2554", "Expected {n} arguments, but got {n}.",
                 "TS6133", "'{w}' is declared but its value is never read.",
                 "TS2304", "Cannot find name '{w}'.",
                 "TS2769", "No overload matches this call.")
_TSC_MORE = ("  Type 'undefined' is not assignable to type 'string'.",
             "  No index signature with a parameter of type 'string' was found on type '{w}'.",
             "  Overload {n} of 2, '(value: string): {w}', gave the following error.",
             "    Argument of type 'number' is not assignable to parameter of type 'string'.")


def make_diag_tsc(target_bytes: int, seed: int = 7) -> bytes:
    """``tsc --noEmit`` over a big project: ``src/a.ts(12,5): error TS2345: message`` lines, some with
    their indented elaboration lines (``  Type 'x' is not assignable …``)."""
    rng = random.Random(seed)
    codes = [(_TSC_MESSAGES[k], _TSC_MESSAGES[k + 1]) for k in range(0, len(_TSC_MESSAGES), 2)]
    codes += [(f"TS{2300 + k * 7}", f"Rare check {k} failed for '{{w}}'.") for k in range(40)]
    out, size, f = [], 0, 0
    while size < target_bytes:
        f += 1
        path, line = _tree_path(rng, f, rng.choice(("ts", "tsx"))), 0
        for _ in range(rng.randint(1, 25)):
            line += rng.randint(1, 50)
            code, template = _pick(rng, codes)
            block = [f"{path}({line},{rng.randint(1, 60)}): error {code}: {_fill(rng, template)}\n"]
            if rng.random() < 0.2:
                block += [_fill(rng, m) + "\n" for m in rng.sample(_TSC_MORE, rng.randint(1, 2))]
            text = "".join(block)
            out.append(text)
            size += len(text)
    return "".join(out).encode()


_PYRIGHT_RULES = [("reportAttributeAccessIssue", 'Cannot access attribute "{w}" for class "{W}"'),
                  ("reportOptionalMemberAccess", '"{w}" is not a known attribute of "None"'),
                  ("reportArgumentType", 'Argument of type "{w} | None" cannot be assigned to parameter "{w}" of '
                                         'type "str" in function "{w}"'),
                  ("reportIncompatibleMethodOverride", 'Method "{w}" overrides class "{W}" in an incompatible manner'),
                  ("reportMissingImports", 'Import "{w}.{w}" could not be resolved'),
                  ("reportPossiblyUnbound", '"{w}" is possibly unbound'),
                  ("reportReturnType", 'Type "{w} | None" is not assignable to return type "{W}"'),
                  ("reportIndexIssue", '__getitem__ method not defined on type "{W}"'),
                  ("reportCallIssue", 'No parameter named "{w}"'),
                  ("reportOptionalSubscript", 'Object of type "None" is not subscriptable'),
                  ("reportRedeclaration", 'Class declaration "{W}" is obscured by a declaration of the same name'),
                  ("reportTypedDictNotRequiredAccess", '"{w}" is not a required key in "{W}", so access may '
                                                       'result in runtime exception')]
_PYRIGHT_MORE = ('    Attribute "{w}" is unknown', '    "None" is not assignable to "str"',
                 '    Type "{w} | None" is not assignable to type "str"', '      "None" is not assignable to "str"',
                 '    Parameter {n} name mismatch: base parameter is named "{w}", override parameter is named "_"')


def make_diag_pyright(target_bytes: int, seed: int = 7) -> bytes:
    """``pyright`` over a big tree: each file's path, then ``  /abs/path.py:12:5 - error: message (reportX)``
    lines (some with indented elaboration lines, the rule at the end of the last); then
    ``N errors, M warnings, 0 informations``."""
    rng = random.Random(seed)
    rules = _PYRIGHT_RULES + [(f"report{w.title()}Issue{k}", f'Rare "{{w}}" problem {k}') for k, w in
                              enumerate(_WORDS * 2)]
    out, size, f, errors, warnings = [], 0, 0, 0, 0
    while size < target_bytes:
        f += 1
        path, line = "/home/ci/work/" + _tree_path(rng, f, "py"), 0
        block = [path + "\n"]
        for _ in range(rng.randint(1, 20)):
            line += rng.randint(1, 60)
            rule, template = _pick(rng, rules)
            sev = "error" if rng.random() < 0.8 else "warning"
            errors += sev == "error"
            warnings += sev == "warning"
            lines = [f"  {path}:{line}:{rng.randint(1, 60)} - {sev}: "
                     f"{_fill(rng, template).replace('{W}', rng.choice(_WORDS).title())}"]
            if rng.random() < 0.3:
                lines += [_fill(rng, m) for m in rng.sample(_PYRIGHT_MORE, rng.randint(1, 2))]
            lines[-1] += f" ({rule})"
            block += [x + "\n" for x in lines]
        text = "".join(block)
        out.append(text)
        size += len(text)
    out.append(f"{errors} errors, {warnings} warnings, 0 informations \n")
    return "".join(out).encode()


_GCC_WARNINGS = [("-Wsign-conversion", "conversion to \u2018size_t\u2019 {aka \u2018long unsigned int\u2019} from "
                                       "\u2018int\u2019 may change the sign of the result"),
                 ("-Wconversion", "conversion from \u2018ssize_t\u2019 {aka \u2018long int\u2019} to \u2018int\u2019 "
                                  "may change value"),
                 ("-Wunused-variable", "unused variable \u2018{w}\u2019"),
                 ("-Wunused-parameter", "unused parameter \u2018{w}\u2019"),
                 ("-Wshadow", "declaration of \u2018{w}\u2019 shadows a previous local"),
                 ("-Wimplicit-fallthrough=", "this statement may fall through"),
                 ("-Wmissing-prototypes", "no previous prototype for \u2018{w}\u2019"),
                 ("-Wformat=", "format \u2018%d\u2019 expects argument of type \u2018int\u2019, but argument {n} "
                               "has type \u2018long int\u2019"),
                 ("-Wcast-qual", "cast discards \u2018const\u2019 qualifier from pointer target type"),
                 ("-Wstrict-prototypes", "function declaration isn\u2019t a prototype"),
                 ("-Wmaybe-uninitialized", "\u2018{w}\u2019 may be used uninitialized"),
                 ("-Wpointer-arith", "pointer of type \u2018void *\u2019 used in arithmetic")]


def make_diag_gcc(target_bytes: int, seed: int = 7) -> bytes:
    """``gcc -Wall -Wextra -fsyntax-only`` over a big C tree: ``a.c: In function 'f':`` lines, then
    ``a.c:12:5: warning: message [-Wfoo]`` with its source line (``  12 |   code``) and caret line
    (``     |   ^~~~``), now and then an ``error:`` or a ``note:`` with its own snippet."""
    rng = random.Random(seed)
    rules = _GCC_WARNINGS + [(f"-W{w}-{k}", f"rare {w} check {k} on \u2018{{w}}\u2019") for k, w in enumerate(_WORDS)]
    out, size, f = [], 0, 0
    while size < target_bytes:
        f += 1
        path, line, block = _tree_path(rng, f, rng.choice(("c", "c", "h"))), 0, []
        for _ in range(rng.randint(1, 12)):
            if rng.random() < 0.3:
                block.append(f"{path}: In function \u2018{rng.choice(_WORDS)}_{rng.choice(_WORDS)}\u2019:\n")
            for _ in range(rng.randint(1, 4)):
                line += rng.randint(1, 40)
                col = rng.randint(1, 40)
                flag, template = _pick(rng, rules)
                sev = "error" if rng.random() < 0.05 else "warning"
                head = f"{path}:{line}:{col}: {sev}: {_fill(rng, template)}"
                block.append(head + (f" [{flag}]\n" if sev == "warning" else "\n"))
                code = "    " * rng.randint(0, 3) + f"{rng.choice(_WORDS)} = {rng.choice(_WORDS)}({rng.choice(_WORDS)}, {col});"
                block.append(f" {line:>4} | {code}\n      | {' ' * (col - 1)}{'^' + '~' * rng.randint(0, 8)}\n")
                if rng.random() < 0.08:
                    note = rng.randint(1, max(1, line))
                    block.append(f"{path}:{note}:5: note: \u2018{rng.choice(_WORDS)}\u2019 was declared here\n"
                                 f" {note:>4} |     int {rng.choice(_WORDS)};\n      |     ^~~\n")
        text = "".join(block)
        out.append(text)
        size += len(text)
    out.append(f"{rng.randint(10, 99)} warnings generated.\n")
    return "".join(out).encode()


_CLIPPY_LINTS = [("use_self", "unnecessary structure name repetition", "use the applicable keyword: `Self`"),
                 ("needless_range_loop", "the loop variable `{w}` is used to index `{w}`", ""),
                 ("missing_const_for_fn", "this could be a `const fn`", ""),
                 ("as_conversions", "using a potentially dangerous silent `as` conversion", ""),
                 ("cast_possible_truncation", "casting `u64` to `u32` may truncate the value", ""),
                 ("redundant_pub_crate", "pub(crate) function inside private module", "consider using: `pub`"),
                 ("must_use_candidate", "this method could have a `#[must_use]` attribute", ""),
                 ("doc_markdown", "item in documentation is missing backticks", ""),
                 ("if_same_then_else", "this `if` has identical blocks", ""),
                 ("needless_pass_by_value", "this argument is passed by value, but not consumed in the function body",
                  "consider taking a reference instead: `&{w}`"),
                 ("missing_errors_doc", "docs for function returning `Result` missing `# Errors` section", ""),
                 ("uninlined_format_args", "variables can be used directly in the `format!` string", "")]


def _clippy_block(rng: random.Random, path: str, line: int, lint: tuple) -> list[str]:
    name, message, label = lint
    col, width = rng.randint(1, 40), len(str(line + 12))
    pad, gutter = " " * width, " " * width + " |"
    code = _code_line(rng, rng.choice(_WORDS))
    caret = "^" * rng.randint(1, 20)
    block = [f"warning: {_fill(rng, message)}\n{pad}--> {path}:{line}:{col}\n{gutter}\n",
             f"{line:<{width}} | {code}\n{gutter} {' ' * (col - 1)}{caret}{' ' + _fill(rng, label) if label else ''}\n"]
    if rng.random() < 0.3:  # a second span: a note at another place, or a multi-line span
        other = line + rng.randint(1, 12)
        block.append(f"{gutter}\nnote: same as this\n{pad}--> {path}:{other}:{col}\n{gutter}\n"
                     f"{other:<{width}} | {_code_line(rng, rng.choice(_WORDS))}\n{gutter} {' ' * (col - 1)}{caret}\n")
    block.append(f"{gutter}\n{pad} = help: for further information visit "
                 f"https://rust-lang.github.io/rust-clippy/rust-1.95.0/index.html#{name}\n")
    if rng.random() < 0.2:
        block.append(f"{pad} = note: `-W clippy::{name.replace('_', '-')}` implied by `-W clippy::pedantic`\n"
                     f"{pad} = help: to override `-W clippy::pedantic` add `#[allow(clippy::{name})]`\n")
    if rng.random() < 0.3:
        block.append(f"help: {rng.choice(('consider', 'try', 'use'))} {rng.choice(_WORDS)}\n{gutter}\n"
                     f"{line:<{width}} - {code.strip()}\n{line:<{width}} + {_code_line(rng, 'x').strip()}\n{gutter}\n")
    block.append("\n")
    return block


def make_diag_clippy(target_bytes: int, seed: int = 7) -> bytes:
    """``cargo clippy -- -W clippy::pedantic`` over a big workspace: ``warning: message``, its ``-->``
    line, a snippet with a gutter and carets (a label after them), often a second span (``note: same as
    this`` and its own ``-->``), ``= help``/``= note`` lines naming the lint, a suggested fix; then a
    ``generated N warnings`` line for each crate."""
    rng = random.Random(seed)
    lints = _CLIPPY_LINTS + [(f"{w}_lint_{k}", f"rare lint {k} about `{{w}}`", "") for k, w in enumerate(_WORDS)]
    out, size, f = [], 0, 0
    while size < target_bytes:
        f += 1
        path, line, count = _tree_path(rng, f, "rs", "crates/"), 0, rng.randint(1, 20)
        block = []
        for _ in range(count):
            line += rng.randint(1, 60)
            block += _clippy_block(rng, path, line, _pick(rng, lints))
        if f % 25 == 0:
            block.append(f"warning: `{rng.choice(_WORDS)}` (lib) generated {count} warnings\n")
        text = "".join(block)
        out.append(text)
        size += len(text)
    out.append("    Finished `dev` profile [unoptimized + debuginfo] target(s) in 41.27s\n")
    return "".join(out).encode()


def make_source(target_bytes: int, seed: int = 7) -> bytes:
    """One long Python module (``cat big.py``): imports, classes with methods, functions, docstrings."""
    rng = random.Random(seed)
    out = ['"""A generated module."""\n', "from __future__ import annotations\n", "\n", "import os\n", "\n"]
    size, k = sum(map(len, out)), 0
    while size < target_bytes:
        k += 1
        block = [f"class {rng.choice(_WORDS).title()}{k}:\n", f'    """The {rng.choice(_WORDS)} of {rng.choice(_WORDS)}s."""\n', "\n"]
        for m in range(rng.randint(2, 9)):
            block.append(f"    def {rng.choice(_WORDS)}_{m}(self, {rng.choice(_WORDS)}: int = {rng.randint(0, 9)}) -> int:\n")
            block.extend("        " + _code_line(rng, rng.choice(_WORDS)).lstrip() + "\n" for _ in range(rng.randint(2, 14)))
            block.append("\n")
        block.append(f"def {rng.choice(_WORDS)}_{k}({rng.choice(_WORDS)}):\n")
        block.extend("    " + _code_line(rng, rng.choice(_WORDS)).lstrip() + "\n" for _ in range(rng.randint(2, 10)))
        block.append("\n\n")
        text = "".join(block)
        out.append(text)
        size += len(text)
    return "".join(out).encode()


_HOSTS = [b"h1", b"h2", b"h3", b"api-7f9c", b"worker-2"]
_SERVICES = [b"payments", b"orders", b"auth", b"search", b"ledger"]


def _iso(n: int) -> bytes:
    return b"2026-01-01T%02d:%02d:%02d.%03dZ" % ((n // 3600000) % 24, (n // 60000) % 60, (n // 1000) % 60, n % 1000)


def make_json_storm(target_bytes: int, seed: int = 7) -> bytes:
    """A JSON-lines log in which every line is an error or a warning (an error storm): a dozen message
    shapes with varying numbers, hosts, services, timestamps and an occasional request id."""
    rng = random.Random(seed)
    shapes = [
        (b"error", lambda: b"retrying after error %d" % rng.randint(1, 9999)),
        (b"error", lambda: b"connection refused to 10.0.%d.%d:5432 (attempt %d)" % (rng.randint(0, 9), rng.randint(1, 254), rng.randint(1, 30))),
        (b"error", lambda: b"upstream timeout after %dms" % rng.randint(1000, 30000)),
        (b"error", lambda: b"failed to process message %d from queue %s" % (rng.randint(1, 10**7), rng.choice(_SERVICES))),
        (b"warn", lambda: b"slow query took %dms (rows=%d)" % (rng.randint(500, 9000), rng.randint(1, 5000))),
        (b"error", lambda: b"request %08x failed: status %d" % (rng.getrandbits(32), rng.choice([500, 502, 503, 504]))),
        (b"warn", lambda: b"retry budget exhausted for %s, backing off %ds" % (rng.choice(_SERVICES), rng.randint(1, 60))),
        (b"error", lambda: b"Exception in handler: KeyError: 'user_%d'" % rng.randint(1, 900)),
        (b"fatal", lambda: b"out of memory: killed worker pid %d" % rng.randint(1000, 65000)),
        (b"error", lambda: b"TLS handshake failed with peer 192.168.%d.%d" % (rng.randint(0, 9), rng.randint(1, 254))),
        (b"warn", lambda: b"deprecated config key 'pool.size' used by %s" % rng.choice(_SERVICES)),
        (b"error", lambda: b"could not write checkpoint %d: disk quota exceeded" % rng.randint(1, 10**5)),
    ]
    weights = [30, 20, 12, 10, 8, 6, 5, 3, 1, 2, 2, 1]

    def line_of(n: int) -> bytes:
        level, msg = rng.choices(shapes, weights)[0]
        extra = b',"req":"%08x-%04x"' % (rng.getrandbits(32), rng.getrandbits(16)) if n % 7 == 0 else b""
        return b'{"ts":"%s","level":"%s","msg":"%s","host":"%s","service":"%s"%s}' % (
            _iso(n * 37), level, msg(), rng.choice(_HOSTS), rng.choice(_SERVICES), extra)

    return _lines(target_bytes, line_of)


def make_error_storm(target_bytes: int, seed: int = 7) -> bytes:
    """A plain-text log in which every line is an error or a warning (``2026-01-01 00:00:00,123 ERROR
    [worker-3] connection refused to 10.0.0.5:5432 (attempt 17)``), with now and then a traceback."""
    rng = random.Random(seed)
    shapes = [
        lambda: b"ERROR [worker-%d] connection refused to 10.0.0.%d:5432 (attempt %d)" % (rng.randint(1, 8), rng.randint(1, 20), rng.randint(1, 30)),
        lambda: b"ERROR [worker-%d] retrying after error %d" % (rng.randint(1, 8), rng.randint(1, 9999)),
        lambda: b"WARN  [pool-%d] slow query took %dms" % (rng.randint(1, 4), rng.randint(500, 9000)),
        lambda: b"ERROR [http-%d] request %s /api/v1/orders/%d failed: 503 Service Unavailable" % (rng.randint(1, 32), rng.choice([b"GET", b"POST"]), rng.randint(1, 10**6)),
        lambda: b"ERROR [scheduler] job sync-%d failed after %d.%ds" % (rng.randint(1, 50), rng.randint(0, 99), rng.randint(0, 9)),
        lambda: b"WARN  [worker-%d] queue depth %d exceeds limit 1000" % (rng.randint(1, 8), rng.randint(1000, 99999)),
        lambda: b"ERROR [worker-%d] upstream timeout after %dms" % (rng.randint(1, 8), rng.randint(1000, 30000)),
        lambda: b"FATAL [main] cannot allocate %d bytes" % rng.randint(10**6, 10**9),
    ]
    weights = [30, 25, 12, 12, 6, 8, 6, 1]

    def line_of(n: int) -> bytes:
        ts = b"2026-01-01 %02d:%02d:%02d,%03d " % ((n // 360000) % 24, (n // 6000) % 60, (n // 100) % 60, (n * 7) % 1000)
        if n % 2500 == 0:
            return ts + (b"ERROR [worker-%d] unhandled exception\nTraceback (most recent call last):\n"
                         b'  File "/srv/app/worker.py", line %d, in run\n    self.handle(msg)\n'
                         b"ConnectionError: [Errno 111] Connection refused" % (rng.randint(1, 8), rng.randint(10, 400)))
        return ts + rng.choices(shapes, weights)[0]()

    return _lines(target_bytes, line_of)


def make_mixed_log(target_bytes: int, seed: int = 7) -> bytes:
    """An application log in which about 30% of the lines are warnings or errors (``make_log``'s
    ordinary lines between ``make_error_storm``'s)."""
    rng = random.Random(seed)
    ordinary = make_log(target_bytes * 3 // 4, seed).split(b"\n")[:-1]
    storm = make_error_storm(target_bytes * 3 // 8, seed + 1).split(b"\n")[:-1]
    out, size, i, j = [], 0, 0, 0
    while size < target_bytes and i < len(ordinary) and j < len(storm):
        if rng.random() < 0.3:
            line, j = storm[j], j + 1
        else:
            line, i = ordinary[i], i + 1
        out.append(line)
        size += len(line) + 1
    return b"\n".join(out) + b"\n"
