"""Diffs of real commits (ripgrep, axios, at git's default -U3): context next to changes, short hints,
lockfiles summarised, moved blocks shown once, binary and rename-only files one line, SIGNAL's own
changed-line rule, exact restore and the bytes saved."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import reduce_bytes
from operators.config import Config
from operators.types.diff import Settings as DiffConfig
from operators.reduction import omissions, render, restore
from operators.signals import auto_signals, load_sidecar, missing_signals
from operators.types import diff

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
REAL = {  # fixture -> least share of bytes saved (each measured a few points above)
    "diff_cargo_lock_and_code.diff": 0.65,
    "diff_npm_lockfile_bump.diff": 0.90,
    "diff_moved_block_refactor.diff": 0.30,
    "diff_binary_files_added.diff": 0.18,
    "diff_renames.diff": 0.25,
    "sample.diff": 0.50,  # 46.0% before this reducer knew pure blocks and short hints
}
LOCKFILES = re.compile(rb"(?:^|/)(?:package-lock\.json|Cargo\.lock)$")  # the ones these fixtures hold
HUNK = re.compile(rb"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
MOVED = re.compile(rb"^\xe2\x8b\xaf moved (\d+) lines from (\S+):(\d+) to (\S+):(\d+)$", re.M)
HINT = re.compile(rb"^\xe2\x8b\xaf (\d+)$", re.M)


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def run(raw: bytes, **settings):
    plan = diff.reduce(raw, "coarse", Config(diff=DiffConfig(**settings)))
    contents = omissions(plan)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, _ = render(plan, ids)
    assert restore(visible, layout, [contents[g] for g in plan.reasons]) == raw
    return visible, contents


class Line:
    """A line of a hunk, as this test's own walk of the raw diff sees it."""

    def __init__(self, old_path, new_path, sign, old_no, new_no, text, hunk):
        self.old_path, self.new_path, self.sign, self.hunk = old_path, new_path, sign, hunk
        self.old_no, self.new_no, self.text = old_no, new_no, text


def hunk_lines(raw: bytes) -> list[Line]:
    """Every hunk line of a (one-parent) diff with its file paths and line numbers, walked by the hunk counts."""
    out = []
    old_path = new_path = b""
    old_left = new_left = 0
    old_no = new_no = hunks = 0
    for line in raw.split(b"\n")[:-1]:
        if old_left > 0 or new_left > 0:
            sign, text = line[:1], line[1:]
            out.append(Line(old_path, new_path, sign, old_no, new_no, text, hunks))
            if sign in (b" ", b"-"):
                old_left, old_no = old_left - 1, old_no + 1
            if sign in (b" ", b"+"):
                new_left, new_no = new_left - 1, new_no + 1
            continue
        if line.startswith(b"diff --git "):
            old_path, new_path = re.match(rb"diff --git a/(.*) b/(.*)", line).groups()
        elif line.startswith(b"--- a/"):
            old_path = line[6:]
        elif line.startswith(b"+++ b/"):
            new_path = line[6:]
        m = HUNK.match(line)
        if m:
            hunks += 1
            old_no, new_no = int(m.group(1)), int(m.group(3))
            old_left = int(m.group(2)) if m.group(2) is not None else 1
            new_left = int(m.group(4)) if m.group(4) is not None else 1
    return out


def visible_lines(visible: bytes) -> set[bytes]:
    return set(visible.split(b"\n"))


# --- every fixture: restore, planted signals, every changed line of a code file, SIGNAL ------------------


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_diff_restores_and_keeps_every_changed_code_line(name):
    raw = fixture(name)
    visible, _ = run(raw)
    lines = visible_lines(visible)
    moved = set()  # (sign, path, line number) of each line of a moved block, from its visible line
    for n, a, a_line, b, b_line in MOVED.findall(visible):
        moved |= {(b"-", a, int(a_line) + k) for k in range(int(n))} | {(b"+", b, int(b_line) + k) for k in range(int(n))}
    for h in hunk_lines(raw):
        if h.sign in (b"+", b"-") and not LOCKFILES.search(h.new_path) and h.sign + h.text not in lines:
            place = (h.sign, h.old_path, h.old_no) if h.sign == b"-" else (h.sign, h.new_path, h.new_no)
            assert place in moved, (name, h.sign + h.text)  # only a line of a moved block may be missing
    for signal in load_sidecar(FIXTURES / "signals.toml")[name]:
        assert signal.encode() in visible, signal
    assert missing_signals(visible, load_sidecar(FIXTURES / "signals.toml")[name], auto_signals("diff", raw)) == []


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_diff_saves_what_it_did(name):
    raw = fixture(name)
    visible, _ = run(raw)
    assert 1 - len(visible) / len(raw) >= REAL[name]


