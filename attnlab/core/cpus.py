"""How many CPUs this process may use: grade.py's default --jobs, and the similarity check's workers."""

import math
import os
from pathlib import Path


def usable_cpus() -> int:
    """How many CPUs this process may use, --jobs's default: those it may run on (its affinity: a Slurm job's
    cpuset, taskset's), and fewer where its cgroup's CPU quota allows less (Docker's --cpus, a Kubernetes
    limit; 1.5 CPUs count as 2). os.cpu_count() counts the host's: a container given 2 of 32 cores graded 32
    submissions at once."""
    count = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    quota = cgroup_cpu_quota()
    return max(1, min(count, math.ceil(quota))) if quota is not None else max(1, count)


def cgroup_cpu_quota(proc: Path = Path("/proc/self/cgroup"), mounts: Path = Path("/sys/fs/cgroup")) -> float | None:
    """The CPUs this process's CPU quota allows (cgroup v2's cpu.max; v1's cpu.cfs_quota_us over
    cpu.cfs_period_us), the smallest from its own cgroup up to the hierarchy's root; None where no quota is set.
    A container that sees its own cgroup as the root (a cgroup namespace, or Docker's v1 mounts) reads it there."""
    try:
        lines = proc.read_text().splitlines()
    except OSError:
        return None
    found = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers == "":  # v2: where the unified hierarchy is mounted (under "unified" on a hybrid system)
            roots, read = [mounts, mounts / "unified"], _v2_quota
        elif "cpu" in controllers.split(","):
            roots, read = [mounts / controllers, mounts / "cpu"], _v1_quota
        else:
            continue
        for root in roots:
            here = root / path.lstrip("/")
            for directory in [here, *here.parents]:
                if (quota := read(directory)) is not None:
                    found.append(quota)
                if directory == root:
                    break
    return min(found) if found else None


def _v2_quota(directory: Path) -> float | None:
    try:
        limit, period = (directory / "cpu.max").read_text().split()[:2]
        return None if limit == "max" else int(limit) / int(period)
    except (OSError, ValueError):
        return None


def _v1_quota(directory: Path) -> float | None:
    try:
        limit = int((directory / "cpu.cfs_quota_us").read_text())
        period = int((directory / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return limit / period if limit > 0 and period > 0 else None
