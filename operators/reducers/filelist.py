"""File-list reducer: fold a listing (``find .``, ``git ls-files``, …) into a tree with counts.

The whole listing goes into ONE ref (group ``filelist``) and a compact tree stands in its place:

    [file list: 1,850 entries (1,790 files in 60 directories), folded into a tree; full list: #ref:ctx_…]
    ./ (1,790 files in 60 dirs: 1,650 .php, 80 .json, 60 other)
      .env, README.md, composer.json
      src/ (62 files in 9 dirs: 62 .php)
        Kernel.php
        Controller/ (8 .php)
      vendor/ (1,700 files in 40 dirs: …) not expanded

* Directories are expanded down to ``max_depth`` levels below the root; a deeper directory is one
  summary line. Bulk directories (``vendor``, ``node_modules``, ``.git``, caches, build output) are
  never expanded.
* An expanded directory names its files when it has at most ``max_entries_per_dir`` of them, else
  it counts them by extension; it shows at most ``max_entries_per_dir`` subdirectories, the rest
  folded into one line with their counts.
* A chain of directories that hold nothing but one subdirectory shows as one line (``a/b/c/``).
* Names with spaces, commas, quotes, control characters or bytes that are not UTF-8 are shown
  quoted with escapes, so a name can never break the layout; the exact bytes are in the ref.

A listing whose tree would not be clearly smaller passes through untouched.
"""

from __future__ import annotations

import unicodedata

from operators.reduction import Plan, passthrough

GROUP = "filelist"
REASON = "full file listing (folded into a tree with counts)"
MAX_RATIO = 0.7  # the tree must be at most this share of the raw listing, else pass through
TOP_EXTS = 3
SUBDIR_FACTOR = 4  # a directory shows at most this many times max_entries_per_dir subdirectories
MAX_LINES = 200  # a tree longer than this is rendered again one level shallower
BULK = frozenset(
    name.encode()
    for name in (
        "node_modules", "vendor", "bower_components", "jspm_packages", ".git", ".hg", ".svn", "__pycache__",
        ".venv", "venv", "site-packages", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
        ".cache", ".next", ".nuxt", ".turbo", ".parcel-cache", ".gradle", ".terraform", "Pods", "DerivedData",
        "target", "dist", "build", "coverage", ".idea",
    )
)


class Node:
    __slots__ = ("name", "dirs", "files", "nfiles", "ndirs", "exts")

    def __init__(self, name: bytes):
        self.name = name
        self.dirs: dict[bytes, Node] = {}
        self.files: dict[bytes, None] = {}
        self.nfiles = 0  # recursive
        self.ndirs = 0  # recursive
        self.exts: dict[bytes, int] = {}  # recursive


def parse(raw: bytes) -> tuple[list[bytes], bytes]:
    """The listed paths (line endings stripped, blanks dropped) and the path separator."""
    if b"\n" not in raw and b"\0" in raw:
        items = raw.split(b"\0")  # find -print0
    else:
        items = raw.split(b"\n")
    paths = []
    for item in items:
        if item.endswith(b"\r"):
            item = item[:-1]
        if item.strip():
            paths.append(item)
    slash = sum(1 for p in paths if b"/" in p)
    back = sum(1 for p in paths if b"\\" in p)
    return paths, (b"\\" if back > slash else b"/")


def build_tree(paths: list[bytes], sep: bytes) -> tuple[Node, bytes, int]:
    """The tree under the paths' common directory prefix, that prefix, and the number of entries."""
    dot = b"." + sep
    dot_prefixed = all(p.startswith(dot) or p in (b".", dot) for p in paths)
    real = []
    marked_dirs = set()
    for path in paths:
        comps = path.split(sep)
        if len(comps) > 1 and comps[-1] == b"":
            marked_dirs.add(len(real))  # "dir/" names a directory
        while len(comps) > 1 and comps[-1] == b"":
            comps.pop()
        while len(comps) > 1 and comps[0] == b".":
            del comps[0]  # "./x" is "x" below "./"
        if comps != [b"."]:  # "." (find) is the root itself
            real.append(comps)
    prefix: list[bytes] = list(real[0][:-1]) if real else []
    for comps in real[1:]:
        if not prefix:
            break
        n = min(len(prefix), len(comps) - 1)
        k = 0
        while k < n and prefix[k] == comps[k]:
            k += 1
        del prefix[k:]
    label = (dot if dot_prefixed else b"") + (sep.join(prefix) + sep if prefix else b"")
    root = Node(label or b"." + sep)
    cut = len(prefix)
    for i, comps in enumerate(real):
        rel = comps[cut:]
        if not rel or rel == [b""]:
            continue
        node = root
        for name in rel[:-1]:
            child = node.dirs.get(name)
            if child is None:
                child = node.dirs[name] = Node(name)
            node = child
        leaf = rel[-1]
        if i in marked_dirs:
            if leaf not in node.dirs:
                node.dirs[leaf] = Node(leaf)
        elif leaf not in node.dirs:
            node.files[leaf] = None
    # a name listed as a file that other paths go through is a directory ("find" lists both)
    stack = [root]
    order = []
    while stack:
        node = stack.pop()
        order.append(node)
        for name in list(node.files):
            if name in node.dirs:
                del node.files[name]
        stack.extend(node.dirs.values())
    for node in reversed(order):
        node.nfiles = len(node.files)
        node.ndirs = len(node.dirs)
        exts = node.exts
        for name in node.files:
            ext = _ext(name)
            exts[ext] = exts.get(ext, 0) + 1
        for child in node.dirs.values():
            node.nfiles += child.nfiles
            node.ndirs += child.ndirs
            for ext, count in child.exts.items():
                exts[ext] = exts.get(ext, 0) + count
    return root, label, len(real)


