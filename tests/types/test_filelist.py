"""The filelist type (operators/types/filelist.py): summaries that tell the truth, one ref holding every
folded path, byte-exact restore."""

from __future__ import annotations

import random
import re

import pytest

from conftest import FIXTURES, reduce_alone, reduce_bytes
from operators.classify import classify
from operators.ceiling import CeilingSettings
from operators.config import Config
from operators.reduction import omissions, render, restore
from operators.signals import load_sidecar
from operators.types import filelist
from operators.types.filelist import Settings as FilelistConfig

SIGNALS = load_sidecar(FIXTURES / "signals.toml")


SMALL_CEILING = CeilingSettings(max_chars=1000)  # a target of 1,000 bytes: the fold of a short listing


def run(reducer, raw: bytes, config: Config | None = None):
    alone = reduce_alone(reducer, raw, config or Config())
    return alone.plan, alone.visible


def listing_counts(lines: list[str], prefix: str = "") -> tuple[int, int]:
    """Files and directories below ``prefix`` in a find-style listing, counted the slow obvious way."""
    entries = [line for line in lines if line and line != "."]
    dirs = {line for line in entries if any(other.startswith(line + "/") for other in entries)}
    files = [e for e in entries if e not in dirs and e.startswith(prefix)]
    return len(files), len([d for d in dirs if d.startswith(prefix)])


# --- file list -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample_list():
    raw = (FIXTURES / "sample.filelist").read_bytes()
    plan, visible = run(filelist, raw)
    return raw, plan, visible


def path_lines(visible: bytes) -> list[bytes]:
    """The lines of a folded listing that are paths as listed (not the header, not fold lines)."""
    return [line for line in visible.split(b"\n")[1:] if line and not line.startswith((b"  \xe2\x80\xa6", b"["))]


def parents(raw: bytes) -> set[bytes]:
    """Each listed path's directory (``./a/b/`` of ``./a/b/c.py``), the slow obvious way."""
    return {line[: line.rfind(b"/") + 1] for line in raw.split(b"\n") if b"/" in line}


def test_filelist_fixture_is_classified_as_filelist(sample_list):
    assert classify(sample_list[0])[0] == "filelist"


def test_filelist_header_counts_match_the_listing(sample_list):
    raw, _, visible = sample_list
    lines = raw.decode().split("\n")
    files, dirs = listing_counts(lines)
    head = visible.split(b"\n", 1)[0].decode()
    assert f"({files:,} files in {dirs:,} directories)" in head
    for top in ("vendor", "node_modules"):  # bulk directories: one fold line with the counts of the subtree
        n, _ = listing_counts(lines, f"./{top}/")
        assert re.search(rf"^  … \+[\d,]+ more under \./{top}/ \({n:,} files in \d+ dirs: ", visible.decode(), re.M), top


def test_filelist_shown_paths_are_lines_of_the_listing_verbatim(sample_list):
    raw, _, visible = sample_list
    listed = set(raw.split(b"\n"))
    shown = path_lines(visible)
    assert shown and all(line in listed for line in shown)
    assert len(visible) < 0.6 * len(raw)


def test_filelist_every_top_level_entry_and_every_project_directory_shows_a_path(sample_list):
    raw, _, visible = sample_list
    shown = set(path_lines(visible))
    top = [line for line in raw.split(b"\n") if line.count(b"/") == 1]
    assert top and [t for t in top if t not in shown] == []
    bulk = (b"./vendor/", b"./node_modules/", b"./var/cache/")
    for parent in parents(raw):
        if parent.startswith(bulk) or parent == b"./":
            continue
        assert any(line.startswith(parent) for line in shown), parent


def test_filelist_one_ref_holds_every_folded_path(sample_list):
    raw, plan, visible = sample_list
    assert list(omissions(plan)) == ["filelist"]
    assert visible.count(b"#ref:") == 1
    folded = omissions(plan)["filelist"].split(b"\n")
    assert b"./vendor/psr/log/src/LoggerInterface.php" in folded
    assert b"./vendor/psr/log/src/LoggerInterface.php" not in visible  # lives under vendor/: folded


def test_filelist_bulk_dirs_fold_project_files_named(sample_list):
    _, _, visible = sample_list
    text_ = visible.decode()
    assert "./src/Kernel.php" in text_ and "./src/Security/AuthGuard.php" in text_
    assert "Rechnung März 2024.pdf" in text_  # a name with spaces stays as listed, unicode kept
    assert [s for s in SIGNALS["sample.filelist"] if s not in text_] == []