@pytest.mark.parametrize("name", ["diff_cargo_lock_and_code.diff", "diff_moved_block_refactor.diff", "git_show_moved_rename.txt"])
def test_whole_graph_signal_recovery_restore(name):
    packet = reduce_bytes(fixture(name), source=name)
    assert packet.type == ("gitlog" if name.startswith("git_show") else "diff")
    assert packet.signal_pass and packet.recovery_pass and packet.restore_pass
    assert len(packet.visible) < len(packet.raw)


# --- context: none next to a pure block, one next to a mixed change, configurable ------------------------


def expected_context(raw: bytes, context_keep: int, pure_keep: int, skip=b"Cargo.lock") -> tuple[int, int, int]:
    """The context lines the rule leaves visible, computed on the raw hunks: a run of unchanged lines
    keeps ``context_keep`` lines on the side of a block that removes and adds, ``pure_keep`` on the
    side of a block that only adds or only removes, nothing on the side of a hunk header or the hunk
    end; the rest goes when it is longer than its ``⋯ N`` hint. Also how many pure and mixed blocks."""
    hunks: dict[int, list[Line]] = {}
    for h in hunk_lines(raw):
        if h.new_path != skip:
            hunks.setdefault(h.hunk, []).append(h)
    shown = pure = mixed = 0
    for lines in hunks.values():
        runs = []  # [sign set or None for context, lines]
        for h in lines:
            kind = None if h.sign == b" " else "chg"
            if runs and runs[-1][0] == kind:
                runs[-1][1].append(h)
            else:
                runs.append([kind, [h]])
        keeps = [None if kind is None else (pure_keep if len({h.sign for h in run}) == 1 else context_keep) for kind, run in runs]
        pure += sum(1 for kind, run in runs if kind and len({h.sign for h in run}) == 1)
        mixed += sum(1 for kind, run in runs if kind and len({h.sign for h in run}) == 2)
        for k, (kind, run) in enumerate(runs):
            if kind is not None:
                continue
            head = keeps[k - 1] if k > 0 else 0
            tail = keeps[k + 1] if k + 1 < len(runs) else 0
            cut = run[head : len(run) - tail] if head + tail < len(run) else []
            if cut and sum(len(h.text) + 2 for h in cut) > len(f"⋯ {len(cut)}\n".encode()):
                shown += len(run) - len(cut)
            else:
                shown += len(run)
    return shown, pure, mixed


@pytest.mark.parametrize("context_keep, pure_keep", [(1, 0), (1, 2), (3, 0), (0, 0)])
def test_context_next_to_pure_and_mixed_blocks(context_keep, pure_keep):
    raw = fixture("diff_binary_files_added.diff")  # pure additions (new functions, docs) and edits
    visible, _ = run(raw, context_keep=context_keep, pure_keep=pure_keep)
    assert not MOVED.search(visible)
    shown, pure, mixed = expected_context(raw, context_keep, pure_keep)
    assert pure >= 5 and mixed >= 5
    assert sum(1 for line in visible.split(b"\n") if line[:1] == b" ") == shown


def test_pure_addition_has_no_context_by_default():
    raw = fixture("diff_binary_files_added.diff")
    visible, _ = run(raw)
    lines = visible.split(b"\n")
    # a paragraph added to README.md sits between the hints of its context, none of which shows
    k = lines.index(b"+* `ripgrep` supports searching files compressed in a common format (gzip, xz,")
    assert lines[k - 1] == "⋯ 3".encode() and lines[k + 2] == "⋯ 3".encode()
    # an edit of doc/rg.1 keeps one line of context on each side
    k = lines.index(b"-This is equivalent to adding ^ to the list of search patterns.")
    assert lines[k - 1] == b" Show both matching and non\\-matching lines." and HINT.match(lines[k - 2])
    assert lines[k + 4] == b" .RS" and HINT.match(lines[k + 5])


