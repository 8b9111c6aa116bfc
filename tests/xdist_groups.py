"""Which in-process tests pytest-xdist keeps in one worker (README's `-n 2`): the tests of one parameter, and
each exercise's JAX tests.

- A corpus mutant's several tests (caught, diagnosed, not misdiagnosed) share one evaluation, cached per
  worker (tests/test_mutations.py): spread over two workers, both evaluated it.
- JAX compiles each operation per shape, and a worker keeps what it lowered and compiled in memory for the
  tests after: spread over two workers, both paid for the same programs.

The largest groups go first; every other test is a group of its own, handed out one by one as xdist's `load`
does. The in-process half, no JAX cache, this 2-core machine, back to back (2026-11-27, load 1.5-2.2): 331 s
and 605 CPU s with `load`, 296 s and 568 CPU s grouped."""

from pathlib import Path


def exercise_ids(spec_dir: Path) -> set[str]:
    """The names a JAX test's parameter may hold an exercise by: spec_dir's file stems."""
    return {path.stem for path in spec_dir.glob("*.yaml")}


def scope(nodeid: str, exercises: set[str]) -> str:
    """The group of the test `nodeid`: 'jax:<exercise>' for a JAX test, '<file>[<parameter>]' for another
    parametrised test, the nodeid itself for the rest."""
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
