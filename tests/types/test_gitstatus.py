"""The gitstatus type (operators/types/gitstatus.py): git status, branch and tag lists keep every path and
branch name; hints and long tag runs fold; byte-exact restore."""

from __future__ import annotations

import re

import pytest

from conftest import check_fixture_through_the_graph, fixture_bytes, odd_variants, reduce_alone
from operators.classify import classify
from operators.config import config_class
from operators.reduction import render
from operators.types import gitstatus
from operators.vocab import SIGNAL_RE

EXPECTED_TYPE = {
    "git_branch_vv.txt": "gitstatus",
    "git_status.txt": "gitstatus",
    "git_status_short.txt": "gitstatus",
    "git_tag.txt": "gitstatus",
    "git_tag_n.txt": "gitstatus",
    "git_branch_a.txt": "gitstatus",
}


def run(module, raw: bytes, granularity: str = "coarse", config=None):
    """The module's plan on ``raw``: the visible bytes and each group's bytes, restore checked."""
    alone = reduce_alone(module, raw, config or config_class()(), granularity)
    return alone.visible, alone.contents


# --- detection -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED_TYPE))
def test_each_fixture_is_classified_as_its_git_type(name):
    assert classify(fixture_bytes(name))[0] == EXPECTED_TYPE[name]


# --- must-see strings and the three invariants, through the whole graph --------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED_TYPE))
def test_planted_signals_survive_and_everything_restores(name):
    check_fixture_through_the_graph(name, EXPECTED_TYPE[name])


# --- git status, branch, tag ---------------------------------------------------------------------


def test_status_keeps_every_path_and_folds_the_hints():
    raw = fixture_bytes("git_status.txt")
    visible, contents = run(gitstatus, raw)
    for line in raw.split(b"\n"):
        if line.startswith(b"\t") or line.endswith(b":") or line.startswith((b"On branch", b"Your branch")):
            assert line + b"\n" in visible, line
    assert b'(use "git add <file>..." to mark resolution)' not in visible
    assert b'(use "git add <file>..." to mark resolution)' in contents["hints"]
    assert b'(use "git merge --abort" to abort the merge)' in visible  # a signal word keeps it


def test_short_status_and_branch_lists_pass_through():
    for name in ("git_status_short.txt", "git_branch_a.txt", "git_branch_vv.txt"):
        raw = fixture_bytes(name)
        visible, contents = run(gitstatus, raw)
        assert visible == raw and not contents


def small_ceiling():
    """A config whose output ceiling (1,000 bytes) is below the tag fixtures' size: they fold."""
    from operators.ceiling import CeilingSettings

    return config_class()(ceiling=CeilingSettings(max_chars=1000))


def test_tag_lists_below_the_ceiling_are_shown_whole():
    for name in ("git_tag.txt", "git_tag_n.txt", "git_tag_fzf.txt"):  # real: tqdm, tqdm -n, fzf
        raw = fixture_bytes(name)
        assert classify(raw)[0] == "gitstatus", name
        visible, contents = run(gitstatus, raw)
        assert visible == raw and not contents, name


def test_tags_over_the_ceiling_keep_newest_oldest_and_count_the_rest():
    raw = fixture_bytes("git_tag.txt")
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


def test_a_tag_list_just_over_the_ceiling_folds_only_what_it_must():
    """Runs of middle tags fold the longest first, only until the list fits what the ceiling leaves
    uncut: a list a little over the ceiling keeps most of its tags (not only the ones always kept)."""
    from operators.ceiling import RESERVE, CeilingSettings, target

    raw = b"".join(b"pkg-v%d.%d.%d\n" % (major, minor, patch)
                   for major in range(1, 4) for minor in range(12) for patch in range(30))  # 1,080 tags, 13 KB
    config = config_class()(ceiling=CeilingSettings(max_chars=int(len(raw) * 0.85) + RESERVE))  # 15% under it
    visible, contents = run(gitstatus, raw, config=config)
    assert len(visible) <= target(config.ceiling.max_chars - RESERVE)
    tags = set(raw.split())
    kept = sum(1 for line in visible.split(b"\n") if line in tags)
    everything_folded, _ = run(gitstatus, raw, config=small_ceiling())
    always = sum(1 for line in everything_folded.split(b"\n") if line in tags)
    assert kept > always + 0.4 * (len(tags) - always)  # most of the foldable tags still shown
    runs = [int(n) for n in re.findall(rb"^\xe2\x8b\xaf (\d+) more tags \(", visible, re.M)]
    assert runs and kept + sum(runs) == len(tags)


def test_one_long_run_of_tags_folds_only_its_part_that_does_not_fit():
    """``git tag -n1`` of a project with one family of versions: its middle tags are one run; folding it
    whole left 15 of 194 tags in 1.5 KB of a 9,000-byte room. Its first tags stay while they fit; only
    the rest of the run folds, counted."""
    from operators.ceiling import RESERVE, CeilingSettings, target

    raw = b"".join(b"v0.%d.0%sMerge pull request #%d from someone/feature-%d\n" % (k, b" " * (9 - len(str(k))), 2000 + k, k)
                   for k in range(194, 0, -1))
    config = config_class()(ceiling=CeilingSettings(max_chars=9_000))
    visible, contents = run(gitstatus, raw, config=config)
    room = target(9_000 - RESERVE)
    assert 0.8 * room < len(visible) <= room
    tags = {line.split()[0] for line in raw.split(b"\n") if line}
    kept = [line.split()[0] for line in visible.split(b"\n") if line.split()[:1] and line.split()[0] in tags]
    runs = [int(n) for n in re.findall(rb"^\xe2\x8b\xaf (\d+) more tags \(", visible, re.M)]
    assert len(kept) > 60 and len(kept) + sum(runs) == len(tags)
    assert b"v0.150.0" in kept  # the run's first tags, after the newest kept ones


def test_tag_notes_fold_with_their_tags_and_a_note_with_a_signal_word_stays():
    raw = fixture_bytes("git_tag_n.txt")  # git tag -n: each name padded, then its note
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

    raw = fixture_bytes("git_tag_fzf.txt")  # real: git tag in fzf, 178 tags
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
    status = fixture_bytes("git_status.txt").split(b"\n")
    ranked = gitstatus.rank_lines(status, None)
    assert all(r == (0, 0) for line, r in zip(status, ranked) if line.startswith(b"\t"))


def test_short_tag_lists_pass_through():
    raw = b"".join(b"v1.%d.0\n" % i for i in range(12))
    visible, contents = run(gitstatus, raw)
    assert visible == raw and not contents


# --- odd input: never raises, always restores ----------------------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED_TYPE))
def test_crlf_no_final_newline_and_cut_inputs_restore(name):
    for variant in odd_variants(fixture_bytes(name), name, b"\n\r\x00\xff +-@c:"):
        run(gitstatus, variant)


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


def test_a_tag_list_the_host_shows_whole_is_not_folded_for_a_refs_line():
    """Between the budget (the ceiling less what is printed around an output with refs) and the ceiling
    less a failure header, a tag list is shown whole: folding it would print a refs line it saves."""
    from operators.ceiling import HEADER_MAX, RESERVE, CeilingSettings

    raw = b"".join(b"pkg-v%d.%d.%d\n" % (major, minor, patch)
                   for major in range(1, 4) for minor in range(12) for patch in range(30))
    config = config_class()(ceiling=CeilingSettings(max_chars=len(raw) + HEADER_MAX))
    assert len(raw) > config.ceiling.max_chars - RESERVE  # over the budget of an output with refs
    visible, contents = run(gitstatus, raw, config=config)
    assert visible == raw and not contents
