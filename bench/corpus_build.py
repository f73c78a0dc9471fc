#!/usr/bin/env python3
"""Regenerate the development corpus `bench/corpus/` from real command outputs.

Each case is a folder `<out>/<case>/` with `input` (stdout and stderr of the command as one
stream, as a shell tool captures it) and `cmd` (the command line as typed; it selects the
must-see rule of ../shared/eval/mustsee.py).

The outputs come from real tools run on public repositories at pinned commits (see REPOS), on
real services started on the loopback interface (see `service_cases`), and on the package
registries (pip, npm).  This is a manual tool: it needs the repositories' git directories,
network access to the package registries, and several minutes; it never runs in CI or tests.

Usage:
    python bench/corpus_build.py --mirrors DIR [--work /tmp/corpus-work] [--out bench/corpus]
                                 [--only case1,case2]

--mirrors  a folder holding one git repository per REPOS entry, as `<owner>+<name>/repo`
           (a bare or a normal clone; it must contain the pinned commit).
--work     scratch folder: work trees, a Python venv, npm tools, service data.  Keep the
           default: outputs that print absolute paths then name /tmp/corpus-work, which the
           README passes to recall.py as --exclude.

Outputs are deterministic where the tools are (pinned commits, pinned tool versions); test
timings, process lists, registry answers and service logs differ from run to run.
"""
from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

# name -> (owner/repo, pinned commit)
REPOS = {
    "httpx": ("encode/httpx", "ae1b9f66238f75ced3ced5e4485408435de10768"),
    "attrs": ("python-attrs/attrs", "c1dc5dcba16ed827aa6dcad896b41a3afedb4e32"),
    "pluggy": ("pytest-dev/pluggy", "e382e72789f8d791991c489d4322aa04e660b952"),
    "typer": ("tiangolo/typer", "233009a37d35249c1e430ee1db11ed9c06a9dcc3"),
    "pydantic": ("pydantic/pydantic", "2151025aa51263f3016502b00010b78e4481eaa1"),
    "axios": ("axios/axios", "23a25af0688d1db2c396deb09229d2271cc24f6c"),
    "zod": ("colinhacks/zod", "e516c3baf22615e20934116abebfed6c000222c2"),
    "lodash": ("lodash/lodash", "9429a4ee03056e5b7be9a85a54571d7630f05983"),
    "cobra": ("spf13/cobra", "adbc8813901bba65827259daa8e22ff94ec1f30e"),
    "gin": ("gin-gonic/gin", "dcaa4296d111981ffb31ac3eba90bb63e1eb5ab9"),
    "fzf": ("junegunn/fzf", "956562daaa82ddf55ea8f7aeab56883377b742c6"),
    "clap": ("clap-rs/clap", "6982fb1c98c7247e38a6d4f04191b94e30497e7b"),
    "serde": ("serde-rs/serde", "1023d077510b4aef36a41ef56fdb7798568a2654"),
    "log": ("rust-lang/log", "037d7a58f6ad184abb3afc4db81d37c43a5696ec"),
    "gson": ("google/gson", "9835b6f90192f79cdf5300c528fc6212455fb6c1"),
    "okhttp": ("square/okhttp", "1682d9bac8c03dffde2969b0b74d47649d0dbb52"),
}

PY_TOOLS = ["pytest==9.2.0", "hypothesis==6.170.17", "ruff==0.17.6", "mypy==2.4.1",
            "pytest-json-report==1.5.0", "pympler==1.1", "cloudpickle==3.1.3"]
NPM_TOOLS = ["typescript@5.6", "eslint@9", "typescript-eslint@8", "@eslint/js@9", "globals@15",
             "@types/node@22"]

# (case, repo, command as typed[, command actually run when it differs])
GIT_CASES = [
    ("git_log_n30_pydantic", "pydantic", "git log -n 30"),
    ("git_log_n100_okhttp", "okhttp", "git log -n 100"),
    ("git_log_n30_cobra", "cobra", "git log -n 30"),
    ("git_log_p_n5_clap", "clap", "git log -p -n 5"),
    ("git_log_p_n10_gson", "gson", "git log -p -n 10 -- gson/src"),
    ("git_log_p_n10_httpx", "httpx", "git log -p -n 10"),
    ("git_log_stat_fzf", "fzf", "git log --stat -n 40"),
    ("git_log_stat_pydantic", "pydantic", "git log --stat -n 30"),
    ("git_log_oneline_lodash", "lodash", "git log --oneline -n 400"),
    ("git_log_oneline_cobra", "cobra", "git log --oneline"),
    ("git_log_graph_gin", "gin", "git log --graph --oneline -n 120"),
    ("git_diff_stat_head_clap", "clap", "git diff --stat HEAD~40"),
    ("git_log_format_attrs", "attrs", "git log --format='%h %an %ad %s' --date=short -n 60"),
    ("git_show_head_serde", "serde", "git show HEAD"),
    ("git_show_rename_okhttp", "okhttp", "git show 1786dd70e"),
    ("git_show_rename_clap", "clap", "git show bd163098e"),
    ("git_show_rename_zod", "zod", "git show 66a0f34bf"),
    ("git_show_big_clap", "clap", "git show 56afdabcc"),
    ("git_show_stat_typer", "typer", "git show --stat 89ddc35"),
    ("git_show_file_cobra", "cobra", "git show v1.8.0:command.go"),
    ("git_diff_tags_httpx", "httpx", "git diff 0.27.0 0.28.0"),
    ("git_diff_tags_gin", "gin", "git diff v1.10.0 v1.11.0"),
    ("git_diff_tags_cobra", "cobra", "git diff v1.8.0 v1.9.0"),
    ("git_diff_tags_serde", "serde", "git diff v1.0.200 v1.0.210"),
    ("git_diff_tags_gson", "gson", "git diff gson-parent-2.12.0 gson-parent-2.13.0"),
    ("git_diff_tags_attrs", "attrs", "git diff 25.1.0 25.3.0"),
    ("git_diff_stat_pydantic", "pydantic", "git diff --stat v2.12.0 v2.13.0"),
    ("git_diff_namestatus_fzf", "fzf", "git diff --name-status v0.54.0 v0.62.0"),
    ("git_blame_pydantic_main", "pydantic", "git blame pydantic/main.py"),
    ("git_blame_clap_help", "clap", "git blame clap_builder/src/output/help_template.rs"),
    ("git_blame_httpx_models", "httpx", "git blame httpx/_models.py"),
    ("git_blame_axios", "axios", "git blame lib/core/Axios.js"),
    ("git_blame_gin_context", "gin", "git blame context.go"),
    ("git_branch_a_pydantic", "pydantic", "git branch -a"),
    ("git_tag_clap", "clap", "git tag"),
    ("git_tag_serde", "serde", "git tag -l 'v1.0.1*'"),
    ("git_status_clean_log", "log", "git status"),
]

