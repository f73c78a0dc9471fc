"""File-list reducer: a listing (``find .``, ``git ls-files``, ``fd``, …) keeps real paths, verbatim.

An agent copies paths from a listing, so the lines it needs stay as they were printed; only the
rest of each directory folds, with a count, its names and one ref (group ``filelist``):

    [file list: 527 entries (409 files in 118 directories); each directory's first path shown as listed, 412 more folded: #ref:ctx_…]
    ./composer.json
    ./src
    ./src/Controller/HomeController.php
      … +2 more: SecurityController.php, AccountController.php
    ./vendor
    ./vendor/symfony/routing/RouterInterface.php
      … +238 more under ./vendor/ (202 files in 37 dirs: 161 .php, 19 .md, 22 other)

* A listing no longer than the ceiling's target (``target_chars``: 12,500 bytes under Claude Code's
  limit) is shown whole, as printed: folding it would hide the names an agent listed to save little.
* Every top-level entry stays (a flat listing, ``ls`` or ``find -maxdepth 1``, is never folded), and so
  does the first path listed in every other directory.
* The other paths of a directory fold into one line where the first of them was (right after the
  directory's shown path), naming up to ``max_entries_per_dir`` of them in ``names_width``
  characters (``in DIR`` when the line is not right after that path). A single path to fold is shown instead: it costs no more.
* A directory line (``find`` without ``-type f``) below the top level is implied by the paths in it
  and folds with them; an empty directory is a path like any other.
* Bulk directories (``vendor``, ``node_modules``, ``.git``, caches, build output) and directories
  deeper than ``max_depth`` fold whole into their ancestor (``… +N more under DIR (counts)``);
  ``max_depth`` shrinks until at most ``max_dirs`` directories remain, so a listing of a whole
  disk stays a few hundred lines.
* ``find -print0`` items are shown one a line (the NUL bytes in the ref); names in fold lines with
  spaces, commas, quotes, control characters or bytes that are not UTF-8 are quoted with escapes.

The ceiling ranks the lines (``rank_lines``): the header, then the paths by depth (top level
first), then the fold lines. A listing whose folding would not be clearly smaller passes through.
"""

from __future__ import annotations

import unicodedata

from operators.config import Section, section
from operators.reduction import Plan, passthrough
from operators.relazy import lazy  # patterns compiled on first use
from operators.types import maybe  # the cheap test each detector asks first

GROUP = "filelist"
REASON = "the paths of a listing past each directory's first one"
MAX_RATIO = 0.7  # the folded listing must be at most this share of the raw listing, else pass through
TOP_EXTS = 3
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


