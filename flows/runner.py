"""Running the graph inside this process, and the start-up tuning of the ``tokens`` process.

``run_packets`` runs packets through the one graph (``flows.reduce``) and returns them finished;
``run_source`` runs a command's output windows (``tokens run``); ``run_flow`` is the one call into the
engine's run entry (``tokens tail`` and the tests run their graphs through it). One small document that is
complete (one input to analyze, a command that has exited) takes the same steps without starting the
engine (``flows.direct``); ``NOLIFE_TOKENS_DIRECT=0`` sends it through the graph all the same.
The rest owns the process's start: ``asyncio`` deferred until used (``defer_import``), the garbage
collector paused while modules are imported (``pause_gc``/``startup_done``) and frozen at exit
(``exiting``). The CLI calls these; nothing here parses arguments or prints.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import os
import sys
import types
from _thread import RLock
from typing import TYPE_CHECKING, Callable

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


def direct_allowed() -> bool:
    """Whether one small document may skip the engine (``NOLIFE_TOKENS_DIRECT=0`` says no: the graph
    runs it, as a test comparing the two needs)."""
    return os.environ.get("NOLIFE_TOKENS_DIRECT") != "0"


def run_packets(packets: list[ContextPacket], config_path: str | None = None,
                config: Config | None = None) -> list[ContextPacket]:
    """Run packets through the graph's stages in this process and return them finished, in input order.

    One packet goes through the stages without the engine (``flows.direct``: the same steps, in the
    same order, with the store sink's own code); several go through the graph.
    ``config``: the configuration already loaded from ``config_path`` (else it is loaded here)."""
    from operators.config import load_config

    if config is None:
        config = load_config(config_path)
    done: list[ContextPacket] = []
    if len(packets) == 1 and direct_allowed():
        from flows.direct import run_direct

        run_direct(packets, config, done.append, ready=startup_done)
        return done
    _run_graph(config, done.append, packets=packets)
    order = {id(p): i for i, p in enumerate(packets)}
    done.sort(key=lambda p: order.get(id(p), 0))
    return done


def run_source(source, deliver: Callable[[ContextPacket], None], config: Config) -> None:
    """Run the packets of ``source`` (``operators.runsource.RunSource``: a command's output in windows)
    through the graph's stages, handing each to ``deliver`` when finished.

    When the whole output is already read and the command has exited (``source.ended``: the fast path
    of ``tokens run`` saw it end), its windows are cut right here by the source's own partition and run
    without the engine (``flows.direct``); otherwise the graph reads the command as it runs."""
    if getattr(source, "ended", False) and direct_allowed():
        from flows.direct import run_direct

        part = source.build_part("source", "run", None)
        windows: list[ContextPacket] = []
        try:
            while True:
                windows.extend(part.next_batch())
        except StopIteration:
            pass
        finally:
            part.close()
        run_direct(windows, config, deliver, ready=startup_done)
        return
    _run_graph(config, deliver, source=source)


def run_flow(flow) -> None:
    """Run a built graph to its end in this thread, one worker: the only call into the engine's run entry.

    That is ``bytewax._bytewax.run_main``, the compiled entry itself: ``bytewax.testing`` re-exports it
    but imports more (a few ms of every start). A bytewax release without that private name falls
    back to the public ``bytewax.testing.run_main``."""
    try:
        from bytewax._bytewax import run_main
    except ImportError:
        from bytewax.testing import run_main
    run_main(flow)


def _run_graph(config: Config, deliver: Callable[[ContextPacket], None], **inputs) -> None:
    """Build the graph over ``inputs`` (``packets=`` or ``source=``, see ``flows.reduce.get_flow``) and run it."""
    from flows.reduce import get_flow
    from operators.graphio import CallbackSink

    flow = get_flow(sink=CallbackSink(deliver), config=config, **inputs)
    startup_done()
    run_flow(flow)


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