SEARCH_LIST_CASES = [
    ("grep_rn_common_httpx", "httpx", "grep -rn 'def ' httpx/"),
    ("grep_rn_rare_pydantic", "pydantic", "grep -rn 'lru_cache' pydantic/"),
    ("grep_rn_todo_okhttp", "okhttp", "grep -rn TODO --include=*.kt ."),
    ("grep_rni_deprecat_typer", "typer", "grep -rni deprecat typer/"),
    ("grep_rn_rare_cobra", "cobra", "grep -rn 'SetContext' ."),
    ("rg_n_common_clap", "clap", "rg -n 'pub fn' clap_builder/src"),
    ("rg_n_rare_gin", "gin", "rg -n TrustedPlatform"),
    ("rg_n_unsafe_serde", "serde", "rg -n unsafe"),
    ("rg_n_throw_lodash", "lodash", "rg -n 'throw new' --glob '!dist' --glob '!*.min.js'"),
    ("git_grep_n_zod", "zod", "git grep -n superRefine -- packages/zod/src"),
    ("ls_la_pydantic", "pydantic", "ls -la"),
    ("ls_la_pydantic_pkg", "pydantic", "ls -la pydantic"),
    ("ls_la_okhttp_pkg", "okhttp", "ls -la okhttp/src/commonJvmAndroid/kotlin/okhttp3"),
    ("ls_plain_clap_builder", "clap", "ls clap_builder/src/builder"),
    ("ls_R_gin", "gin", "ls -R"),
    ("ls_R_zod_src", "zod", "ls -R packages/zod/src"),
    ("ls_lR_zod_src", "zod", "ls -lR packages/zod/src/v4"),
    ("find_py_pydantic", "pydantic", "find . -name '*.py'"),
    ("find_type_f_serde", "serde", "find . -type f -not -path './.git/*'"),
    ("find_rs_clap", "clap", "find . -name '*.rs'"),
    ("find_src_okhttp", "okhttp", "find okhttp/src -type f"),
    ("tree_pydantic_pkg", "pydantic", "tree pydantic"),
    ("tree_L3_zod", "zod", "tree -L 3 packages"),
    ("tree_gin", "gin", "tree"),
    ("du_h_okhttp", "okhttp", "du -h --exclude=.git"),
    ("du_sh_lodash", "lodash", "du -sh *"),
]

FILE_CASES = [
    ("cat_py_pydantic_main", "pydantic", "cat pydantic/main.py"),
    ("cat_py_httpx_client", "httpx", "cat httpx/_client.py"),
    ("cat_py_attrs_make", "attrs", "cat src/attr/_make.py"),
    ("cat_ts_zod_v3_types", "zod", "cat packages/zod/src/v3/types.ts"),
    ("cat_ts_zod_v4_schemas", "zod", "cat packages/zod/src/v4/classic/schemas.ts"),
    ("cat_js_axios_http", "axios", "cat lib/adapters/http.js"),
    ("cat_js_lodash_dist", "lodash", "cat dist/lodash.js"),
    ("cat_go_gin_context", "gin", "cat context.go"),
    ("cat_go_cobra_command", "cobra", "cat command.go"),
    ("cat_go_fzf_terminal", "fzf", "cat src/terminal.go"),
    ("cat_rs_clap_command", "clap", "cat clap_builder/src/builder/command.rs"),
    ("cat_rs_serde_de", "serde", "cat serde_core/src/de/mod.rs"),
    ("cat_java_gson", "gson", "cat gson/src/main/java/com/google/gson/Gson.java"),
    ("cat_kt_okhttp_client", "okhttp", "cat okhttp/src/commonJvmAndroid/kotlin/okhttp3/OkHttpClient.kt"),
    ("head_changelog_httpx", "httpx", "head -n 400 CHANGELOG.md"),
    ("tail_history_pydantic", "pydantic", "tail -n 300 HISTORY.md"),
    ("head_pnpm_lock_zod", "zod", "head -n 600 pnpm-lock.yaml"),
    ("cat_json_zod_package", "zod", "cat packages/zod/package.json"),
]


# ------------------------------------------------------------------ plumbing

