"""How close correct code comes to an exercise's CPU limit: the framework's reference and every correct
alternative of the mutation corpus (tests/mutations/<exercise>/<framework>/alt_*.py), each checked in a fresh
interpreter, as a grading runner starts (JAX: no compilation cache, so everything compiles).

    .venv/bin/python benchmarks/corpus_cpu.py flash_attention --framework jax     # about 6 minutes here

For each entry: the CPU seconds of the entry's own calls (what grading counts against the limit: the runner's
time, not the judge's), in total and in the check that took most, beside attnlab.core.config.exercise_cpu_s.
The harness's own work between calls (inputs, expected values) is not counted. Prints; judges nothing.
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import json, sys
from pathlib import Path
sys.path.insert(0, "benchmarks")  # the probe runs in the repository's root
from call_timing import Counted
from attnlab.core import frameworks
from attnlab.core import config, paths
from attnlab.core.impl import FileImpl, InProcessImpl
from attnlab.core.scoring import make_context, run_cases, run_property
from attnlab.core.spec_load import load_course
from attnlab.core.status import Status

exercise_id, framework, entry = sys.argv[1:4]
exercise = load_course(paths.SPEC_DIR).find(exercise_id).in_framework(framework)
path = Path(entry)
loader = FileImpl if path.suffix == ".py" else InProcessImpl  # one corpus file, or a reference package
impl = Counted(loader(path, adapter=frameworks.adapter(framework)))
ctx = make_context(exercise, impl)
spent, rows = 0.0, []
cases = run_cases(ctx, list(exercise.cases))
checks = [(c.name, lambda: next(cases)) for c in exercise.cases]
checks += [(p.name, lambda p=p: run_property(ctx, p)) for p in exercise.properties]
for name, check in checks:
    result = check()
    ok = result.passed or result.status == Status.NOT_APPLICABLE
    rows.append({"check": name, "cpu_s": round(impl.cpu_s - spent, 2), "ok": ok})
    spent = impl.cpu_s
print(json.dumps({"limit_s": config.exercise_cpu_s(frameworks.adapter(framework)), "checks": rows}))
"""


def measure(exercise: str, framework: str, entry: Path) -> dict:
    env = {**os.environ, "JAX_COMPILATION_CACHE_DIR": "", "OMP_NUM_THREADS": "1", "PJRT_NPROC": "1"}
    out = subprocess.run([sys.executable, "-c", PROBE, exercise, framework, str(entry)], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exercise")
    parser.add_argument("--framework", default="torch")
    args = parser.parse_args()
    reference = ROOT / "reference" if args.framework == "torch" else ROOT / "reference" / args.framework
    corpus = ROOT / "tests" / "mutations" / args.exercise
    corpus = corpus if args.framework == "torch" else corpus / args.framework
    entries = [("reference", reference)] + [(p.stem, p) for p in sorted(corpus.glob("alt_*.py"))]
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for name, entry in entries:
        found = measure(args.exercise, args.framework, entry)
        total = sum(row["cpu_s"] for row in found["checks"])
        worst = max(found["checks"], key=lambda row: row["cpu_s"])
        failed = [row["check"] for row in found["checks"] if not row["ok"]]
        print(f"{args.framework}/{args.exercise}/{name}: {total:.1f} CPU s of {found['limit_s']:g} "
              f"({total / found['limit_s']:.0%}); most in {worst['check']} ({worst['cpu_s']:.1f} s)"
              + (f"; not passed: {', '.join(failed)}" if failed else ""))
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
