"""The optional C kernel (``_kernel.c``) and its pure-Python twins: the one place that picks either.

The hot per-line loops of the log, JSON and diff types run in C when ``setup.py`` could build the
kernel at install (a C compiler was there). ``C`` is the built module, or ``None``. Every function the
log and JSON types use is dispatched once, here, at import: the kernel's, wrapped to give typed
memoryviews, or its pure-Python twin (``log_twins``, ``json_twins``, ``diff_twins``: the same
results, slower).
``TWINS`` maps each dispatched name to its twin; ``tests/test_kernel.py`` checks twin and kernel
agree wherever the kernel is built, and the rest of the suite runs the twins when it is not.

``line_starts`` (where each line starts: the git log type's line table, the ranking's lines) and
``line_bodies`` (where each line's text ends, before ``\\n`` or ``\\r\\n``: the git log type's line table)
have their twins in ``diff_twins``. The diff type's ``diff_lines`` (line starts and roles) and ``diff_ranks`` (budget ranks) are dispatched here too; its twins are in
``diff_twins``; the search type's ``search_lines`` (lines, kinds and paths of ``path:12:text``
output) and its twin ``search_twins``; the text type's ``text_runs`` (runs of repeated lines),
``text_cuts`` (trailing whitespace and blank-line runs), ``text_pieces`` (its plan's pieces) and
``text_twins``, whose ``line_of`` (the line
holding each offset) and ``blank_lines`` the line ranking uses, and ``plain_text`` (whether a text is
printable ASCII, tabs and newlines alone, and holds a marker look-alike: the safety pass's first look); the git blame type's ``blame_columns``
(where each line's code column starts) and its twin ``blame_twins``; the diagnostics type's ``diag_heads``
(its ``path:line:col: …`` lines as columns) and ``diag_columns`` (their diagnostics' columns), ``diag_ranks`` (each rule's diagnostics), ``diag_codes`` and ``diag_runs``
(its plan's pieces, a run of diagnostics kept or omitted at a time), ``diag_lines`` (the lines of a
detailed format read a run at a time), ``diag_offsets`` (where each line starts), ``diag_stylish`` (eslint's stylish entries read a run at a
time), ``diag_pads`` (the runs of alignment spaces of a span), ``diag_shown`` (each diagnostic's size shown, those runs cut out), ``diag_line_pieces`` (a view's pieces, a run of lines at a time, those runs cut out), ``diag_tsc_heads`` (tsc's heads read a run at a time), ``diag_indented`` (pyright's indented entries
read a run at a time), ``diag_elaborations`` (how each line of such a run continues a message), ``diag_indented_known`` (those of its
lines read with no Python: heads whose text was seen before, parts of their messages), ``diag_indented_unknown`` (its heads whose text was not), ``diag_place_sizes`` and ``diag_places`` (the sizes of the places a folded rule lists that are made when asked, and those places), ``diag_bulk`` (gcc's location lines and the source and caret lines between them, a run at a time), ``diag_rust_details`` (the details after rustc's head and the lints they name), ``diag_rust_run`` (rustc's heads, their
``-->`` lines and details, a run at a time), ``diag_fill`` and
``diag_line_runs`` (a view's pieces, a run of lines at a time) and their twins in ``diag_twins``; the source type's ``source_lines`` (the
lines a signature pattern may match, by byte tests) and its twin ``source_twins``. ``mask_numbers`` (the numbers and ids of
signal templates, ``operators.signals.templates``), ``first_equal`` (the first of equal spans: copies of
signal blocks, lines that rank alike), ``first_template`` (the first line of each signal template),
``template_groups`` (the output ceiling's folded groups: each line's template group and each group's
lines), ``equal_groups`` (lines that rank alike, numbered), ``gather`` (a byte of a table for each id), ``scatter`` (a byte set at each index), ``join_lines`` (lines joined, for their ranks), ``release_memory`` (the C
library's free memory handed back before the output ceiling's view of a big plan),
``verbatim_lines`` (the lines of a log's signal blocks, flagged and counted by shape), ``sha256_pair`` (two SHA-256 at once with SHA-NI: the store's; None without the kernel, and its
result None on a CPU without SHA-NI: hashlib then), ``id_classes`` (a log's
shapes by their id class: shapes that differ only inside hex ids, whose signal flags and masks are worked
out once a class; ``group_shapes`` takes them as ``classes``), ``take`` (an
int64 of a column for each index), ``next_shapes`` and ``traced_heads`` (the signal lines a trace may
follow, by the shapes of the lines after them), ``count_newlines`` (a gap's lines,
for the output ceiling) and ``long_lines`` (the over-long lines ``operators.safety`` cuts) have their
twins in ``log_twins``.
"""

