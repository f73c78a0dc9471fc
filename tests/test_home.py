"""The store lives per user, never in the current directory; refs resolve from any directory.

Every `tokens` command here runs as a real process in an empty working directory, with the user's
data and config dirs pointed at temp dirs (XDG_DATA_HOME, XDG_CONFIG_HOME) and no NOLIFE_TOKENS_HOME.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, PROJECT

PKT_RE = re.compile(rb"tokens expand --full (pkt_[0-9a-f]+)")
REF_RE = re.compile(rb"#ref:(ctx_[0-9a-f]+)")


@pytest.fixture
def user(tmp_path, monkeypatch):
    """No NOLIFE_TOKENS_HOME: the per-user dirs decide. Returns (data dir, config dir, empty cwd)."""
    monkeypatch.delenv("NOLIFE_TOKENS_HOME", raising=False)
    data, cfg, cwd = tmp_path / "xdg-data", tmp_path / "xdg-config", tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(cfg))
    return data, cfg, cwd


def tokens(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flows.cli", *args], cwd=cwd, capture_output=True,
                          timeout=timeout, env=_env())


def _env() -> dict:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = str(PROJECT) + os.pathsep + env.get("PYTHONPATH", "")  # flows.cli from any cwd
    return env


def test_run_writes_nothing_in_the_cwd_and_its_refs_resolve_elsewhere(user, tmp_path):
    data, _, cwd = user
    log = FIXTURES / "sample.log"
    done = tokens("run", "--", "cat", str(log), cwd=cwd)
    assert done.returncode == 0, done.stderr
    assert list(cwd.iterdir()) == []
    assert (data / "nolife-tokens" / "context").is_dir()
    [pkt] = PKT_RE.findall(done.stdout)
    refs = REF_RE.findall(done.stdout)
    assert refs
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    full = tokens("expand", "--full", pkt.decode(), cwd=elsewhere)
    assert full.returncode == 0, full.stderr
    assert full.stdout == log.read_bytes()
    shown = tokens("show-ref", refs[0].decode(), cwd=elsewhere)
    assert shown.returncode == 0, shown.stderr
    body = shown.stdout.split(b"--- RAW", 1)[1].split(b"\n", 1)[1]
    lines = set(log.read_bytes().splitlines())
    assert len(body) > 100 and all(line in lines for line in body.splitlines())  # the folded lines
    assert list(cwd.iterdir()) == [] and list(elsewhere.iterdir()) == []


def test_ls_in_an_empty_dir_leaves_it_empty(user):
    _, _, cwd = user
    done = tokens("run", "--", "ls", "-la", cwd=cwd)
    assert done.returncode == 0, done.stderr
    assert b".." in done.stdout
    assert list(cwd.iterdir()) == []


def test_analyze_writes_nothing_in_the_cwd(user):
    data, _, cwd = user
    done = tokens("analyze", str(FIXTURES / "sample.log"), cwd=cwd)
    assert done.returncode == 0, done.stderr
    assert list(cwd.iterdir()) == []
    assert any((data / "nolife-tokens").rglob("*.json"))


def test_the_user_config_file_is_read_and_its_relative_home_is_beside_it(user):
    data, cfg, cwd = user
    conf = cfg / "nolife-tokens" / "config.toml"
    conf.parent.mkdir(parents=True)
    conf.write_text('home = "store"\n[reduce]\nmin_bytes = 1000000\n')
    from operators.config import home_path, load_config

    config = load_config()
    assert config.reduce.min_bytes == 1000000
    assert home_path(config) == conf.parent / "store"
    small = cfg / "small.log"  # reduced with the default min_bytes, under the config's
    small.write_bytes(b"".join(b"2026-01-01 00:%02d:%02d INFO GET /items/%d 200\n" % (i // 60, i % 60, i) for i in range(150)))
    done = tokens("run", "--", "cat", str(small), cwd=cwd)
    assert done.returncode == 0, done.stderr
    assert done.stdout == small.read_bytes()  # under min_bytes: untouched
    assert (conf.parent / "store" / "context").is_dir()
    assert not (data / "nolife-tokens").exists()
    assert list(cwd.iterdir()) == []
    conf.unlink()  # without the user's config: the defaults, and the default home
    assert tokens("run", "--", "cat", str(small), cwd=cwd).stdout != small.read_bytes()
    assert (data / "nolife-tokens" / "context").is_dir()


def test_overrides_env_config_then_env_home(user, tmp_path, monkeypatch):
    data, cfg, cwd = user
    (cfg / "nolife-tokens").mkdir(parents=True)
    (cfg / "nolife-tokens" / "config.toml").write_text('home = "from-user-config"\n')
    other = tmp_path / "other.toml"
    other.write_text('home = "/absolute/store"\n')
    monkeypatch.setenv("NOLIFE_TOKENS_CONFIG", str(other))
    from operators.config import home_path, load_config

    assert home_path(load_config()) == Path("/absolute/store")
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("NOLIFE_TOKENS_HOME", "rel")  # typed by hand: from the cwd, as any path
    config = load_config()
    assert home_path(config) == cwd / "rel"
    monkeypatch.chdir(tmp_path)
    assert home_path(config) == cwd / "rel"  # fixed when loaded, not moved by a later cd


def test_defaults_without_any_config(user):
    data, _, _ = user
    from operators.config import home_path, load_config

    assert home_path(load_config()) == data / "nolife-tokens"


def test_the_main_job_keeps_the_checkout_store_whatever_the_cwd(user, monkeypatch):
    _, _, cwd = user
    monkeypatch.chdir(cwd)
    from operators.config import DEFAULT_CONFIG, IN_CHECKOUT, home_path, load_config

    assert IN_CHECKOUT
    assert home_path(load_config(project=True)) == PROJECT / "var"
    assert home_path(load_config(DEFAULT_CONFIG, project=True)) == PROJECT / "var"
    # the project's default.toml read by a user command is no reason to use the checkout
    assert home_path(load_config(DEFAULT_CONFIG)) != PROJECT / "var"
