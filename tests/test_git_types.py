"""The git family (gitlog, gitblame, gitstatus) on real outputs of public repositories: detection and
its near misses, the must-see strings, the shape of the reduction, and byte-exact restore."""

from __future__ import annotations

import random
import re

import pytest

from conftest import FIXTURES, reduce_bytes, tokens_cli
from operators.classify import classify
from operators.config import config_class
from operators.reduction import omissions, render, restore
from operators.signals import load_sidecar
from operators.types import gitblame, gitlog, gitstatus
from operators.vocab import SIGNAL_RE

SIDECAR = load_sidecar(FIXTURES / "signals.toml")
EXPECTED_TYPE = {
    "git_log.txt": "gitlog",
    "git_log_stat.txt": "gitlog",
    "git_log_stat_paths.txt": "gitlog",
    "git_log_p.txt": "gitlog",
    "git_log_graph.txt": "gitlog",
    "git_log_oneline_graph.txt": "gitlog",
    "git_show.txt": "gitlog",
    "git_show_tag.txt": "gitlog",
    "git_blame_s.txt": "gitblame",
    "git_branch_vv.txt": "gitstatus",
    "git_blame.txt": "gitblame",
    "git_blame_porcelain.txt": "gitblame",
    "git_blame_line_porcelain.txt": "gitblame",
    "git_status.txt": "gitstatus",
    "git_status_short.txt": "gitstatus",
    "git_tag.txt": "gitstatus",
    "git_tag_n.txt": "gitstatus",
    "git_branch_a.txt": "gitstatus",
}
MODULES = {"gitlog": gitlog, "gitblame": gitblame, "gitstatus": gitstatus}
COMMIT_RE = re.compile(rb"^commit ([0-9a-f]{40})", re.M)


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def run(module, raw: bytes, granularity: str = "coarse", config=None):
    """The module's plan on ``raw``: the visible bytes and each group's bytes, restore checked."""
    plan = module.reduce(raw, granularity, config or config_class()())
    contents = omissions(plan)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(plan.reasons)}
    visible, layout, _ = render(plan, ids)
    assert restore(visible, layout, [contents[g] for g in plan.reasons]) == raw
    return visible, contents


def changed_lines(raw: bytes) -> list[bytes]:
    """The +/- lines of the patches, found without any diff walk (no fixture removes a '--- ' line)."""
    return [line.rstrip(b"\r") for line in raw.split(b"\n")
            if line[:1] in (b"+", b"-") and not line.startswith((b"+++ ", b"--- ")) and len(line) > 1]


# --- detection -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED_TYPE))
def test_each_fixture_is_classified_as_its_git_type(name):
    assert classify(fixture(name))[0] == EXPECTED_TYPE[name]


def test_near_misses_keep_their_own_type():
    # a diff alone (git diff) stays a diff; the sample diff too
    show = fixture("git_show.txt")
    assert classify(show[show.index(b"diff --git") :])[0] == "diff"
    assert classify(fixture("sample.diff"))[0] == "diff"
    # ... but a commit followed by its patch (git log -p, git show) is a commit
    assert classify(fixture("git_log_p.txt"))[0] == "gitlog"
    # a log line that looks like a commit header stays a log
    log = (b"2026-08-16 09:00:00,101 INFO deploy started\n"
           b"2026-08-16 09:00:01,202 INFO commit 3f2a1b9c4d aborted by user\n"
           b"2026-08-16 09:00:02,303 ERROR Author: unknown, rollback\n"
           b"2026-08-16 09:00:03,404 INFO deploy finished\n")
    assert classify(log)[0] == "log"
    assert classify(fixture("sample.log"))[0] == "log"
    assert classify(fixture("sample.filelist"))[0] == "filelist"
    # release tarballs are files, not tags; a bullet list of words is not a branch list
    tarballs = b"".join(b"dist/pkg-1.%d.%d.tar.gz\n" % (i, j) for i in range(5) for j in range(3))
    assert classify(tarballs)[0] != "gitstatus"
    addresses = b"".join(b"10.0.%d.%d - - [16/Aug/2026:09:00:00 +0000] \"GET / HTTP/1.1\" 200 12\n" % (i, i) for i in range(20))
    assert classify(addresses)[0] != "gitstatus"
    assert classify(b"".join(b"10.0.%d.%d\n" % (i, i) for i in range(20)))[0] != "gitstatus"
    bullets = b"* apples\n* pears\n* plums\n"
    assert classify(bullets)[0] != "gitstatus"
    # hex ids at line starts of a log are not a --oneline log
    ids = b"".join(b"%08x GET /api/items 200\n" % (0xA1B2C3 + i) for i in range(10))
    assert classify(ids)[0] != "gitlog"