from __future__ import annotations

import importlib
from array import array

try:
    from operators.kernel import _kernel as C
except ImportError:  # no compiler at install: the twins run instead
    C = None

if C is None:
    from operators.kernel import blame_twins, diag_twins, diff_twins, json_twins, log_twins, search_twins, source_twins, text_twins

_TWIN_MODULES = ("blame_twins", "diag_twins", "diff_twins", "json_twins", "log_twins", "search_twins", "source_twins", "text_twins")


def __getattr__(name: str):
    """``TWINS`` and the twin modules, imported when first asked for: with the kernel built, a run
    needs none of them (their patterns and tables cost every start ~1.5 ms)."""
    if name in _TWIN_MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name == "TWINS":
        twins = _twins()
        globals()["TWINS"] = twins
        return twins
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _twins() -> dict:
    """Each dispatched name and its pure-Python twin."""
    from operators.kernel import blame_twins, diag_twins, diff_twins, json_twins, log_twins, search_twins, source_twins, text_twins

    return {
        "scan_lines": log_twins.scan_lines_py,
        "select_visible": log_twins.select_py,
        "lines_with": log_twins.lines_with_py,
        "status_lines": log_twins.status_lines_py,
        "mark_rare": log_twins.mark_rare_py,
        "group_shapes": log_twins.group_shapes_py,
        "id_classes": log_twins.id_classes_py,
        "sha256_pair": log_twins.sha256_pair_py,
        "mask": log_twins.mask_py,
        "mask_numbers": log_twins.mask_numbers_py,
        "first_equal": log_twins.first_equal_py,
        "first_template": log_twins.first_template_py,
        "template_groups": log_twins.template_groups_py,
        "equal_groups": log_twins.equal_groups_py,
        "gather": log_twins.gather_py,
        "scatter": log_twins.scatter_py,
        "join_lines": log_twins.join_lines_py,
        "release_memory": log_twins.release_memory_py,
        "verbatim_lines": log_twins.verbatim_lines_py,
        "take": log_twins.take_py,
        "next_shapes": log_twins.next_shapes_py,
        "traced_heads": log_twins.traced_heads_py,
        "words": log_twins.words_py,
        "pair_brackets": json_twins.container_ends_py,
        "line_starts": diff_twins.line_starts,
        "line_bodies": diff_twins.line_bodies_py,
        "diff_lines": diff_twins.diff_lines_py,
        "diff_ranks": diff_twins.diff_ranks_py,
        "diff_common": diff_twins.diff_common_py,
        "diff_pieces": diff_twins.diff_pieces_py,
        "changed_lines": diff_twins.changed_lines_py,
        "tier_order": text_twins.tier_order_py,
        "gitlog_splice": diff_twins.gitlog_splice_py,
        "place_matches": diff_twins.place_matches_py,
        "render_view": text_twins.render_view_py,
        "search_lines": search_twins.search_lines_py,
        "text_runs": text_twins.text_runs_py,
        "text_cuts": text_twins.text_cuts_py,
        "line_of": text_twins.line_of_py,
        "text_pieces": text_twins.text_pieces_py,
        "blank_lines": text_twins.blank_lines_py,
        "count_newlines": log_twins.count_newlines_py,
        "plain_text": text_twins.plain_text_py,
        "long_lines": log_twins.long_lines_py,
        "blame_columns": blame_twins.blame_columns_py,
        "diag_heads": diag_twins.diag_heads_py,
        "diag_codes": diag_twins.diag_codes_py,
        "diag_runs": diag_twins.diag_runs_py,
        "diag_ranks": diag_twins.diag_ranks_py,
        "diag_columns": diag_twins.diag_columns_py,
        "diag_lines": diag_twins.diag_lines_py,
        "diag_line_runs": diag_twins.diag_line_runs_py,
        "diag_fill": diag_twins.diag_fill_py,
        "diag_offsets": diag_twins.diag_offsets_py,
        "diag_stylish": diag_twins.diag_stylish_py,
        "diag_pads": diag_twins.diag_pads_py,
        "diag_shown": diag_twins.diag_shown_py,
        "diag_line_pieces": diag_twins.diag_line_pieces_py,
        "diag_tsc_heads": diag_twins.diag_tsc_heads_py,
        "diag_indented": diag_twins.diag_indented_py,
        "diag_elaborations": diag_twins.diag_elaborations_py,
        "diag_bulk": diag_twins.diag_bulk_py,
        "diag_rust_details": diag_twins.diag_rust_details_py,
        "diag_indented_known": diag_twins.diag_indented_known_py,
        "diag_indented_unknown": diag_twins.diag_indented_unknown_py,
        "diag_place_sizes": diag_twins.diag_place_sizes_py,
        "diag_places": diag_twins.diag_places_py,
        "diag_rust_run": diag_twins.diag_rust_run_py,
        "source_lines": source_twins.source_lines_py,
    }


