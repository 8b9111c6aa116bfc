"""Same code, same score: grade.py draws the hidden inputs from the course secret (attnlab.grade.batch.secret), so
two runs without --seed grade a partly wrong submission identically; rotating the secret changes the inputs; a
runner cannot read it (tests/adversarial/read_course_secret, run by test_adversarial.py at every level)."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attnlab.core import paths
from attnlab.grade.batch import secret

pytestmark = pytest.mark.e2e  # starts grade.py

GLOBAL_MAX = paths.ROOT / "tests" / "mutations" / "softmax" / "bug_global_max.py"
ATTACK = paths.ROOT / "tests" / "adversarial" / "read_course_secret" / "__init__.py"


def partly_wrong(root: Path) -> Path:
    """The reference whose softmax subtracts the whole tensor's maximum: right on most inputs, NaN on some."""
    package = root / "global_max"
    shutil.copytree(paths.EXAMPLES_DIR / "reference", package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(GLOBAL_MAX, package / "softmax.py")
    return package


def grade(*args, secret_file: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, secret.ENV: str(secret_file)}
    return subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), *map(str, args), "--jobs", "1"],
                          capture_output=True, text=True, timeout=600, env=env, cwd=paths.ROOT)


def scores(out: Path) -> tuple:
    result = json.loads((out / "global_max.json").read_text())
    return result["score"], [(e["id"], e["score"], e["feedback"]) for e in result["exercises"]]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    work = tmp_path_factory.mktemp("secret")
    package, key = partly_wrong(work), work / "key" / "course-secret"
    first, second = grade(package, "--out", work / "first", secret_file=key), None
    second = grade(package, "--out", work / "second", secret_file=key)
    return {"work": work, "package": package, "key": key, "first": first, "second": second}


def test_the_first_run_makes_the_secret_and_says_where(runs):
    assert runs["first"].returncode == 0, runs["first"].stderr[-2000:]
    assert f"made the course secret {runs['key']}" in runs["first"].stderr
    assert "made the course secret" not in runs["second"].stderr
    assert runs["key"].stat().st_mode & 0o777 == 0o600 and runs["key"].parent.stat().st_mode & 0o777 == 0o700


def test_two_runs_without_seed_grade_identically(runs):
    first, second = scores(runs["work"] / "first"), scores(runs["work"] / "second")
    assert first == second
    assert 0 < first[0] < 100  # partly wrong: some points lost, so the hidden inputs matter
    records = [json.loads((runs["work"] / d / "grading-run.json").read_text()) for d in ("first", "second")]
    value = secret.read(runs["key"])
    assert records[0] == records[1] == {"seed": secret.assignment_seed(value, "attention"),
                                        "secret": secret.fingerprint(value), "assignment": "attention",
                                        "framework": "torch"}


def test_a_rotated_secret_draws_other_inputs_and_an_old_output_dir_is_not_mixed(runs):
    work, key = runs["work"], runs["key"]
    rotated = subprocess.run([sys.executable, "-m", "attnlab.instructor.secret", "rotate"], capture_output=True,
                             text=True, env={**os.environ, secret.ENV: str(key)}, cwd=paths.ROOT)
    assert rotated.returncode == 0 and "a new course secret" in rotated.stdout
    value = secret.read(key)
    assert f"fingerprint {secret.fingerprint(value)}" in rotated.stdout
    refused = grade(runs["package"], "--out", work / "first", secret_file=key)
    assert refused.returncode == 2 and "was graded with another course secret" in refused.stderr
    forced = grade(runs["package"], "--out", work / "first", "--force", secret_file=key)
    assert forced.returncode == 0, forced.stderr[-2000:]
    record = json.loads((work / "first" / "grading-run.json").read_text())
    assert record == {"seed": secret.assignment_seed(value, "attention"), "secret": secret.fingerprint(value),
                      "assignment": "attention", "framework": "torch"}
    assert secret.assignment_seed(value, "attention") != secret.assignment_seed(value, "modern")


def test_the_attack_finds_a_secret_that_nothing_hides(tmp_path, monkeypatch):
    """The search tests/adversarial/read_course_secret runs inside the sandbox does find a secret where one is
    readable (here, in this unsandboxed process), so its finding nothing when graded means something."""
    spec = importlib.util.spec_from_file_location("read_course_secret", ATTACK)
    attack = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(attack)
    value = secret.write(Path("/tmp") / tmp_path.name / "course-secret")
    try:
        assert value.hex().encode() + b"\n" in attack.search()
    finally:
        shutil.rmtree(Path("/tmp") / tmp_path.name)
    monkeypatch.setenv("SOMETHING", value.hex())
    assert value.hex().encode() in attack.search()
