"""What ``tokens analyze`` of one small document loads and writes through the launcher's path
(``flows.quick.main``): no sqlite (the search index is only noted, for ``tokens search``), no engine,
and the cache of compiled patterns filled by the patterns modules compile at import."""

from __future__ import annotations

import marshal
import subprocess
import sys

from conftest import FIXTURES, PROJECT

_CODE = ("import sys; from flows.quick import main; sys.argv = ['tokens', 'analyze', sys.argv[1]]; rc = main(); "
         "print(rc, *(m in sys.modules for m in ('sqlite3', '_sqlite3', 'bytewax', 'structlog')), file=sys.stderr)")


def test_a_small_analyze_imports_no_sqlite_nor_the_engine_and_only_notes_its_packet(tmp_path):
    home, cache = tmp_path / "home", tmp_path / "cache"
    env = {"NOLIFE_TOKENS_HOME": str(home), "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "XDG_CACHE_HOME": str(cache),
           "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", _CODE, str(FIXTURES / "sample.log")], cwd=PROJECT, env=env,
                          capture_output=True, timeout=120)
    assert done.stderr.decode().strip().splitlines()[-1] == "0 False False False False", done.stderr.decode()[-2000:]
    assert b"#ref:" in done.stdout  # reduced, with refs stored
    assert not (home / "index.sqlite").exists()
    assert len((home / "index.pending").read_text().split()) == 1
    [made] = (cache / "nolife-tokens").iterdir()  # the patterns compiled at import, for the next process
    patterns = [key[0] for key in marshal.loads(made.read_bytes())]
    assert len(patterns) > 50