def _c_scan_lines(raw: bytes, mask: bool):
    """Line starts (n + 1 offsets), each line's shape id, the distinct shapes (``shape_data``, each
    followed by a newline; ``shape_ends``: where each ends) and their counts."""
    starts, ids, shape_data, shape_ends, counts = C.scan(raw, mask)
    return (memoryview(starts).cast("q"), memoryview(ids).cast("i"), shape_data, memoryview(shape_ends).cast("q"),
            memoryview(counts).cast("q"))


def _c_select_visible(ids, template_of, frequent: bytes, verbatim):
    return memoryview(C.select(ids, template_of, frequent, verbatim)).cast("q")


def _c_lines_with(ids, flags):
    return memoryview(C.lines_with(ids, flags)).cast("q")


def _c_status_lines(raw: bytes, starts, lines):
    return memoryview(C.status_lines(raw, starts, lines)).cast("q")


def _c_group_shapes(shape_data: bytes, shape_ends, modes: bytes, counts, prev_ids=None, prev_names=None, classes=None):
    if classes is not None and prev_names is None and hasattr(C, "group_classed"):
        ids, names, totals = C.group_classed(shape_data, shape_ends, modes, counts, classes)
    else:
        extra = () if prev_names is None else (prev_ids, prev_names)
        ids, names, totals = C.group_shapes(shape_data, shape_ends, modes, counts, *extra)
    return memoryview(ids).cast("i"), names, memoryview(totals).cast("q")


def _c_id_classes(shape_data: bytes, shape_ends, check_at: int):
    got = C.id_classes(shape_data, shape_ends, check_at)
    if got is None:
        return None
    classes, rep_data, rep_ends = got
    return memoryview(classes).cast("i"), rep_data, memoryview(rep_ends).cast("q")


def _c_pair_brackets(raw: bytes, start: int, stop: int, ends) -> int:
    """Pair the brackets of the container opening at ``start`` (searching before ``stop``) into ``ends``
    (an ``operators.jsonscan.Ends``); the end of that container, or -1 (see ``container_ends_py``)."""
    opens, closes = ends.opens, ends.closes
    new_opens, new_closes, end = C.pair_brackets(raw, start, stop, opens.typecode == "q")
    opens.frombytes(new_opens)  # the kernel wrote them in the arrays' own width
    closes.frombytes(new_closes)
    return end


def _c_first_equal(buf: bytes, starts, ends, digits_alike: bool = False, body: bool = False, rstrip: bool = False):
    """The index of the first span equal to each span, as int64 (see ``log_twins.first_equal_py``)."""
    return memoryview(C.first_equal(buf, starts, ends, digits_alike, body, rstrip)).cast("q")


def _c_template_groups(buf: bytes, starts, order, last_nl: bool):
    """The lines ``order`` names grouped by signal template: (group of each line, the lines of each group,
    their bounds, each group's first and last line's spans), as int32, int32, int64 and int64 memoryviews
    (see ``log_twins.template_groups_py``)."""
    of_line, members, bounds, spans = C.template_groups(buf, starts, order, last_nl)
    return (memoryview(of_line).cast("i"), memoryview(members).cast("i"), memoryview(bounds).cast("q"),
            memoryview(spans).cast("q"))


def _c_equal_groups(buf: bytes, starts, lines, digits_alike: bool):
    """The lines ``lines`` names grouped by equal bytes: (group of each, place of each group's first), as
    int32 and int64 memoryviews (see ``log_twins.equal_groups_py``)."""
    groups, firsts = C.equal_groups(buf, starts, lines, digits_alike)
    return memoryview(groups).cast("i"), memoryview(firsts).cast("q")


def _c_verbatim_lines(ids, firsts, stops, n: int, nshapes: int):
    """The lines of the blocks, a flag a line and the lines of each shape (int64 memoryview, bytes,
    int64 memoryview; see ``log_twins.verbatim_lines_py``)."""
    lines, flags, counts = C.verbatim_lines(ids, firsts, stops, n, nshapes)
    return memoryview(lines).cast("q"), flags, memoryview(counts).cast("q")


