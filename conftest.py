"""The repository's own test runs (tests/ and spec/): one intra-op thread, and the spec's memory-budgeted cases
left out of the fast tier, and the repository's course parsed once per run.

At the repository's root so that it applies to spec/*.yaml's items too, whatever paths pytest is given.

One thread, as every grading runner uses (attnlab.grade.runner): the checks' tensors are small, and a second
OpenMP thread mostly spins, the more so when the machine is busy. Measured on this 2-core machine: the torch
corpus of cross_attention took 0.8 CPU s with one thread, 1.0 with torch's default two at load 2.5 and 7.4 at
load 25; flash_attention's took 23 CPU s (24 s wall) with one thread and 54 CPU s (37 s wall) with two.
The variables reach every subprocess the tests start (grade.py, `attnlab`, pytest itself); torch is imported by
the attnlab plugin before this file is read, so its pool is set directly."""

import functools
import os
import sys
from pathlib import Path

for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(variable, "1")
if "torch" in sys.modules:
    sys.modules["torch"].set_num_threads(1)



def _course_parsed_once():
    """Test modules load spec/ at import, 37 of them in the fast tier, 0.09 CPU s each: the Course (frozen
    dataclasses) is kept per (assignment, framework) while no spec/*.yaml changes. Other spec dirs (the unit
    tests' edited copies) are parsed every time. Modules imported before this file keep their own binding."""
    from attnlab.core import paths, spec_load

    original, kept = spec_load.load_course, {}

    @functools.wraps(original)
    def load_course(spec_dir, assignment=None, framework=None):
        spec_dir = Path(spec_dir)
        if spec_dir.resolve() != paths.SPEC_DIR.resolve():
            return original(spec_dir, assignment, framework)
        stamp = tuple((p.name, p.stat().st_mtime_ns) for p in sorted(spec_dir.glob("*.yaml")))
        key = (assignment, framework, stamp)
        if key not in kept:
            kept[key] = original(spec_dir, assignment, framework)
        return kept[key]

    spec_load.load_course = load_course


_course_parsed_once()


def pytest_collection_modifyitems(config, items):
    """A spec case with a memory budget runs the exercise on a long sequence (flash_attention's 12288 tokens:
    151M scores, in tiles), tens of seconds each: `slow`, run by the full suite."""
    import pytest

    for item in items:
        spec = getattr(item, "spec", None)
        if getattr(item, "kind", None) == "case" and getattr(spec, "max_tensor_mb", None) is not None:
            item.add_marker(pytest.mark.slow)
