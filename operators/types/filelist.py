"""File-list reducer: fold a listing (``find .``, ``git ls-files``, …) into a tree with counts.

The whole listing goes into ONE ref (group ``filelist``) and a compact tree stands in its place:

    [file list: 527 entries (409 files in 118 directories), folded into a tree; full list: #ref:ctx_…]
    ./ (409 files in 118 dirs: 230 .php, 52 .js, 33 .md, 94 other)
      .env, .gitignore, Dockerfile, README.md, composer.json, composer.lock, … +8 more
      src/ (35 .php in 14 dirs)
        Kernel.php
        Security/ (5 .php in 2 dirs)
          AuthGuard.php, LoginFormAuthenticator.php
          Token/ (2 .php)
      vendor/ (202 files in 37 dirs: 161 .php, 19 .md, 22 other) not expanded

* Directories are expanded down to ``max_depth`` levels below the root; a deeper directory is one
  summary line. Bulk directories (``vendor``, ``node_modules``, ``.git``, caches, build output) are
  never expanded.
* An expanded directory names up to ``max_entries_per_dir`` of its files (``… +N more`` for the
  rest) and gives each subdirectory a line, up to ``SUBDIR_FACTOR`` times that many; the others are
  folded into one line with their counts. A tree longer than ``MAX_LINES`` is drawn one level
  shallower until it fits.
* A chain of directories that hold nothing but one subdirectory shows as one line (``a/b/c/``).
* Names with spaces, commas, quotes, control characters or bytes that are not UTF-8 are shown
  quoted with escapes, so a name can never break the layout; the exact bytes are in the ref.

A listing whose tree would not be clearly smaller passes through untouched.
"""

from __future__ import annotations

import re
import unicodedata

from operators.config import Section
from operators.reduction import Plan, passthrough
from operators.relazy import lazy  # patterns compiled on first use

GROUP = "filelist"
REASON = "full file listing (folded into a tree with counts)"
MAX_RATIO = 0.7  # the tree must be at most this share of the raw listing, else pass through
TOP_EXTS = 3
SUBDIR_FACTOR = 4  # a directory shows at most this many times max_entries_per_dir subdirectories
MAX_LINES = 200  # a tree longer than this is rendered again one level shallower
MAX_TREE_DEPTH = 64  # deeper path components are not split into directories (only counted)
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


def build_tree(paths: list[bytes], sep: bytes) -> tuple[Node, int]:
    """The tree under the paths' common directory prefix (the root's name), and the number of entries.

    Paths are grouped by their parent directory first (one dict entry per path); nodes are made
    only for distinct directories, so a listing of a million files stays cheap.
    """
    dot = b"." + sep
    dot_prefixed = all(p.startswith(dot) or p in (b".", dot) for p in paths)
    files_in, dir_keys, entries = _group_by_parent(paths, sep)
    prefix = _common_dir(files_in, dir_keys, sep)
    label = (dot if dot_prefixed else b"") + prefix
    root = Node(label or dot)
    nodes = _make_nodes(root, prefix, files_in, dir_keys, sep)
    _count(nodes, sep)
    return root, entries


def _group_by_parent(paths: list[bytes], sep: bytes) -> tuple[dict[bytes, dict[bytes, None]], dict[bytes, None], int]:
    """Parent key ("" or "a/b/") -> file names; the directories named as such ("a/b/" listed with its
    slash); and the number of entries."""
    dot = b"." + sep
    files_in: dict[bytes, dict[bytes, None]] = {}
    dir_keys: dict[bytes, None] = {}
    entries = 0
    for path in paths:
        while path.startswith(dot):
            path = path[2:]  # "./x" is "x" below "./"
        is_dir = path.endswith(sep)
        if is_dir:
            path = path.rstrip(sep)
            if not path:
                continue  # "/" alone
        if not path or path == b".":
            continue  # "." (find) is the root itself
        entries += 1
        if path.count(sep) > MAX_TREE_DEPTH:  # fold the rest of a pathologically deep path into one name
            cut = 0
            for _ in range(MAX_TREE_DEPTH):
                cut = path.find(sep, cut) + 1
            is_dir = False
        else:
            cut = path.rfind(sep) + 1
        if is_dir:
            dir_keys[path + sep] = None
        else:
            names = files_in.get(path[:cut])
            if names is None:
                names = files_in[path[:cut]] = {}
            names[path[cut:]] = None
    return files_in, dir_keys, entries


def _common_dir(files_in: dict, dir_keys: dict, sep: bytes) -> bytes:
    """The common directory of all entries: of each directory key, and of the parent of each named directory."""
    if not files_in and not dir_keys:
        return b""
    parents = set(files_in)
    parents.update(k[: k.rfind(sep, 0, len(k) - 1) + 1] for k in dir_keys)
    lo, hi = min(parents), max(parents)
    n = 0
    while n < len(lo) and n < len(hi) and lo[n] == hi[n]:
        n += 1
    return lo[: lo.rfind(sep, 0, n) + 1] if n < len(lo) else lo


def _make_nodes(root: Node, prefix: bytes, files_in: dict, dir_keys: dict, sep: bytes) -> dict[bytes, Node]:
    """A node for every distinct directory below ``prefix`` (by key), with the files it lists."""
    nodes: dict[bytes, Node] = {prefix: root}

    def node_for(key: bytes) -> Node:
        missing = []
        while key not in nodes:
            missing.append(key)
            parent_key = key[: key.rfind(sep, 0, len(key) - 1) + 1]
            key = parent_key if len(parent_key) >= len(prefix) else prefix
        node = nodes[key]
        for child_key in reversed(missing):
            name = child_key[len(key) : -len(sep)]
            child = node.dirs.get(name)
            if child is None:
                child = node.dirs[name] = Node(name)
            nodes[child_key] = node = child
            key = child_key
        return node

    for key in set(files_in) | set(dir_keys):
        names = files_in.get(key)
        node = node_for(key)
        if names:
            node.files.update(names)
    return nodes