class Builder:
    """Work trees, tools and the writing of cases."""

    def __init__(self, mirrors: Path, work: Path, out: Path, only: set[str] | None):
        self.mirrors, self.work, self.out, self.only = mirrors, work, out, only
        self.src = work / "src"
        self.venv = work / "venv"
        self.npmtools = work / "npmtools"
        self.made: list[str] = []

    def wanted(self, case: str) -> bool:
        return self.only is None or case in self.only

    def env(self, extra: dict | None = None) -> dict:
        path = [str(self.venv / "bin"), str(self.npmtools / "node_modules" / ".bin"),
                os.environ.get("PATH", "/usr/bin:/bin")]
        env = dict(os.environ, PATH=":".join(path), LANG="C.UTF-8", LC_ALL="C.UTF-8",
                   TERM="dumb", NO_COLOR="1", GIT_PAGER="cat", PAGER="cat", COLUMNS="100",
                   PIP_DISABLE_PIP_VERSION_CHECK="1", npm_config_color="false",
                   npm_config_update_notifier="false")
        env.update(extra or {})
        return env

    def sh(self, command: str, cwd: Path, extra_env: dict | None = None, timeout=1200) -> bytes:
        """Run a command line; stdout and stderr as one stream."""
        proc = subprocess.run(["bash", "-c", command], cwd=cwd, env=self.env(extra_env),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return proc.stdout

    def setup(self, command: str, cwd: Path, timeout=1800) -> None:
        """A preparation step: its output goes to the terminal, failure stops the build."""
        print("  $", command, file=sys.stderr)
        subprocess.run(["bash", "-c", command], cwd=cwd, env=self.env(), check=True,
                       timeout=timeout)

    def write(self, case: str, cmd: str, data: bytes) -> None:
        folder = self.out / case
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "input").write_bytes(data)
        (folder / "cmd").write_text(cmd + "\n")
        self.made.append(case)
        print("%-34s %8d  %s" % (case, len(data), cmd), file=sys.stderr)

    def case(self, case: str, cwd: Path, cmd: str, run: str | None = None, extra_env=None):
        if self.wanted(case):
            self.write(case, cmd, self.sh(run or cmd, cwd, extra_env))

    # ------------------------------------------------------------ sources and tools

    def repo(self, name: str) -> Path:
        """A work tree of REPOS[name] at its pinned commit (made once)."""
        path = self.src / name
        if not path.exists():
            owner_repo, commit = REPOS[name]
            mirror = self.mirrors / owner_repo.replace("/", "+") / "repo"
            self.setup("git clone -q %s %s" % (mirror, path), self.work)
            self.setup("git reset -q --hard %s" % commit, path)
        return path

    def fresh_copy(self, name: str, label: str) -> Path:
        """A throwaway clone of a work tree, for cases that change files."""
        path = self.work / "scratch" / label
        if path.exists():
            shutil.rmtree(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.setup("git clone -q %s %s" % (self.repo(name), path), self.work)
        return path

    def python_tools(self) -> None:
        if not (self.venv / "bin" / "pytest").exists():
            self.setup("python3 -m venv %s" % self.venv, self.work)
            self.setup("%s/bin/pip install -q %s" % (self.venv, " ".join(PY_TOOLS)), self.work)

    def npm_tools(self) -> None:
        if not (self.npmtools / "node_modules" / ".bin" / "tsc").exists():
            self.npmtools.mkdir(parents=True, exist_ok=True)
            (self.npmtools / "package.json").write_text('{"name": "corpus-tools", "private": true}')
            self.setup("npm install --no-audit --no-fund %s" % " ".join(NPM_TOOLS), self.npmtools)


def replace_in(path: Path, old: str, new: str) -> None:
    """Edit a work-tree file to provoke real failures; the text must be there."""
    text = path.read_text()
    if old not in text:
        raise RuntimeError("%s: %r not found" % (path, old))
    path.write_text(text.replace(old, new))


# ------------------------------------------------------------------ case groups

def table_cases(b: Builder) -> None:
    for table in (GIT_CASES, SEARCH_LIST_CASES, FILE_CASES):
        for case, repo, cmd, *run in table:
            if b.wanted(case):
                b.case(case, b.repo(repo), cmd, run[0] if run else None)


def git_status_cases(b: Builder) -> None:
    """git status / diff of a work tree with real edits: modified, deleted, staged, untracked."""
    names = ["git_status_typer", "git_status_short_pydantic", "git_diff_worktree_typer",
             "git_diff_cached_typer"]
    if not any(b.wanted(n) for n in names):
        return
    t = b.fresh_copy("typer", "typer-edit")
    b.setup("sed -i 's/def get_command(/def get_click_command(/' typer/main.py", t)
    b.setup("sed -i '1,40s/^import /import os  # noqa\\nimport /' typer/core.py", t)
    b.setup("git rm -q typer/colors.py && git mv typer/params.py typer/parameters.py", t)
    b.setup("printf 'def helper():\\n    return 1\\n' > typer/helpers.py && git add typer/helpers.py", t)
    b.setup("sed -i 's/Typer/TyperApp/g' tests/test_others.py README.md docs/index.md", t)
    b.setup("mkdir -p notes && echo draft > notes/todo.txt && echo x > scratch.py", t)
    b.case("git_status_typer", t, "git status")
    b.case("git_diff_worktree_typer", t, "git diff")
    b.case("git_diff_cached_typer", t, "git diff --cached")
    p = b.fresh_copy("pydantic", "pydantic-edit")
    b.setup("sed -i 's/\\bOptional\\b/Optional/; s/    return/    return/' "
            "$(git ls-files 'pydantic/_internal/*.py' | head -40)", p)
    b.setup("for f in $(git ls-files 'pydantic/_internal/*.py' | head -40); do "
            "echo '# reviewed' >> $f; done", p)
    b.setup("git rm -q -r pydantic/v1/ && touch new_module.py docs/new_page.md", p)
    b.case("git_status_short_pydantic", p, "git status --short")


def attrs_changed(b: Builder, copy: str, pip: str):
    """A fresh work tree of attrs, installed, with two behaviour changes its tests catch: repr()
    writes "name: value", asdict() turns lists into tuples."""
    a = b.fresh_copy("attrs", copy)
    b.setup("%s -e ." % pip, a)
    replace_in(a / "src/attr/_make.py", '"%s={%s!r}" % (name, accessor)',
               '"%s: {%s!r}" % (name, accessor)')
    replace_in(a / "src/attr/_funcs.py", "cf = value_type if retain_collection_types is True else list",
               "cf = value_type if retain_collection_types is True else tuple")
    return a


def pytest_cases(b: Builder) -> None:
    """Test runs with real failures: attrs with two behaviour changes, typer against a newer rich,
    httpx without its test dependencies (collection errors)."""
    names = ["pytest_q_attrs_fail", "pytest_v_attrs_funcs_fail", "pytest_q_pluggy_pass",
             "pytest_v_pluggy_pass", "pytest_q_typer_fail", "pytest_json_report_attrs",
             "pytest_x_attrs", "pytest_q_httpx_errors"]
    if not any(b.wanted(n) for n in names):
        return
    b.python_tools()
    pip = "%s/bin/pip install -q" % b.venv
    a = attrs_changed(b, "attrs-test", pip)
    b.case("pytest_q_attrs_fail", a, "pytest -q -p no:cacheprovider")
    b.case("pytest_x_attrs", a, "pytest -x -p no:cacheprovider tests/test_dunders.py")
    b.case("pytest_v_attrs_funcs_fail", a, "pytest -v -p no:cacheprovider tests/test_funcs.py tests/test_dunders.py")
    if b.wanted("pytest_json_report_attrs"):
        b.sh("pytest -q -p no:cacheprovider --json-report --json-report-file=report.json "
             "tests/test_dunders.py tests/test_make.py", a)
        b.case("pytest_json_report_attrs", a, "cat report.json")
    h = b.fresh_copy("httpx", "httpx-test")
    # the test servers' packages, but none of httpx's optional extras (brotli, zstd, http2, socks, cli)
    b.setup("%s -e . trio uvicorn trustme" % pip, h)
    b.case("pytest_q_httpx_errors", h, "pytest -q -p no:cacheprovider --continue-on-collection-errors tests")
    pl = b.fresh_copy("pluggy", "pluggy-test")
    b.setup("%s -e ." % pip, pl)
    b.case("pytest_q_pluggy_pass", pl, "pytest -q -p no:cacheprovider")
    b.case("pytest_v_pluggy_pass", pl, "pytest -v -p no:cacheprovider")
    t = b.fresh_copy("typer", "typer-test")
    b.setup("%s -e . 'click==8.1.8' rich shellingham coverage" % pip, t)
    b.case("pytest_q_typer_fail", t, "pytest -q -p no:cacheprovider --maxfail=400 tests")


def pytest_variant_cases(b: Builder) -> None:
    """pytest's traceback styles and -x: attrs with the same two behaviour changes as
    `pytest_cases`, pluggy calling its hook implementations in registration order."""
    names = ["pytest_tb_short_attrs", "pytest_tb_line_attrs", "pytest_x_tb_short_pluggy",
             "pytest_tb_short_pluggy"]
    if not any(b.wanted(n) for n in names):
        return
    b.python_tools()
    pip = "%s/bin/pip install -q" % b.venv
    a = attrs_changed(b, "attrs-tb", pip)
    b.case("pytest_tb_short_attrs", a,
           "pytest --tb=short -q -p no:cacheprovider tests/test_funcs.py tests/test_dunders.py")
    b.case("pytest_tb_line_attrs", a, "pytest --tb=line -q -p no:cacheprovider tests")
    pl = b.fresh_copy("pluggy", "pluggy-order")
    b.setup("%s -e ." % pip, pl)
    replace_in(pl / "src/pluggy/_callers.py", "for hook_impl in reversed(hook_impls):",
               "for hook_impl in hook_impls:")
    b.case("pytest_x_tb_short_pluggy", pl, "pytest -x --tb=short -p no:cacheprovider")
    b.case("pytest_tb_short_pluggy", pl, "pytest --tb=short -p no:cacheprovider testing")


def lint_cases(b: Builder) -> None:
    """ruff and mypy on real packages."""
    names = ["ruff_check_pydantic_internal", "ruff_check_httpx_all_concise", "ruff_json_httpx_models", "mypy_strict_typer_tests",
             "ruff_statistics_httpx",
             "mypy_strict_pluggy_testing", "mypy_httpx_tests", "mypy_strict_httpx", "mypy_pluggy"]
    if not any(b.wanted(n) for n in names):
        return
    b.python_tools()
    b.case("ruff_check_pydantic_internal", b.repo("pydantic"),
           "ruff check --select E,W,F,B,UP,SIM,RUF,PL pydantic/_internal")
    b.case("ruff_check_httpx_all_concise", b.repo("httpx"),
           "ruff check --select ALL --output-format concise httpx")
    b.case("ruff_statistics_httpx", b.repo("httpx"), "ruff check --select ALL --statistics httpx")
    b.case("ruff_json_httpx_models", b.repo("httpx"),
           "ruff check --select ALL --output-format json httpx/_models.py")
    b.case("mypy_strict_typer_tests", b.repo("typer"),
           "mypy --strict --no-incremental tests/test_completion tests/test_others.py")
    b.case("mypy_strict_pluggy_testing", b.repo("pluggy"), "mypy --strict --no-incremental testing")
    b.case("mypy_httpx_tests", b.repo("httpx"), "mypy --no-incremental tests")
    b.case("mypy_strict_httpx", b.repo("httpx"), "mypy --strict --no-incremental httpx")
    b.case("mypy_pluggy", b.repo("pluggy"), "mypy --no-incremental src")


ZOD_ESLINT = """import js from "@eslint/js";
import tseslint from "typescript-eslint";
export default tseslint.config(js.configs.recommended, ...tseslint.configs.strict,
  { rules: { "@typescript-eslint/no-explicit-any": "error", "no-prototype-builtins": "error" } });
"""


def ts_cases(b: Builder) -> None:
    """tsc and eslint on zod (tool versions other than the repository's own)."""
    names = ["tsc_noemit_zod", "tsc_noemit_strict_axios", "eslint_zod_core", "eslint_axios_lib"]
    if not any(b.wanted(n) for n in names):
        return
    b.npm_tools()
    z = b.fresh_copy("zod", "zod-ts")
    (z / "eslint.config.mjs").write_text(ZOD_ESLINT)
    b.setup("ln -sfn %s/node_modules node_modules" % b.npmtools, z)
    b.case("tsc_noemit_zod", z / "packages" / "zod", "npx tsc --noEmit -p . --types node --pretty false")
    b.case("eslint_zod_core", z, "npx eslint packages/zod/src/v4/core")
    ax = b.fresh_copy("axios", "axios-ts")
    (ax / "eslint.config.mjs").write_text(ZOD_ESLINT)
    b.setup("ln -sfn %s/node_modules node_modules" % b.npmtools, ax)
    b.case("tsc_noemit_strict_axios", ax,
           "npx tsc --noEmit --strict --allowJs --checkJs --target es2020 --moduleResolution node "
           "--module esnext lib/axios.js")
    b.case("eslint_axios_lib", ax, "npx eslint lib")


def native_cases(b: Builder) -> None:
    """rustc, clippy and cargo without the crates registry; javac on gson."""
    log = b.repo("log")
    b.case("rustc_lints_log", log,
           "rustc --edition 2021 --crate-type lib --emit=metadata --out-dir target/corpus "
           "-W unreachable-pub -W missing-debug-implementations -W unused-qualifications "
           "-W rust-2018-idioms -W trivial-casts -W single-use-lifetimes src/lib.rs")
    b.case("clippy_pedantic_log", log,
           "clippy-driver --edition 2021 --crate-type lib --emit=metadata --out-dir target/corpus "
           "-W clippy::pedantic -W clippy::nursery src/lib.rs")
    b.case("rustc_serde_core_fail", b.repo("serde"),
           "rustc --edition 2021 --crate-type lib --emit=metadata --out-dir target/corpus serde_core/src/lib.rs")
    if b.wanted("javac_gson_fail"):
        g = b.repo("gson")
        b.case("javac_gson_fail", g,
               "javac -Xlint:all -d /tmp/corpus-work/javac-out $(find gson/src/main/java -name '*.java' -not -name module-info.java)")


def log_crate(b: Builder, label: str) -> Path:
    """A scratch copy of the log crate that builds without the crates registry: its manifest
    keeps the package and the features without dependencies (the registry is not reachable; the
    code's `cfg(feature = "kv_serde")` etc. then warn as unexpected)."""
    w = b.fresh_copy("log", label)
    manifest = (w / "Cargo.toml").read_text()
    (w / "Cargo.toml").write_text(manifest[:manifest.index("kv_sval =")])
    return w


CARGO_ENV = {"CARGO_TERM_COLOR": "never", "CARGO_TERM_PROGRESS_WHEN": "never"}


def cargo_cases(b: Builder) -> None:
    """cargo test / check / build on the log crate, offline: a passing run, failing tests
    (case-sensitive level parsing and one flipped assertion), and compile errors."""
    if any(b.wanted(n) for n in ("cargo_test_log_pass", "cargo_test_log_fail")):
        w = log_crate(b, "log-test")
        b.case("cargo_test_log_pass", w, "cargo test --lib --tests", run="cargo test --offline --lib --tests",
               extra_env=CARGO_ENV)
        # Level::from_str compares case-sensitively; test_cross_cmp asserts the opposite order
        replace_in(w / "src/lib.rs", "if LOG_LEVEL_NAMES[idx].eq_ignore_ascii_case(level) {\n"
                   "                return Ok(Level::from_usize",
                   "if LOG_LEVEL_NAMES[idx] == level {\n                return Ok(Level::from_usize")
        replace_in(w / "src/lib.rs", "assert!(LevelFilter::Warn < Level::Trace);",
                   "assert!(LevelFilter::Warn > Level::Trace);")
        b.case("cargo_test_log_fail", w, "cargo test", run="cargo test --offline", extra_env=CARGO_ENV)
    if any(b.wanted(n) for n in ("cargo_check_log_errors", "cargo_build_log_errors")):
        w = log_crate(b, "log-check")
        # Level::from_usize takes a u8: every caller passing a usize is a type error
        replace_in(w / "src/lib.rs", "fn from_usize(u: usize) -> Option<Level> {",
                   "fn from_usize(u: u8) -> Option<Level> {")
        b.case("cargo_check_log_errors", w, "cargo check --all-targets",
               run="cargo check --offline --all-targets", extra_env=CARGO_ENV)
        w = log_crate(b, "log-build")
        # LevelFilter::from_usize renamed without its callers; a test binary calls a removed fn
        replace_in(w / "src/lib.rs", "fn from_usize(u: usize) -> Option<LevelFilter> {",
                   "fn from_index(u: usize) -> Option<LevelFilter> {")
        b.case("cargo_build_log_errors", w, "cargo build", run="cargo build --offline",
               extra_env=CARGO_ENV)


JS_TEST_TOOLS = ["vitest@4", "jest@30", "typescript@5.9"]

# node:test's describe/it/hooks under mocha's global names, so that mocha-style test files run
# under `node --test`
NODE_TEST_GLOBALS = """import { describe, it, before, after, beforeEach, afterEach } from "node:test";
Object.assign(globalThis, { describe, it, before, after, beforeEach, afterEach });
"""

AXIOS_UNIT = "test/unit/core/*.js test/unit/helpers/*.js test/unit/utils/*.js test/unit/regression/*.js"


def js_test_cases(b: Builder) -> None:
    """vitest on zod, jest and node --test (TAP) on axios's unit tests, with real failures."""
    names = ["vitest_run_zod_fail", "vitest_run_zod_file_fail", "jest_axios_unit_fail",
             "node_test_axios_pass", "node_test_axios_fail"]
    if not any(b.wanted(n) for n in names):
        return
    tools = b.work / "jstest"
    if not (tools / "node_modules" / ".bin" / "vitest").exists():
        tools.mkdir(parents=True, exist_ok=True)
        (tools / "package.json").write_text('{"name": "corpus-jstest", "private": true}')
        b.setup("npm install --no-audit --no-fund %s" % " ".join(JS_TEST_TOOLS), tools)
    env = {"CI": "1", "PATH": "%s/node_modules/.bin:%s" % (tools, b.env()["PATH"])}
    if any(b.wanted(n) for n in ("vitest_run_zod_fail", "vitest_run_zod_file_fail")):
        z = b.fresh_copy("zod", "zod-vitest")
        b.setup("ln -sfn %s/node_modules node_modules" % tools, z)
        # the English "too small" message gains a word: inline snapshots of 8 tests differ
        replace_in(z / "packages/zod/src/v4/locales/en.ts",
                   "return `Too small: expected ${issue.origin} to be ${adj}",
                   "return `Too small: expected ${issue.origin} to be at ${adj}")
        # a maximum length accepts one unit more
        replace_in(z / "packages/zod/src/v4/core/checks.ts", "if (length <= def.maximum) return;",
                   "if (length <= def.maximum + 1) return;")
        b.case("vitest_run_zod_file_fail", z,
               "npx vitest run packages/zod/src/v4/classic/tests/string.test.ts", extra_env=env)
        b.case("vitest_run_zod_fail", z, "npx vitest run --project zod", extra_env=env)
    ax = b.work / "axios-npm"
    if not (ax / "node_modules").exists():
        return
    a = b.fresh_copy("axios", "axios-unit")
    b.setup("ln -sfn %s/node_modules node_modules" % ax, a)
    (a / "test" / "node-test-globals.mjs").write_text(NODE_TEST_GLOBALS)
    b.case("node_test_axios_pass", a,
           "node --test --import ./test/node-test-globals.mjs test/unit/helpers/*.js test/unit/core/*.js")
    # two flipped assertions
    replace_in(a / "test/unit/core/AxiosHeaders.js", "assert.strictEqual(headers.get('y'), '2');",
               "assert.strictEqual(headers.get('y'), '3');")
    replace_in(a / "test/unit/utils/utils.js", "assert.strictEqual(utils.isStream({ foo: 'bar' }),false);",
               "assert.strictEqual(utils.isStream({ foo: 'bar' }),true);")
    b.case("node_test_axios_fail", a, "node --test --import ./test/node-test-globals.mjs " + AXIOS_UNIT)
    jest = "jest --testMatch '**/test/unit/{core,utils,helpers,defaults}/*.js'"
    b.case("jest_axios_unit_fail", a, "npx " + jest, run="%s/node_modules/.bin/%s" % (tools, jest),
           extra_env=dict(env, NODE_OPTIONS="--experimental-vm-modules"))


def pip_npm_cases(b: Builder) -> None:
    """pip and npm against the registries."""
    b.python_tools()
    vpip = "%s/bin/pip" % b.venv
    plain = {"PIP_CONFIG_FILE": os.devnull}
    tmpvenv = b.work / "venv-pip"
    if any(b.wanted(n) for n in ("pip_install_conflict", "pip_install_v_conflict",
                                 "pip_install_ok", "pip_install_v_httpx")):
        if tmpvenv.exists():
            shutil.rmtree(tmpvenv)
        b.setup("python3 -m venv %s" % tmpvenv, b.work)
        env = dict(plain, PATH="%s/bin:%s" % (tmpvenv, os.environ["PATH"]))
        b.case("pip_install_conflict", b.work, "pip install 'pydantic==2.5.0' 'pydantic-core==2.20.0'",
               extra_env=env)
        b.case("pip_install_v_conflict", b.work,
               "pip install -v 'httpx==0.27.0' 'httpcore==0.17.3'", extra_env=env)
        b.case("pip_install_ok", b.work, "pip install 'attrs==25.3.0' 'pluggy==1.5.0' 'typer==0.15.1'",
               extra_env=env)
        b.case("pip_install_v_httpx", b.repo("httpx"), "pip install -v .", extra_env=env)
    b.case("pip_list", b.work, "pip list", run="%s list" % vpip)
    b.case("pip_list_json", b.work, "pip list --format=json", run="%s list --format=json" % vpip)
    b.case("pip_freeze", b.work, "pip freeze", run="%s freeze" % vpip)
    b.case("pip_check", b.work, "pip check", run="%s check" % vpip)
    b.case("pip_inspect", b.work, "pip inspect", run="%s inspect" % vpip)
    ax = b.work / "axios-npm"
    if any(b.wanted(n) for n in ("npm_install_axios", "npm_ls_axios", "npm_ls_json_axios", "npm_ls_all_axios", "npm_outdated_axios",
                                 "npm_audit_axios", "npm_audit_json_axios",
                                 "mocha_unit_axios")):
        if not (ax / "node_modules").exists():
            if ax.exists():
                shutil.rmtree(ax)
            b.setup("git clone -q %s %s" % (b.repo("axios"), ax), b.work)
            b.case("npm_install_axios", ax, "npm install --ignore-scripts")
        b.case("npm_ls_axios", ax, "npm ls")
        b.case("npm_ls_json_axios", ax, "npm ls --json")
        b.case("npm_ls_all_axios", ax, "npm ls --all")
        b.case("npm_outdated_axios", ax, "npm outdated")
        b.case("npm_audit_axios", ax, "npm audit")
        b.case("npm_audit_json_axios", ax, "npm audit --json")
        b.case("mocha_unit_axios", ax, "npx mocha test/unit/**/*.js --timeout 30000 --exit")
    b.case("npm_view_json_axios", b.work, "npm view axios --json")
    b.case("npm_view_json_zod", b.work, "npm view zod --json")
    b.case("npm_view_eslint", b.work, "npm view eslint")


FAKE_ENV = ("env -i HOME=/home/dev USER=dev LOGNAME=dev SHELL=/bin/bash TERM=xterm-256color "
            "LANG=en_US.UTF-8 PATH=/home/dev/.local/bin:/usr/local/bin:/usr/bin:/bin "
            "EDITOR=vim VIRTUAL_ENV=/home/dev/proj/.venv NODE_ENV=development "
            "PYTHONDONTWRITEBYTECODE=1 GOPATH=/home/dev/go CARGO_HOME=/home/dev/.cargo "
            "XDG_CONFIG_HOME=/home/dev/.config PWD=/home/dev/proj OLDPWD=/home/dev "
            "SSH_AUTH_SOCK=/tmp/ssh-XXXXabcd/agent.1234 HISTSIZE=5000 COLORTERM=truecolor "
            "PGHOST=localhost PGPORT=5432 DATABASE_URL=postgres://app:app@localhost/app_dev ")


def system_cases(b: Builder) -> None:
    b.case("env_fake", b.work, "env", run=FAKE_ENV + "env")
    b.case("df_h", b.work, "df -h")


# ------------------------------------------------------------------ services on the loopback

def wait_port(port: int, seconds=20.0) -> None:
    import socket
    end = time.time() + seconds
    while time.time() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError("nothing listens on 127.0.0.1:%d" % port)


def curl_paths(base: str, paths: list[str], method="GET", extra="") -> str:
    """One bash loop of curl requests (bounded: one request per path)."""
    quoted = " ".join("'%s'" % p for p in paths)
    return ("for p in %s; do curl -s -o /dev/null -m 5 -X %s %s '%s'\"$p\"; done"
            % (quoted, method, extra, base))


def site_paths(root: Path, n: int) -> list[str]:
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*")
                   if p.is_file() and ".git" not in p.parts)
    step = max(1, len(files) // n)
    return ["/" + f for f in files[::step][:n]]


HTTP_MISSES = ["/favicon.ico", "/robots.txt", "/.env", "/wp-login.php", "/admin/", "/api/v1/users",
               "/static/app.js", "/.git/config", "/index.php?id=1%27", "/server-status",
               "/docs/missing.md", "/phpmyadmin/", "/%2e%2e/%2e%2e/etc/passwd", "/login"]


def http_server_case(b: Builder) -> None:
    """python -m http.server serving httpx's tree: its request log with 200/404/501 lines."""
    if not b.wanted("http_server_log"):
        return
    root, port = b.repo("httpx"), 18765
    logf = b.work / "http_server.log"
    with open(logf, "wb") as fh:
        srv = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind",
                                "127.0.0.1"], cwd=root, stdout=fh, stderr=subprocess.STDOUT)
    try:
        wait_port(port)
        base = "http://127.0.0.1:%d" % port
        for round_ in range(3):
            b.sh(curl_paths(base, site_paths(root, 60)), root)
            b.sh(curl_paths(base, HTTP_MISSES), root)
            b.sh(curl_paths(base, ["/", "/httpx/", "/docs/"], method="POST", extra="-d a=1"), root)
            b.sh(curl_paths(base, ["/README.md", "/httpx/_api.py"], method="HEAD", extra="-I"), root)
            b.sh(curl_paths(base, ["/httpx/"], method="PUT"), root)
    finally:
        srv.terminate()
        srv.wait(10)
    b.write("http_server_log", "cat http_server.log", logf.read_bytes())


