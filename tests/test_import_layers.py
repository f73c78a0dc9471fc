"""The import drawing of ``operators/`` and ``flows/``: no cycle, no arrow running up a floor.

Every module is parsed with ``ast``; an arrow is an import of a project module, at module level
(``if TYPE_CHECKING:`` blocks included) or inside a function (a lazy import is still an arrow).
The floors, lowest first (a module may import its own floor or any floor below, never one above):

 0. leaves: ``errors``, ``relazy``, ``trace``, ``launcher``, ``secrets``, ``configbase`` (the
    ``Section`` base), ``digest``, the kernel's diff, JSON, search, text, blame and source twins: they
    import no project module.
 1. vocabulary and base records: ``vocab``, ``reduction``, the kernel and its log twin,
    ``jsonscan``, ``packet``, ``types.maybe`` (the detectors' cheap tests, asked by the registry).
 2. the store, the type registry and the passes' helpers: ``store``, ``index``, ``types`` (the
    registry and ``Facts``), ``safety``, ``signals``, ``classify``, ``graphio``.
 3. ranking and the ceiling: ``rank``, ``ceiling``.
 4. the config, assembled from the registry and the [safety]/[ceiling] sections: ``config``, and
    ``tokens`` (whose errors are config errors).
 5. level 0 and what reads a config: ``overview``, ``pack``, ``report``, ``runsource``.
 6. the content types: ``types/*`` (they may use the config, the ceiling's and level 0's helpers).
 7. the pipeline: ``sources``, ``stages``, ``sinks``, ``tail``, ``usage``.
 8. the flows' shared parts: ``flows.options``, the command line's parser (``flows.parser``) and the flows' leaves.
 9. the engine: ``flows.direct``, ``flows.reduce``, ``flows.runner``, ``flows.retrieve``.
10. the commands and entry points: ``flows.cli``, ``flows.tail``, the hooks, ``flows.init``,
    ``flows.mcp_server``, ``flows.quick``, ``flows.agent``.

Checked: every module has exactly one floor; no import cycle among module-level imports; no arrow
(module-level or in a function) to a higher floor (``ALLOWED`` may name one, with why, while it is
being moved); and with in-function imports counted, still no cycle. Each failure prints its arrows as
``importer -> imported (path:line)``.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("operators", "flows")

LAYERS: tuple[tuple[str, ...], ...] = (
    ("operators", "operators.errors", "operators.kept", "operators.relazy", "operators.trace", "operators.launcher",
     "operators.secrets", "operators.configbase", "operators.digest", "operators.kernel.diff_twins", "operators.kernel.json_twins",
     "operators.kernel.search_twins", "operators.kernel.text_twins", "operators.kernel.blame_twins",
     "operators.kernel.diag_twins", "operators.kernel.diag_patterns", "operators.kernel.source_twins"),
    ("operators.vocab", "operators.reduction", "operators.kernel", "operators.kernel.log_twins",
     "operators.jsonscan", "operators.packet", "operators.types.maybe"),
    ("operators.store", "operators.index", "operators.types", "operators.safety", "operators.signals",
     "operators.classify", "operators.graphio"),
    ("operators.rank", "operators.ceiling"),
    ("operators.config", "operators.tokens"),
    ("operators.overview", "operators.pack", "operators.report", "operators.runsource"),
    ("operators.types.build", "operators.types.diagnostics", "operators.types.diff", "operators.types.document",
     "operators.types.filelist",
     "operators.types.gitblame", "operators.types.gitlog", "operators.types.gitstatus", "operators.types.json",
     "operators.types.listing", "operators.types.log", "operators.types.packages", "operators.types.search",
     "operators.types.source", "operators.types.table", "operators.types.text"),
    ("operators.sources", "operators.stages", "operators.sinks", "operators.tail", "operators.usage"),
    ("flows", "flows.options", "flows.parser", "flows.jsonkeep", "flows.hooks_rules", "flows.quickcount", "flows.watchdog"),
    ("flows.direct", "flows.reduce", "flows.runner", "flows.retrieve"),
    ("flows.cli", "flows.tail", "flows.hooks_output", "flows.hooks", "flows.init", "flows.mcp_server",
     "flows.quick", "flows.agent"),
)

# Upward arrows tolerated for now, (importer, imported): why. Empty: none is drawn. An entry must
# name what still needs the arrow; the test fails once it is gone (drop the entry then).
ALLOWED: dict[tuple[str, str], str] = {}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    return {module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


MODULES = project_modules()


def _owner(name: str) -> str | None:
    """The project module an imported dotted name is (or lies in): ``operators.kernel._kernel`` (an
    extension) is ``operators.kernel``; None outside the project."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _base(node: ast.ImportFrom, importer: str) -> str:
    if not node.level:
        return node.module or ""
    package = importer.split(".") if MODULES[importer].name == "__init__.py" else importer.split(".")[:-1]
    package = package[: len(package) - node.level + 1]
    return ".".join(package + ([node.module] if node.module else []))