def _count(nodes: dict[bytes, Node], sep: bytes) -> None:
    """Bottom-up: a name listed as a file that other paths go through is a directory ("find" lists
    both); then the recursive counts of files, directories and extensions."""
    ext_of: dict[bytes, bytes] = {}
    for key in sorted(nodes, key=lambda k: k.count(sep), reverse=True):
        node = nodes[key]
        for name in [f for f in node.files if f in node.dirs]:
            del node.files[name]
        node.nfiles = len(node.files)
        node.ndirs = len(node.dirs)
        exts = node.exts
        for name in node.files:
            ext = ext_of.get(name)
            if ext is None:
                ext = ext_of[name] = _ext(name)
            exts[ext] = exts.get(ext, 0) + 1
        for child in node.dirs.values():
            node.nfiles += child.nfiles
            node.ndirs += child.ndirs
            for ext, count in child.exts.items():
                exts[ext] = exts.get(ext, 0) + count


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


def _counts(node: Node) -> str:
    """``412 files in 23 dirs: 380 .php, 20 .twig, 12 other`` (or ``35 .php`` when all share one)."""
    ranked = sorted(node.exts.items(), key=lambda kv: (-kv[1], kv[0]))
    if len(ranked) == 1 and ranked[0][0]:
        text = f"{node.nfiles:,} {show_name(ranked[0][0])}"
    else:
        text = f"{node.nfiles:,} file{'s' if node.nfiles != 1 else ''}"
    if node.ndirs:
        text += f" in {node.ndirs:,} dir{'s' if node.ndirs != 1 else ''}"
    if len(ranked) > 1:
        shown = [(ext, count) for ext, count in ranked[:TOP_EXTS] if ext]
        rest = node.nfiles - sum(count for _, count in shown)
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
        top = depth == 0  # every top-level entry is shown, with find's "./" prefix when it printed one
        lead = name if top and name.startswith("./") else ""
        if node.files:
            names = sorted(node.files)
            cap = len(names) if top else max_entries
            text = ", ".join(show_name(lead.encode() + f) for f in names[:cap])
            if len(names) > cap:
                text += f", … +{len(names) - cap:,} more"
            lines.append(inner + text)
        names = sorted(node.dirs)
        for dname in names[: len(names) if top else dir_cap]:
            walk(node.dirs[dname], show_name(lead.encode() + dname) + "/", depth + 1)
        rest = names[len(names) if top else dir_cap :]
        if rest:
            files = sum(node.dirs[d].nfiles for d in rest)
            dirs = len(rest) + sum(node.dirs[d].ndirs for d in rest)
            lines.append(f"{inner}… {len(rest):,} more dirs ({files:,} files in {dirs:,} dirs)")

    walk(root, show_name(root.name), 0)
    return lines


def fit_tree(root: Node, max_entries: int, max_depth: int) -> list[str]:
    """The tree at the deepest level (at most ``max_depth``) that fits in ``MAX_LINES`` lines."""
    depth = max(0, max_depth)
    while True:
        lines = render_tree(root, max(1, max_entries), depth)
        if len(lines) <= MAX_LINES or depth == 0:
            return lines
        depth -= 1


def reduce_filelist(raw: bytes, max_entries: int, max_depth: int) -> Plan:
    paths, sep = parse(raw)
    if len(paths) < 2:
        return passthrough(raw)
    root, entries = build_tree(paths, sep)
    tree = fit_tree(root, max_entries, max_depth)
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


# -- the content type ----------------------------------------------------------------------------
NAME = "filelist"
SIGNALS = ""


class Settings(Section):
    max_entries_per_dir: int = 8
    max_depth: int = 3

NOT_IN_PATH_RE = lazy(rb'[\x00-\x1f\x7f:*?"<>|;={}\t]|^\s|\s$')
FILE_NAME_RE = lazy(rb"^(?:\.?[^ ./][^/]*\.[A-Za-z0-9_~-]{1,10}|\.[A-Za-z0-9_][^ /]*|\.{1,2})$")


def looks_like_path(line: bytes) -> bool:
    """One line of a file listing: a path with separators, or a file name with an extension.

    Any byte that is not a control character or a shell/log punctuation mark may be in a name
    (unicode, spaces, brackets, parentheses); prose is kept out by the number of spaces.
    """
    if not line or len(line) > 1024:
        return False
    if line[1:3] in (b":\\", b":/") and line[:1].isalpha():
        line = line[3:] or b"."  # a Windows drive
    if NOT_IN_PATH_RE.search(line) or line.count(b" ") > 4:
        return False
    sep = b"/" if b"/" in line else b"\\"
    parts = line.split(sep)
    if len(parts) == 1:
        return FILE_NAME_RE.match(line) is not None and line.count(b" ") <= 2
    return all(len(part) <= 255 for part in parts)


def detect(sample) -> str | None:
    lines = sample.lines
    n = len(lines)
    path_like = sum(1 for line in lines if looks_like_path(line.rstrip(b"\r")))
    spaced = sum(1 for line in lines if b" " in line)  # prose has spaces on most lines, listings rarely
    if n >= 3 and path_like >= 0.9 * n and spaced <= 0.5 * n:
        return f"{path_like}/{n} lines look like paths"
    return None


def facts(packet):
    from operators.types import Facts

    entries = sum(1 for line in packet.raw.split(b"\n") if line.strip())
    return Facts(f"{entries:,} entries", [], 0)
