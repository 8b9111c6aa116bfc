"""A quicker interpreter exit once torch is imported.

Python's shutdown runs garbage collections that traverse every object still alive, and torch leaves
hundreds of thousands (benchmarks/README.md has the cost measured). atexit handlers run
before those collections, so freezing the heap there (gc.freeze: later collections skip every object
alive now) removes that time. Unlike os._exit, everything else about exiting still happens: atexit
handlers, flushing, finalizers run by reference counting. A process that does not exit (pytest.main()
called in-process) is not affected: the handler runs only at interpreter exit.
"""

import atexit
import functools
import gc


@functools.cache
def freeze_at_exit() -> None:
    """Register gc.freeze to run at interpreter exit (once, however often this is called)."""
    atexit.register(gc.freeze)