def _targets(node: ast.AST, importer: str) -> list[str]:
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = _base(node, importer)
        if base.split(".")[0] not in PACKAGES:
            return []
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
    return [owner for owner in map(_owner, names) if owner and owner != importer]


def imports_of(importer: str) -> list[tuple[str, int, bool]]:
    """(imported module, line, inside a function) for every project import of ``importer``."""
    found = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.extend((target, child.lineno, in_function) for target in dict.fromkeys(_targets(child, importer)))
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            visit(child, inner)

    visit(ast.parse(MODULES[importer].read_bytes()), False)
    return found


ARROWS = {importer: imports_of(importer) for importer in MODULES}
FLOOR = {module: floor for floor, names in enumerate(LAYERS) for module in names}


def _where(importer: str, line: int) -> str:
    return f"{MODULES[importer].relative_to(ROOT)}:{line}"


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def _edges(with_functions: bool) -> dict[str, set[str]]:
    return {importer: {target for target, _, in_function in arrows
                       if (with_functions or not in_function) and (importer, target) not in ALLOWED}
            for importer, arrows in ARROWS.items()}


def _cycle_report(parts: list[list[str]], with_functions: bool) -> str:
    lines = []
    for part in parts:
        members = set(part)
        lines += [f"{importer} -> {target} ({_where(importer, line)})" for importer in part
                  for target, line, in_function in ARROWS[importer]
                  if target in members and (with_functions or not in_function) and (importer, target) not in ALLOWED]
    return "\n".join(lines)


def upward_arrows() -> list[tuple[str, str, int, bool]]:
    return [(importer, target, line, in_function) for importer, arrows in ARROWS.items()
            for target, line, in_function in arrows if FLOOR[target] > FLOOR[importer]]


def test_every_module_has_exactly_one_floor():
    placed = [module for names in LAYERS for module in names]
    assert sorted(set(placed)) == sorted(placed), "a module on two floors"
    assert set(MODULES) - set(placed) == set(), "modules with no floor: add them to LAYERS"
    assert set(placed) - set(MODULES) == set(), "floors name modules that do not exist"


def test_no_import_cycle_among_module_level_imports():
    parts = cycles(_edges(with_functions=False))
    assert not parts, "import cycles:\n" + _cycle_report(parts, with_functions=False)


def test_no_import_reaches_a_higher_floor():
    found = [(importer, target, line, in_function) for importer, target, line, in_function in upward_arrows()
             if (importer, target) not in ALLOWED]
    report = "\n".join(f"{importer} -> {target} ({_where(importer, line)}{', in a function' if in_function else ''})"
                       for importer, target, line, in_function in found)
    assert not found, "imports of a higher floor:\n" + report


def test_every_allowed_upward_import_is_still_there():
    drawn = {(importer, target) for importer, target, _, _ in upward_arrows()}
    assert set(ALLOWED) <= drawn, f"no longer drawn (remove from ALLOWED): {sorted(set(ALLOWED) - drawn)}"


def test_no_import_cycle_with_imports_inside_functions():
    parts = cycles(_edges(with_functions=True))
    assert not parts, "import cycles through in-function imports:\n" + _cycle_report(parts, with_functions=True)