# --- must-see strings and the three invariants, through the whole graph --------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED_TYPE))
def test_planted_signals_survive_and_everything_restores(name):
    raw = fixture(name)
    packet = reduce_bytes(raw, source=f"fixtures/{name}", expected_signals=SIDECAR[name])
    assert packet.type == EXPECTED_TYPE[name]
    for signal in SIDECAR[name]:
        assert signal.encode() in packet.visible, signal
    assert packet.signal_pass, packet.missing_signals
    assert packet.recovery_pass and packet.restore_pass
    refs = b"".join(bytes(r.content) for r in packet.references)
    assert len(raw) - len(refs) <= len(packet.visible)  # nothing neither shown nor stored


def test_expand_full_gives_back_the_original(tmp_path):
    source = fixture("git_log_p.txt")
    result = tokens_cli("analyze", str(FIXTURES / "git_log_p.txt"))
    assert result.returncode == 0, result.stderr.decode()[-800:]
    reduced = tmp_path / "reduced.txt"
    reduced.write_bytes(result.stdout)
    restored = tokens_cli("expand", "--full", str(reduced))
    assert restored.returncode == 0 and restored.stdout == source
    ref = re.search(rb"#ref:(ctx_[0-9a-f]+)", result.stdout).group(1).decode()
    shown = tokens_cli("expand", ref)
    assert shown.returncode == 0 and b"Author: Casper da Costa-Luis <tqdm@cdcl.ml>" in shown.stdout


# --- git log -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["git_log.txt", "git_log_stat.txt", "git_log_p.txt"])
def test_one_line_per_commit_with_hash_date_author_subject(name):
    raw = fixture(name)
    visible, contents = run(gitlog, raw)
    hashes = COMMIT_RE.findall(raw)
    for m in COMMIT_RE.finditer(raw):
        full, i = m.group(1), m.start()
        subject = raw[raw.index(b"\n\n    ", i) + 6 :].split(b"\n", 1)[0]
        line = re.search(rb"^" + full[:12] + rb" \d{4}-\d\d-\d\d [^\n]*?: (.*)$", visible, re.M)
        assert line is not None, full
        assert line.group(1).startswith(subject)
    assert visible.count(b"\nAuthor: ") == 0 and b"\nDate: " not in visible
    assert len(hashes) == len(re.findall(rb"^[0-9a-f]{12} ", visible, re.M))
    assert b"Signed-off-by" not in visible  # trailers are behind the ref
    assert b"Signed-off-by" in b"".join(contents.values()) or b"Signed-off-by" not in raw


def test_log_stat_totals_stay_on_the_commit_line_and_the_stat_block_goes():
    raw = fixture("git_log_stat.txt")
    visible, _ = run(gitlog, raw)
    assert b"Replace deprecated pyOpenSSL `X509.get_subject` and `Context.set_passwd_cb` methods (#5103) [3 files +87 -66]" in visible
    assert b" | " not in visible
    assert len(visible) < 0.3 * len(raw)


def test_a_stat_line_with_a_signal_word_stays():
    raw = fixture("git_log_stat_paths.txt")  # git log --stat -- src/urllib3/util/timeout.py
    visible, _ = run(gitlog, raw)
    stat_lines = [line for line in raw.split(b"\n") if b" | " in line]
    assert len(stat_lines) == 4 and all(line + b"\n" in visible for line in stat_lines)
    assert b"Create BaseHTTPConnection APIs [1 file +3 -1]\n" in visible


def test_log_p_keeps_every_changed_line_and_every_file_header():
    raw = fixture("git_log_p.txt")
    visible, _ = run(gitlog, raw)
    lines = set(visible.split(b"\n"))
    for line in changed_lines(raw):
        assert line in lines, line
    for header in re.findall(rb"^diff --git [^\n]*", raw, re.M):
        assert header in lines
    # the body line with a signal word stays, as it was
    assert b"    - `rich`: fix potential `AttributeError` on exit (#1773 <- #1674)\n" in visible


