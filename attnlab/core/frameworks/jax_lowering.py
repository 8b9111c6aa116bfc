"""One MLIR context for every lowering JAX does in this process, instead of one each.

Every operation a student's JAX code runs eagerly is lowered to MLIR once per shape and dtype, and JAX makes a
fresh MLIR context for each lowering: it loads every dialect JAX uses into it (milliseconds), and the cached
lowering keeps it alive for the life of the process. The `attention` assignment's visible checks lower about
1,300 operations, so with a warm compilation cache the contexts, not the computing, were most of JAX's cost.
Measured here (2 CPUs; `attnlab status` on reference/jax with a warm compilation cache; benchmarks/README.md):
`modern` 39.3 s and 3.35 GB resident with a context per lowering, 19.9 s and 0.82 GB with one shared.

Sharing is what MLIR contexts are for (a module lives in one; many modules may share it; its uniquing is
locked when it has a thread pool, which JAX gives every context it makes). The modules, and so the compiled
executables and the compilation cache's keys, are the same. JAX offers no option for it: this replaces the
private `jax._src.interpreters.mlir.make_ir_context` by a function that makes one context and returns it ever
after; where a JAX version has no such function, nothing is changed and lowering costs what it did.
"""

from typing import Any

_shared: list[Any] = []  # the context, once made


def share_ir_context() -> bool:
    """Make JAX's lowerings in this process share one MLIR context (idempotent). Whether it is in effect."""
    try:
        from jax._src.interpreters import mlir
    except ImportError:
        return False
    make = getattr(mlir, "make_ir_context", None)
    if make is None:
        return False
    if getattr(make, "attnlab_shared", False):
        return True

    def shared_ir_context():
        if not _shared:
            _shared.append(make())
        return _shared[0]

    shared_ir_context.attnlab_shared = True
    mlir.make_ir_context = shared_ir_context
    return True