def test_hints_are_short_and_count_every_unchanged_line():
    raw = fixture("diff_moved_block_refactor.diff")
    visible, contents = run(raw)
    hinted = sum(int(n) for n in HINT.findall(visible))
    context_raw = sum(1 for h in hunk_lines(raw) if h.sign == b" ")
    context_shown = sum(1 for line in visible.split(b"\n") if line[:1] == b" ")
    assert hinted > 50 and context_shown + hinted == context_raw
    hint_bytes = sum(len(m.group()) + 1 for m in HINT.finditer(visible))
    assert hint_bytes / len(visible) < 0.03  # "⋯ 12": a few bytes, not "⋯ 12 unchanged lines"
    assert b"unchanged lines" not in visible.replace(b"unchanged lines (\xe2\x8b\xaf N)", b"")
    # the one ref holds exactly the lines the hints, the index lines and the moved blocks stand for
    [ref] = contents.values()
    moved = sum(2 * int(n) for n, *_ in set(MOVED.findall(visible)))
    index = sum(1 for line in raw.split(b"\n") if line.startswith(b"index "))
    assert ref.count(b"\n") == hinted + index + moved


# --- lockfiles and generated files ---------------------------------------------------------------


def test_npm_lockfile_is_one_summary_line_and_its_hunks_are_behind_the_ref():
    raw = fixture("diff_npm_lockfile_bump.diff")
    visible, contents = run(raw)
    lines = visible.split(b"\n")
    assert lines[0] == b"diff --git a/package-lock.json b/package-lock.json"
    assert lines[1:3] == [b"--- a/package-lock.json", b"+++ b/package-lock.json"]  # the file's own header lines stay
    summary = lines[3].decode()
    assert summary.startswith("⋯ 11 packages changed: ")
    for change in ("cookie 0.4.2 → 0.7.2", "socket.io 4.5.0 → 4.8.1", "engine.io 6.2.1 → 6.6.2", "ws 8.2.3 → 8.17.1",
                   "@socket.io/base64-arraybuffer (removed 1.0.2)", "@socket.io/component-emitter (added 3.1.2)"):
        assert change in summary
    added = sum(1 for h in hunk_lines(raw) if h.sign == b"+")
    removed = sum(1 for h in hunk_lines(raw) if h.sign == b"-")
    assert f"(+{added} -{removed} lines)" in summary
    assert len(lines) == 6 and lines[5] == b""  # header lines, summary, marker
    [ref] = contents.values()
    index_line = raw[raw.index(b"\n") + 1 : raw.index(b"\n--- ") + 1]
    assert ref == index_line + raw[raw.index(b"\n@@") + 1 :]  # the index line and every hunk


def test_cargo_lock_summarised_code_kept():
    raw = fixture("diff_cargo_lock_and_code.diff")
    visible, _ = run(raw)
    assert (b"diff --git a/Cargo.lock b/Cargo.lock\n--- a/Cargo.lock\n+++ b/Cargo.lock\n"
            b"\xe2\x8b\xaf 15 packages changed: aho-corasick 1.1.4 \xe2\x86\x92 1.1.5") in visible
    assert "regex-automata 0.4.15 → 0.4.18".encode() in visible
    code = {h.sign + h.text for h in hunk_lines(raw) if h.new_path != b"Cargo.lock" and h.sign != b" "}
    assert code and code <= visible_lines(visible)
    lock = {h.sign + h.text for h in hunk_lines(raw) if h.new_path == b"Cargo.lock" and h.sign != b" "} - code
    assert len(lock) > 30 and not lock & visible_lines(visible)


