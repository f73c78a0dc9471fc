"""Build hook for the optional C kernel of the log, JSON and diff reducers and the ``tokens`` launcher;
everything else is in pyproject.toml.

``optional=True``: without a C compiler the install still succeeds and the reducers use their
pure-Python twins (same output, slower). The same holds for the launcher: ``tokens`` is the native
program of ``bin/tokens.c`` (a short ``tokens run`` without starting the interpreter) beside its Python
part ``tokens-python``; where it cannot be built (no compiler, not Linux) ``tokens`` is the Python script.
"""

import os
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Distribution, Extension, setup

build_scripts = Distribution().get_command_class("build_scripts")  # distutils' command, as setuptools provides it


class BuildScripts(build_scripts):
    """``tokens-python`` as setuptools copies a script, then ``tokens``: compiled from ``bin/tokens.c``,
    else a copy of ``tokens-python``."""

    def run(self) -> None:
        super().run()
        target = os.path.join(self.build_dir, "tokens")
        if not self.dry_run and not _compiled(target):
            shutil.copy2(os.path.join(self.build_dir, "tokens-python"), target)


def _compiled(target: str) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    cc = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc") or ["cc"]
    try:
        done = subprocess.run([*cc, "-O2", "-o", target, os.path.join("bin", "tokens.c")], capture_output=True)
    except OSError:
        return False
    if done.returncode:
        print("tokens: the native launcher was not built (the Python script is installed as tokens):\n"
              + done.stderr.decode(errors="replace")[-2000:], file=sys.stderr)
        return False
    return True


setup(
    ext_modules=[Extension("operators.kernel._kernel", ["operators/kernel/_kernel.c"], optional=True)],
    scripts=["bin/tokens-python"],  # a plain script: a console-script wrapper imports ``re`` first
    cmdclass={"build_scripts": BuildScripts},
)
