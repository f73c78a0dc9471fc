"""Every function and method of flows/ and operators/ (closures included) has a cyclomatic complexity of
at most 25, as radon measures it (``radon cc -s -n D flows operators`` lists the offenders)."""

from pathlib import Path

import radon.complexity as radon_complexity  # the `dev` extra
from radon.visitors import Class

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("flows", "operators")
LIMIT = 25


def _functions(blocks):
    """Each function, method and closure in radon's blocks (they list a class's methods after it; a
    class's own score is theirs summed up, not a function's)."""
    for block in blocks:
        if isinstance(block, Class):
            continue
        yield block
        yield from _functions(block.closures)


def over_limit(paths, limit: int = LIMIT, root: Path = ROOT) -> list[str]:
    """``path:line name complexity`` for every function above ``limit``."""
    found = []
    for path in paths:
        blocks = radon_complexity.cc_visit(path.read_text(encoding="utf-8"))
        for fn in _functions(blocks):
            if fn.complexity > limit:
                found.append(f"{path.relative_to(root)}:{fn.lineno} {fn.fullname} {fn.complexity}")
    return found


def test_no_function_is_above_the_complexity_limit():
    paths = sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))
    assert len(paths) > 20
    offenders = over_limit(paths)
    assert not offenders, f"cyclomatic complexity above {LIMIT}:\n" + "\n".join(offenders)


def test_the_check_sees_a_complex_function_a_method_and_a_closure(tmp_path):
    branches = "".join(f"    if x == {k}:\n        return {k}\n" for k in range(LIMIT))
    source = tmp_path / "sample.py"
    source.write_text(
        f"def flat(x):\n{branches}    return -1\n\n\n"
        f"def simple(x):\n    return x\n\n\n"
        f"class Box:\n    def method(self, x):\n{branches.replace('    ', '        ')}        return -1\n\n\n"
        f"def outer():\n    def inner(x):\n{branches.replace('    ', '        ')}        return -1\n    return inner\n",
        encoding="utf-8",
    )
    found = over_limit([source], root=tmp_path)
    assert sorted(line.split()[1:] for line in found) == [["Box.method", "26"], ["flat", "26"], ["inner", "26"]]
    assert over_limit([source], limit=26, root=tmp_path) == []
