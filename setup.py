"""Build hook for the optional C kernel of the log, JSON and diff reducers; everything else is in pyproject.toml.

``optional=True``: without a C compiler the install still succeeds and the reducers use their
pure-Python twins (same output, slower).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("operators.kernel._kernel", ["operators/kernel/_kernel.c"], optional=True)])
