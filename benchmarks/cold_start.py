"""How long a student waits for `attnlab status`, `check`, `hint` and `submit`: each started as a fresh
process (nothing imported yet), the wall clock and the CPU time it used, median of N runs.

    python benchmarks/cold_start.py [--repeats N] [--root CHECKOUT]

Two ways to start cold: "first run" reads no bytecode of attnlab or the specs (as right after install, or
wherever PYTHONDONTWRITEBYTECODE is set), "bytecode" after one run has written it. `import torch` alone is
printed first: no command that runs checks can start faster. --root measures another checkout (e.g. an
older commit unpacked with `git archive`) with this interpreter, for a before/after in one run.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = {  # as a student runs them, on the repository's packages
    "status": ["status", "--impl", "student_template"],
    "check": ["check", "softmax", "--impl", "examples/submissions/bob_buggy"],
    "hint": ["hint", "softmax"],
    "submit": ["submit", "--impl", "student_template", "--name", "bench", "-o", "{tmp}"],
}


def timed(argv: list[str], *, root: Path, env: dict) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) for one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median_of(argv: list[str], *, root: Path, env: dict, repeats: int) -> tuple[float, float]:
    runs = [timed(argv, root=root, env=env) for _ in range(repeats)]
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def environment(root: Path, bytecode: Path | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("ATTNLAB_IMPL", "PYTHONPYCACHEPREFIX")}
    env.update(PYTHONPATH=str(root), ATTNLAB_LANG="en")
    if bytecode is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:  # a private bytecode cache, written by a warm-up run
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(bytecode)
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    opts = parser.parse_args()
    root = opts.root.resolve()
    print(f"{root}: load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    with tempfile.TemporaryDirectory(prefix="attnlab-cold-") as tmp:
        wall, cpu = median_of([sys.executable, "-c", "import torch"], root=root, env=environment(root, None),
                              repeats=opts.repeats)
        print(f"{'import torch':<8} {'':<10} wall {wall:5.2f} s  CPU {cpu:5.2f} s", flush=True)
        for mode, bytecode in (("first run", None), ("bytecode", Path(tmp) / "pycache")):
            for name, args in COMMANDS.items():
                argv = [sys.executable, "-m", "attnlab.student.cli", *(a.format(tmp=tmp) for a in args)]
                env = environment(root, bytecode)
                if bytecode is not None:
                    timed(argv, root=root, env=env)  # writes the bytecode
                wall, cpu = median_of(argv, root=root, env=env, repeats=opts.repeats)
                print(f"{name:<8} {mode:<10} wall {wall:5.2f} s  CPU {cpu:5.2f} s", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