def test_signal_check_skips_summarised_files_by_path_alone():
    raw = fixture("diff_cargo_lock_and_code.diff")
    auto = set(auto_signals("diff", raw))
    lock = {h.sign + h.text for h in hunk_lines(raw) if h.new_path == b"Cargo.lock" and h.sign != b" "}
    code = {h.sign + h.text for h in hunk_lines(raw) if h.new_path != b"Cargo.lock" and h.sign != b" "}
    assert not (auto & (lock - code)) and code <= auto and len(lock - code) > 30
    # the rule looks at the path, not at what a reducer made: the same hunks under another name count
    renamed = raw.replace(b"a/Cargo.lock b/Cargo.lock", b"a/Cargo.lock.txt b/Cargo.lock.txt")
    assert len(lock & set(auto_signals("diff", renamed)) - code) > 30
    visible, _ = run(renamed)  # not summarised: every changed line of it shows
    assert not missing_signals(visible, [], auto_signals("diff", renamed))
    # and the check still bites: a code line taken out of the visible text is missing
    line = sorted(code)[0]
    assert missing_signals(run(raw)[0].replace(line + b"\n", b""), [], sorted(auto)) == [line.decode()]


# --- moved blocks ----------------------------------------------------------------------------------------


def test_moved_blocks_shown_once_with_their_places_and_bytes_in_the_ref():
    raw = fixture("diff_moved_block_refactor.diff")
    visible, contents = run(raw)
    hunks = hunk_lines(raw)
    removed = {(h.old_path, h.old_no): h.text for h in hunks if h.sign == b"-"}
    added = {(h.new_path, h.new_no): h.text for h in hunks if h.sign == b"+"}
    moves = MOVED.findall(visible)
    assert len(set(moves)) >= 8 and all(moves.count(m) == 2 for m in moves)  # at the old place and the new
    total = 0
    for n, a, a_line, b, b_line in set(moves):
        n, a_line, b_line = int(n), int(a_line), int(b_line)
        old = [removed[a, a_line + k] for k in range(n)]
        assert old == [added[b, b_line + k] for k in range(n)]  # verbatim
        assert n >= 3 or sum(map(len, old)) >= 80
        total += n
    assert (b"moved 31 lines from crates/core/path_printer.rs:104 to crates/printer/src/path.rs:149") in visible
    assert f"{2 * total} moved lines".encode() in visible
    [ref] = contents.values()
    assert b"-/// A configuration for describing how paths should be written.\n" in ref
    # SIGNAL's own rule: a changed line that occurs with the other sign too is not asked for
    auto = auto_signals("diff", raw)
    assert not missing_signals(visible, [], auto)
    assert b"-/// A configuration for describing how paths should be written." not in auto


def test_moved_blocks_through_git_show():
    packet = reduce_bytes(fixture("git_show_moved_rename.txt"), source="git_show_moved_rename.txt")
    assert b"\xe2\x8b\xaf moved " in packet.visible
    assert b"rename to crates/printer/src/hyperlink/mod.rs" in packet.visible
    assert packet.signal_pass and packet.restore_pass


# --- binary and rename-only files: one line each --------------------------------------------------------


def test_binary_files_are_one_line_each():
    raw = fixture("diff_binary_files_added.diff")
    visible, _ = run(raw)
    lines = visible.split(b"\n")
    binaries = [line for line in raw.split(b"\n") if line.startswith(b"Binary files ")]
    assert len(binaries) == 4
    for line in binaries:
        k = lines.index(line)
        path = line.split(b" b/")[1].split(b" differ")[0]
        assert lines[k - 1] != b"diff --git a/" + path + b" b/" + path and b"diff --git a/" + path not in visible
        assert lines[k + 1].startswith((b"diff --git ", b"Binary files "))


def test_rename_only_files_are_their_rename_lines():
    raw = fixture("diff_renames.diff")
    visible, _ = run(raw)
    lines = visible.split(b"\n")
    for old, new in ((b"ci/sha256.sh", b"ci/sha256-releases"), (b"ci/test_complete.sh", b"ci/test-complete")):
        k = lines.index(b"diff --git a/" + old + b" b/" + new)
        # the rename lines as git prints them (what an agent greps for); the similarity line goes
        assert lines[k + 1 : k + 3] == [b"rename from " + old, b"rename to " + new]
        assert lines[k + 3].startswith(b"diff --git ")
    # a renamed file with changes keeps its rename lines
    assert b"rename from ci/build_deb.sh\nrename to ci/build-deb\n" in visible


