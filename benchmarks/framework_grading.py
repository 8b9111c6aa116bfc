"""What grading a framework's submissions costs beside torch's: the framework in a runner, and grade.py's rate.

    .venv-mindspore/bin/python benchmarks/framework_grading.py --framework mindspore   # about 3 minutes here
    .venv/bin/python benchmarks/framework_grading.py --framework numpy --copies 8

1. In a fresh interpreter set up as a runner is (torch and the harness imported first, then the adapter's
   warm() as the forkserver does, then prepare() and one call of the framework's reference softmax as the
   runner's first request): seconds for each step, resident memory (VmRSS) and address space (VmPeak, what
   grade.py's --memory caps) after each.
2. grade.py over K copies of reference/<framework>/ graded in that framework, then K copies of reference/
   graded in torch, same interpreter, same --jobs: wall seconds, seconds per submission, submissions/s.
The machine is shared: the load average is printed before and after. Prints; judges nothing.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OTHER_PACKAGES = shutil.ignore_patterns("__pycache__", "misconceptions", "numpy", "jax", "mindspore")  # in reference/

PROBE = """
import json, sys, time
def memory():
    fields = dict(line.split(":", 1) for line in open("/proc/self/status"))
    return {k: int(fields[k].split()[0]) // 1024 for k in ("VmRSS", "VmPeak")}
steps, t = [], time.perf_counter()
def step(name):
    global t
    now = time.perf_counter()
    steps.append({"step": name, "seconds": round(now - t, 3), **memory()})
    t = time.perf_counter()
import torch
from attnlab.core.impl import FileImpl, call_checked
from attnlab.core.frameworks import adapter
step("torch and the harness")
found = adapter(sys.argv[1])
found.warm()
step(f"import {sys.argv[1]} (forkserver warm)")
found.prepare()
from attnlab.core import paths
sys.path.insert(0, str(paths.ROOT))
module = "reference" if sys.argv[1] == "torch" else f"reference.{sys.argv[1]}"
softmax = __import__(f"{module}.softmax", fromlist=["run_softmax"]).run_softmax
call_checked(softmax, exercise="softmax", function="run_softmax", kwargs={"in_features": torch.randn(4, 8), "dim": -1},
             forbidden_calls=(), adapter=found)
step("prepare() and a first call")
print(json.dumps(steps))
"""


def runner_profile(framework: str) -> list[dict]:
    out = subprocess.run([sys.executable, "-c", PROBE, framework], cwd=ROOT, capture_output=True, text=True,
                         check=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    return json.loads(out.stdout.strip().splitlines()[-1])


def grade_rate(framework: str, copies: int, jobs: int, work: Path) -> tuple[float, float]:
    source = ROOT / "reference" if framework == "torch" else ROOT / "reference" / framework
    batch = work / f"class-{framework}"
    for i in range(copies):
        shutil.copytree(source, batch / f"student{i:02d}", ignore=OTHER_PACKAGES)
    start = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / "grade.py"), "--framework", framework, str(batch), "--out",
                    str(work / f"out-{framework}"), "--jobs", str(jobs), "--seed", "1"], cwd=ROOT, check=True,
                   capture_output=True)
    wall = time.perf_counter() - start
    scores = [json.loads(p.read_text())["score"] for p in (work / f"out-{framework}").glob("student*.json")]
    assert len(scores) == copies and all(s == 100 for s in scores), scores
    return wall, wall / copies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--framework", required=True)
    parser.add_argument("--copies", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}, {os.cpu_count()} CPUs")
    for framework in (args.framework, "torch"):
        print(f"\n{framework} in a runner (torch and the harness first, as the runner has them):")
        for s in runner_profile(framework):
            print(f"  {s['step']:<40} {s['seconds']:6.2f} s   RSS {s['VmRSS']:5d} MiB   "
                  f"address space {s['VmPeak']:5d} MiB")
    print(f"\ngrade.py, {args.copies} copies of the reference each, --jobs {args.jobs}:")
    with tempfile.TemporaryDirectory() as tmp:
        for framework in (args.framework, "torch"):
            wall, each = grade_rate(framework, args.copies, args.jobs, Path(tmp))
            print(f"  {framework:<10} {wall:6.1f} s   {each:5.2f} s per submission   {1 / each:5.2f} submissions/s")
    print(f"\nload average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