def test_show_keeps_its_message_and_its_patch():
    raw = fixture("git_show.txt")
    visible, _ = run(gitlog, raw)
    assert visible.startswith(b"6284887af1df 2026-06-30 William Tan: Reject invalid URL hosts (#5095)\n")
    assert b"Co-authored-by" not in visible
    lines = set(visible.split(b"\n"))
    assert all(line in lines for line in changed_lines(raw))
    # unchanged context goes, but a context line with a signal word stays, the hints count around it
    patch = raw[raw.index(b"\ndiff --git ") :]
    context = [line for line in patch.split(b"\n") if line.startswith(b" ")]
    with_signal = [line for line in context if SIGNAL_RE.search(line)]
    assert with_signal and all(line in lines for line in with_signal)
    assert b"\xe2\x8b\xaf 2\n from ..exceptions import LocationParseError\n@@ -14,7" in visible
    assert sum(1 for line in context if line in lines) < len(context) / 2


def test_a_commit_without_message_shows_its_line_and_no_header():
    raw = fixture("git_show.txt")
    head, patch = raw.split(b"\n\ndiff --git ", 1)
    raw = head.split(b"\n\n")[0] + b"\n\ndiff --git " + patch  # commit, Author, Date, then the patch
    visible, _ = run(gitlog, raw)
    assert visible.startswith(b"6284887af1df 2026-06-30 William Tan: (no message)\ndiff --git ")
    assert b"Author:" not in visible and b"Date:" not in visible


def test_show_of_a_signed_tag_keeps_the_tag_header_and_folds_the_signature():
    raw = fixture("git_show_tag.txt")
    visible, contents = run(gitlog, raw)
    assert visible.startswith(b"tag 26.1.0\nTagger: Hynek Schlawack <hs@ox.cx>\n")
    assert b"-----BEGIN SSH SIGNATURE-----\n-----END SSH SIGNATURE-----\n" in visible
    signature = raw.split(b"-----BEGIN SSH SIGNATURE-----\n")[1].split(b"-----END")[0]
    assert signature in contents["commits"] and signature not in visible
    assert b"\n7bfc49e9b22d 2026-03-19 Hynek Schlawack: Prepare 26.1.0\n" in visible


def test_graph_keeps_the_commit_lines_graph_prefix():
    visible, _ = run(gitlog, fixture("git_log_graph.txt"))
    assert b"| | | | | | * f18c88e92707 2026-07-24 Casper da Costa-Luis: fix properly\n" in visible
    assert b"*---------.   93370ff89158 2026-07-24 Casper da Costa-Luis: bump version" in visible


def test_oneline_passes_through_and_folds_beyond_max_commits():
    raw = fixture("git_log_oneline_graph.txt")
    visible, contents = run(gitlog, raw)
    assert visible == raw and not contents
    config = config_class()(gitlog=gitlog.Settings(max_commits=10))
    visible, contents = run(gitlog, raw, config=config)
    assert b"| | * 164ef73 rich: misc fixes\n" in visible
    assert b"74ff992" not in visible and b"74ff992" in contents["older"]
    assert re.search(rb"\[\d+ older commits: #ref:ctx_[0-9a-f]+\]\n$", visible)


def test_many_commits_fold_the_older_ones_with_their_dates():
    raw = fixture("git_log.txt")
    config = config_class()(gitlog=gitlog.Settings(max_commits=5))
    visible, contents = run(gitlog, raw, config=config)
    assert len(re.findall(rb"^[0-9a-f]{12} ", visible, re.M)) == 5
    assert b"[35 older commits (2026-04-29 \xe2\x80\xa6 2026-07-07): #ref:ctx_" in visible
    assert contents["older"].startswith(b"commit 4e5ce6387231")
    assert b"[git log: 5 commits, one line each" in visible


def test_fine_granularity_gives_each_commit_its_ref():
    raw = fixture("git_log_stat.txt")
    visible, contents = run(gitlog, raw, granularity="fine")
    n = len(COMMIT_RE.findall(raw))
    assert len(contents) == n
    assert len(re.findall(rb"\] #ref:ctx_[0-9a-f]+\n", visible)) == n


# --- git blame -----------------------------------------------------------------------------------