# --- other lockfile formats: real hunks (git diff of one commit, the lockfile only) ----------------------------
PNPM_V5 = (  # antfu/ni 8614e036b2c9
    b'diff --git a/pnpm-lock.yaml b/pnpm-lock.yaml\n'
    b'index 6a9dc1d..dc4eef1 100644\n'
    b'--- a/pnpm-lock.yaml\n'
    b'+++ b/pnpm-lock.yaml\n'
    b'@@ -5,6 +5,7 @@ specifiers:\n'
    b"   '@types/ini': ^1.3.30\n"
    b"   '@types/node': ^16.7.10\n"
    b"   '@types/prompts': ^2.4.0\n"
    b"+  '@types/which': ^2.0.1\n"
    b'   ava: ^3.15.0\n'
    b'   c8: ^7.8.0\n'
    b'   esbuild-register: ^3.0.0\n'
    b'@@ -19,12 +20,14 @@ specifiers:\n'
    b'   terminal-link: ^3.0.0\n'
    b'   tsup: ^4.14.0\n'
    b'   typescript: ^4.4.2\n'
    b'+  which: ^2.0.2\n'
    b' \n'
    b' devDependencies:\n'
    b"   '@antfu/eslint-config-ts': 0.7.0_eslint@7.32.0+typescript@4.4.2\n"
    b"   '@types/ini': 1.3.30\n"
    b"   '@types/node': 16.7.10\n"
    b"   '@types/prompts': 2.4.0\n"
    b"+  '@types/which': 2.0.1\n"
    b'   ava: 3.15.0\n'
    b'   c8: 7.8.0\n'
    b'   esbuild-register: 3.0.0\n'
    b'@@ -39,6 +42,7 @@ devDependencies:\n'
    b'   terminal-link: 3.0.0\n'
    b'   tsup: 4.14.0_typescript@4.4.2\n'
    b'   typescript: 4.4.2\n'
    b'+  which: 2.0.2\n'
    b' \n'
    b' packages:\n'
    b' \n'
    b'@@ -420,6 +424,10 @@ packages:\n'
    b'     resolution: {integrity: sha512-7th8Opn+0XlN0O6qzO7dXOPwL6rigq/EwRS2DntaTHwSw8cLaYKeAPt5dWEKHSL+ffVSUl1itTPUC06+FlsV4Q==}\n'
    b'     dev: true\n'
    b' \n'
    b'+  /@types/which/2.0.1:\n'
    b'+    resolution: {integrity: sha512-Jjakcv8Roqtio6w1gr0D7y6twbhx6gGgFGF5BLwajPpnOIOxFkakFhCq+LmyyeAz7BX6ULrjBOxdKaCDy+4+dQ==}\n'
    b'+    dev: true\n'
    b'+\n'
    b'   /@typescript-eslint/eslint-plugin/4.30.0_8a8a2d3eaa9257455a03c16dce5f55b3:\n'
    b'     resolution: {integrity: sha512-NgAnqk55RQ/SD+tZFD9aPwNSeHmDHHe5rtUyhIq0ZeCWZEvo4DK9rYz7v9HDuQZFvn320Ot+AikaCKMFKLlD0g==}\n'
    b'     engines: {node: ^10.12.0 || >=12.0.0}\n'
)
YARN_V1 = (  # jaredpalmer/formik 34a0805b774e
    b'diff --git a/yarn.lock b/yarn.lock\n'
    b'index 0e7020d5..d3f843c0 100644\n'
    b'--- a/yarn.lock\n'
    b'+++ b/yarn.lock\n'
    b'@@ -449,14 +449,6 @@\n'
    b'   resolved "https://registry.yarnpkg.com/@types/estree/-/estree-0.0.39.tgz#e177e699ee1b8c22d23174caaa7422644389509f"\n'
    b'   integrity sha512-EYNwp3bU+98cpU4lAWYYL7Zz+2gryWH1qbdDTidVd6hkiR6weksdbMadyXKXNPEkQFhXM+hVO9ZygomHXp+AIw==\n'
    b' \n'
    b'-"@types/hoist-non-react-statics@^3.3.1":\n'
    b'-  version "3.3.1"\n'
    b'-  resolved "https://registry.yarnpkg.com/@types/hoist-non-react-statics/-/hoist-non-react-statics-3.3.1.tgz#1124aafe5118cb591977aeb1ceaaed1070eb039f"\n'
    b'-  integrity sha512-iMIqiko6ooLrTh1joXodJK5X9xeEALT1kM5G3ZLhD3hszxBdIEd5C75U834D9mLcINgD4OyZf5uQXjkuYydWvA==\n'
    b'-  dependencies:\n'
    b'-    "@types/react" "*"\n'
    b'-    hoist-non-react-statics "^3.3.0"\n'
    b'-\n'
    b' "@types/jest-diff@*":\n'
    b'   version "20.0.1"\n'
    b'   resolved "https://registry.yarnpkg.com/@types/jest-diff/-/jest-diff-20.0.1.tgz#35cc15b9c4f30a18ef21852e255fdb02f6d59b89"\n'
)
GO_SUM = (  # spf13/cobra 7da941c3547e
    b'diff --git a/go.sum b/go.sum\n'
    b'index de8d9a7..fafe83d 100644\n'
    b'--- a/go.sum\n'
    b'+++ b/go.sum\n'
    b'@@ -4,8 +4,8 @@ github.com/inconshreveable/mousetrap v1.1.0 h1:wN+x4NVGpMsO7ErUn/mUI3vEoE6Jt13X2\n'
    b' github.com/inconshreveable/mousetrap v1.1.0/go.mod h1:vpF70FUmC8bwa3OWnCshd2FqLfsEA9PFc4w1p2J65bw=\n'
    b' github.com/russross/blackfriday/v2 v2.1.0 h1:JIOH55/0cWyOuilr9/qlrm0BSXldqnqwMsf35Ld67mk=\n'
    b' github.com/russross/blackfriday/v2 v2.1.0/go.mod h1:+Rmxgy9KzJVeS9/2gXHxylqXiyQDYRxCVz55jmeOWTM=\n'
    b'-github.com/spf13/pflag v1.0.8 h1:/v546uKZ4gFGHpyXvV6CNKDeJBu4l5PRvxwQvdWrc0I=\n'
    b'-github.com/spf13/pflag v1.0.8/go.mod h1:McXfInJRrz4CZXVZOBLb0bTZqETkiAhM9Iw0y3An2Bg=\n'
    b'+github.com/spf13/pflag v1.0.9 h1:9exaQaMOCwffKiiiYk6/BndUBv+iRViNW+4lEMi0PvY=\n'
    b'+github.com/spf13/pflag v1.0.9/go.mod h1:McXfInJRrz4CZXVZOBLb0bTZqETkiAhM9Iw0y3An2Bg=\n'
    b' gopkg.in/check.v1 v0.0.0-20161208181325-20d25e280405 h1:yhCVgyC4o1eVCa2tZl7eS0r+SDo693bJlVdllGtEeKM=\n'
    b' gopkg.in/check.v1 v0.0.0-20161208181325-20d25e280405/go.mod h1:Co6ibVJAznAaIkqp8huTwlJQCZ016jof/cbN4VW5Yz0=\n'
    b' gopkg.in/yaml.v3 v3.0.1 h1:fxVm/GzAzEWqLHuvctI91KS9hhNmmWOoWu0XTYJS7CA=\n'
)
POETRY = (  # python-poetry/poetry b95f28aefeb3
    b'diff --git a/poetry.lock b/poetry.lock\n'
    b'index 06cbf032b..f538a59ab 100644\n'
    b'--- a/poetry.lock\n'
    b'+++ b/poetry.lock\n'
    b'@@ -1,4 +1,4 @@\n'
    b'-# This file is automatically @generated by Poetry 2.3.4 and should not be changed by hand.\n'
    b'+# This file is automatically @generated by Poetry 2.4.1 and should not be changed by hand.\n'
    b' \n'
    b' [[package]]\n'
    b' name = "anyio"\n'
    b'@@ -1977,14 +1977,14 @@ markers = {main = "python_version == \\"3.10\\"", github-actions = "python_version\n'
    b' \n'
    b' [[package]]\n'
    b' name = "tomlkit"\n'
    b'-version = "0.14.0"\n'
    b'+version = "0.15.0"\n'
    b' description = "Style preserving TOML library"\n'
    b' optional = false\n'
    b' python-versions = ">=3.9"\n'
    b' groups = ["main"]\n'
    b' files = [\n'
    b'-    {file = "tomlkit-0.14.0-py3-none-any.whl", hash = "sha256:592064ed85b40fa213469f81ac584f67a4f2992509a7c3ea2d632208623a3680"},\n'
    b'-    {file = "tomlkit-0.14.0.tar.gz", hash = "sha256:cf00efca415dbd57575befb1f6634c4f42d2d87dbba376128adb42c121b87064"},\n'
    b'+    {file = "tomlkit-0.15.0-py3-none-any.whl", hash = "sha256:4dbc8f0fc024412b57ced8757ac7461305126a648ff8c2c807fcb8e133a78738"},\n'
    b'+    {file = "tomlkit-0.15.0.tar.gz", hash = "sha256:7d1a9ecba3086638211b13814ea79c90dd54dd11993564376f3aa92271f5c7a3"},\n'
    b' ]\n'
    b' \n'
    b' [[package]]\n'
)
SNAPSHOT = (  # jaredpalmer/formik 2679523e27b9
    b'diff --git a/test/__snapshots__/Formik.test.tsx.snap b/test/__snapshots__/Formik.test.tsx.snap\n'
    b'index 2bae1ec4..bf750beb 100644\n'
    b'--- a/test/__snapshots__/Formik.test.tsx.snap\n'
    b'+++ b/test/__snapshots__/Formik.test.tsx.snap\n'
    b'@@ -5,7 +5,7 @@ exports[`Formik renders Formik correctly 1`] = `\n'
    b'   onSubmit={[Function]}\n'
    b' >\n'
    b'   <input\n'
    b'-    name="thing"\n'
    b'+    name="name"\n'
    b'     onBlur={[Function]}\n'
    b'     onChange={[Function]}\n'
    b'     type="text"\n'
)
CODE_FILE = (  # a code change next to them: it stays whole
    b"diff --git a/src/run.py b/src/run.py\nindex 1111111..2222222 100644\n--- a/src/run.py\n+++ b/src/run.py\n"
    b"@@ -1,2 +1,2 @@\n import os\n-raise SystemExit(run(os.environ))\n+raise SystemExit(run(dict(os.environ)))\n"
)