def _c_take(values, indexes):
    """``values[i]`` of each of ``indexes``, as an int64 memoryview (see ``log_twins.take_py``)."""
    return memoryview(C.take(values, indexes)).cast("q")


def _c_next_shapes(ids, firsts, n: int):
    """The distinct shapes of the lines after ``firsts``, as an int32 memoryview (see ``log_twins.next_shapes_py``)."""
    return memoryview(C.next_shapes(ids, firsts, n)).cast("i")


def _c_traced_heads(ids, starts, firsts, n: int, flags):
    """The firsts whose next line goes on, and each first plus one, as int64 memoryviews (see
    ``log_twins.traced_heads_py``)."""
    heads, stops = C.traced_heads(ids, starts, firsts, n, flags)
    return memoryview(heads).cast("q"), memoryview(stops).cast("q")


def _c_join_lines(buf: bytes, starts, lines):
    """The lines named joined by newlines, and where each begins (an int64 array; see
    ``log_twins.join_lines_py``)."""
    joined, begins = C.join_lines(buf, starts, lines)
    made = array("q")
    made.frombytes(begins)
    return joined, made


def _c_first_template(buf: bytes, starts, ends):
    """The index of the first span of the same signal template as each span, as int64 (see
    ``log_twins.first_template_py``)."""
    return memoryview(C.first_template(buf, starts, ends)).cast("q")


def _newlines(raw: bytes) -> int:
    """``raw.count(b"\\n")``, by the kernel's loop where it has one (a few times faster)."""
    return C.count_newlines(raw, 0, len(raw)) if hasattr(C, "count_newlines") else raw.count(b"\n")


def _c_line_starts(raw: bytes) -> array:
    """Where each line starts, plus the end (see ``diff_twins.line_starts``): the same ``array('q')``,
    made at its size (no bytes object beside it) and filled by the kernel."""
    starts = array("q", [0]) * (_newlines(raw) + 1 + (bool(raw) and raw[-1] != 10))
    C.line_starts(raw, starts)
    return starts


def _c_line_bodies(raw: bytes, starts) -> array:
    """Where the text of each line ends (see ``diff_twins.line_bodies_py``): an ``array('q')`` made at
    its size and filled by the kernel."""
    bodies = array("q", [0]) * (len(starts) - 1)
    C.line_bodies(raw, starts, bodies)
    return bodies


def _c_diff_lines(raw: bytes):
    """Where each line starts (plus the end) and each line's role, in one pass."""
    starts, kinds = C.diff_lines(raw)
    return memoryview(starts).cast("q"), kinds


def _c_diff_ranks(text: bytes, starts, last_nl: bool):
    """Budget ranks of a reduced diff's lines as codes, and its possible --stat lines (see ``diff_twins.diff_ranks_py``)."""
    codes, stat = C.diff_ranks(text, starts, last_nl)
    return codes, memoryview(stat).cast("q")


def _c_diff_common(raw: bytes, starts, kinds, skip):
    """The changed lines of texts both removed and added, their numbers and signs, or None (see
    ``diff_twins.diff_common_py``)."""
    made = C.diff_common(raw, starts, kinds, skip)
    if made is None:
        return None
    lines, numbers, signs = made
    return memoryview(lines).cast("q"), memoryview(numbers).cast("q"), signs


def _c_diff_pieces(raw: bytes, starts, kinds, keep_n: int, pure_n: int, sp_first, sp_end, sp_len):
    """A diff plan's pieces as columns, or None (see ``diff_twins.diff_pieces_py``)."""
    made = C.diff_pieces(raw, starts, kinds, keep_n, pure_n, sp_first, sp_end, sp_len)
    if made is None:
        return None
    kinds, starts, ends, codes, *counts = made
    return (kinds, memoryview(starts).cast("q"), memoryview(ends).cast("q"), memoryview(codes).cast("q"), *counts)


def _c_changed_lines(raw: bytes, limit: int, block: int = 1 << 20) -> list[bytes]:
    """A diff's changed lines for the SIGNAL check (see ``diff_twins.changed_lines_py``; one pass, no blocks)."""
    return C.changed_lines(raw, limit)


def _c_tier_order(tiers, ranks, itemsize: int, tier: int) -> tuple[array, int]:
    """A tier's lines in rank order, as an int32 array, and how many lead with the first rank (see
    ``text_twins.tier_order_py``)."""
    made, best = C.tier_order(tiers, ranks, itemsize, tier)
    order = array("i")
    order.frombytes(made)
    return order, best


