"""Build hook for the optional C kernel of the log, JSON and diff reducers and the ``tokens`` script; everything else is in pyproject.toml.

``optional=True``: without a C compiler the install still succeeds and the reducers use their
pure-Python twins (same output, slower).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[Extension("operators.kernel._kernel", ["operators/kernel/_kernel.c"], optional=True)],
    scripts=["bin/tokens"],  # a plain script: a console-script wrapper imports ``re`` first (bin/tokens)
)