@pytest.mark.parametrize("raw, summary", [
    (PNPM_V5, "⋯ 2 packages changed: @types/which (added 2.0.1), which (added 2.0.2) (+8 -0 lines)"),
    (YARN_V1, "⋯ 1 package changed: @types/hoist-non-react-statics (removed 3.3.1) (+0 -8 lines)"),
    (GO_SUM, "⋯ 1 package changed: github.com/spf13/pflag v1.0.8 → v1.0.9 (+2 -2 lines)"),
    (POETRY, "⋯ 1 package changed: tomlkit 0.14.0 → 0.15.0 (+4 -4 lines)"),
    (SNAPSHOT, "⋯ generated file: +1 -1 lines"),
])
def test_lockfile_formats_are_summarised(raw, summary):
    raw = raw + CODE_FILE
    visible, contents = run(raw)
    lines = visible.decode().split("\n")
    assert lines[0].startswith("diff --git a/") and lines[1].startswith("--- ") and lines[2].startswith("+++ ")
    assert lines[3] == summary
    assert lines[4] == "diff --git a/src/run.py b/src/run.py"
    assert "-raise SystemExit(run(os.environ))" in lines and "+raise SystemExit(run(dict(os.environ)))" in lines
    assert missing_signals(visible, [], auto_signals("diff", raw)) == []
    [ref] = contents.values()
    first_hunk = raw.index(b"\n@@ ") + 1
    assert raw[first_hunk : raw.index(b"diff --git a/src/run.py")] in ref


