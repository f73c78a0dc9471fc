"""The sections of the passes and of the store are read from the config like the types' own."""

from __future__ import annotations

import pytest

from conftest import reduce_bytes
from operators.config import ConfigError, load_config
from operators.store import retention_of


def _config(tmp_path, body: str):
    path = tmp_path / "conf.toml"
    path.write_text(body)
    return load_config(path)


def test_ceiling_max_chars_from_config_bounds_the_visible_text(tmp_path, monkeypatch):
    lines = b"".join(b"2026-01-01 10:00:%02d INFO step %d of the job with text %s\n" % (i % 60, i, b"x" * (i % 50))
                     for i in range(3000))
    raw = lines + b"".join(b"2026-01-01 10:01:00 ERROR distinct failure number %d\n" % i for i in range(400))
    conf = tmp_path / "conf.toml"
    conf.write_text("[ceiling]\nmax_chars = 4000\n[log]\nmask_templates = false\nfold_min = 100000\n")
    monkeypatch.setenv("NOLIFE_TOKENS_CONFIG", str(conf))
    small = reduce_bytes(raw, source="c.log")
    monkeypatch.delenv("NOLIFE_TOKENS_CONFIG")
    big = reduce_bytes(raw, source="c.log")
    assert len(small.visible) <= 4000 < len(big.visible)
    assert small.restore_pass and small.recovery_pass


def test_store_retention_from_config(tmp_path):
    default = retention_of(load_config(None))
    assert default is not None and default.max_age == 30 * 86400
    tuned = retention_of(_config(tmp_path, "[store]\nmax_age_days = 2\nkeep_newer_hours = 1\nmax_bytes = 1000\n"))
    assert (tuned.max_age, tuned.keep_newer, tuned.max_bytes) == (2 * 86400, 3600, 1000)
    assert retention_of(_config(tmp_path, "[store]\nauto = false\n")) is None


@pytest.mark.parametrize("body, message", [
    ("[ceiling]\nmax_chars = 10\n", "max_chars"),
    ("[safety]\nlong_line = 100\nkeep_head = 90\nkeep_tail = 20\n", "keep_head"),
    ("[store]\nmax_age_days = 0\n", "max_age_days"),
    ("[ceiling]\nnope = 1\n", "nope"),
])
def test_bad_sections_are_one_config_error(tmp_path, body, message):
    with pytest.raises(ConfigError, match=message):
        _config(tmp_path, body)