def _c_gitlog_splice(*args):
    """A patch's pieces as the git log's plan takes them, as columns, or None (see ``diff_twins.gitlog_splice_py``)."""
    made = C.gitlog_splice(*args)
    if made is None:
        return None
    kinds, starts, ends, objs, omitted, shown = made
    starts_array, ends_array = array("q"), array("q")
    starts_array.frombytes(starts)
    ends_array.frombytes(ends)
    return kinds, starts_array, ends_array, objs, omitted, shown


def _c_place_matches(offsets, starts, ends, matches, line_starts, bodies) -> tuple:
    """Each match's piece, line and whether it lies inside them (see ``diff_twins.place_matches_py``)."""
    pieces, lines, inside = C.place_matches(offsets, starts, ends, matches, line_starts, bodies)
    return memoryview(pieces).cast("q"), memoryview(lines).cast("q"), inside


def _c_render_view(raw: bytes, kinds, starts, ends, objs: list, placeholder: bytes):
    """A plan's visible text and where each piece starts in it, as int64, or None (see ``text_twins.render_view_py``)."""
    vstarts = array("q", [0]) * (len(kinds) + 1)  # made at its size and filled by the kernel: no copy
    text = C.render_view(raw, kinds, starts, ends, objs, placeholder, vstarts)
    return None if text is None else (text, vstarts)


def _c_search_lines(raw: bytes, numbered: bool, good):
    """The lines of search output, their kinds and paths (see ``search_twins.search_lines_py``)."""
    starts, tails, kinds, pids, paths, (plain_todo, context_todo) = C.search_lines(raw, numbered, good)
    return (memoryview(starts).cast("q"), tails, kinds, memoryview(pids).cast("i"), paths,
            (memoryview(plain_todo).cast("q"), memoryview(context_todo).cast("q")))


def _c_text_runs(raw: bytes, repeat_min: int, block_max: int, block_work: int):
    """The text type's folded runs as five int64 columns (see ``text_twins.text_runs_py``)."""
    return tuple(memoryview(column).cast("q") for column in C.text_runs(raw, repeat_min, block_max, block_work))


def _c_text_cuts(raw: bytes):
    """The text type's whitespace cuts: (starts, ends, trailing, blank) (see ``text_twins.text_cuts_py``)."""
    starts, ends, trailing, blank = C.text_cuts(raw)
    return memoryview(starts).cast("q"), memoryview(ends).cast("q"), trailing, blank


def _c_line_of(starts, offsets):
    """The line holding each offset, as int64 (see ``text_twins.line_of_py``)."""
    return memoryview(C.line_of(starts, offsets)).cast("q")


def _c_text_pieces(raw: bytes, *columns):
    """The text reducer's pieces, or None (see ``text_twins.text_pieces_py``)."""
    made = C.text_pieces(raw, *columns)
    if made is None:
        return None
    kinds, starts, ends, codes, *rest = made
    return (kinds, memoryview(starts).cast("q"), memoryview(ends).cast("q"), memoryview(codes).cast("q"), *rest)


def _c_blank_lines(text: bytes):
    """The indexes of the lines ``bytes.strip`` empties, as int64 (see ``text_twins.blank_lines_py``)."""
    return memoryview(C.blank_lines(text)).cast("q")


def _c_long_lines(raw: bytes, limit: int, skip) -> list[tuple[int, int]]:
    """The lines over ``limit`` bytes outside ``skip`` (see ``log_twins.long_lines_py``), as (start, end) pairs."""
    found = iter(memoryview(C.long_lines(raw, limit, array("q", [at for region in skip for at in region]))).cast("q"))
    return list(zip(found, found))


def _c_blame_columns(raw: bytes, starts) -> tuple[array, int]:
    """The code column of each blame line (-1: none) as an int64 array, and the widest line number (see
    ``blame_twins.blame_columns_py``)."""
    made, width = C.blame_columns(raw, starts)
    code = array("q")
    code.frombytes(made)
    return code, width


def _twin(module: str, name: str):
    """A twin function, for a kernel built before its C version was written."""
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def _c_diag_heads(raw: bytes):
    """The location lines of a linter's output as columns (see ``diag_twins.diag_heads_py``)."""
    lines, at, loc, flags, rest_ids, rests, path_ids, paths = C.diag_heads(raw)
    return (memoryview(lines).cast("I"), memoryview(at).cast("i"), memoryview(loc).cast("i"), flags,
            memoryview(rest_ids).cast("i"), rests, memoryview(path_ids).cast("i"), paths)