@pytest.mark.parametrize("path, summarised", [
    (b"package-lock.json", True), (b"web/yarn.lock", True), (b"pnpm-lock.yaml", True), (b"poetry.lock", True),
    (b"Cargo.lock", True), (b"Gemfile.lock", True), (b"go.sum", True), (b"composer.lock", True),
    (b"dist/axios.min.js", True), (b"dist/site.min.css", True), (b"dist/axios.js.map", True),
    (b"test/__snapshots__/Formik.test.tsx.snap", True), (b"src/__snapshots__/x.ts", True),
    (b"src/lock.rs", False), (b"Cargo.toml", False), (b"package.json", False), (b"go.mod", False),
    (b"src/admin.js", False), (b"docs/sitemap.xml", False), (b"yarn.lock.md", False),
])
def test_summarised_file_rule(path, summarised):
    from operators.vocab import summarised_file

    assert summarised_file(path) is summarised


def test_crlf_diff_summaries_end_as_their_lines_do():
    raw = (fixture("diff_moved_block_refactor.diff") + fixture("diff_cargo_lock_and_code.diff")).replace(b"\n", b"\r\n")
    visible, _ = run(raw)  # restores byte for byte
    moved = re.findall(rb"^\xe2\x8b\xaf moved [^\r\n]*(\r?\n)", visible, re.M)
    assert len(moved) >= 16 and set(moved) == {b"\r\n"}
    assert re.search(rb"^\xe2\x8b\xaf 15 packages changed: [^\r\n]*\(\+41 -30 lines\)\r\n", visible, re.M)
    assert all(end == b"\r\n" for end in re.findall(rb"^\xe2\x8b\xaf \d+(\r?\n)", visible, re.M))
    assert not missing_signals(visible, [], auto_signals("diff", raw))