def test_filelist_real_find_keeps_a_path_of_every_directory_and_folds_with_names():
    raw = (FIXTURES / "find_type_f_gson.txt").read_bytes()  # find gson -type f, a real Java tree
    assert classify(raw)[0] == "filelist"
    _, visible = run(filelist, raw)
    shown = path_lines(visible)
    listed = set(raw.split(b"\n"))
    assert all(line in listed for line in shown)
    for parent in parents(raw):
        assert any(line.startswith(parent) and line.find(b"/", len(parent)) < 0 for line in shown), parent
    # the other files of a directory are named on the fold line right after its shown path
    at = visible.index(b"gson/src/test/java/com/google/gson/functional/")
    fold = visible[visible.index(b"\n", at) + 1 :].split(b"\n", 1)[0]
    assert fold.startswith("  … +".encode()) and fold.count(b", ") >= 3 and len(fold) < 140, fold
    assert len(visible) < 0.6 * len(raw)


def test_filelist_deep_listing_folds_its_deepest_levels_to_max_dirs():
    paths = [f"./top{t}/mid{m}/leaf{n}/f{i}.py" for t in range(3) for m in range(10) for n in range(10) for i in range(3)]
    raw = ("\n".join(paths) + "\n").encode()
    cfg = Config(filelist=FilelistConfig(max_dirs=40))
    _, visible = run(filelist, raw, cfg)
    shown = path_lines(visible)
    assert {line.split(b"/")[1] for line in shown} == {b"top0", b"top1", b"top2"}
    assert {line.rsplit(b"/", 2)[0] for line in shown} == {f"./top{t}/mid{m}".encode() for t in range(3) for m in range(10)}
    assert re.search(r"^  … \+29 more under \./top0/mid0/ \(30 \.py in 10 dirs\)$", visible.decode(), re.M)
    _, wide = run(filelist, raw, Config(filelist=FilelistConfig(max_dirs=400)))  # room for every directory
    assert len({line.rsplit(b"/", 1)[0] for line in path_lines(wide)}) == 300


def test_filelist_rank_puts_top_level_entries_before_deeper_paths():
    raw = (FIXTURES / "find_type_f_gson.txt").read_bytes()
    _, visible = run(filelist, raw)
    lines = visible.split(b"\n")
    ranks = filelist.rank_lines(lines, Config())
    assert ranks[0] == (0, 0)
    firsts: dict[bytes, tuple[int, int]] = {}
    for line, rank in zip(lines, ranks):
        if line.startswith(b"gson/"):
            firsts.setdefault(line.split(b"/")[1], rank)
    best = {rank for rank in firsts.values()}
    assert best == {(0, 1)}  # every top-level entry (a directory by its first path) ranks first
    deeper = [rank for line, rank in zip(lines, ranks) if line.startswith(b"gson/") and rank not in best]
    by_depth = {}
    for line, rank in zip(lines, ranks):
        if line.startswith(b"gson/") and rank != (0, 1):
            by_depth.setdefault(line.count(b"/"), set()).add(rank)
    assert deeper and all(rank[1] == depth for depth, ranks_ in by_depth.items() for rank in ranks_)
    folds = [rank for line, rank in zip(lines, ranks) if line.startswith("  …".encode())]
    assert folds and all(rank[0] == 1 for rank in folds)


def test_filelist_under_a_small_budget_keeps_the_top_level_first():
    from operators.ceiling import fit

    raw = (FIXTURES / "find_type_f_gson.txt").read_bytes()
    plan, _ = run(filelist, raw)
    cut = fit(plan, 3000, "filelist", Config())
    contents = omissions(cut)
    ids = {group: f"ctx_{i:06x}" for i, group in enumerate(cut.reasons)}
    visible = render(cut, ids)[0]
    assert restore(visible, render(cut, ids)[1], [contents[g] for g in cut.reasons]) == raw
    tops = {line.split(b"/")[1] for line in raw.split(b"\n") if line.count(b"/") >= 1}  # below gson/
    shown = {line.split(b"/")[1] for line in visible.split(b"\n") if line.startswith(b"gson/")}
    assert len(tops) > 15 and tops <= shown, tops - shown


def test_filelist_through_the_graph(monkeypatch, tmp_path):
    from flows.runner import run_packets
    from operators.packet import ContextPacket

    monkeypatch.setenv("NOLIFE_TOKENS_HOME", str(tmp_path))
    packets = [
        ContextPacket(source=f"fixtures/{name}", raw=(FIXTURES / name).read_bytes(), expected_signals=SIGNALS[name])
        for name in ("sample.filelist", "sample.txt")
    ]
    for p in run_packets(packets):
        assert (p.signal_pass, p.recovery_pass, p.restore_pass) == (True, True, True), (p.source, p.missing_signals)
        assert len(p.references) == 1, p.source
        assert p.measure.saved_pct > 0, p.source


