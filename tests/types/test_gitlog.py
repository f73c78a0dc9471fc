"""The gitlog type (operators/types/gitlog.py): git log and git show on real outputs, one line per commit,
patches kept; detection and near misses, must-see strings, byte-exact restore."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings, strategies as st

from conftest import examples, FIXTURES, check_fixture_through_the_graph, fixture_bytes, odd_variants, reduce_alone, tokens_cli
from operators.classify import classify
from operators.ceiling import CeilingSettings
from operators.config import config_class
from operators.types import gitblame, gitlog
from operators.vocab import SIGNAL_RE

EXPECTED_TYPE = {
    "git_log.txt": "gitlog",
    "git_log_stat.txt": "gitlog",
    "git_log_stat_paths.txt": "gitlog",
    "git_log_p.txt": "gitlog",
    "git_log_graph.txt": "gitlog",
    "git_log_oneline_graph.txt": "gitlog",
    "git_show.txt": "gitlog",
    "git_show_tag.txt": "gitlog",
}
COMMIT_RE = re.compile(rb"^commit ([0-9a-f]{40})", re.M)


def run(module, raw: bytes, granularity: str = "coarse", config=None):
    """The module's plan on ``raw``: the visible bytes and each group's bytes, restore checked."""
    alone = reduce_alone(module, raw, config or config_class()(), granularity)
    return alone.visible, alone.contents


def changed_lines(raw: bytes) -> list[bytes]:
    """The +/- lines of the patches, found without any diff walk (no fixture removes a '--- ' line)."""
    return [line.rstrip(b"\r") for line in raw.split(b"\n")
            if line[:1] in (b"+", b"-") and not line.startswith((b"+++ ", b"--- ")) and len(line) > 1]


# --- detection -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED_TYPE))
def test_each_fixture_is_classified_as_its_git_type(name):
    assert classify(fixture_bytes(name))[0] == EXPECTED_TYPE[name]


def test_near_misses_keep_their_own_type():
    # a diff alone (git diff) stays a diff; the sample diff too
    show = fixture_bytes("git_show.txt")
    assert classify(show[show.index(b"diff --git") :])[0] == "diff"
    assert classify(fixture_bytes("sample.diff"))[0] == "diff"
    # ... but a commit followed by its patch (git log -p, git show) is a commit
    assert classify(fixture_bytes("git_log_p.txt"))[0] == "gitlog"
    # a log line that looks like a commit header stays a log
    log = (b"2026-08-16 09:00:00,101 INFO deploy started\n"
           b"2026-08-16 09:00:01,202 INFO commit 3f2a1b9c4d aborted by user\n"
           b"2026-08-16 09:00:02,303 ERROR Author: unknown, rollback\n"
           b"2026-08-16 09:00:03,404 INFO deploy finished\n")
    assert classify(log)[0] == "log"
    assert classify(fixture_bytes("sample.log"))[0] == "log"
    assert classify(fixture_bytes("sample.filelist"))[0] == "filelist"
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
    check_fixture_through_the_graph(name, EXPECTED_TYPE[name])


def test_expand_full_gives_back_the_original(tmp_path):
    source = fixture_bytes("git_log_p.txt")
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
    raw = fixture_bytes(name)
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
    raw = fixture_bytes("git_log_stat.txt")
    visible, _ = run(gitlog, raw)
    assert b"Replace deprecated pyOpenSSL `X509.get_subject` and `Context.set_passwd_cb` methods (#5103) [3 files +87 -66]" in visible
    assert b" | " not in visible
    assert len(visible) < 0.3 * len(raw)


def test_a_stat_line_with_a_signal_word_stays():
    raw = fixture_bytes("git_log_stat_paths.txt")  # git log --stat -- src/urllib3/util/timeout.py
    visible, _ = run(gitlog, raw)
    stat_lines = [line for line in raw.split(b"\n") if b" | " in line]
    assert len(stat_lines) == 4 and all(line + b"\n" in visible for line in stat_lines)
    assert b"Create BaseHTTPConnection APIs [1 file +3 -1]\n" in visible


def test_log_p_keeps_every_changed_line_and_every_file_header():
    raw = fixture_bytes("git_log_p.txt")
    visible, _ = run(gitlog, raw)
    lines = set(visible.split(b"\n"))
    for line in changed_lines(raw):
        assert line in lines, line
    for header in re.findall(rb"^diff --git [^\n]*", raw, re.M):
        assert header in lines
    # the body line with a signal word stays, as it was
    assert b"    - `rich`: fix potential `AttributeError` on exit (#1773 <- #1674)\n" in visible


def test_show_keeps_its_message_and_its_patch():
    raw = fixture_bytes("git_show.txt")
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
    raw = fixture_bytes("git_show.txt")
    head, patch = raw.split(b"\n\ndiff --git ", 1)
    raw = head.split(b"\n\n")[0] + b"\n\ndiff --git " + patch  # commit, Author, Date, then the patch
    visible, _ = run(gitlog, raw)
    assert visible.startswith(b"6284887af1df 2026-06-30 William Tan: (no message)\ndiff --git ")
    assert b"Author:" not in visible and b"Date:" not in visible


def test_show_of_a_signed_tag_keeps_the_tag_header_and_folds_the_signature():
    raw = fixture_bytes("git_show_tag.txt")
    visible, contents = run(gitlog, raw)
    assert visible.startswith(b"tag 26.1.0\nTagger: Hynek Schlawack <hs@ox.cx>\n")
    assert b"-----BEGIN SSH SIGNATURE-----\n-----END SSH SIGNATURE-----\n" in visible
    signature = raw.split(b"-----BEGIN SSH SIGNATURE-----\n")[1].split(b"-----END")[0]
    assert signature in contents["commits"] and signature not in visible
    assert b"\n7bfc49e9b22d 2026-03-19 Hynek Schlawack: Prepare 26.1.0\n" in visible


def test_graph_keeps_the_commit_lines_graph_prefix():
    visible, _ = run(gitlog, fixture_bytes("git_log_graph.txt"))
    assert b"| | | | | | * f18c88e92707 2026-07-24 Casper da Costa-Luis: fix properly\n" in visible
    assert b"*---------.   93370ff89158 2026-07-24 Casper da Costa-Luis: bump version" in visible


def test_oneline_passes_through_and_folds_beyond_max_commits():
    raw = fixture_bytes("git_log_oneline_graph.txt")
    visible, contents = run(gitlog, raw)
    assert visible == raw and not contents
    config = config_class()(gitlog=gitlog.Settings(max_commits=10))
    visible, contents = run(gitlog, raw, config=config)
    assert b"| | * 164ef73 rich: misc fixes\n" in visible
    assert b"74ff992" not in visible and b"74ff992" in contents["older"]
    assert re.search(rb"\[\d+ older commits: #ref:ctx_[0-9a-f]+\]\n$", visible)


def test_many_commits_fold_the_older_ones_with_their_dates():
    raw = fixture_bytes("git_log.txt")
    config = config_class()(gitlog=gitlog.Settings(max_commits=5))
    visible, contents = run(gitlog, raw, config=config)
    assert len(re.findall(rb"^[0-9a-f]{12} ", visible, re.M)) == 5
    assert b"[35 older commits (2026-04-29 \xe2\x80\xa6 2026-07-07): #ref:ctx_" in visible
    assert contents["older"].startswith(b"commit 4e5ce6387231")
    assert b"[git log: 5 commits, one line each" in visible


def test_fine_granularity_gives_each_commit_its_ref():
    raw = fixture_bytes("git_log_stat.txt")
    visible, contents = run(gitlog, raw, granularity="fine")
    n = len(COMMIT_RE.findall(raw))
    assert len(contents) == n
    assert len(re.findall(rb"\] #ref:ctx_[0-9a-f]+\n", visible)) == n


def test_line_porcelain_shows_a_signal_key_line_once_and_folds_the_repeats():
    raw = fixture_bytes("git_blame_line_porcelain.txt")  # --line-porcelain of util/timeout.py: "timeout" is a signal word
    visible, _ = run(gitblame, raw)
    assert visible.count(b"filename src/urllib3/util/timeout.py\n") == 1
    assert raw.count(b"filename src/urllib3/util/timeout.py\n") == 42  # (the older lines: urllib3/util/)
    assert b"committer-time" not in visible and len(visible) < 0.3 * len(raw)


# --- odd input: never raises, always restores ----------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED_TYPE))
def test_crlf_no_final_newline_and_cut_inputs_restore(name):
    for variant in odd_variants(fixture_bytes(name), name, b"\n\r\x00\xff +-@c:"):
        run(gitlog, variant)


def test_crlf_log_still_reads_one_line_per_commit():
    raw = fixture_bytes("git_log.txt").replace(b"\n", b"\r\n")
    visible, _ = run(gitlog, raw)
    assert b"6a8536b6e1b0 2026-07-21 dependabot[bot]: Bump github/codeql-action from 4.36.0 to 4.37.0 (#5127)\r\n" in visible


def test_a_oneline_log_whose_subject_starts_with_a_space_is_still_a_log():
    """Real subjects can start with a space ("606aa57  Used goimports…"): one such line does not turn
    a --oneline log into text."""
    rng = random.Random(7)
    words = b"parser lexer cache router config loader printer docs tests build".split()
    rows = [b"%07x fix: handle %s in the %s (#%d)" % (rng.randrange(1 << 24, 1 << 28), words[k % 10], words[k // 10], 100 + k)
            for k in range(30)]
    rows[12] = b"606aa57  Used goimports to fix import order (#912)"
    assert classify(b"\n".join(rows) + b"\n", None)[0] == "gitlog"


def test_git_show_stat_lines_lose_their_column_padding():
    """``git show --stat`` of one commit keeps its stat block, each line without the spaces that
    align its ``|`` to the longest path (one stays); the listing restores exactly."""
    long_path = b"docs_src/tutorial/very/deeply/nested/example/module_name_that_is_long.py"
    paths = [b"typer/m%02d.py" % k for k in range(40)] + [long_path]
    width = len(long_path)
    stat = [b" %s%s | %2d %s" % (p, b" " * (width - len(p)), k % 30 + 1, b"+-" * (k % 5 + 1))
            for k, p in enumerate(paths)]
    raw = (b"commit 89ddc35372e473d75ef98ed8ab0ea787233124f0\nAuthor: A Dev <a@example.com>\n"
           b"Date:   Thu Jul 9 22:09:53 2020 +0200\n\n    Move the docs sources\n\n"
           + b"\n".join(stat) + b"\n 41 files changed, 300 insertions(+), 200 deletions(-)\n")
    alone = reduce_alone(gitlog, raw)
    for k, p in enumerate(paths):
        assert b"\n %s | %d %s\n" % (p, k % 30 + 1, b"+-" * (k % 5 + 1)) in alone.visible
    assert len(alone.visible) < 0.6 * len(raw)


SIGNAL_BITS = [b" ctx", b"error", b" could", b"not", b" hr ", b"=0x80070005", b"x", b"Failed", b"ok", b" 404 ", b"\" 500 ",
               b"exit code", b" 2", b"Error", b"s", b"\r", b"index 0123456..789abcd 100644", b"timed", b" out"]


@settings(max_examples=examples(400), deadline=None)
@given(lines=st.lists(st.lists(st.sampled_from(SIGNAL_BITS), max_size=4).map(b"".join), min_size=1, max_size=30),
       cuts=st.lists(st.integers(0, 30), max_size=12), tail=st.booleans())
def test_signal_matches_of_the_joined_pieces_are_those_of_each_piece_alone(lines, cuts, tail):
    """``_Found`` (one RE2 pass over a patch's omitted pieces joined) tells which pieces hold a signal
    match and which of their lines hold one alone exactly as a search of each piece, and of each
    line, does: matches across lines (``could\\nnot``, ``hr\\n=0x8…``), next to a kept line, at the end."""
    raw = b"\n".join(lines) + (b"\n" if tail else b"")
    starts = [0] + [i + 1 for i, c in enumerate(raw) if c == 10 and i + 1 < len(raw)]
    bounds = sorted({min(c, len(starts)) for c in cuts} | {0, len(starts)})
    pieces = [(starts[i], starts[j] if j < len(starts) else len(raw)) for i, j in zip(bounds, bounds[1:])]
    omitted = pieces[::2]  # every other piece omitted, the others kept between them
    found = gitlog._Found(raw, omitted)
    for a, b in omitted:
        assert found.search(a, b) == (SIGNAL_RE.search(raw, a, b) is not None)
        assert list(found.lines(a, b)) == list(gitlog._signal_lines(raw, a, b))


def test_a_custom_format_of_a_line_and_an_indented_subject_is_a_git_log_fitted_newest_first():
    """``git log --format="%h %ad %an%n    %s" --date=iso``: each commit a hash line (its date would make a
    log record of it) and an indented subject. A log would fold every hash line into one template; a
    git log keeps whole records, newest first, and folds the older ones once the room is spent."""
    rng = random.Random(11)
    words = b"parser lexer cache router config loader printer docs tests build".split()
    rows = []
    for k in range(400):
        rows.append(b"%08x 2026-%02d-%02d 1%d:0%d:3%d -0400 %s Dev" % (
            rng.randrange(1 << 28, 1 << 32), 12 - k // 40, 28 - k % 27, k % 10, k % 7, k % 9, words[k % 7].title()))
        rows.append(b"    Fix %s in the %s (#%d)" % (words[k % 10], words[(k // 10) % 10], 1000 - k))
    raw = b"\n".join(rows) + b"\n"
    assert classify(raw, None)[0] == "gitlog"
    config = config_class()(ceiling=CeilingSettings(max_chars=9_500))
    visible, contents = run(gitlog, raw, config=config)
    assert visible.startswith(b"\n".join(rows[:40]) + b"\n")  # the newest records whole, in order
    shown = visible.split(b"\n")
    assert shown[-3].startswith(b"    Fix ") and re.fullmatch(rb"\[\d+ older commits: #ref:ctx_[0-9a-f]+\]", shown[-2])
    assert len(visible) <= 9_500 and contents["older"].startswith(rows[len(shown) - 2] + b"\n")
    assert b"\n".join(rows[len(shown) - 2:]) + b"\n" == contents["older"]


def test_a_oneline_log_with_a_subject_led_by_a_tab_is_a_git_log():
    """``git log --oneline`` prints a commit's subject as written: one of 400 led by a tab (``c3a751671 \\t
    Increment version``) made the whole log text, shown whole instead of its newest commits."""
    rng = random.Random(7)
    words = b"fix docs add remove guard typo link parser cache nulls tests flake ci pin bump release".split()
    lines = [b"%09x %s (#%d)" % (rng.getrandbits(36), b" ".join(rng.sample(words, 4)), i) for i in range(400)]
    lines[150] = lines[150][:10] + b"\t Increment package version to enable ci tests."
    raw = b"\n".join(lines) + b"\n"
    assert classify(raw)[0] == "gitlog"
    assert gitlog.ONELINE_RE.match(lines[150])
