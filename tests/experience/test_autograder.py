"""dist/autograder.zip for Gradescope: layout; run_autograder against a fake /autograder tree (the current
interpreter stands in for the venv setup.sh would make), within its time budget; and setup.sh itself, with
apt-get and pip stubbed out but its self-test real, passing here and failing a build that would run student
code as root (simulations.py) or lose the reference points."""

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
import simulations

from attnlab.core import frameworks, paths
from attnlab.core.i18n import t
from attnlab.grade.batch import secret
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


def run_autograder(root: Path, python: str = sys.executable, **env_vars: str) -> dict:
    # as on Gradescope: the course secret is the one the zip carries, not this test session's
    env = {**{k: v for k, v in os.environ.items() if k != secret.ENV}, "AUTOGRADER_ROOT": str(root),
           "AUTOGRADER_PYTHON": python, **env_vars}
    done = subprocess.run([str(root / "source" / "run_autograder")], env=env, check=False,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((root / "results" / "results.json").read_text())


def submission_with(root: Path, tmp_path: Path, replacements: dict[str, str]) -> None:
    """The template with `replacements` (stub line -> body) made, uploaded as `attnlab submit` would."""
    package = tmp_path / "attention"
    package.mkdir()
    for source in paths.template_dir(frameworks.default()).iterdir():
        if source.is_file():
            text = source.read_text(encoding="utf-8")
            for stub, body in replacements.items():
                text = text.replace(stub, body)
            (package / source.name).write_text(text, encoding="utf-8")
    build_submission(package, out_dir=root / "submission", student="wei")  # what `attnlab submit` uploads


def test_zip_has_setup_and_run_autograder_at_its_root_and_the_full_grader(autograder_zip):
    with zipfile.ZipFile(autograder_zip) as zf:
        infos = {i.filename: i for i in zf.infolist()}
        setup, runner, requirements = (zf.read(name).decode() for name in ("setup.sh", "run_autograder",
                                                                          "requirements.txt"))
    for executable in ("setup.sh", "run_autograder"):
        assert (infos[executable].external_attr >> 16) & stat.S_IXUSR, executable
    for needed in ("grade.py", "attnlab/grade/judge/judge.py", "reference/__init__.py", "reference/quiz.yaml",
                   "spec/course.yaml", "requirements.txt", "finish_results.py", "self_test.py",
                   "student_template/softmax.py"):
        assert needed in infos, needed
    assert setup.index('pip install ${TORCH_INDEX:+--index-url "$TORCH_INDEX"} torch==2.13.0') < setup.index(
        "requirements.txt") < setup.index("self_test.py")
    assert 'TORCH_INDEX="${ATTNLAB_TORCH_INDEX:-}"' in setup  # no index unless the instructor names one
    assert "--gradescope" in runner and "results/results.json" in runner and "--budget" in runner
    for text in (setup, runner, requirements):  # no registry host named anywhere
        assert "http" not in text and "pypi" not in text.lower()


def test_the_release_carries_the_course_secret_and_grades_each_upload_alike(autograder_zip, tmp_path):
    """Gradescope passes no seed: the zip's course secret decides the hidden inputs, so two students handing in
    the same partly wrong code, or one re-uploading it, get the same score."""
    with zipfile.ZipFile(autograder_zip) as zf:
        info = zf.getinfo(".attnlab/course-secret")
        carried = bytes.fromhex(zf.read(info).decode())
    assert (info.external_attr >> 16) & 0o777 == 0o600 and carried == secret.read(secret.secret_file())
    package = tmp_path / "attention"
    shutil.copytree(paths.EXAMPLES_DIR / "reference", package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(paths.ROOT / "tests" / "mutations" / "softmax" / "bug_global_max.py", package / "softmax.py")
    graded = []
    for upload in ("first", "second"):
        root = fake_autograder(autograder_zip, tmp_path / upload)
        build_submission(package, out_dir=root / "submission", student="wei")
        results = run_autograder(root)
        graded.append((results["score"], [(t["name"], t["score"], t["output"]) for t in results["tests"]]))
    assert graded[0] == graded[1] and 0 < graded[0][0] < 100


def test_a_submitted_zip_is_graded_into_results_json(autograder_zip, tmp_path):
    root = fake_autograder(autograder_zip, tmp_path / "autograder")
    submission_with(root, tmp_path, {STUB: SOFTMAX})
    results = run_autograder(root)
    tests = {t["name"]: t for t in results["tests"]}
    assert results["score"] == 8.0 and len(tests) == 13
    assert tests["softmax"]["status"] == "passed" and tests["softmax"]["score"] == 8.0
    assert tests["rope"]["score"] == 0 and "not_implemented" in tests["rope"]["output"]


def test_an_empty_submission_scores_zero_with_a_message(autograder_zip, tmp_path):
    results = run_autograder(fake_autograder(autograder_zip, tmp_path / "autograder"))
    assert results["score"] == 0 and results["tests"] == [] and results["extra_data"]["graded"] is False
    assert results["output"].startswith("NOT GRADED:") and "the submission is empty" in results["output"]


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


SPIN = "    while True:\n        pass\n"
NOT_REACHED = t("autograder.not_reached", "en")


def test_run_autograder_stops_at_its_budget_and_keeps_what_finished(autograder_zip, tmp_path):
    """A submission that computes forever in its second exercise, with a per-exercise limit longer than the
    whole budget: grade.py is killed at the budget, and results.json still holds the first exercise's points,
    and every other exercise at 0 saying why."""
    root = fake_autograder(autograder_zip, tmp_path / "autograder")
    spin = "    raise NotImplementedError(\"exercise simple_self_attention: implement run_simple_self_attention\")\n"
    submission_with(root, tmp_path, {STUB: SOFTMAX, spin: SPIN})
    started = time.monotonic()
    results = run_autograder(root, ATTNLAB_TIME_BUDGET_S="15", ATTNLAB_EXERCISE_TIMEOUT_S="300")
    assert time.monotonic() - started < 15 + 15  # the budget, then the wrapper ending the run
    tests = {test["name"]: test for test in results["tests"]}
    assert len(tests) == 13 and results["score"] == 8.0
    assert tests["softmax"]["status"] == "passed" and tests["softmax"]["score"] == 8.0
    for name in ("simple_self_attention", "rope"):
        assert tests[name]["score"] == 0 and NOT_REACHED in tests[name]["output"]


def test_grade_py_starts_no_exercise_after_its_budget(tmp_path):
    """Every exercise computes forever and runs out its 2 s of CPU time; after 10 s no exercise starts
    (grade.py's start counts: it is part of the run)."""
    package = tmp_path / "spinner"
    package.mkdir()
    for source in paths.TEMPLATE_DIR.iterdir():
        if source.is_file():
            text = re.sub(r"    raise NotImplementedError\(.*\)\n", SPIN, source.read_text(encoding="utf-8"))
            (package / source.name).write_text(text, encoding="utf-8")
    started = time.monotonic()
    done = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), str(package), "--out", str(tmp_path / "out"),
                           "--budget", "10", "--timeout", "2", "--gradescope"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert time.monotonic() - started < 10 + 16 + 10  # the budget, one exercise's backstop, the end
    exercises = json.loads((tmp_path / "out" / "spinner.json").read_text())["exercises"]
    statuses = [(e["status"], NOT_REACHED in e["feedback"]) for e in exercises if e["id"] != "quiz"]
    assert statuses[0] == ("timeout", False)  # graded: its CPU time ran out
    assert statuses[-1] == ("timeout", True)  # never started
    assert sorted(statuses, key=lambda s: s[1]) == statuses  # graded ones first, then only unreached ones
    assert (tmp_path / "out" / "results.json").exists()
    assert list((tmp_path / "out" / "gradescope").glob("*.partial.json")) == []  # replaced by the final one


# -- setup.sh, as Gradescope runs it at image build: apt-get and pip stubbed, the self-test real ------
def stubs(tmp_path: Path) -> tuple[Path, Path]:
    """A bin dir whose apt-get does nothing and whose python3 -m venv makes a venv whose python logs pip
    installs instead of making them and runs everything else with this interpreter; and the pip log."""
    bin_dir, log = tmp_path / "stubs", tmp_path / "pip.log"
    bin_dir.mkdir()
    (bin_dir / "apt-get").write_text("#!/bin/sh\nexit 0\n")
    venv_python = (f'#!/bin/sh\nif [ "$1" = -m ] && [ "$2" = pip ]; then echo "$@" >> {log}; exit 0; fi\n'
                   f'exec {sys.executable} "$@"\n')
    (bin_dir / "python3").write_text(
        f'#!/bin/sh\n[ "$1" = -m ] && [ "$2" = venv ] || exit 1\nmkdir -p "$3/bin"\n'
        f"cat > \"$3/bin/python\" <<'STUB'\n{venv_python}STUB\nchmod +x \"$3/bin/python\"\n")
    for stub in bin_dir.iterdir():
        stub.chmod(0o755)
    return bin_dir, log


def run_setup(root: Path, tmp_path: Path, prefix: list[str] = (), **env_vars: str) -> tuple[subprocess.CompletedProcess,
                                                                                          str]:
    bin_dir, log = stubs(tmp_path)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "AUTOGRADER_ROOT": str(root), **env_vars}
    done = subprocess.run([*prefix, "bash", str(root / "source" / "setup.sh")], env=env, capture_output=True,
                          text=True, timeout=900, check=False)
    return done, log.read_text() if log.exists() else ""


