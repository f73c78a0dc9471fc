"""docs/extending.md, followed: a toy content type (tests/toy_type.py) is one module and one registry
entry (here the config's ``[[types]]``), and the whole product then knows it: classify, --type, its
config section, the reducer, level 0, and RESTORE."""

from __future__ import annotations

import json

import pytest

from conftest import PROJECT, tokens_cli
from operators import types

ROWS = b"id,name,status\n" + b"".join(b"%d,user%d,active\n" % (i, i) for i in range(200)) + b"200,last,closed\n"


@pytest.fixture
def toy_config(tmp_path):
    conf = tmp_path / "conf.toml"
    conf.write_text('[[types]]\nmodule = "toy_type"\nbefore = "filelist"\n\n[csvtable]\nhead_rows = 3\n')
    yield {"NOLIFE_TOKENS_CONFIG": str(conf), "PYTHONPATH": str(PROJECT / "tests")}
    if "csvtable" in types.names():
        types.unregister("csvtable")


def test_a_toy_type_is_classified_reduced_and_restored(tmp_path, toy_config):
    table = tmp_path / "users.csv"
    table.write_bytes(ROWS)
    result = tokens_cli("analyze", str(table), "--trace", env=toy_config)
    assert result.returncode == 0, result.stderr.decode()[-1500:]
    visible = result.stdout
    events = [json.loads(line) for line in result.stderr.decode().splitlines() if line.startswith("{")]
    by_stage = {e["stage"]: e for e in events}
    assert by_stage["CLASSIFY"]["type"] == "csvtable"
    assert by_stage["RESTORE"]["result"] is True and by_stage["RECOVERY"]["result"] is True
    assert visible.startswith(b"id,name,status\n0,user0,active\n1,user1,active\n2,user2,active\n[197 rows: #ref:ctx_")
    assert visible.endswith(b"200,last,closed\n")
    reduced = tmp_path / "reduced.txt"
    reduced.write_bytes(visible)
    restored = tokens_cli("expand", "--full", str(reduced), env=toy_config)
    assert restored.stdout == ROWS


def test_the_toy_type_can_be_forced_and_has_a_level_0(tmp_path, toy_config):
    table = tmp_path / "t.txt"
    table.write_bytes(ROWS)
    level0 = tokens_cli("analyze", str(table), "--type", "csvtable", "--level", "0", env=toy_config)
    assert level0.returncode == 0, level0.stderr.decode()[-1500:]
    assert b"csvtable" in level0.stdout and b"201 rows" in level0.stdout
    unknown = tokens_cli("analyze", str(table), "--type", "csvtable")  # not registered without the config
    assert unknown.returncode == 2 and b"unknown content type 'csvtable'" in unknown.stderr


def test_a_module_that_breaks_the_contract_is_one_config_error(tmp_path):
    conf = tmp_path / "conf.toml"
    conf.write_text('[[types]]\nmodule = "plugin_stages"\n')
    result = tokens_cli("analyze", str(PROJECT / "fixtures" / "sample.log"),
                        env={"NOLIFE_TOKENS_CONFIG": str(conf), "PYTHONPATH": str(PROJECT / "tests")})
    assert result.returncode == 2
    assert result.stderr.decode().strip().splitlines() == [
        f"tokens: error: config {conf}: content type 'plugin_stages': NAME must be a short lower-case identifier"]
