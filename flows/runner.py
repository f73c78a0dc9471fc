"""Running the graph inside this process, and the start-up tuning of the ``tokens`` process.

``run_packets`` runs packets through the one graph (``flows.reduce``) and returns them finished.
The rest owns the process's start: ``asyncio`` deferred until used (``defer_import``), the garbage
collector paused while modules are imported (``pause_gc``/``startup_done``) and frozen at exit
(``exiting``). The CLI calls these; nothing here parses arguments or prints.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import sys
import types
from _thread import RLock
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from operators.config import Config
    from operators.packet import ContextPacket


class _Deferred(types.ModuleType):
    """Stands in ``sys.modules`` for a module that libraries import but may never use.

    Reading any attribute it does not carry imports the real module, which then replaces it in
    ``sys.modules``; later reads are passed on to the real module. It carries only the import
    system's attributes (``__name__``, ``__spec__``, ``__loader__``, ``__package__``, ``__file__``),
    so ``import asyncio`` or ``inspect.getmodule`` do not load it for nothing; not ``__path__``, so
    importing a submodule (``import asyncio.events``) loads the real package first.
    """

    def __getattr__(self, attr: str):
        name = self.__name__
        with _deferred_lock:
            if sys.modules.get(name) is self:
                del sys.modules[name]
                try:
                    importlib.import_module(name)
                except BaseException:
                    sys.modules.setdefault(name, self)
                    raise
        return getattr(sys.modules[name], attr)


_deferred_lock = RLock()


def defer_import(name: str) -> None:
    """Let ``import name`` succeed without running the module until an attribute of it is read.

    Used for ``asyncio`` (about 50 ms of imports: ssl, socket, concurrent.futures, subprocess …):
    ``structlog`` and ``bytewax.inputs`` import it at their top and use it only in async code paths.
    Does nothing when the module is already imported or cannot be found.
    """
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None:
        return
    stand_in = _Deferred(name)
    stand_in.__spec__, stand_in.__loader__, stand_in.__file__ = spec, spec.loader, spec.origin
    stand_in.__package__ = spec.parent
    sys.modules[name] = stand_in


def run_packets(packets: list[ContextPacket], config_path: str | None = None,
                config: Config | None = None) -> list[ContextPacket]:
    """Run packets through the graph in this process and return them finished, in input order.

    ``config``: the configuration already loaded from ``config_path`` (else it is loaded here)."""
    from bytewax._bytewax import run_main  # bytewax.testing re-exports it but imports more

    from flows.reduce import get_flow
    from operators.config import load_config
    from operators.sources import CallbackSink

    if config is None:
        config = load_config(config_path)
    done: list[ContextPacket] = []
    flow = get_flow(packets=packets, sink=CallbackSink(done.append), config=config)
    startup_done()
    run_main(flow)
    order = {id(p): i for i, p in enumerate(packets)}
    done.sort(key=lambda p: order.get(id(p), 0))
    return done


_gc_paused = False  # set by main() in the process entry point, until startup_done()


def startup_done() -> None:
    """The start is over (modules imported, graph built); the input comes next.

    The process entry point pauses the garbage collector while it starts: importing bytewax,
    msgspec, structlog and the stages creates tens of thousands of objects that live as long as
    the process, and collecting them while they are created costs time and frees almost nothing
    (some 20 ms of a small ``tokens analyze``). Here they are frozen (kept out of every later
    collection) and the collector runs as usual for the data. Does nothing in any other case
    (``main([...])``, ``run_packets`` called from other code, a second call)."""
    global _gc_paused
    if _gc_paused:
        _gc_paused = False
        gc.freeze()
        gc.enable()


def exiting() -> None:
    """Called when the process is about to exit: skip the interpreter's final garbage collections.

    At exit, CPython runs full collections over every object still alive (those of the imported
    modules, mostly): 60 to 90 ms measured after a small ``tokens analyze``, more than its whole
    run. The process frees them anyway. ``gc.freeze()`` moves them out of the collector's reach;
    nothing else about the exit changes (atexit handlers run, stdout and stderr are flushed; our
    own files are all closed when written).
    """
    gc.freeze()




def pause_gc() -> None:
    """Pause the garbage collector until ``startup_done`` (the process entry point only)."""
    global _gc_paused
    if gc.isenabled():
        gc.disable()
        _gc_paused = True