def _ext(name: bytes) -> bytes:
    dot = name.rfind(b".")
    if dot <= 0 or dot == len(name) - 1 or len(name) - dot > 12:
        return b""
    return name[dot:].lower()


def show_name(name: bytes) -> str:
    """A name as text: as is when plain, else quoted with escapes (non-UTF-8 bytes as \\xNN)."""
    text = name.decode("utf-8", "surrogateescape")
    out = []
    quote = False
    for ch in text:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8
            out.append(f"\\x{code - 0xDC00:02x}")
            quote = True
        elif ch in "\\'":
            out.append("\\" + ch)
            quote = True
        elif ch in " ,\"" or unicodedata.category(ch)[0] == "Z":
            out.append(ch)
            quote = True
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn"):
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
            quote = True
        else:
            out.append(ch)
    body = "".join(out)
    return f"'{body}'" if quote else body


def _counts(node: Node, files_only: bool = False) -> str:
    nfiles = len(node.files) if files_only else node.nfiles
    exts = node.exts
    if files_only:
        exts = {}
        for name in node.files:
            ext = _ext(name)
            exts[ext] = exts.get(ext, 0) + 1
    ranked = sorted(exts.items(), key=lambda kv: (-kv[1], kv[0]))
    if len(ranked) == 1 and ranked[0][0]:
        text = f"{nfiles:,} {show_name(ranked[0][0])}"
        head = None
    else:
        text = f"{nfiles:,} file{'s' if nfiles != 1 else ''}"
        head = ranked
    if not files_only and node.ndirs:
        text += f" in {node.ndirs:,} dir{'s' if node.ndirs != 1 else ''}"
    if head and nfiles:
        shown = [(ext, count) for ext, count in head[:TOP_EXTS] if ext]
        rest = nfiles - sum(count for _, count in shown)
        parts = [f"{count:,} {show_name(ext)}" for ext, count in shown]
        if rest and parts:
            parts.append(f"{rest:,} other")
        if parts:
            text += ": " + ", ".join(parts)
    return text


def render_tree(root: Node, max_entries: int, max_depth: int) -> list[str]:
    lines: list[str] = []
    dir_cap = SUBDIR_FACTOR * max_entries

    def walk(node: Node, name: str, depth: int) -> None:
        # a chain of directories holding only one subdirectory shows as one line
        while not node.files and len(node.dirs) == 1 and depth > 0 and node.name not in BULK:
            (child,) = node.dirs.values()
            name += show_name(child.name) + "/"
            node = child
        pad = "  " * depth
        bulk = depth > 0 and node.name in BULK
        if not (node.nfiles or node.ndirs):
            lines.append(f"{pad}{name} (empty)")
            return
        lines.append(f"{pad}{name} ({_counts(node)})" + (" not expanded" if bulk else ""))
        if bulk or depth >= max_depth:
            return
        inner = "  " * (depth + 1)
        if node.files:
            names = sorted(node.files)
            text = ", ".join(show_name(f) for f in names[:max_entries])
            if len(names) > max_entries:
                text += f", … +{len(names) - max_entries:,} more"
            lines.append(inner + text)
        names = sorted(node.dirs)
        for dname in names[:dir_cap]:
            walk(node.dirs[dname], show_name(dname) + "/", depth + 1)
        rest = names[dir_cap:]
        if rest:
            files = sum(node.dirs[d].nfiles for d in rest)
            dirs = len(rest) + sum(node.dirs[d].ndirs for d in rest)
            lines.append(f"{inner}… {len(rest):,} more dirs ({files:,} files in {dirs:,} dirs)")

    walk(root, show_name(root.name), 0)
    return lines


def fit_tree(root: Node, max_entries: int, max_depth: int) -> tuple[list[str], int]:
    """The tree at the deepest level (at most ``max_depth``) that fits in ``MAX_LINES`` lines."""
    depth = max(0, max_depth)
    while True:
        lines = render_tree(root, max(1, max_entries), depth)
        if len(lines) <= MAX_LINES or depth == 0:
            return lines, depth
        depth -= 1


def reduce_filelist(raw: bytes, max_entries: int, max_depth: int) -> Plan:
    paths, sep = parse(raw)
    if len(paths) < 2:
        return passthrough(raw)
    root, _, entries = build_tree(paths, sep)
    tree, _ = fit_tree(root, max_entries, max_depth)
    head = (
        f"[file list: {entries:,} entries ({root.nfiles:,} files in {root.ndirs:,} directories), "
        f"folded into a tree; full list: "
    )
    body = ("\n".join(tree) + "\n").encode("utf-8", "surrogateescape")
    if len(head) + 20 + len(body) > MAX_RATIO * len(raw):
        return passthrough(raw)
    plan = Plan(raw)
    plan.omit(0, len(raw), GROUP, REASON)
    plan.show(head.encode())
    plan.mark(GROUP)
    plan.show(b"]\n" + body)
    return plan.finish()


def reduce(raw: bytes, granularity: str, config) -> Plan:
    cfg = config.filelist
    return reduce_filelist(raw, cfg.max_entries_per_dir, cfg.max_depth)
