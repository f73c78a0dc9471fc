"""The optional C kernel: the hot per-line loops of the log, JSON and diff types (``_kernel.c``).

``setup.py`` builds it at install when a C compiler is there. ``C`` is the built module, or ``None``;
each caller keeps a pure-Python twin of every function it uses (same results, slower), and
``tests/test_kernel.py`` checks twin and kernel agree wherever the kernel is built.
"""

try:
    from operators.kernel import _kernel as C
except ImportError:  # no compiler at install: the twins run instead
    C = None