def test_setup_passes_its_self_test_here_and_installs_torch_from_the_named_index(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNLAB_TORCH_INDEX", "file:///srv/wheels/cpu")  # baked into setup.sh as its default
    zip_path = build_autograder(out=tmp_path / "dist")
    monkeypatch.delenv("ATTNLAB_TORCH_INDEX")
    done, pip = run_setup(fake_autograder(zip_path, tmp_path / "autograder"), tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "self-test passed: the reference scores 100 of 100" in done.stdout
    assert f"isolation {simulations.expected_level('here')}" in done.stdout
    assert "-m pip install --index-url file:///srv/wheels/cpu torch==2.13.0" in pip
    assert re.search(r"-m pip install -r \S+/requirements.txt", pip) and pip.count("index-url") == 1


def test_setup_fails_a_build_that_would_run_student_code_as_root(autograder_zip, tmp_path):
    done, _ = run_setup(fake_autograder(autograder_zip, tmp_path / "autograder"), tmp_path,
                        simulations.prefix("no-setuid"))
    assert done.returncode != 0
    assert t("autograder.selftest_refused", "en") in done.stderr
    assert "student code would run as root (missing capabilities: CAP_SETGID, CAP_SETUID)" in done.stdout


def test_setup_fails_a_build_where_the_reference_loses_points(autograder_zip, tmp_path):
    done, _ = run_setup(fake_autograder(autograder_zip, tmp_path / "autograder"), tmp_path,
                        ATTNLAB_EXERCISE_TIMEOUT_S="0.001")
    assert done.returncode != 0
    assert "self-test failed: the reference scored" in done.stderr and "not full marks" in done.stderr
