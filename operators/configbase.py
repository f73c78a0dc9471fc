"""The base of every config section: ``Section``, a msgspec Struct that takes keywords only and
rejects unknown keys.

Here, below everything that declares a section (the type registry, the ceiling, the content types,
``operators.config``), so a module can declare its section without importing the config loader,
which assembles the ``Config`` class from those sections.
"""

from __future__ import annotations

import msgspec


class Section(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    pass
