"""A MindSpore handout (`release handout --framework mindspore`) installs into a fresh virtual environment as its
README says (the CPU build of torch, then `pip install -e .`, which brings MindSpore and NumPy 1.x), and there
`attnlab status`, `attnlab check softmax` and `pytest` work: a new student goes from 0 to a passing softmax
written in MindSpore. MindSpore's wheel comes from .venv-mindspore/wheels (scripts/venv-mindspore keeps it),
everything else from the package index as for any student. Runs where MindSpore is installed
(.venv-mindspore: tests/test_mindspore_venv.py runs it there)."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attnlab.core import frameworks, paths
from attnlab.core.spec_load import load_course
from attnlab.instructor.release import PACKAGE, TORCH_PIN, build_handout

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(
    not frameworks.adapter("mindspore").available(),
    reason="mindspore is not installed here (scripts/venv-mindspore makes .venv-mindspore)")]

WHEELS = paths.ROOT / ".venv-mindspore" / "wheels"
STUB = '    raise NotImplementedError("exercise softmax: implement run_softmax")\n'
SOFTMAX = ("    shifted = in_features - in_features.max(axis=dim, keepdims=True)\n"
           "    exps = ops.exp(shifted)\n"
           "    return exps / exps.sum(axis=dim, keepdims=True)\n")


def run(*args, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ATTNLAB_IMPL", "VIRTUAL_ENV")}
    env["ATTNLAB_LANG"] = "en"
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def student(tmp_path_factory) -> tuple[Path, Path]:
    """(the fresh venv's bin/, the student's copy of the handout), installed as the handout's README says."""
    work = tmp_path_factory.mktemp("mindspore-handout")
    handout = build_handout(out=work / "dist", framework="mindspore")
    copy = shutil.copytree(handout, work / "student")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # --no-compile: what is installed is the same, and Python writes the bytecode of what the tests import as
    # it imports it (torch's and MindSpore's wheels, from pip's cache: 20 s here, against 47 s compiling all)
    pip = [venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--no-compile"]
    for step in ([*pip, TORCH_PIN], [*pip, *sorted(WHEELS.glob("mindspore-*.whl"))], [*pip, "-e", "."]):
        done = run(*step, cwd=copy)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return venv / "bin", copy


def test_the_handout_is_mindspores(student):
    bin_dir, copy = student
    assert "mindspore.Tensor" in (copy / PACKAGE / "softmax.py").read_text(encoding="utf-8")
    assert "mindspore" in (copy / "pyproject.toml").read_text(encoding="utf-8")
    readme = (copy / "README.md").read_text(encoding="utf-8")
    assert "You write **mindspore**" in readme and "no bfloat16" in readme and "nn.Cell" in readme
    versions = run(bin_dir / "python", "-c", "import mindspore, numpy; print(mindspore.__version__, numpy.__version__)",
                   cwd=copy)
    assert re.fullmatch(r"2\.\d+\.\d+ 1\.\d+\.\d+\n", versions.stdout), versions.stdout + versions.stderr[-2000:]


def test_a_new_student_goes_from_zero_to_a_passing_mindspore_softmax(student):
    bin_dir, copy = student
    total = sum(e.points for e in load_course(paths.SPEC_DIR, framework="mindspore").coded)
    fresh = run(bin_dir / "attnlab", "status", cwd=copy)
    assert re.search(rf"total \(visible checks\)\s+0\.00 / {total:g}\n", fresh.stdout), fresh.stdout + fresh.stderr

    softmax = copy / PACKAGE / "softmax.py"
    softmax.write_text(softmax.read_text(encoding="utf-8").replace(STUB, SOFTMAX), encoding="utf-8")
    check = run(bin_dir / "attnlab", "check", "softmax", cwd=copy)
    assert check.returncode == 0, check.stdout + check.stderr[-3000:]
    assert "not applicable in mindspore" in check.stdout  # the bfloat16 case, shown, not counted

    tests = run(bin_dir / "python", "-m", "pytest", "-q", "-m", "softmax", cwd=copy)
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-2000:]
    assert re.search(r"softmax\s+passed\s+\d+/\d+\s+8\.00 / 8\n", tests.stdout), tests.stdout[-2000:]
    everything = run(bin_dir / "python", "-m", "pytest", "-q", cwd=copy)
    assert everything.returncode == 1 and re.search(r"rope\s+not implemented", everything.stdout), everything.stdout
