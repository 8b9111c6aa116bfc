"""What one runner costs before and after the checks: start (jail + import the submission), one call
under the forbidden-call guard, stop (kill + reap the pid namespace), for each launcher.

    python benchmarks/runner_startup.py [--repeats N]

Prints one JSON line per launcher: {"launcher", "seconds"} (the median of N runners, after one warm-up
runner that also starts the forkserver). Used by grading_throughput.py.
"""

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import torch

from attnlab.core import frameworks
from attnlab.core.config import Limits
from attnlab.grade.judge.remote import RemoteImpl

SUBMISSION = Path(__file__).resolve().parents[1] / "examples" / "submissions" / "reference"


def one_runner(launcher: str, scratch: Path) -> float:
    started = time.perf_counter()
    limits = Limits(launcher=launcher)
    with RemoteImpl(SUBMISSION, name="reference", adapter=frameworks.default(), limits=limits, hidden_paths=[],
                    scratch_root=scratch) as impl:
        [got] = impl.call_many(exercise="softmax", module="softmax", function="run_softmax",
                               calls=[{"in_features": torch.randn(2, 5), "dim": -1}],
                               forbidden_calls=("torch.softmax",))
        if isinstance(got, Exception):
            raise got
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="attnlab-startup-") as tmp:
        scratch = Path(tmp)
        scratch.chmod(0o755)  # the unprivileged runner user must reach its scratch dir
        for launcher in ("forkserver", "exec"):
            one_runner(launcher, scratch)
            times = [one_runner(launcher, scratch) for _ in range(args.repeats)]
            print(json.dumps({"launcher": launcher, "seconds": round(statistics.median(times), 4)}), flush=True)


if __name__ == "__main__":
    main()