NGINX_CONF = """worker_processes 1;
pid {w}/nginx/nginx.pid;
error_log {w}/nginx/error.log info;
events {{ worker_connections 64; }}
http {{
  access_log {w}/nginx/access.log combined;
  limit_req_zone $binary_remote_addr zone=one:1m rate=5r/s;
  client_body_temp_path {w}/nginx/tmp; proxy_temp_path {w}/nginx/tmp;
  fastcgi_temp_path {w}/nginx/tmp; uwsgi_temp_path {w}/nginx/tmp; scgi_temp_path {w}/nginx/tmp;
  server {{
    listen 127.0.0.1:18080;
    root {root};
    location /api/ {{ proxy_pass http://127.0.0.1:18099; proxy_connect_timeout 2s; }}
    location /private/ {{ deny all; }}
    location /docs/ {{ limit_req zone=one burst=2 nodelay; }}
    location /upload {{ client_max_body_size 1k; proxy_pass http://127.0.0.1:18099; }}
  }}
}}
"""


def nginx_cases(b: Builder) -> None:
    """nginx serving lodash's tree: access log and error log (404, 403, 502, 413, 503)."""
    if not any(b.wanted(n) for n in ("nginx_access_log", "nginx_error_log")):
        return
    root, d = b.repo("lodash"), b.work / "nginx"
    if d.exists():
        shutil.rmtree(d)
    (d / "tmp").mkdir(parents=True)
    (d / "nginx.conf").write_text(NGINX_CONF.format(w=b.work, root=root))
    b.setup("nginx -c %s/nginx.conf" % d, d)
    try:
        wait_port(18080)
        base = "http://127.0.0.1:18080"
        agents = ["curl/7.88.1", "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0",
                  "python-requests/2.31.0", "Go-http-client/1.1"]
        for ua in agents:
            b.sh(curl_paths(base, site_paths(root, 50), extra="-A '%s'" % ua), root)
            b.sh(curl_paths(base, HTTP_MISSES + ["/private/keys.txt", "/private/"],
                            extra="-A '%s'" % ua), root)
            b.sh(curl_paths(base, ["/api/users", "/api/orders?id=7", "/api/health"],
                            extra="-A '%s'" % ua), root)
            b.sh(curl_paths(base, ["/docs/%d" % i for i in range(12)], extra="-A '%s'" % ua), root)
            b.sh(curl_paths(base, ["/upload"], method="POST",
                            extra="-A '%s' --data-binary @%s/README.md" % (ua, root)), root)
    finally:
        b.sh("nginx -c %s/nginx.conf -s quit" % d, d)
        time.sleep(1)
    b.write("nginx_access_log", "cat access.log", (d / "access.log").read_bytes())
    b.write("nginx_error_log", "cat error.log", (d / "error.log").read_bytes())


