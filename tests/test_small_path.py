"""What ``tokens analyze`` of one small document loads and writes through the launcher's path
(``flows.quick.main``): no sqlite (the search index is only noted, for ``tokens search``), no engine,
and the cache of compiled patterns filled by the patterns modules compile at import."""

from __future__ import annotations

import marshal
import subprocess
import sys

import pytest

from conftest import FIXTURES, PROJECT

_CODE = ("import sys; from flows.quick import main; sys.argv = ['tokens', 'analyze', sys.argv[1]]; rc = main(); "
         "print(rc, *(m in sys.modules for m in ('sqlite3', '_sqlite3', 'bytewax', 'structlog', 'inspect', "
         "'hashlib', '_hashlib')), file=sys.stderr)")


def test_a_small_analyze_imports_no_sqlite_nor_the_engine_nor_inspect_nor_openssl_and_only_notes_its_packet(
        tmp_path):
    home, cache = tmp_path / "home", tmp_path / "cache"
    env = {"NOLIFE_TOKENS_HOME": str(home), "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "XDG_CACHE_HOME": str(cache),
           "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", _CODE, str(FIXTURES / "sample.log")], cwd=PROJECT, env=env,
                          capture_output=True, timeout=120)
    assert done.stderr.decode().strip().splitlines()[-1] == "0 False False False False False False False", done.stderr.decode()[-2000:]
    assert b"#ref:" in done.stdout  # reduced, with refs stored
    assert not (home / "index.sqlite").exists()
    assert len((home / "index.pending").read_text().split()) == 1
    [made] = (cache / "nolife-tokens").iterdir()  # the patterns compiled at import, for the next process
    patterns = [key[0] for key in marshal.loads(made.read_bytes())]
    assert len(patterns) > 50


def test_msgspec_is_imported_without_typing_extensions_which_stays_importable():
    code = ("import sys; from flows.quick import import_msgspec; import_msgspec(); "
            "print('typing_extensions' in sys.modules, 'inspect' in sys.modules); "
            "import typing_extensions, msgspec; from operators.config import load_config; load_config(None); "
            "print(msgspec.json.decode(b'{\"a\": 1}', type=dict[str, int]), typing_extensions.__name__)")
    done = subprocess.run([sys.executable, "-c", code], cwd=PROJECT, capture_output=True, timeout=120)
    assert done.stdout.decode().split("\n")[:2] == ["False False", "{'a': 1} typing_extensions"], done.stderr.decode()


_NO_SCAN = ("import sys, operators.store as st\n"
            "def scan(self): raise SystemExit('the store was scanned')\n"
            "st.Store.size = scan\n"
            "from flows.quick import main; sys.argv = ['tokens', 'analyze', *sys.argv[1:]]; print(main())")


@pytest.mark.parametrize("trace", [False, True])
def test_the_store_is_scanned_for_its_size_only_for_a_trace(tmp_path, trace):
    env = {"NOLIFE_TOKENS_HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    args = [str(FIXTURES / "sample.log")] + (["--trace"] if trace else [])
    done = subprocess.run([sys.executable, "-c", _NO_SCAN, *args], cwd=PROJECT, env=env, capture_output=True,
                          timeout=120)
    assert (b"the store was scanned" in done.stderr) == trace, done.stderr.decode()[-2000:]
    assert (done.stdout.endswith(b"0\n") and b"#ref:" in done.stdout) != trace


_TYPES = ("import sys; from flows.quick import main; sys.argv = ['tokens', 'analyze', sys.argv[1]]; rc = main(); "
          "print(rc, *sorted(m.rpartition('.')[2] for m in sys.modules if m.startswith('operators.types.')), "
          "file=sys.stderr)")


def test_a_run_without_a_config_file_imports_only_the_types_the_classifier_asked(tmp_path):
    env = {"NOLIFE_TOKENS_HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    raw = b"".join(b"commit %040x\nAuthor: A <a@example.com>\nDate:   Mon Jan 1 10:00:00 2024 +0000\n\n"
                   b"    change %d: an error was fixed\n\n" % (n * 7919, n) for n in range(40))
    (tmp_path / "log.txt").write_bytes(raw)
    done = subprocess.run([sys.executable, "-c", _TYPES, str(tmp_path / "log.txt")], cwd=PROJECT, env=env,
                          capture_output=True, timeout=120)
    words = done.stderr.decode().strip().splitlines()[-1].split()
    assert words[0] == "0", done.stderr.decode()[-2000:]
    assert "gitlog" in words and "json" not in words  # json's cheap test (types.maybe) said no unimported, gitlog yes
    assert not {"search", "source", "log", "text", "diagnostics", "listing"} & set(words)  # never asked


def test_the_defaults_of_a_config_read_from_no_file_are_the_full_configs(monkeypatch, tmp_path):
    from operators import config, types

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))  # no user config file
    monkeypatch.delenv("NOLIFE_TOKENS_CONFIG", raising=False)
    loaded, full = config.load_config(), config.config_class()()
    assert type(loaded) is config.defaults_class() and type(loaded) is not config.config_class()
    assert types.registry_of(loaded) is types.BUILTIN
    for name in ("safety", "ceiling", *(r.name for r in types.BUILTIN if r.settings is not None)):
        assert config.section(loaded, name) == config.section(full, name), name
    for name in ("text", "nosuch"):  # a type without a section, a name no config has
        try:
            config.section(loaded, name)
        except KeyError:
            continue
        raise AssertionError(f"section({name!r}) of a defaults config")


_RUN = ("import sys; import flows.quick as q; q.QUICK_WAIT = 60; sys.argv = ['tokens', 'run', '--', 'cat', sys.argv[1]]; "
        "rc = q.main(); "  # (the fast path waits until cat has ended, however busy the machine)
        "print(rc, *(m in sys.modules for m in ('bytewax', 'subprocess', 'operators.overview')), file=sys.stderr)")


def test_a_run_of_a_command_that_ended_needs_neither_the_engine_nor_subprocess(tmp_path):
    """``tokens run -- cat LOG`` (a log over the fast path's size): the command the fast path started has
    ended, so its output goes through the stages without the engine, and nothing imports the
    subprocess module (the command is waited for as it is) or the level-0 overview (level 1 prints)."""
    env = {"NOLIFE_TOKENS_HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", _RUN, str(FIXTURES / "sample.log")], cwd=PROJECT, env=env,
                          capture_output=True, timeout=120)
    assert done.stderr.decode().strip().splitlines()[-1] == "0 False False False", done.stderr.decode()[-2000:]
    assert b"#ref:" in done.stdout