def test_blame_shows_each_commit_once_and_every_code_line():
    raw = fixture("git_blame.txt")
    visible, _ = run(gitblame, raw)
    rows = raw.split(b"\n")[:-1]
    shown = visible.split(b"\n")
    for row in rows:
        number_and_code = re.search(rb" +(\d+\) .*)$", row).group(1)
        assert any(line.endswith(number_and_code) for line in shown), row
    def whole(row: bytes) -> bool:  # a line with a signal word or a definition stays as git printed it
        return bool(SIGNAL_RE.search(row) or re.search(rb"\d\) \s*(?:def|class) ", row))

    for commit in {row.split(b" ", 1)[0] for row in rows if not whole(row)}:
        introduced = re.findall(rb"^" + re.escape(commit) + rb" \(", visible, re.M)
        # author and date once per commit (and on its lines kept whole)
        kept = sum(1 for row in rows if row.startswith(commit + b" (") and whole(row))
        assert len(introduced) == 1 + kept, commit
    # a commit's first line: author and date without time and zone; a definition line as git printed it
    assert b"e21793e90 (Filipe Brandenburger 2024-11-17   8) from ._make import" in visible
    assert b"e21793e90 (Filipe Brandenburger 2024-11-17 03:15:26 -0800  36)         def optional_converter(" in visible
    assert len(visible) < 0.5 * len(raw)


def test_blame_porcelain_keeps_code_and_one_author_and_summary_per_run():
    raw = fixture("git_blame_porcelain.txt")
    visible, _ = run(gitblame, raw)
    for line in raw.split(b"\n"):
        if line.startswith(b"\t"):
            assert line + b"\n" in visible
    assert b"author-mail" not in visible and b"committer-time" not in visible
    assert visible.count(b"summary Add on_setattr hooks to attr.s and attr.ib (#660)") >= 1


def test_blame_s_shows_each_runs_commit_and_every_number_and_code():
    raw = fixture("git_blame_s.txt")  # git blame -s (a file blame followed across a rename)
    visible, _ = run(gitblame, raw)
    shown = visible.split(b"\n")
    rows = raw.split(b"\n")[:-1]
    assert rows[0] in shown  # the file name once, on the first line
    prev = None
    for row in rows:
        commit = row.split(b" ", 1)[0]
        number_and_code = re.search(rb" +(\d+\) .*)$", row).group(1)
        if commit != prev:  # each run shows its commit
            assert any(line.startswith(commit + b" ") and line.endswith(number_and_code) for line in shown), row
        else:
            assert number_and_code in visible
        prev = commit
    # the file name column is shown when it changes (old lines come from attr/__init__.py), and on
    # lines with a signal word (kept whole)
    files = [re.match(rb"\S+ (.*?) +\d+\) ", row).group(1) for row in rows]
    changes = 1 + sum(1 for a, b in zip(files, files[1:]) if a != b)
    whole = sum(1 for row in rows[1:] if SIGNAL_RE.search(row) or re.search(rb"\d\) \s*(?:def|class) ", row))
    assert 1 <= visible.count(b"attr/__init__.py") <= changes + whole < len(rows) / 3
    assert len(visible) < 0.75 * len(raw)


def test_line_porcelain_shows_a_signal_key_line_once_and_folds_the_repeats():
    raw = fixture("git_blame_line_porcelain.txt")  # --line-porcelain of util/timeout.py: "timeout" is a signal word
    visible, _ = run(gitblame, raw)
    assert visible.count(b"filename src/urllib3/util/timeout.py\n") == 1
    assert raw.count(b"filename src/urllib3/util/timeout.py\n") == 42  # (the older lines: urllib3/util/)
    assert b"committer-time" not in visible and len(visible) < 0.3 * len(raw)


def test_blame_signal_lines_stay_whole():
    raw = fixture("git_blame.txt")
    with_error = [line for line in raw.split(b"\n") if b"Error" in line or b"error" in line]
    visible, _ = run(gitblame, raw)
    for line in with_error:
        assert line in visible


# --- git status, branch, tag ---------------------------------------------------------------------


def test_status_keeps_every_path_and_folds_the_hints():
    raw = fixture("git_status.txt")
    visible, contents = run(gitstatus, raw)
    for line in raw.split(b"\n"):
        if line.startswith(b"\t") or line.endswith(b":") or line.startswith((b"On branch", b"Your branch")):
            assert line + b"\n" in visible, line
    assert b'(use "git add <file>..." to mark resolution)' not in visible
    assert b'(use "git add <file>..." to mark resolution)' in contents["hints"]
    assert b'(use "git merge --abort" to abort the merge)' in visible  # a signal word keeps it