PG_SQL = """
CREATE TABLE accounts (id serial PRIMARY KEY, email text UNIQUE NOT NULL, balance numeric CHECK (balance >= 0));
INSERT INTO accounts (email, balance) SELECT 'user' || g || '@example.com', g * 10 FROM generate_series(1, 200) g;
INSERT INTO accounts (email, balance) VALUES ('user7@example.com', 5);
UPDATE accounts SET balance = balance - 100 WHERE id = 3;
SELECT * FROM acounts WHERE id = 1;
SELEC id FROM accounts;
SELECT id / 0 FROM accounts LIMIT 1;
SELECT email FROM accounts WHERE id = 'abc';
INSERT INTO accounts (email) VALUES (NULL);
CREATE INDEX ON accounts (email);
SELECT pg_sleep(0.3), count(*) FROM accounts;
SELECT nonexistent_col FROM accounts;
BEGIN; UPDATE accounts SET balance = 1 WHERE id = 1; SELECT 1/0; COMMIT;
DROP TABLE no_such_table;
VACUUM ANALYZE accounts;
CHECKPOINT;
"""


def postgres_cases(b: Builder) -> None:
    """A PostgreSQL 15 cluster on the loopback: connection, auth, SQL errors, checkpoints."""
    if not b.wanted("postgres_log"):
        return
    d, port = b.work / "pg", 15432
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    shutil.chown(d, "postgres", "postgres")
    as_pg = "runuser -u postgres -- "
    b.setup(as_pg + "initdb -D %s/data -U postgres --auth-local=trust --auth-host=scram-sha-256 "
            "-E UTF8 --locale=C.UTF-8 >/dev/null" % d, b.work)
    with open(d / "data" / "postgresql.conf", "a") as fh:
        fh.write("port = %d\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\n"
                 "log_connections = on\nlog_disconnections = on\nlog_min_duration_statement = 200\n"
                 "log_line_prefix = '%%m [%%p] %%q%%u@%%d '\nlog_checkpoints = on\n"
                 "log_lock_waits = on\ndeadlock_timeout = '200ms'\n" % (port, d))
    logf = d / "postgresql.log"
    b.setup(as_pg + "pg_ctl -D %s/data -l %s -w start >/dev/null" % (d, logf), b.work)
    try:
        psql = as_pg + "psql -h %s -p %d -U postgres " % (d, port)
        b.sh(psql + "-c \"CREATE ROLE app LOGIN PASSWORD 'app-secret'\" "
             "-c 'CREATE DATABASE shop OWNER app'", b.work)
        b.sh(psql + "-d shop -v ON_ERROR_STOP=0 -f -  <<'SQL'\n" + PG_SQL + "\nSQL", b.work)
        for user, pw in (("app", "wrong"), ("app", "app-secret"), ("admin", "admin"),
                         ("app", "hunter2"), ("root", "root")):
            b.sh("PGPASSWORD=%s psql -h 127.0.0.1 -p %d -U %s -d shop -c 'SELECT count(*) FROM "
                 "accounts' ; PGPASSWORD=%s psql -h 127.0.0.1 -p %d -U %s -d nodb -c 'SELECT 1'"
                 % (pw, port, user, pw, port, user), b.work)
        # pgbench with every statement logged, then a deadlock between two sessions
        b.sh(as_pg + "pgbench -h %s -p %d -U postgres -i -s 1 shop" % (d, port), b.work)
        b.sh("PGOPTIONS='-c log_min_duration_statement=0' " + as_pg +
             "pgbench -h %s -p %d -U postgres -c 2 -t 12 shop" % (d, port), b.work)
        b.sh("(%s-d shop -c 'BEGIN; UPDATE accounts SET balance=balance+1 WHERE id=10; "
             "SELECT pg_sleep(1); UPDATE accounts SET balance=balance+1 WHERE id=11; COMMIT;' &) ; "
             "sleep 0.3; %s-d shop -c 'BEGIN; UPDATE accounts SET balance=balance+1 WHERE id=11; "
             "UPDATE accounts SET balance=balance+1 WHERE id=10; COMMIT;'; sleep 1.5" % (psql, psql),
             b.work)
    finally:
        b.sh(as_pg + "pg_ctl -D %s/data -m fast -w stop" % d, b.work)
    b.write("postgres_log", "cat postgresql.log", logf.read_bytes())


