"""Which in-process tests pytest-xdist keeps in one worker (README's `-n 2`): the tests of one parameter, and
each exercise's JAX tests.

- A corpus mutant's several tests (caught, diagnosed, not misdiagnosed) share one evaluation, cached per
  worker (tests/test_mutations.py): spread over two workers, both evaluated it.
- JAX compiles each operation per shape, and a worker keeps what it lowered and compiled in memory for the
  tests after: spread over two workers, both paid for the same programs.

The largest groups go first; every other test is a group of its own, handed out one by one as xdist's `load`
does. The in-process half, no JAX cache, this 2-core machine, back to back (2026-11-27, load 1.5-2.2): 331 s
and 605 CPU s with `load`, 296 s and 568 CPU s grouped.

Each worker also computes on one thread (one_thread_each): the workers already fill the cores.
"""

import os
from pathlib import Path

# the environment xdist's workers start with: one thread each for torch's and NumPy's pools (OpenMP, MKL,
# OpenBLAS) and XLA's (PJRT_NPROC). With two workers on two cores, pools of two threads each made the
# in-process half 7 % slower (2026-11-28, no JAX cache, alternating runs: 335 and 365 s; 313 and 338 s)
ONE_THREAD_EACH = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PJRT_NPROC": "1"}


def one_thread_each(config) -> None:
    """In the process that starts xdist's workers (`-n`; they start after pytest_configure, with its
    environment), ONE_THREAD_EACH, but for a variable set already."""
    if getattr(config.option, "numprocesses", None) and not os.environ.get("PYTEST_XDIST_WORKER"):
        for name, value in ONE_THREAD_EACH.items():
            os.environ.setdefault(name, value)


# files whose tests share this machine's grading state (runs' lock files, the runner uids, file modes a run
# changed): a test sweeping or leasing in one worker kills or takes what a test in the other is looking at (a
# dead run's leftover process, killed by the other worker's sweep: clean-clone run 62, and 1 in 6 runs of the
# file alone on two workers). Their tests are one group, run one after the other.
ONE_WORKER_FILES = ("tests/unit/test_sandbox_host.py",)


def exercise_ids(spec_dir: Path) -> set[str]:
    """The names a JAX test's parameter may hold an exercise by: spec_dir's file stems."""
    return {path.stem for path in spec_dir.glob("*.yaml")}


def scope(nodeid: str, exercises: set[str]) -> str:
    """The group of the test `nodeid`: its file for a file of ONE_WORKER_FILES, 'jax:<exercise>' for a JAX test,
    '<file>[<parameter>]' for another parametrised test, the nodeid itself for the rest."""
    if (path := nodeid.partition("::")[0]) in ONE_WORKER_FILES:
        return path
    params = nodeid.partition("[")[2].rstrip("]")
    if not params:
        return nodeid
    words = params.replace("-", "/").split("/")
    if "jax" in words:
        return "jax:" + next((w for w in words if w in exercises), params)
    return f"{nodeid.partition('::')[0]}[{params}]"


def scheduler(config, log, spec_dir: Path):
    """xdist's loadscope scheduling with scope() as its groups."""
    from xdist.scheduler import LoadScopeScheduling

    exercises = exercise_ids(spec_dir)

    class SharedParameters(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope(nodeid, exercises)

    return SharedParameters(config, log)
