"""A compilation cache the judge fills from trusted code and runners only read (JAX: every operation is
compiled per shape in each process, and each runner is a fresh process).

Before a class is graded, the judge grades the framework's reference once in a runner of its own whose cache
directory lies in its scratch dir (writable there alone), with the run's seed: the same checks on the same
inputs, so the same operations on the same shapes as every submission's. What it compiled is copied out,
owned by the judge (root: root-owned, 0755 directories and 0644 files), to

    <root>/<framework and version>/<assignment>-<seed fingerprint>/

and every later runner of that assignment and seed gets that directory read-only: a read-only bind mount at
the namespace levels, a Landlock read rule, file modes where the runner's uid is a host uid (levels.py). At
rlimits-only a submission could write the judge's files, so runners get no cache there. A miss compiles as
before and writes nothing. Later grading runs with the same course secret (and framework version) reuse it.

Only what the framework's library compiled is kept: an executable named after a function the reference
defines (its own `jax.jit` functions) or after a control-flow primitive (whose body is the reference's
code) would let a submission read the reference's algorithm back out of the cache, so those are dropped.
"""

import ast
import hashlib
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from attnlab.core.frameworks.base import Adapter

ENV = "ATTNLAB_COMPILE_CACHE"  # where the caches live ("off": none), else DEFAULT_ROOT or the user's cache
DEFAULT_ROOT = Path("/var/cache/attnlab/grading")  # as root: reachable by runner uids, writable by root alone
COMPLETE = "complete"  # marker file: the reference was graded through every exercise into this directory
ENTRY = re.compile(r"(?P<module>[A-Za-z0-9_.]+)-[0-9a-f]{64}-cache")  # JAX's entry files: <module>-<key>-cache
# primitives whose compiled body is the caller's code (an eager lax.scan compiles the loop body with it)
CALLER_BODIES = frozenset({"scan", "while", "while_loop", "fori_loop", "cond", "switch", "map", "custom_jvp_call",
                           "custom_vjp_call", "checkpoint", "remat", "pjit", "_lambda_", "lambda", "closed_call"})


@dataclass(frozen=True)
class CompileCache:
    """The cache a runner gets: `path` read-only, or fill=True (the judge's runner of the reference writes a
    fresh one in its scratch dir, copied into `path` when the runner ends)."""

    path: Path
    fill: bool = False


def root() -> Path | None:
    """Where grading caches live: $ATTNLAB_COMPILE_CACHE ("off": nowhere), else DEFAULT_ROOT as root, else
    $XDG_CACHE_HOME/attnlab/grading."""
    chosen = os.environ.get(ENV)
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen).resolve()
    if os.geteuid() == 0:
        return DEFAULT_ROOT
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "attnlab" / "grading"


def roots(adapter: "Adapter") -> list[Path]:
    """The directory the framework's caches live in, made (0755) if missing; [] where it keeps none."""
    base, key = root(), adapter.compile_cache_key()
    if base is None or key is None:
        return []
    (base / key).mkdir(mode=0o755, parents=True, exist_ok=True)
    return [base / key]


def location(adapter: "Adapter", assignment: str, seed: int | None) -> Path | None:
    """The cache directory of the framework's version, an assignment and a seed; None where the framework
    has no cache worth keeping or caches are off. The seed appears only hashed."""
    key, base = adapter.compile_cache_key(), root()
    if key is None or base is None or seed is None:
        return None
    digest = hashlib.sha256(f"attnlab compile cache\0{assignment}\0{seed}".encode()).hexdigest()[:16]
    return base / key / f"{assignment}-{digest}"


def complete(path: Path) -> bool:
    return (path / COMPLETE).is_file()


def staging(path: Path) -> Path:
    """A fresh directory beside `path` for a fill (renamed into place once complete)."""
    path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{path.name}-", dir=path.parent))


def harvest(written: Path, into: Path) -> None:
    """Copy what a filling runner compiled (`written`, its scratch's cache dir) into `into`: plain files
    named as JAX names its entries, copied (so owned by the judge, 0644), never followed through links."""
    if not written.is_dir():
        return
    for entry in os.scandir(written):
        if ENTRY.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
            target = into / entry.name
            shutil.copyfile(entry.path, target, follow_symlinks=False)
            target.chmod(0o644)


def seal(filled: Path, final: Path, reference_dir: Path) -> Path:
    """Drop what the reference's own code compiled, make the directory read-only to others, and move it to
    `final` (another grader that finished first wins: ours is discarded). Returns `final`."""
    own = {name.strip("_") for name in defined_names(reference_dir) | CALLER_BODIES}
    for entry in list(filled.iterdir()):
        match = ENTRY.fullmatch(entry.name)
        if match is None or match["module"].removeprefix("jit_").strip("_") in own:
            entry.unlink()
    (filled / COMPLETE).write_text("filled from the reference\n")
    filled.chmod(0o755)
    final.parent.chmod(0o755)
    try:
        filled.rename(final)
    except OSError:  # already there (a parallel shard filled it first)
        shutil.rmtree(filled, ignore_errors=True)
    return final


def defined_names(reference_dir: Path) -> set[str]:
    """Every function name the reference package defines (a `jax.jit` of one compiles under its name)."""
    names = set()
    for source in reference_dir.glob("*.py"):
        tree = ast.parse(source.read_text(encoding="utf-8"), filename=str(source))
        names |= {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return names

