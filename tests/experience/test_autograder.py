"""dist/autograder.zip for Gradescope: layout, and run_autograder against a fake /autograder tree (the
current interpreter stands in for the venv setup.sh would make; setup.sh itself is not run here)."""

import json
import os
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from attnlab.core import paths
from attnlab.instructor.release import build_autograder
from attnlab.student.submit import build_submission

pytestmark = pytest.mark.e2e  # starts runners, grade.py, browsers or pytest processes

STUB = '    raise NotImplementedError("exercise softmax: implement run_softmax")\n'
SOFTMAX = ("    exps = torch.exp(in_features - in_features.amax(dim=dim, keepdim=True))\n"
           "    return exps / exps.sum(dim=dim, keepdim=True)\n")


@pytest.fixture(scope="module")
def autograder_zip(tmp_path_factory) -> Path:
    return build_autograder(out=tmp_path_factory.mktemp("dist"))


def fake_autograder(zip_path: Path, root: Path) -> Path:
    """root/source (the unpacked zip, modes kept), root/submission, root/results, like Gradescope."""
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(root / "source")
        for info in zf.infolist():
            os.chmod(root / "source" / info.filename, (info.external_attr >> 16) & 0o777)
    (root / "submission").mkdir()
    return root


def run_autograder(root: Path, python: str = sys.executable) -> dict:
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": python}
    done = subprocess.run([str(root / "source" / "run_autograder")], env=env, check=False,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((root / "results" / "results.json").read_text())


def test_zip_has_setup_and_run_autograder_at_its_root_and_the_full_grader(autograder_zip):
    with zipfile.ZipFile(autograder_zip) as zf:
        infos = {i.filename: i for i in zf.infolist()}
        setup, runner, requirements = (zf.read(name).decode() for name in ("setup.sh", "run_autograder",
                                                                          "requirements.txt"))
    for executable in ("setup.sh", "run_autograder"):
        assert (infos[executable].external_attr >> 16) & stat.S_IXUSR, executable
    for needed in ("grade.py", "attnlab/grade/judge/judge.py", "reference/__init__.py", "reference/quiz.yaml",
                   "spec/course.yaml", "requirements.txt", "finish_results.py"):
        assert needed in infos, needed
    assert setup.index("pip install torch==2.13.0") < setup.index("requirements.txt")
    assert "--gradescope" in runner and "results/results.json" in runner
    for text in (setup, runner, requirements):  # plain `pip install`: no registry host named anywhere
        assert "http" not in text and "index-url" not in text and "pypi" not in text.lower()


def test_a_submitted_zip_is_graded_into_results_json(autograder_zip, tmp_path):
    root = fake_autograder(autograder_zip, tmp_path / "autograder")
    package = tmp_path / "attention"
    package.mkdir()
    for source in paths.TEMPLATE_DIR.iterdir():
        if source.is_file():
            (package / source.name).write_text(source.read_text(encoding="utf-8").replace(STUB, SOFTMAX),
                                               encoding="utf-8")
    build_submission(package, out_dir=root / "submission", student="wei")  # what `attnlab submit` uploads
    results = run_autograder(root)
    tests = {t["name"]: t for t in results["tests"]}
    assert results["score"] == 8.0 and len(tests) == 13
    assert tests["softmax"]["status"] == "passed" and tests["softmax"]["score"] == 8.0
    assert tests["rope"]["score"] == 0 and "not_implemented" in tests["rope"]["output"]


def test_an_empty_submission_scores_zero_with_a_message(autograder_zip, tmp_path):
    results = run_autograder(fake_autograder(autograder_zip, tmp_path / "autograder"))
    assert results["score"] == 0 and all(t["score"] == 0 for t in results["tests"])
    assert "the submission is empty" in results["tests"][0]["output"]


def test_a_grader_that_cannot_start_still_leaves_a_valid_results_json(autograder_zip, tmp_path):
    root = fake_autograder(autograder_zip, tmp_path / "autograder")
    (root / "submission" / "__init__.py").write_text("")
    results = run_autograder(root, python=str(tmp_path / "no-such-python"))
    assert results["score"] == 0 and results["tests"] == []
    assert "could not grade this submission" in results["output"]


def test_without_any_python_the_fallback_is_still_valid_json(autograder_zip, tmp_path):
    root = fake_autograder(autograder_zip, tmp_path / "autograder")
    tools = tmp_path / "bin"  # a PATH with the shell tools run_autograder uses, and no python3
    tools.mkdir()
    for tool in ("bash", "env", "mktemp", "mkdir", "cat", "rm"):
        found = next(Path(d) / tool for d in ("/usr/bin", "/bin") if (Path(d) / tool).exists())
        (tools / tool).symlink_to(found)
    env = {"PATH": str(tools), "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": str(tmp_path / "none")}
    done = subprocess.run([str(tools / "bash"), str(root / "source" / "run_autograder")], env=env,
                          check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 0 and "could not grade this submission" in results["output"]
