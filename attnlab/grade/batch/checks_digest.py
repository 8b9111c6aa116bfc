"""What decides a score besides the submission and the seed, as one digest: the specs, the reference (its
misconceptions included), the grader's own code and the limits that can end a check. Each result records it;
a rerun into the same --out keeps a finished result only when it was graded with the same digest, so an
instructor who mends a tolerance, a case or the reference and runs the same command again gets every student
regraded under the mended checks, never a class graded half under each.

Left out: what does not change a score (the runner's uid and CPU, the isolation level, the feedback's
language) and the seed (the run record holds it: cli.run_seed).
"""

import dataclasses
import hashlib
from pathlib import Path

import attnlab
from attnlab.core import paths
from attnlab.core.config import Limits, Run

# the Limits fields that only place a runner (which uid, which CPU, how it is confined): every other one can end
# a check (a CPU limit a slow one, a memory cap a large one), a field added later included
PLACEMENT = frozenset({"uid", "gid", "cpu", "isolation", "launcher"})


def same_checks(result: dict, digest: str) -> bool:
    """Whether a finished result was graded with these checks (one from before results recorded them was
    graded by another grade.py: not the same)."""
    return result.get("checks_digest") == digest


def _files(root: Path, patterns: tuple[str, ...]) -> list[Path]:
    found = {p for pattern in patterns for p in root.rglob(pattern) if p.is_file() and "__pycache__" not in p.parts}
    return sorted(found)


def checks_digest(run: Run) -> str:
    """A short digest of everything above for `run` (its assignment, framework, device and limits)."""
    from attnlab.grade.judge.judge import installed_reference  # where `import reference` really resolves

    digest = hashlib.sha256()
    roots = [(Path(attnlab.__file__).parent, ("*.py",)), (paths.SPEC_DIR, ("*.yaml", "*.py")),
             *((where, ("*.py", "*.yaml")) for where in installed_reference())]
    for root, patterns in roots:
        for path in _files(root, patterns):
            digest.update(f"{root.name}/{path.relative_to(root).as_posix()}\0".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    digest.update(repr(_scoring_limits(run.limits)).encode())
    digest.update(f"\0{run.course.assignment_id}\0{run.framework}\0{run.device}".encode())
    return digest.hexdigest()[:16]


def _scoring_limits(limits: Limits) -> tuple:
    return tuple((f.name, getattr(limits, f.name)) for f in dataclasses.fields(limits) if f.name not in PLACEMENT)
