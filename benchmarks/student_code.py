"""How much of a graded copy is the student's code itself, per framework: the floor under issue 23's ratios.

    .venv/bin/python benchmarks/student_code.py [--mindspore .venv-mindspore/bin/python]

Each framework's reference of the `attention` assignment is checked in a fresh interpreter, every coded
exercise with every check grading runs (run_checks, the run's seed as grade.py's `--seed`), and two CPU
times are summed over its calls:
- the student's code: inside the function the checks call (the reference's own code and the framework
  operations it runs, nothing of the harness);
- the calls: each call as the checks make it in-process (conversion to the framework and back, the
  forbidden-call guard, the in-place and aliasing checks, and the student's code).
A grading runner does the same calls, one fresh fork per submission, and grade.py adds the channel, the
fork and the judge's verdicts. So no change to the harness brings a framework's cost per submission below
its student-code line: where that line is already over 3x torch's whole marginal cost
(benchmarks/marginal.py), the 3x target of issue 23 is out of the harness's reach for that framework.
JAX runs twice, each time in a fresh interpreter: the first fills a compilation cache (the student's tools'
cache, in a temporary XDG_CACHE_HOME: yours is left alone), the second reads it and is timed, as a runner
reads the judge's filled cache. benchmarks/marginal.py prints these lines too. Prints; judges nothing.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED = 20261126

PROBE = """
import functools, gc, json, sys, time
sys.path.insert(0, "benchmarks")  # the probe runs in the repository's root
from call_timing import Counted
from attnlab.core import frameworks, paths
from attnlab.core.impl import InProcessImpl
from attnlab.core.scoring import make_context, run_checks
from attnlab.core.spec_load import load_course
from attnlab.core.status import EXCLUDED

framework, package, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
spent = {"student": 0.0, "calls_made": 0}

class Timed(InProcessImpl):  # the CPU time inside the package's own functions
    def _function(self, module, function):
        fn = super()._function(module, function)

        @functools.wraps(fn)
        def timed(*args, **kwargs):
            start = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent["student"] += time.process_time() - start
                spent["calls_made"] += 1
        return timed

course = load_course(paths.SPEC_DIR, "attention", framework)
adapter = frameworks.adapter(framework)
impl = Counted(Timed(package, adapter=adapter))  # and the calls' time, harness included
first = course.coded[0]
impl.inner._function(first.module, first.function)  # the framework set up and the package imported: not timed
gc.freeze()  # as the forkserver does before it forks a runner: collections skip what was there before
failed = []
start = time.process_time()
for exercise in course.coded:
    ctx = make_context(exercise, impl, fresh_seed=seed)
    for result in run_checks(ctx):
        if not result.passed and result.status not in EXCLUDED:
            failed.append(f"{exercise.id}/{result.name}: {result.status}")
spent["process"], spent["calls"] = time.process_time() - start, impl.cpu_s
spent["failed"] = failed
print(json.dumps(spent))
"""


def measure(python: str, framework: str, cache_home: Path) -> dict:
    """The reference's CPU seconds in one fresh interpreter (see the module's docstring)."""
    package = ROOT / "reference" if framework == "torch" else ROOT / "reference" / framework
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PJRT_NPROC": "1", "MKL_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "XDG_CACHE_HOME": str(cache_home)}
    done = subprocess.run([python, "-c", PROBE, framework, str(package), str(SEED)], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"the {framework} probe failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mindspore", default=None, help="a python with mindspore (its own venv)")
    parser.add_argument("--no-jax", action="store_true")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}", flush=True)
    report(jax=not args.no_jax, mindspore=args.mindspore)
    print(f"load average after: {os.getloadavg()}")
    return 0


def report(*, jax: bool, mindspore: str | None) -> dict[str, dict]:
    """Measure and print each framework's lines; returns them by framework."""
    runs = [(sys.executable, "torch")] + ([(sys.executable, "jax")] if jax else [])
    runs += [(mindspore, "mindspore")] if mindspore else []
    found = {}
    with tempfile.TemporaryDirectory(prefix="attnlab-student-code-") as cache_home:
        for python, framework in runs:
            if framework == "jax":
                measure(python, framework, Path(cache_home))  # fills the compilation cache; the next run reads it
            found[framework] = got = measure(python, framework, Path(cache_home))
            print(f"  {framework:<10} student's code {got['student']:6.2f} CPU s, the calls {got['calls']:6.2f} "
                  f"CPU s ({got['calls_made']} calls), everything in-process {got['process']:6.2f} CPU s"
                  + (f"; NOT PASSED: {got['failed'][:5]}" if got["failed"] else ""), flush=True)
    torch = found["torch"]
    for framework, got in found.items():
        if framework != "torch":
            print(f"  {framework} / torch: student's code {got['student'] / torch['student']:.1f}x, "
                  f"the calls {got['calls'] / torch['calls']:.1f}x", flush=True)
    return found


if __name__ == "__main__":
    sys.exit(main())