def test_filelist_odd_names_in_fold_lines_render_safely_and_restore():
    names = [b"src/plain.py", b"src/with space.py", b"src/comma, too.py", b"src/quote'd.py", b"src/caf\xc3\xa9.py",
             b"src/bad\xff\xfe.py", b"src/tab\there.py", b"src/\xe6\x97\xa5\xe6\x9c\xac.md", b"src/new\rline.txt"]
    raw = b"\r\n".join(names * 3 + [b"lib/x%d.py" % i for i in range(60)])  # CRLF, no final newline
    plan, visible = run(filelist, raw, Config(filelist=FilelistConfig(max_entries_per_dir=20, names_width=400),
                                              ceiling=SMALL_CEILING))
    assert visible.split(b"\r\n")[0].endswith(b"src/plain.py")  # the first path of src/ as listed
    fold = next(line for line in visible.split(b"\n") if line.startswith("  … +26 more".encode()))
    shown = fold.decode("utf-8")  # strict: whatever the names, a fold line is clean UTF-8
    for expected in ("'with space.py'", "'comma, too.py'", "'quote\\'d.py'", "café.py",
                     "'bad\\xff\\xfe.py'", "'tab\\x09here.py'", "日本.md"):
        assert expected in shown, expected
    assert "\t" not in shown
    assert b"lib/x0.py\r\n  \xe2\x80\xa6 +59 more: x1.py, x2.py" in visible


def test_filelist_small_listing_passes_through():
    raw = b"a.py\nb.py\nsrc/c.py\n"
    plan, visible = run(filelist, raw)
    assert visible == raw and not plan.reasons


def test_a_listing_within_the_ceilings_target_is_shown_whole_and_a_longer_one_folds():
    """``find . -type f`` of a small repository (a few hundred paths) reads whole: every name the agent
    listed, as printed; past the target (12,500 bytes under the default ceiling) directories fold."""
    def listing(n: int) -> bytes:
        return b"".join(b"./build/VS2022/proj%d/proj%d.vcxproj\n./lib/file%d.c\n" % (i, i, i) for i in range(n))

    small, big = listing(120), listing(300)
    assert len(small) <= Config().ceiling.target_chars < len(big)
    plan, visible = run(filelist, small)
    assert visible == small and not plan.reasons
    plan, visible = run(filelist, big)
    assert len(visible) < len(big) // 2 and b"more" in visible and plan.reasons


def test_filelist_absolute_paths_and_find_print0_show_one_path_a_line():
    paths = [b"/home/me/proj/src/m%d.c" % i for i in range(80)] + [b"/home/me/proj/include/h%d.h" % i for i in range(9)]
    _, visible = run(filelist, b"\0".join(paths) + b"\0", Config(ceiling=SMALL_CEILING))
    assert b"\n/home/me/proj/src/m0.c\n  \xe2\x80\xa6 +79 more: m1.c, m2.c" in visible
    assert b"\n/home/me/proj/include/h0.h\n  \xe2\x80\xa6 +8 more: h1.h, h2.h" in visible
    assert b"\0" not in visible


@pytest.mark.parametrize("seed", range(15))
def test_filelist_odd_input_never_raises(seed):
    rng = random.Random(seed)
    pieces = [b"a/", b"b", b"/", b"./", b".", b"\n", b"\r\n", b"\0", b"\xff", b" ", b"x.txt", b"\\", b"node_modules/"]
    raw = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 400)))
    cfg = FilelistConfig(max_entries_per_dir=rng.randint(0, 3), max_depth=rng.randint(0, 4), max_dirs=rng.randint(1, 9))
    run(filelist, raw, Config(filelist=cfg))


def test_a_flat_listing_keeps_every_name():
    # `ls src/locale`: 143 names, all at the top level: every one is what the agent listed
    names = [b"%s%s.js" % (a, b) for a in (b"a", b"b", b"c", b"de", b"en", b"es", b"fr", b"zh")
             for b in (b"", b"-at", b"-au", b"-ca", b"-ch", b"-gb", b"-ie", b"-in", b"-nz", b"-sg", b"-tt", b"-us",
                       b"-mx", b"-br", b"-hk", b"-tw", b"-cn", b"-ph")]
    raw = b"\n".join(names[:143]) + b"\n"
    assert classify(raw)[0] == "filelist"
    visible = reduce_bytes(raw).visible
    assert [n for n in names[:143] if n not in visible.split(b"\n")] == []
    assert b"more" not in visible
