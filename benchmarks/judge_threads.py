"""What grade.py's default --jobs 2 loses to its two judge threads sharing one interpreter.

    python benchmarks/judge_threads.py [--rounds 3] [--extra 20]

At --jobs 2 grade.py grades two submissions at once in two threads of one process, each with its runner on its
own CPU; the two judges' Python shares one interpreter lock. This grades 2 and 2 + EXTRA copies of the torch
reference of the `attention` assignment both ways, the two ways alternating round by round:
  threads    one grade.py at --jobs 2 (what an instructor gets);
  processes  two grade.py at --jobs 1 side by side, each on half the copies (each leases its own CPU),
             what a judge process per worker would come close to.
It prints the marginal wall seconds per copy of each round and their medians, the load average and a fixed
Python loop's time before and after (marginal.py's), and judges nothing. On 2026-11-28 (load 1-3) the threads
took 126-174 ms a copy, the processes 70-185 ms (medians of three 141-154 against 81-123, by hand at 09:21 and
10:30); this script at 10:57, two rounds: threads 167 and 147 ms, processes 119 and 81.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from marginal import ROOT, SEED, copies, machine_speed


def graded_in(groups: list[list[Path]], out: Path) -> float:
    """Wall seconds for one grade.py per group of copies, all at once (--jobs 2 for one group, 1 for several)."""
    jobs = "2" if len(groups) == 1 else "1"
    start = time.perf_counter()
    running = [subprocess.Popen([sys.executable, "grade.py", *map(str, group), "--framework", "torch", "--assignment",
                                 "attention", "--seed", SEED, "--jobs", jobs, "--out", str(out / f"out{i}")],
                                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
               for i, group in enumerate(groups)]
    for proc in running:
        _, err = proc.communicate()
        if proc.returncode != 0:
            sys.exit(f"grade.py failed:\n{err[-3000:]}")
    return time.perf_counter() - start


def marginal(subs: list[Path], extra: int, split: bool, work: Path) -> float:
    """Seconds of wall per copy: 2 + extra copies against 2, graded in one process or split in two."""
    walls = []
    for count in (2, 2 + extra):
        chosen = subs[:count]
        groups = [chosen[: count // 2], chosen[count // 2:]] if split else [chosen]
        out = work / f"out-{count}-{'processes' if split else 'threads'}"
        shutil.rmtree(out, ignore_errors=True)
        walls.append(graded_in(groups, out))
    return (walls[1] - walls[0]) / extra


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--extra", type=int, default=20, help="copies beyond the first 2 (even)")
    opts = parser.parse_args()
    print(f"load average before: {os.getloadavg()}; a fixed Python loop: {machine_speed():.2f} s", flush=True)
    with tempfile.TemporaryDirectory(prefix="judge-threads-") as tmp:
        work = Path(tmp)
        subs = copies(ROOT / "reference", 2 + opts.extra, work / "class")
        found: dict[str, list[float]] = {"threads": [], "processes": []}
        for _ in range(opts.rounds):
            for way in found:
                found[way].append(marginal(subs, opts.extra, way == "processes", work))
                print(f"  {way:<10} {found[way][-1] * 1000:5.0f} ms a copy", flush=True)
    for way, seconds in found.items():
        print(f"{way:<10} median {statistics.median(seconds) * 1000:5.0f} ms a copy "
              f"({', '.join(f'{s * 1000:.0f}' for s in seconds)})")
    print(f"load average after: {os.getloadavg()}; the fixed Python loop: {machine_speed():.2f} s")


if __name__ == "__main__":
    main()
