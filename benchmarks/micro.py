"""The costs behind a few design decisions, measured on this machine (the docstrings say why, this says how much):

    python benchmarks/micro.py

- the forbidden-call guard per small operator that is not banned: none, the function layer, the function
  layer with the ATen layer (attnlab.core.forbidden: cases get both layers, laws only the function layer),
  as tripwires (attnlab.core.tripwires) and as the dispatch mode older torch gets;
- an interpreter's exit with torch imported, with and without gc.freeze at exit (attnlab.core.shutdown);
- parsing the specs with libyaml's loader and with the pure-Python one (attnlab.core.spec_load);
- the runner's round trip (judge -> runner -> judge) for one small call (attnlab.grade.judge.remote);
- the judge's verdict on one passing case (attnlab.core.checks: the margin, and the full comparison only
  when the margin is 1 or more), beside the full comparison alone.
"""

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def per_call(fn, repeat: int = 2000, rounds: int = 5) -> float:
    """Median over `rounds` of the mean seconds per call of fn()."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        times.append((time.perf_counter() - start) / repeat)
    return statistics.median(times)


def guard_costs() -> None:
    from attnlab.core import forbidden, tripwires

    x = torch.randn(8)
    names = ("torch.softmax", "aten._softmax")
    bare = per_call(lambda: x * 2)
    with forbidden.guard("bench", names, deep=False):
        function_layer = per_call(lambda: x * 2)
    with forbidden.guard("bench", names, deep=True):
        both = per_call(lambda: x * 2)
    available, tripwires.AVAILABLE = tripwires.AVAILABLE, False  # the dispatch mode older torch gets
    try:
        with forbidden.guard("bench", names, deep=True):
            with_mode = per_call(lambda: x * 2)
    finally:
        tripwires.AVAILABLE = available
    print(f"small operator: {bare * 1e6:.1f} us bare, {function_layer * 1e6:.1f} us under the function layer, "
          f"{both * 1e6:.1f} us under both layers ({'tripwires' if available else 'dispatch mode'}), "
          f"{with_mode * 1e6:.1f} us with the dispatch mode as the deep layer")


def compare_costs() -> None:
    from attnlab.core.compare import compare, excess
    from attnlab.core.spec import Tolerance

    tol = Tolerance(atol=1e-5, rtol=1e-4)
    for shape in ((3, 5), (2, 4, 16, 8), (4, 64, 64)):
        expected = torch.randn(shape, dtype=torch.float64)
        got = (expected + 1e-7).float()  # float32 output within tolerance of its float64 expected value
        case = per_call(lambda g=got, e=expected: excess(g, e, tol) >= 1 and compare(g, e, tol))
        full = per_call(lambda g=got, e=expected: compare(g, e, tol))
        print(f"a passing case, {'x'.join(map(str, shape))}: {case * 1e6:.1f} us (margin; the comparison "
              f"alone {full * 1e6:.1f} us)")


def exit_costs() -> None:
    plain = "import torch"
    frozen = "import atexit, gc, torch; atexit.register(gc.freeze)"
    for label, code in (("exit with torch", plain), ("exit with torch, gc.freeze at exit", frozen)):
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            runs.append(time.perf_counter() - start)
        print(f"{label}: median {statistics.median(runs):.2f} s (import included)")


def yaml_costs() -> None:
    texts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "spec").glob("*.yaml"))]
    for label, loader in (("libyaml", getattr(yaml, "CSafeLoader", yaml.SafeLoader)), ("pure Python", yaml.SafeLoader)):
        seconds = per_call(lambda loader=loader: [yaml.load(t, Loader=loader) for t in texts], repeat=5)
        print(f"parsing every spec, {label}: {seconds * 1e3:.1f} ms")


def round_trip() -> None:
    from attnlab.core import frameworks
    from attnlab.core.config import Limits
    from attnlab.grade.judge.remote import RemoteImpl
    from attnlab.grade.sandbox import forkserver

    with tempfile.TemporaryDirectory() as work:
        package = Path(work) / "pkg"
        package.mkdir()
        (package / "__init__.py").write_text("def run_id(x):\n    return x + 0\n")
        scratch = Path(work) / "scratch"
        scratch.mkdir()
        impl = RemoteImpl(package, name="bench", adapter=frameworks.default(), limits=Limits(timeout_s=60),
                          hidden_paths=[], scratch_root=scratch)
        try:
            impl.start()
            x = torch.ones(4)
            seconds = per_call(lambda: impl.call_many(exercise="id", module="m", function="run_id", calls=[{"x": x}],
                                                      forbidden_calls=()), repeat=200)
            print(f"runner round trip, one small call: {seconds * 1e3:.2f} ms")
        finally:
            impl.close()
            forkserver.shutdown()


if __name__ == "__main__":
    torch.set_num_threads(1)
    guard_costs()
    compare_costs()
    yaml_costs()
    exit_costs()
    round_trip()