def test_short_status_and_branch_lists_pass_through():
    for name in ("git_status_short.txt", "git_branch_a.txt", "git_branch_vv.txt"):
        raw = fixture(name)
        visible, contents = run(gitstatus, raw)
        assert visible == raw and not contents


def small_ceiling():
    """A config whose output ceiling (1,000 bytes) is below the tag fixtures' size: they fold."""
    from operators.ceiling import CeilingSettings

    return config_class()(ceiling=CeilingSettings(max_chars=1000))


def test_tag_lists_below_the_ceiling_are_shown_whole():
    for name in ("git_tag.txt", "git_tag_n.txt", "git_tag_fzf.txt"):  # real: tqdm, tqdm -n, fzf
        raw = fixture(name)
        assert classify(raw)[0] == "gitstatus", name
        visible, contents = run(gitstatus, raw)
        assert visible == raw and not contents, name


def test_tags_over_the_ceiling_keep_newest_oldest_and_count_the_rest():
    raw = fixture("git_tag.txt")
    visible, contents = run(gitstatus, raw, config=small_ceiling())
    tags = raw.split()
    shown = set(visible.split(b"\n"))
    newest = ["v4.69.1", "v4.69.0", "v4.68.4", "v4.68.3", "v4.68.2", "v4.68.1", "v4.68.0", "v4.67.3", "v4.67.2", "v4.67.1"]
    for tag in newest + ["v1.0.0", "v2.0.0", "v2.1.0", "v2.2.5", "v3.8.0"]:
        assert tag.encode() in shown, tag
    counted = sum(int(n) for n in re.findall(rb"^\xe2\x8b\xaf (\d+) more tags \(", visible, re.M))
    kept = sum(1 for line in visible.split(b"\n") if line in set(tags))
    assert kept + counted == len(tags)
    assert b"v4.19.9" not in shown and b"v4.19.9\n" in contents["tags"]
    assert f"[git tag: {len(tags)} tags, {kept} shown".encode() in visible


def test_tag_notes_fold_with_their_tags_and_a_note_with_a_signal_word_stays():
    raw = fixture("git_tag_n.txt")  # git tag -n: each name padded, then its note
    visible, contents = run(gitstatus, raw, config=small_ceiling())
    lines = raw.split(b"\n")[:-1]
    shown = set(visible.split(b"\n"))
    assert [line for line in lines if line.startswith(b"v4.69.1 ")][0] in shown
    assert [line for line in lines if line.startswith(b"v4.19.9 ")][0] + b"\n" in contents["tags"]
    for line in lines:
        if SIGNAL_RE.search(line):
            assert line in shown, line
    assert len(visible) < 0.2 * len(raw)
    assert classify(b"".join(b"1.%d.0 is the release of week %d\n" % (i, i) for i in range(20)))[0] != "gitstatus"


def test_a_cut_tag_list_keeps_an_even_spread_of_its_tags():
    from operators.ceiling import fit

    raw = fixture("git_tag_fzf.txt")  # real: git tag in fzf, 178 tags
    tags = raw.split(b"\n")[:-1]
    plan = gitstatus.reduce(raw, "coarse", config_class()())
    cut = fit(plan, 700, "gitstatus", config_class()())
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(cut.reasons)}
    visible = render(cut, ids)[0]
    at = [k for k, tag in enumerate(tags) if b"\n" + tag + b"\n" in b"\n" + visible]
    assert tags[0] in visible and tags[-1] in visible
    assert len(at) >= 6
    gaps = [b - a for a, b in zip(at, at[1:])]
    assert max(gaps) <= 3 * len(tags) / len(at), gaps  # spread over the list, not a head and a tail
    assert b"not shown" in visible


def test_tag_ranks_spread_and_status_ranks_paths_first():
    tags = [b"v0.%d.0" % i for i in range(9)]
    ranks = gitstatus.rank_lines(tags, None)
    assert ranks[0] == ranks[-1] == (1, 1) and ranks[4] == (1, 2)  # ends, then the middle
    assert ranks[2][1] == ranks[6][1] < ranks[1][1] == ranks[3][1]
    status = fixture("git_status.txt").split(b"\n")
    ranked = gitstatus.rank_lines(status, None)
    assert all(r == (0, 0) for line, r in zip(status, ranked) if line.startswith(b"\t"))