def redis_cases(b: Builder) -> None:
    """redis-server on the loopback: `redis-cli info` and its log."""
    if not any(b.wanted(n) for n in ("redis_cli_info", "redis_log")):
        return
    d, port = b.work / "redis", 16379
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    b.setup("redis-server --port %d --bind 127.0.0.1 --dir %s --logfile %s/redis.log "
            "--daemonize yes --save '1 1' --maxmemory 2mb --maxmemory-policy noeviction" % (port, d, d), d)
    try:
        wait_port(port)
        cli = "redis-cli -p %d " % port
        b.sh("for i in $(seq 1 300); do echo \"SET key:$i $(head -c 200 /dev/zero | tr '\\0' x)\"; "
             "done | %s >/dev/null; %s BGSAVE; sleep 2; %s DEBUG SLEEP 0" % (cli, cli, cli), d)
        b.sh("for i in $(seq 1 20000); do echo \"SET big:$i $(printf %%0500d 0)\"; done | %s | "
             "sort | uniq -c" % cli, d)
        b.case("redis_cli_info", d, "redis-cli info", run=cli + "info")
        b.sh(cli + "CONFIG SET maxmemory 0; " + cli + "SHUTDOWN SAVE", d)
    finally:
        b.sh("%s -p %d shutdown nosave 2>/dev/null; true" % ("redis-cli", port), d)
    b.write("redis_log", "cat redis.log", (d / "redis.log").read_bytes())