def _c_diag_runs(codes, first: int, stop: int, heads, lasts, starts, ends):
    """The runs of equal codes of a diagnostics plan's pieces (see ``diag_twins.diag_runs_py``)."""
    run_codes, firsts, run_starts, run_ends = C.diag_runs(codes, first, stop, heads, lasts, starts, ends)
    return run_codes, memoryview(firsts).cast("q"), memoryview(run_starts).cast("q"), memoryview(run_ends).cast("q")


def _c_diag_ranks(key, nkeys: int):
    """Each diagnostic's rank in its rule and the rules' diagnostics (see ``diag_twins.diag_ranks_py``)."""
    return tuple(memoryview(column).cast("I") for column in C.diag_ranks(key, nkeys))


def _c_diag_columns(*columns):
    """The diagnostics' columns of the location lines ``diag_heads`` found (see ``diag_twins.diag_columns_py``)."""
    key, severity, path, style, message = C.diag_columns(*columns)
    return (memoryview(key).cast("I"), memoryview(severity).cast("I"), memoryview(path).cast("I"), style,
            memoryview(message).cast("i"))


def _c_diag_line_runs(codes, first: int, stop: int, starts, ends):
    """The runs of equal codes of a diagnostics plan's lines (see ``diag_twins.diag_line_runs_py``)."""
    run_codes, run_starts, run_ends = C.diag_line_runs(codes, first, stop, starts, ends)
    return run_codes, memoryview(run_starts).cast("q"), memoryview(run_ends).cast("q")


def _c_diag_line_pieces(codes, first: int, stop: int, starts, ends, raw: bytes, padded: int, pad: int, least: int, keep: int):
    """A diagnostics view's pieces of lines, runs of spaces cut out (see ``diag_twins.diag_line_pieces_py``)."""
    piece_codes, piece_starts, piece_ends = C.diag_line_pieces(codes, first, stop, starts, ends, raw, padded, pad, least, keep)
    return piece_codes, memoryview(piece_starts).cast("q"), memoryview(piece_ends).cast("q")


def _c_source_lines(raw: bytes, max_len: int, numbered: bool, tests, clauses):
    """The number of lines and the int64 records of each group's lines (see ``source_twins.source_lines_py``)."""
    lines, groups = C.source_lines(raw, max_len, numbered, tests, clauses)
    return lines, [memoryview(records).cast("q") for records in groups]


if C is None:
    scan_lines = log_twins.scan_lines_py
    select_visible = log_twins.select_py
    lines_with = log_twins.lines_with_py
    status_lines = log_twins.status_lines_py
    mark_rare = log_twins.mark_rare_py
    group_shapes = log_twins.group_shapes_py
    id_classes = log_twins.id_classes_py
    sha256_pair = None  # (the store hashes with hashlib then: its twin is for the tests)
    mask = log_twins.mask_py
    mask_numbers = log_twins.mask_numbers_py
    first_equal = log_twins.first_equal_py
    first_template = log_twins.first_template_py
    template_groups = log_twins.template_groups_py
    equal_groups = log_twins.equal_groups_py
    gather = log_twins.gather_py
    scatter = log_twins.scatter_py
    join_lines = log_twins.join_lines_py
    release_memory = log_twins.release_memory_py
    verbatim_lines = log_twins.verbatim_lines_py
    take = log_twins.take_py
    next_shapes = log_twins.next_shapes_py
    traced_heads = log_twins.traced_heads_py
    words = log_twins.words_py
    pair_brackets = json_twins.container_ends_py
    line_starts = diff_twins.line_starts
    line_bodies = diff_twins.line_bodies_py
    diff_lines = diff_twins.diff_lines_py
    diff_ranks = diff_twins.diff_ranks_py
    diff_common = diff_twins.diff_common_py
    diff_pieces = diff_twins.diff_pieces_py
    changed_lines = diff_twins.changed_lines_py
    tier_order = text_twins.tier_order_py
    gitlog_splice = diff_twins.gitlog_splice_py
    place_matches = diff_twins.place_matches_py
    render_view = text_twins.render_view_py
    search_lines = search_twins.search_lines_py
    text_runs = text_twins.text_runs_py
    text_cuts = text_twins.text_cuts_py
    line_of = text_twins.line_of_py
    text_pieces = text_twins.text_pieces_py
    blank_lines = text_twins.blank_lines_py
    count_newlines = log_twins.count_newlines_py
    plain_text = text_twins.plain_text_py
    long_lines = log_twins.long_lines_py
    blame_columns = blame_twins.blame_columns_py
    diag_heads = diag_twins.diag_heads_py
    diag_codes = diag_twins.diag_codes_py
    diag_runs = diag_twins.diag_runs_py
    diag_ranks = diag_twins.diag_ranks_py
    diag_columns = diag_twins.diag_columns_py
    diag_lines = diag_twins.diag_lines_py
    diag_line_runs = diag_twins.diag_line_runs_py
    diag_fill = diag_twins.diag_fill_py
    diag_offsets = diag_twins.diag_offsets_py
    diag_stylish = diag_twins.diag_stylish_py
    diag_pads = diag_twins.diag_pads_py
    diag_shown = diag_twins.diag_shown_py
    diag_line_pieces = diag_twins.diag_line_pieces_py
    diag_tsc_heads = diag_twins.diag_tsc_heads_py
    diag_indented = diag_twins.diag_indented_py
    diag_elaborations = diag_twins.diag_elaborations_py
    diag_bulk = diag_twins.diag_bulk_py
    diag_rust_details = diag_twins.diag_rust_details_py
    diag_indented_known = diag_twins.diag_indented_known_py
    diag_indented_unknown = diag_twins.diag_indented_unknown_py
    diag_place_sizes = diag_twins.diag_place_sizes_py
    diag_places = diag_twins.diag_places_py
    diag_rust_run = diag_twins.diag_rust_run_py
    source_lines = source_twins.source_lines_py