def build_tree(paths: list[bytes], sep: bytes) -> tuple[Node, int, bytes, bool]:
    """The tree under the paths' common directory prefix (the root's name), the number of entries,
    that prefix (without ``./``) and whether every path starts with ``./``.

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
    return root, entries, prefix, dot_prefixed


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


class _Group:
    """The paths of one directory (or of one folded subtree) in listing order: how many are shown,
    the names folded, and the entry where its fold line goes."""

    __slots__ = ("key", "subtree", "kept", "folded", "first_fold")

    def __init__(self, key: bytes, subtree: bool):
        self.key, self.subtree = key, subtree
        self.kept = 0
        self.folded: list[bytes] = []
        self.first_fold = -1


def _entries(raw: bytes, nul: bool) -> list[tuple[int, int, int]]:
    """(start, body end, end) of every item: lines (``\r\n`` or ``\n``), or NUL-ended items (-print0)."""
    out, pos, n = [], 0, len(raw)
    term = b"\0" if nul else b"\n"
    while pos < n:
        at = raw.find(term, pos)
        end = n if at < 0 else at + 1
        body = end - 1 if at >= 0 else end
        if not nul and body > pos and raw[body - 1 : body] == b"\r":
            body -= 1
        out.append((pos, body, end))
        pos = end
    return out


def _normal(path: bytes, sep: bytes) -> tuple[bytes, bytes] | None:
    """(parent key, name) of a listed path as ``_group_by_parent`` reads it; None for the root itself."""
    dot = b"." + sep
    while path.startswith(dot):
        path = path[2:]
    path = path.rstrip(sep) if path.endswith(sep) else path
    if not path or path == b"." or not path.strip():
        return None
    if path.count(sep) > MAX_TREE_DEPTH:
        cut = 0
        for _ in range(MAX_TREE_DEPTH):
            cut = path.find(sep, cut) + 1
    else:
        cut = path.rfind(sep) + 1
    return path[:cut], path[cut:]


def _group_key(parent: bytes, prefix: bytes, depth: int, sep: bytes) -> tuple[bytes, bool]:
    """The group of a path in ``parent``: the directory itself, or (``True``) the folded subtree it is
    in: its first bulk directory (``node_modules`` …) or its ancestor ``depth`` levels below the root."""
    rel = parent[len(prefix) :]
    if not rel:
        return prefix, False
    parts = rel[: -len(sep)].split(sep)
    for i, part in enumerate(parts):
        if part in BULK:
            parts, depth = parts[: i + 1], min(depth, i + 1)
            break
    if len(parts) <= depth and parts[-1] not in BULK:
        return parent, False
    return prefix + sep.join(parts[:depth]) + sep, True


def _depth_for(nodes: dict[bytes, Node], prefix: bytes, sep: bytes, max_depth: int, max_groups: int) -> int:
    """The deepest level (at most ``max_depth``, at least 1) at which the directories outside bulk
    ones, each a group of its own, are at most ``max_groups``."""
    per_depth: dict[int, int] = {}
    for key in nodes:
        rel = key[len(prefix) :]
        parts = rel[: -len(sep)].split(sep) if rel else []
        if any(part in BULK for part in parts[:-1]):
            continue
        per_depth[len(parts)] = per_depth.get(len(parts), 0) + 1
    depth = max(1, max_depth)
    while depth > 1 and sum(n for d, n in per_depth.items() if d <= depth) > max_groups:
        depth -= 1
    return depth


class _Listing:
    """One listing read for folding: its items, their groups and which of them stay shown."""

    def __init__(self, raw: bytes, max_entries: int, max_depth: int, max_groups: int, names_width: int = 100):
        self.raw = raw
        self.names_width = names_width
        self.nul = b"\n" not in raw and b"\0" in raw
        self.items = _entries(raw, self.nul)
        paths = [raw[s:b] for s, b, _ in self.items if b > s and raw[s:b].strip()]
        self.sep = b"\\" if sum(b"\\" in p for p in paths) > sum(b"/" in p for p in paths) else b"/"
        self.root, self.count, self.prefix, self.dot = build_tree(paths, self.sep)
        sep = self.sep
        self.nodes = _nodes_by_key(self.root, self.prefix, sep)
        self.depth = _depth_for(self.nodes, self.prefix, sep, max_depth, max_groups)
        self.max_entries = max(1, max_entries)
        self.groups: dict[bytes, _Group] = {}
        self.keys: dict[bytes, tuple[bytes, bool]] = {}
        self.of: list[_Group | None] = []  # each item's group (None: not a path)
        self.shown: list[bool] = []
        self._assign()

    def _assign(self) -> None:
        raw = self.raw
        for start, body, _ in self.items:
            normal = _normal(raw[start:body], self.sep) if raw[start:body].strip() else None
            if normal is None or not normal[0].startswith(self.prefix):
                self.of.append(None)
                self.shown.append(True)
            else:
                self._place(*normal)
        for i, group in enumerate(self.of):  # a single folded path costs less shown than as a fold line
            if group is not None and len(group.folded) == 1 and group.first_fold == i:
                self.shown[i] = True
                group.folded.clear()
        self.hidden = sum(len(g.folded) for g in self.groups.values())
        self._fold_places()

    def _key(self, parent: bytes) -> tuple[bytes, bool]:
        """``_group_key`` of a parent, computed once per directory."""
        known = self.keys.get(parent)
        if known is None:
            known = self.keys[parent] = _group_key(parent, self.prefix, self.depth, self.sep)
        return known

    def _place(self, parent: bytes, name: bytes) -> None:
        """Put one path in its group: shown (a top-level entry, a directory's first path) or folded."""
        sep, prefix = self.sep, self.prefix
        key, subtree = self._key(parent)
        group = self.groups.get(key)
        if group is None:
            group = self.groups[key] = _Group(key, subtree)
        group.subtree |= subtree
        own_key = parent + name + sep
        own = self.nodes.get(own_key)
        full = own is not None and bool(own.nfiles or own.ndirs)
        if parent == prefix:
            show = True  # every top-level entry: the names an agent listed (the ceiling ranks them first)
        elif full and not subtree and self._key(own_key)[0] == own_key:
            self.of.append(None)  # a directory line implied by the paths shown below it
            self.shown.append(False)
            return
        else:
            show = not (subtree and full) and group.kept < 1  # a subtree shows a file first
        if show:
            group.kept += 1
        else:
            group.folded.append(name + (sep if own is not None else b""))
            if group.first_fold < 0:
                group.first_fold = len(self.of)
        self.of.append(group)
        self.shown.append(show)

    def _fold_places(self) -> None:
        """Where each fold line goes: after its directory's shown path, at its first folded path."""
        self.fold_at: dict[int, list[_Group]] = {}  # item index -> the fold lines shown before it
        first_shown: dict[bytes, int] = {}
        for i, group in enumerate(self.of):
            if group is not None and self.shown[i]:
                first_shown.setdefault(group.key, i)
        for group in self.groups.values():
            if group.folded:
                at = max(group.first_fold, first_shown.get(group.key, -1) + 1)
                self.fold_at.setdefault(at, []).append(group)

    def fold_line(self, group: _Group, after_own: bool) -> bytes:
        """``  … +N more: a.py, b.py, … `` (``in DIR`` unless right after the group's shown path);
        ``  … +N more under DIR (counts)`` for a folded subtree."""
        n = len(group.folded)
        where = (b"./" if self.dot else b"") + group.key
        text = f"  … +{n:,} more"
        node = self.nodes.get(group.key)
        if group.subtree and node is not None:
            text += f" under {show_name(where)} ({_counts(node)})"
        else:
            if not after_own:
                text += f" in {show_name(where) if group.key else '.' + self.sep.decode()}"
            names: list[str] = []
            room = self.names_width
            for name in group.folded[: self.max_entries]:
                shown = show_name(name)
                if names and len(shown) + 2 > room:
                    break
                names.append(shown)
                room -= len(shown) + 2
            text += ": " + ", ".join(names) + (", …" if n > len(names) else "")
        return text.encode("utf-8", "surrogateescape") + b"\n"


def _nodes_by_key(root: Node, prefix: bytes, sep: bytes) -> dict[bytes, Node]:
    """Every directory node of the tree by its key (``prefix`` + ``a/b/``)."""
    nodes = {prefix: root}
    stack = [(prefix, root)]
    while stack:
        key, node = stack.pop()
        for name, child in node.dirs.items():
            child_key = key + name + sep
            nodes[child_key] = child
            stack.append((child_key, child))
    return nodes


def reduce_filelist(raw: bytes, max_entries: int, max_depth: int, max_groups: int = 150, names_width: int = 100) -> Plan:
    listing = _Listing(raw, max_entries, max_depth, max_groups, names_width)
    if listing.count < 2 or not listing.hidden:
        return passthrough(raw)
    root = listing.root
    plan = Plan(raw)
    plan.show(f"[file list: {listing.count:,} entries ({root.nfiles:,} files in {root.ndirs:,} directories); "
              f"each directory's first path shown as listed, {listing.hidden:,} more folded: ".encode())
    plan.mark(GROUP)
    plan.show(b"]\n")
    last: _Group | None = None
    items, shown, n = listing.items, listing.shown, len(listing.items)
    i = 0
    while i < n:
        start, body, end = items[i]
        for folded in listing.fold_at.get(i, ()):
            plan.show(listing.fold_line(folded, last is folded))
            last = folded
        if shown[i]:
            if listing.nul:
                plan.keep(start, body)
                plan.omit(body, end, GROUP, REASON)
                plan.show(b"\n")
            else:
                plan.keep(start, end)
            last = listing.of[i]
            i += 1
            continue
        i += 1
        while i < n and not shown[i] and i not in listing.fold_at:  # folded items in a row: one omission
            end = items[i][2]
            i += 1
        plan.omit(start, end, GROUP, REASON)
    for folded in listing.fold_at.get(len(listing.items), ()):
        plan.show((b"" if plan.ends_line() else b"\n") + listing.fold_line(folded, last is folded))
        last = folded
    plan = plan.finish()
    shown = sum(len(p[1]) if p[0] == 1 else (p[2] - p[1] if p[0] == 0 else 0) for p in plan.pieces)
    return plan if shown <= MAX_RATIO * len(raw) else passthrough(raw)


def reduce(raw: bytes, granularity: str, config) -> Plan:
    if len(raw) <= section(config, "ceiling").target_chars:
        return passthrough(raw)  # small enough to read whole: every path as printed
    cfg = section(config, NAME)
    return reduce_filelist(raw, cfg.max_entries_per_dir, cfg.max_depth, cfg.max_dirs, cfg.names_width)


# -- the content type ----------------------------------------------------------------------------
NAME = "filelist"
SIGNALS = ""


class Settings(Section):
    max_entries_per_dir: int = 8  # names a fold line gives
    max_depth: int = 16  # directories deeper than this below the listing's root fold into their ancestor there
    max_dirs: int = 150  # directories shown each with its own first path; past it, the deepest levels fold
    names_width: int = 100  # characters of names a fold line gives at most (at least one name)

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
    if not maybe.filelist(sample):
        return None  # under three lines, or more than half with a space: the paths are not looked at
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


def rank_lines(lines: list[bytes], config) -> list[tuple[int, int] | None]:
    """Tiers for the ceiling: the header first, then every top-level entry (a top-level directory by
    its first path shown), then the other paths by depth, then the fold lines."""
    paths: dict[int, bytes] = {}
    for i, line in enumerate(lines):
        text = line.rstrip(b"\r")
        if text.strip() and not text.startswith((b"[file list:", b"  \xe2\x80\xa6")):
            body = text
            while body.startswith((b"./", b".\\")):
                body = body[2:]
            paths[i] = body.replace(b"\\", b"/").rstrip(b"/")
    root = _common_dir({p[: p.rfind(b"/") + 1]: None for p in paths.values()}, {}, b"/") if paths else b""
    seen: set[bytes] = set()
    out: list[tuple[int, int] | None] = []
    for i, line in enumerate(lines):
        path = paths.get(i)
        if line.startswith(b"[file list:"):
            out.append((0, 0))
        elif line.startswith(b"  \xe2\x80\xa6"):
            out.append((1, 0))
        elif path is None:
            out.append(None)
        else:
            rel = path[len(root) :] if path.startswith(root) else path
            top = rel.split(b"/", 1)[0]
            out.append((0, 1) if top not in seen else (0, 1 + rel.count(b"/")))
            seen.add(top)
    return out