PS_SCENE = """{pg} -D {w}/pg/data -c port=15433 -c listen_addresses='' -c unix_socket_directories={w}/pg 2>{w}/pg/ps-scene.log &
nginx -c {w}/nginx/nginx.conf -g 'daemon off;' &
redis-server --port 16380 --bind 127.0.0.1 --save '' --logfile /dev/null &
python3 -m http.server 18766 --bind 127.0.0.1 >/dev/null 2>&1 &
node -e 'setTimeout(() => {{}}, 20000)' &
sleep 300 &
sh -c 'while sleep 1; do :; done' &
python3 -c 'import time; time.sleep(20)' &
tail -f {w}/pg/ps-scene.log >/dev/null &
sleep 3
env -u COLUMNS ps aux
"""


def ps_case(b: Builder) -> None:
    """`ps aux` in a PID namespace of its own holding real services (not the machine's processes)."""
    if not b.wanted("ps_aux") or not (b.work / "pg" / "data").exists():
        return
    pg = "runuser -u postgres -- postgres"
    scene = PS_SCENE.format(w=b.work, pg=pg)
    out = b.sh("unshare --pid --fork --mount-proc bash -c %s" % shlex.quote(scene), b.work)
    b.write("ps_aux", "ps aux", out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirrors", type=Path, required=True)
    ap.add_argument("--work", type=Path, default=Path("/tmp/corpus-work"))
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "corpus")
    ap.add_argument("--only", help="comma-separated case names")
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    (a.work / "src").mkdir(exist_ok=True)
    b = Builder(a.mirrors.resolve(), a.work.resolve(), a.out.resolve(),
                set(a.only.split(",")) if a.only else None)
    for group in (table_cases, git_status_cases, pytest_cases, pytest_variant_cases, lint_cases, ts_cases,
                  native_cases, cargo_cases, js_test_cases, pip_npm_cases, system_cases, http_server_case, nginx_cases,
                  postgres_cases, redis_cases, ps_case):
        try:
            group(b)
        except (subprocess.SubprocessError, OSError, RuntimeError) as exc:
            print("%s failed: %s" % (group.__name__, exc), file=sys.stderr)
    print("%d cases written to %s" % (len(b.made), b.out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