def test_short_tag_lists_pass_through():
    raw = b"".join(b"v1.%d.0\n" % i for i in range(12))
    visible, contents = run(gitstatus, raw)
    assert visible == raw and not contents


# --- odd input: never raises, always restores ----------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED_TYPE))
def test_crlf_no_final_newline_and_cut_inputs_restore(name):
    raw = fixture(name)
    module = MODULES[EXPECTED_TYPE[name]]
    run(module, raw.replace(b"\n", b"\r\n"))
    run(module, raw.rstrip(b"\n"))
    rng = random.Random(name)
    for _ in range(15):
        a = rng.randrange(len(raw))
        b = rng.randrange(a, len(raw) + 1)
        run(module, raw[a:b])
        mutated = bytearray(raw)
        for _ in range(5):
            mutated[rng.randrange(len(mutated))] = rng.choice(b"\n\r\x00\xff +-@c:")
        run(module, bytes(mutated))


def test_crlf_log_still_reads_one_line_per_commit():
    raw = fixture("git_log.txt").replace(b"\n", b"\r\n")
    visible, _ = run(gitlog, raw)
    assert b"6a8536b6e1b0 2026-07-21 dependabot[bot]: Bump github/codeql-action from 4.36.0 to 4.37.0 (#5127)\r\n" in visible


def test_a_cut_branch_list_keeps_the_current_branch_and_a_spread_not_one_line_per_template():
    from operators.ceiling import fit

    branches = [b"  remotes/origin/release-%d.%d" % (i // 10, i % 10) for i in range(300)]
    raw = b"\n".join(branches[:150] + [b"* release-15.0"] + branches[150:]) + b"\n"
    assert classify(raw)[0] == "gitstatus"
    plan = gitstatus.reduce(raw, "coarse", config_class()())
    cut = fit(plan, 1500, "gitstatus", config_class()())
    visible = render(cut, {g: f"ctx_{i:06x}" for i, g in enumerate(cut.reasons)})[0]
    assert b"\n* release-15.0\n" in visible
    shown = [k for k, b in enumerate(branches) if b + b"\n" in visible]
    assert len(shown) >= 8 and b"similar" not in visible  # names, not one line per template with a count
    assert max(b - a for a, b in zip(shown, shown[1:])) <= 3 * len(branches) / len(shown)


def test_a_oneline_log_whose_subject_starts_with_a_space_is_still_a_log():
    """Real subjects can start with a space ("606aa57  Used goimports…"): one such line does not turn
    a --oneline log into text."""
    rng = random.Random(7)
    words = b"parser lexer cache router config loader printer docs tests build".split()
    rows = [b"%07x fix: handle %s in the %s (#%d)" % (rng.randrange(1 << 24, 1 << 28), words[k % 10], words[k // 10], 100 + k)
            for k in range(30)]
    rows[12] = b"606aa57  Used goimports to fix import order (#912)"
    assert classify(b"\n".join(rows) + b"\n", None)[0] == "gitlog"


def test_git_diff_stat_alone_is_a_diff_and_its_lines_are_must_see():
    """`git diff --stat` output is a diff's file list: every line ranks with the file headers (tier 0);
    inside a commit (`git show --stat`) the same lines are the commit's context (tier 1)."""
    from operators.rank import line_tiers

    stat = [b" src/module_%d/handler.py%s |  %d +%s" % (k, b" " * (20 - len(str(k))), k + 1, b"-" * (k % 3))
            for k in range(40)]
    raw = b"\n".join(stat + [b" 40 files changed, 820 insertions(+), 39 deletions(-)"]) + b"\n"
    assert classify(raw, None)[0] == "diff"
    tiers, _ = line_tiers("diff", raw.split(b"\n")[:-1], None)
    assert tiers[:40] == [0] * 40
    show = (b"commit " + b"a" * 40 + b"\nAuthor: A <a@example.com>\nDate:   Mon Jan 1 10:00:00 2026 +0000\n\n"
            b"    Move handlers\n\n" + raw)
    assert classify(show, None)[0] == "gitlog"
    lines = show.split(b"\n")[:-1]
    tiers, _ = line_tiers("gitlog", lines, None)
    assert {tiers[i] for i, line in enumerate(lines) if b" | " in line} == {1}
    assert classify(b"\n".join(stat[:2]) + b"\nsome other line\n", None)[0] != "diff"
