"""docs/extending.md, followed: a toy content type (tests/toy_type.py) is one module and one registry
entry (here the config's ``[[types]]``), and the whole product then knows it: classify, --type, its
config section, the reducer, level 0, and RESTORE."""

from __future__ import annotations

import json
import re
import sys

import msgspec
import pytest

from conftest import PROJECT, tokens_cli
from operators import types
from operators.config import ConfigError, config_class, load_config, section

ROWS = b"id,name,status\n" + b"".join(b"%d,user%d,active\n" % (i, i) for i in range(300)) + b"300,last,closed\n"


TOY_CONFIG = '[[types]]\nmodule = "toy_type"\nbefore = "filelist"\n\n[csvtable]\nhead_rows = 3\n'


@pytest.fixture
def toy_config(tmp_path):
    conf = tmp_path / "conf.toml"
    conf.write_text(TOY_CONFIG)
    return {"NOLIFE_TOKENS_CONFIG": str(conf), "PYTHONPATH": str(PROJECT / "tests")}


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
    assert visible.startswith(b"id,name,status\n0,user0,active\n1,user1,active\n2,user2,active\n[297 rows: #ref:ctx_")
    assert visible.endswith(b"300,last,closed\n")
    reduced = tmp_path / "reduced.txt"
    reduced.write_bytes(visible)
    restored = tokens_cli("expand", "--full", str(reduced), env=toy_config)
    assert restored.stdout == ROWS


def test_the_toy_type_can_be_forced_and_has_a_level_0(tmp_path, toy_config):
    table = tmp_path / "t.txt"
    table.write_bytes(ROWS)
    level0 = tokens_cli("analyze", str(table), "--type", "csvtable", "--level", "0", env=toy_config)
    assert level0.returncode == 0, level0.stderr.decode()[-1500:]
    assert b"csvtable" in level0.stdout and b"301 rows" in level0.stdout
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


def test_a_config_registers_its_types_in_a_registry_of_its_own(tmp_path, monkeypatch):
    """The toy type exists for the config that names it, and nowhere else: the shipped registry, a
    config without [[types]] and the classifier without that config never see it."""
    monkeypatch.syspath_prepend(str(PROJECT / "tests"))
    conf = tmp_path / "conf.toml"
    conf.write_text(TOY_CONFIG)
    config = load_config(conf)
    registry = types.registry_of(config)
    assert registry.names.index("csvtable") == registry.names.index("filelist") - 1
    assert "csvtable" not in types.BUILTIN and "csvtable" not in types.names()
    assert section(config, "csvtable").head_rows == 3
    assert not hasattr(config_class()(), "csvtable")
    from operators.classify import classify

    assert classify(ROWS, None, config)[0] == "csvtable" and classify(ROWS)[0] != "csvtable"
    assert types.attr("csvtable", "SIGNALS", "x", config) == "" and types.attr("csvtable", "SIGNALS", "x") == "x"
    from flows.agent import window_text
    from operators.packet import ContextPacket

    shown = ContextPacket(source="t.csv", raw=ROWS, type="csvtable", visible=ROWS)  # tokens run's level 0
    assert b"301 rows" in window_text(shown, 0, False, config) and b"301 rows" not in window_text(shown, 0, False)
    again = load_config(conf)  # the same types again: the same Config class, the same registry
    assert type(again) is type(config) and types.registry_of(again).key == registry.key


@pytest.mark.parametrize("body, message", [
    ('NAME = "bad"\nSIGNALS = "words"\ndef detect(s): return None\ndef reduce(r, g, c): return None\n',
     'SIGNALS must be "lines", "changed" or ""'),
    ('NAME = "bad"\nFILL = "yes"\ndef detect(s): return None\ndef reduce(r, g, c): return None\n',
     "FILL must be True or False"),
    ('NAME = "bad"\nOTHER_LINES = (1,)\ndef detect(s): return None\ndef reduce(r, g, c): return None\n',
     "OTHER_LINES must be a (tier, rank) pair of integers"),
    ('NAME = "bad"\nclass Settings: pass\ndef detect(s): return None\ndef reduce(r, g, c): return None\n',
     "Settings must be a config section (a subclass of operators.config.Section)"),
    ('NAME = "bad"\ntier = 3\ndef detect(s): return None\ndef reduce(r, g, c): return None\n',
     "tier must be a function"),
    ('NAME = "bad"\ndef detect(s): return None\n', "it has no function reduce()"),
    ('NAME = "log"\ndef detect(s): return None\ndef reduce(r, g, c): return None\n',
     "content type 'log' is already registered"),
    ('NAME = "store"\ndef detect(s): return None\ndef reduce(r, g, c): return None\n',
     "NAME 'store' is the name of another config section"),
    ('NAME = ["a"]\ndef detect(s): return None\ndef reduce(r, g, c): return None\n',
     "NAME must be a short lower-case identifier"),
])
def test_each_part_of_the_contract_is_checked_once_with_one_line(tmp_path, monkeypatch, body, message):
    (tmp_path / "badtype.py").write_text(body)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "badtype", raising=False)  # each case's own module
    conf = tmp_path / "conf.toml"
    conf.write_text('[[types]]\nmodule = "badtype"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(conf)
    assert str(caught.value) == f"config {conf}: content type 'badtype': {message}"


def _doc_pairs(text: str, pattern: str) -> set[tuple[str, str]]:
    return {(m.group(1), m.group(2)) for m in re.finditer(pattern, text, re.M)}


def test_the_docs_and_the_registry_docstring_list_the_records_fields():
    """docs/extending.md's contract table and the registry's docstring name the same module attributes,
    each with the same ContentType field, and every field of the record (but ``module``) is there."""
    docs = (PROJECT / "docs" / "extending.md").read_text()
    table = _doc_pairs(docs, r"^\| `(\w+)` \| `(\w+)` \|")
    docstring = _doc_pairs(types.__doc__, r"^    (?:def |class )?(\w+)\b.*?\s{2,}([a-z_]+)\s{2,}\S")
    fields = {field.name for field in msgspec.structs.fields(types.ContentType)}
    assert table == docstring == set(types.ATTRIBUTES.items())
    assert {field for _, field in table} == fields - {"module"}


def test_the_stage_order_is_written_as_STAGES_says():
    """The README, docs/extending.md, config/default.toml and the flow's docstring give the stages in
    the order of operators.stages.STAGES."""
    from flows import reduce as flow
    from operators.stages import STAGE_NAMES

    def listed(text: str) -> list[str]:
        return [name for name in re.findall(r"\b[A-Z][A-Z_]+[A-Z]\b", text) if name in STAGE_NAMES]

    readme = (PROJECT / "README.md").read_text()
    drawing = next(line for line in readme.splitlines() if line.startswith("source → LOAD"))
    comments = [line.rsplit("#", 1)[1] for path in (PROJECT / "docs" / "extending.md", PROJECT / "config" / "default.toml")
                for line in path.read_text().splitlines() if re.search(r"after = \"OPTIMIZE\" +#", line)]
    assert len(comments) == 2
    for text in [drawing, *comments, flow.__doc__.split("\n\n")[1]]:
        assert listed(text) == list(STAGE_NAMES), text
