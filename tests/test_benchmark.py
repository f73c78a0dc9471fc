"""The benchmark's figures are computed from what the graph really produced, and they add up."""

import json

from conftest import FIXTURES, tokens_cli
from operators.sources import fixture_paths
from operators.store import Store


def test_benchmark_rows_match_the_fixtures_and_the_store(home):
    result = tokens_cli("benchmark", "--json")
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    rows = json.loads(result.stdout)
    names = {p.name for p in fixture_paths()}
    assert {r["source"].rsplit("/", 1)[-1] for r in rows} == names
    assert sum(1 for r in rows if r["type"] == "log") == 2 * sum(1 for n in names if n.endswith(".log"))
    store = Store(home)
    referenced_files = {}
    for path in store.dir.glob("ctx_*.json"):
        ref = store.get(path.stem)
        referenced_files.setdefault(ref.source, set()).add(path.stem)
    for row in rows:
        raw = (FIXTURES / row["source"].rsplit("/", 1)[-1]).read_bytes()
        assert row["raw_bytes"] == len(raw)
        assert row["raw"] == -(-len(raw) // 4)
        assert row["kept_bytes"] + row["referenced_bytes"] == row["raw_bytes"] and row["adds_up"]
        assert row["referenced"] == -(-row["referenced_bytes"] // 4)
        assert abs(row["saved_pct"] - 100 * (row["raw"] - row["visible"]) / row["raw"]) < 0.06
        assert row["signal"] and row["recovery"] and row["restore"]
    # the referenced bytes of each fixture are really in the store, ref by ref
    for row in rows:
        if row["refs"] and row["granularity"] != "fine":
            stored = sum(len(store.get(i).content) for i in referenced_files.get(row["source"], ()))
            assert stored >= row["referenced_bytes"]  # (a log's two granularities share its source)


def test_table_has_every_column_and_states_the_accounting(home):
    out = tokens_cli("benchmark").stdout.decode()
    header = out.splitlines()[0].split()
    for column in ("RAW", "VISIBLE", "MARKERS", "REFERENCED", "SAVED", "REFS", "SIGNAL", "RECOVERY", "RESTORE"):
        assert column in header
    assert "estimated" in out and "ADDS UP" in out