else:
    scan_lines = _c_scan_lines
    select_visible = _c_select_visible
    lines_with = _c_lines_with
    status_lines = _c_status_lines
    mark_rare = C.mark_rare
    group_shapes = _c_group_shapes
    id_classes = _c_id_classes if hasattr(C, "id_classes") else _twin("log_twins", "id_classes_py")  # a kernel built before it
    sha256_pair = C.sha256_pair if hasattr(C, "sha256_pair") else None  # (None from it too: no SHA-NI)
    mask = C.mask
    mask_numbers = C.mask_numbers if hasattr(C, "mask_numbers") else _twin("log_twins", "mask_numbers_py")  # a kernel built before it
    first_equal = _c_first_equal if hasattr(C, "first_equal") else _twin("log_twins", "first_equal_py")
    first_template = _c_first_template if hasattr(C, "first_template") else _twin("log_twins", "first_template_py")
    template_groups = _c_template_groups if hasattr(C, "template_groups") else _twin("log_twins", "template_groups_py")
    equal_groups = _c_equal_groups if hasattr(C, "equal_groups") else _twin("log_twins", "equal_groups_py")
    gather = C.gather if hasattr(C, "gather") else _twin("log_twins", "gather_py")
    scatter = C.scatter if hasattr(C, "scatter") else _twin("log_twins", "scatter_py")
    join_lines = _c_join_lines if hasattr(C, "join_lines") else _twin("log_twins", "join_lines_py")
    release_memory = C.release_memory if hasattr(C, "release_memory") else _twin("log_twins", "release_memory_py")
    verbatim_lines = _c_verbatim_lines if hasattr(C, "verbatim_lines") else _twin("log_twins", "verbatim_lines_py")
    take = _c_take if hasattr(C, "take") else _twin("log_twins", "take_py")
    next_shapes = _c_next_shapes if hasattr(C, "next_shapes") else _twin("log_twins", "next_shapes_py")
    traced_heads = _c_traced_heads if hasattr(C, "traced_heads") else _twin("log_twins", "traced_heads_py")
    words = C.words
    pair_brackets = _c_pair_brackets
    line_starts = _c_line_starts if hasattr(C, "line_starts") else _twin("diff_twins", "line_starts")  # a kernel built before it: the twin
    line_bodies = _c_line_bodies if hasattr(C, "line_bodies") else _twin("diff_twins", "line_bodies_py")
    diff_lines = _c_diff_lines
    diff_ranks = _c_diff_ranks
    diff_common = _c_diff_common if hasattr(C, "diff_common") else _twin("diff_twins", "diff_common_py")  # a kernel built before it: the twin
    diff_pieces = _c_diff_pieces if hasattr(C, "diff_pieces") else _twin("diff_twins", "diff_pieces_py")
    changed_lines = _c_changed_lines if hasattr(C, "changed_lines") else _twin("diff_twins", "changed_lines_py")
    tier_order = _c_tier_order if hasattr(C, "tier_order") else _twin("text_twins", "tier_order_py")
    gitlog_splice = _c_gitlog_splice if hasattr(C, "gitlog_splice") else _twin("diff_twins", "gitlog_splice_py")
    place_matches = _c_place_matches if hasattr(C, "place_matches") else _twin("diff_twins", "place_matches_py")
    render_view = _c_render_view if hasattr(C, "render_view") else _twin("text_twins", "render_view_py")
    search_lines = _c_search_lines
    text_runs = _c_text_runs
    text_cuts = _c_text_cuts
    line_of = _c_line_of
    text_pieces = _c_text_pieces
    blank_lines = _c_blank_lines
    count_newlines = C.count_newlines if hasattr(C, "count_newlines") else _twin("log_twins", "count_newlines_py")  # an older build
    plain_text = C.plain_text if hasattr(C, "plain_text") else _twin("text_twins", "plain_text_py")
    long_lines = _c_long_lines if hasattr(C, "long_lines") else _twin("log_twins", "long_lines_py")
    blame_columns = _c_blame_columns if hasattr(C, "blame_columns") else _twin("blame_twins", "blame_columns_py")  # a kernel built before it
    diag_heads = _c_diag_heads if hasattr(C, "diag_heads") else _twin("diag_twins", "diag_heads_py")
    diag_codes = C.diag_codes if hasattr(C, "diag_codes") else _twin("diag_twins", "diag_codes_py")
    diag_runs = _c_diag_runs if hasattr(C, "diag_runs") else _twin("diag_twins", "diag_runs_py")
    diag_ranks = _c_diag_ranks if hasattr(C, "diag_ranks") else _twin("diag_twins", "diag_ranks_py")
    diag_columns = _c_diag_columns if hasattr(C, "diag_columns") else _twin("diag_twins", "diag_columns_py")
    diag_lines = C.diag_lines if hasattr(C, "diag_lines") else _twin("diag_twins", "diag_lines_py")
    diag_line_runs = _c_diag_line_runs if hasattr(C, "diag_line_runs") else _twin("diag_twins", "diag_line_runs_py")
    diag_fill = C.diag_fill if hasattr(C, "diag_fill") else _twin("diag_twins", "diag_fill_py")
    diag_offsets = C.diag_offsets if hasattr(C, "diag_offsets") else _twin("diag_twins", "diag_offsets_py")
    diag_stylish = C.diag_stylish if hasattr(C, "diag_stylish") else _twin("diag_twins", "diag_stylish_py")
    diag_pads = C.diag_pads if hasattr(C, "diag_pads") else _twin("diag_twins", "diag_pads_py")
    diag_shown = C.diag_shown if hasattr(C, "diag_shown") else _twin("diag_twins", "diag_shown_py")
    diag_line_pieces = _c_diag_line_pieces if hasattr(C, "diag_line_pieces") else _twin("diag_twins", "diag_line_pieces_py")
    diag_tsc_heads = C.diag_tsc_heads if hasattr(C, "diag_tsc_heads") else _twin("diag_twins", "diag_tsc_heads_py")
    diag_indented = C.diag_indented if hasattr(C, "diag_indented") else _twin("diag_twins", "diag_indented_py")
    diag_elaborations = C.diag_elaborations if hasattr(C, "diag_elaborations") else _twin("diag_twins", "diag_elaborations_py")
    diag_bulk = C.diag_bulk if hasattr(C, "diag_bulk") else _twin("diag_twins", "diag_bulk_py")
    diag_rust_details = C.diag_rust_details if hasattr(C, "diag_rust_details") else _twin("diag_twins", "diag_rust_details_py")
    diag_indented_known = C.diag_indented_known if hasattr(C, "diag_indented_known") else _twin("diag_twins", "diag_indented_known_py")
    diag_indented_unknown = (C.diag_indented_unknown if hasattr(C, "diag_indented_unknown")
                             else _twin("diag_twins", "diag_indented_unknown_py"))
    diag_rust_run = C.diag_rust_run if hasattr(C, "diag_rust_run") else _twin("diag_twins", "diag_rust_run_py")
    diag_place_sizes = C.diag_place_sizes if hasattr(C, "diag_place_sizes") else _twin("diag_twins", "diag_place_sizes_py")
    diag_places = C.diag_places if hasattr(C, "diag_places") else _twin("diag_twins", "diag_places_py")
    source_lines = _c_source_lines if hasattr(C, "source_lines") else _twin("source_twins", "source_lines_py")  # a kernel built before it