def test_plain_unified_diff_without_git_headers():
    # diff -ru output of the same move: the paths come from the ---/+++ lines
    raw = fixture("diff_moved_block_refactor.diff")
    plain = re.sub(rb"^(?:diff --git .*|index .*)\n", b"", raw, flags=re.M)
    visible, _ = run(plain)
    assert b"moved 31 lines from crates/core/path_printer.rs:104 to crates/printer/src/path.rs:149" in visible
    assert not missing_signals(visible, [], auto_signals("diff", plain))


def moved_pair(block: bytes) -> bytes:
    """A diff that removes ``block`` (lines without their sign) from one file and adds it to another."""
    lines = block.splitlines(keepends=True)
    minus, plus = b"".join(b"-" + line for line in lines), b"".join(b"+" + line for line in lines)
    ctx = b"".join(b" unchanged line number %d of the file\n" % i for i in range(3))
    n = len(lines)
    return (
        b"diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -10,%d +10,3 @@\n" % (n + 3) + ctx + minus
        + b"diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -20,3 +20,%d @@\n" % (n + 3) + ctx + plus
    )


@pytest.mark.parametrize("block, moved", [
    (b"def parse_numbers(text, *, strict=False):\n    return [int(value) for value in text.split(',') if value]\n", True),
    (b"def parse(text):\n    return [int(x) for x in text.split()]\n", False),  # 2 lines, 57 bytes
    (b"x = compute()\ny = other()\n", False),  # 2 short lines: not a block
    (b"alpha = load_alpha()\nbeta = load_beta()\ngamma = 1\n", True),  # 3 lines
    (b"    }\n  }\n}\n", False),  # 3 lines but no 20 letters or digits
])
def test_moved_block_size_rule(block, moved):
    raw = moved_pair(block)
    visible, _ = run(raw, context_keep=1)
    n = len(block.splitlines())
    assert (f"\u22ef moved {n} lines from a.py:13 to b.py:23".encode() in visible) is moved
    assert not missing_signals(visible, [], auto_signals("diff", raw))


@pytest.mark.parametrize("name", ["diff_moved_block_refactor.diff", "diff_npm_lockfile_bump.diff", "diff_binary_files_added.diff"])
def test_cut_and_spliced_real_diffs_restore(name):
    """A diff cut anywhere (a truncated paste) or with its files in another order still restores exactly."""
    import random

    raw = fixture(name)
    rng = random.Random(16)
    for _ in range(25):
        cut = raw[: rng.randrange(len(raw))]
        assert not missing_signals(run(cut)[0], [], auto_signals("diff", cut))
    files = re.split(rb"(?=^diff --git )", raw, flags=re.M)
    for _ in range(5):
        rng.shuffle(files)
        spliced = b"".join(files)
        visible, _ = run(spliced)
        assert not missing_signals(visible, [], auto_signals("diff", spliced))
