"""grade.py's contract: outputs other tools read, exit codes, resume, determinism, kill-safety."""

import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from attnlab.core import frameworks, paths
from attnlab.core.spec_load import load_course
from attnlab.grade.batch.outputs import ORIGIN_COLUMNS

pytestmark = pytest.mark.e2e  # starts runners, grade.py, browsers or pytest processes

GRADE = [sys.executable, str(paths.ROOT / "grade.py")]
EXERCISE_IDS = [e.id for e in load_course(paths.SPEC_DIR).exercises]


def grade(*args, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run([*GRADE, *map(str, args)], capture_output=True, text=True, timeout=timeout,
                          cwd=paths.ROOT)


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """The reference, a partial submission and a broken zip, graded once with a fixed seed; with --jobs far above
    the three submissions (and the 900 runner uids), as an instructor may ask on a large machine."""
    work = tmp_path_factory.mktemp("cli")
    broken = work / "broken.zip"
    broken.write_bytes(b"not a zip at all")
    out = work / "out"
    proc = grade(paths.REFERENCE_DIR, paths.EXAMPLES_DIR / "alice_partial", broken, "--out", out, "--seed", "5",
                 "--gradescope", "--jobs", "1000")
    return {"proc": proc, "out": out, "work": work}


def load(out: Path, name: str) -> dict:
    return json.loads((out / f"{name}.json").read_text())


def test_exit_zero_whatever_the_scores(batch):
    assert batch["proc"].returncode == 0, batch["proc"].stderr[-2000:]


def test_no_more_workers_than_submissions(batch):
    """--jobs 1000 stopped with a traceback (only 900 runner uids), and every worker leased a uid whether or not it
    had a submission to grade (--jobs 200 for two submissions: 5.6 s against 2.6)."""
    assert batch["proc"].returncode == 0, batch["proc"].stderr[-2000:]
    if os.geteuid() != 0:
        pytest.skip("runners get uids of their own only where grade.py runs as root")
    header = batch["proc"].stderr.splitlines()[0]
    assert len(re.search(r"runner uids ([0-9, ]+)", header).group(1).split(",")) == 3, header


def test_result_json_schema(batch):
    data = load(batch["out"], "reference")
    assert set(data) == {"submission", "score", "max_score", "exercises", "started_at", "duration_s",
                         "harness_version", "assignment", "framework", "origin", "not_graded", "notebook",
                         "source_digest", "checks_digest"}
    assert re.fullmatch(r"[0-9a-f]{32}", data["source_digest"])
    assert data["assignment"] == "attention" and data["framework"] == "torch" and data["not_graded"] is None
    assert data["notebook"] is None  # a package, not a notebook
    assert data["submission"] == "reference" and data["score"] == data["max_score"] == 100
    assert data["origin"] == {"layout": "single", "path": str(paths.REFERENCE_DIR), "submission_id": None,
                              "late": None, "submitters": []}
    assert [e["id"] for e in data["exercises"]] == EXERCISE_IDS
    for e in data["exercises"]:
        assert {"id", "function", "score", "max_score", "status", "feedback"} <= set(e)
        assert e["status"] == "passed"
        assert e["function"] == (None if e["id"] == "quiz" else f"run_{e['id']}")
        # per-check outcomes, for the class report's item analysis
        assert e["checks"] and all(set(c) == {"name", "kind", "visible", "passed", "status", "diagnosis"}
                                   and c["passed"] and c["status"] == "passed" for c in e["checks"])
    checks = [c for e in data["exercises"] for c in e["checks"]]
    assert {c["kind"] for c in checks} == {"case", "property"} and {c["visible"] for c in checks} == {True, False}


def test_broken_upload_is_graded_with_a_message(batch):
    data = load(batch["out"], "broken")
    assert data["score"] == 0 and "not a readable zip" in data["not_graded"]  # its 0 is no grade
    assert all(e["status"] == "error" and "not a readable zip" in e["feedback"] for e in data["exercises"])


def test_summary_csv_has_a_row_per_submission_and_a_column_per_exercise(batch):
    rows = list(csv.DictReader((batch["out"] / "summary.csv").open(encoding="utf-8-sig")))
    assert [r["submission"] for r in rows] == ["alice_partial", "broken", "reference"]
    assert list(rows[0])[3:3 + len(EXERCISE_IDS)] == EXERCISE_IDS
    assert tuple(rows[0])[3 + len(EXERCISE_IDS):] == ORIGIN_COLUMNS  # who and where from, after the scores
    assert rows[1]["layout"] == "single" and rows[1]["source"] == str(batch["work"] / "broken.zip")
    assert rows[1]["score"] == "" and "not a readable zip" in rows[1]["not_graded"]
    assert float(rows[2]["score"]) == 100 and float(rows[0]["softmax"]) == 8


def test_gradescope_results(batch):
    data = json.loads((batch["out"] / "gradescope" / "alice_partial.json").read_text())
    assert data["score"] == load(batch["out"], "alice_partial")["score"]
    assert [t["name"] for t in data["tests"]] == EXERCISE_IDS
    for test in data["tests"]:
        assert {"name", "score", "max_score", "status", "output", "visibility"} <= set(test)
        assert test["status"] in ("passed", "failed")


def test_rerun_skips_finished_and_force_regrades_identically(batch):
    out = batch["out"]
    before = load(out, "reference")
    again = grade(paths.REFERENCE_DIR, "--out", out)
    assert again.returncode == 0 and "grading 0 of 1" in again.stderr
    assert load(out, "reference") == before
    forced = grade(paths.REFERENCE_DIR, "--out", out, "--force", "--seed", "5")
    assert forced.returncode == 0
    after = load(out, "reference")
    for volatile in ("started_at", "duration_s"):
        before.pop(volatile), after.pop(volatile)
    assert after == before


def test_same_seed_same_results_for_a_partial_submission(batch, tmp_path):
    proc = grade(paths.EXAMPLES_DIR / "alice_partial", "--out", tmp_path, "--seed", "5")
    assert proc.returncode == 0
    first, second = load(batch["out"], "alice_partial"), load(tmp_path, "alice_partial")
    for data in (first, second):
        data.pop("started_at"), data.pop("duration_s")
    assert first == second


def test_a_rerun_grades_again_what_changed_since_it_was_graded(tmp_path):
    """A rerun keeps finished results. An export downloaded again into the same folder, with one student's new
    attempt and another's package now where it belongs, kept both old results: the first student's old score
    and the second's "not graded"."""
    for name in ("same", "resubmitted"):
        paths.copy_template(tmp_path / "class" / name, frameworks.default())
    (tmp_path / "class" / "misplaced" / "notes").mkdir(parents=True)  # no package yet
    (tmp_path / "class" / "misplaced" / "notes" / "todo.txt").write_text("finish softmax\n")
    out = tmp_path / "out"
    first = grade(tmp_path / "class", "--out", out, "--seed", "3")
    assert first.returncode == 0, first.stderr[-2000:]
    before = {name: load(out, name) for name in ("same", "resubmitted", "misplaced")}
    assert before["misplaced"]["not_graded"] and before["resubmitted"]["score"] == 0
    shutil.copy(paths.REFERENCE_DIR / "softmax.py", tmp_path / "class" / "resubmitted" / "softmax.py")
    paths.copy_template(tmp_path / "class" / "misplaced" / "attention", frameworks.default())
    rerun = grade(tmp_path / "class", "--out", out, "--seed", "3")
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    assert "grading 2 of 3 submissions (1 already done; 2 changed since graded, graded again)" in rerun.stderr
    assert load(out, "same") == before["same"]
    softmax = {e["id"]: e for e in load(out, "resubmitted")["exercises"]}["softmax"]
    assert softmax["status"] == "passed"
    assert not load(out, "misplaced")["not_graded"]
    assert load(out, "resubmitted")["source_digest"] != before["resubmitted"]["source_digest"]
    # graded with other limits (or specs, a reference, a grader: checks_digest): all graded again, none kept
    stricter = grade(tmp_path / "class", "--out", out, "--seed", "3", "--timeout", "45")
    assert stricter.returncode == 0, stricter.stderr[-2000:]
    assert ("grading 3 of 3 submissions (0 already done; 3 graded with other specs, reference, grader or limits, "
            "graded again)") in stricter.stderr
    assert load(out, "same")["checks_digest"] != before["same"]["checks_digest"]
    assert load(out, "same")["score"] == before["same"]["score"]


def test_killing_grade_py_loses_nothing_finished(tmp_path):
    subs = []
    for i in range(3):
        paths.copy_template(tmp_path / f"s{i}", frameworks.default())
        subs.append(tmp_path / f"s{i}")
    out = tmp_path / "out"
    proc = subprocess.Popen([*GRADE, *map(str, subs), "--out", str(out), "--jobs", "1", "--seed", "3"],
                            cwd=paths.ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while not list(out.glob("s*.json")) and time.monotonic() < deadline:
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = [p.name for p in out.glob("s*.json")]
    assert finished
    for name in finished:
        json.loads((out / name).read_text())  # complete, never half-written
    rerun = grade(*subs, "--out", out)
    # the header (run alone, the line before it says the course secret was made: no earlier test made one)
    header = next(line for line in rerun.stderr.splitlines() if line.startswith("grading "))
    assert rerun.returncode == 0 and f"{3 - len(finished)} of 3" in header
    assert sorted(p.name for p in out.glob("s*.json")) == ["s0.json", "s1.json", "s2.json"]


@pytest.mark.parametrize("args, message", [
    (["--jobs", "0"], "--jobs"),
    # a budget of 0 or less started no exercise (every submission scored 0 on its code, exit status 0); an
    # infinite limit never stops an infinite loop
    (["--budget", "0"], "--budget must be a finite positive number, got 0"),
    (["--budget", "-1200"], "--budget must be a finite positive number, got -1200"),
    (["--timeout", "inf"], "--timeout must be a finite positive number, got inf"),
    (["--import-timeout", "nan"], "--import-timeout must be a finite positive number, got nan"),
    (["--memory", "-512"], "--memory must be a finite positive number, got -512"),
    ([str(paths.EXAMPLES_DIR / "bob_buggy"), str(paths.EXAMPLES_DIR / "bob_buggy")], "is given twice"),
    ([str(paths.EXAMPLES_DIR / "bob_buggy"), "does_not_exist.zip", "nor_this"],
     "no such file or directory: does_not_exist.zip, nor_this"),
])
def test_configuration_errors_exit_2_with_a_message(tmp_path, args, message):
    proc = grade(*args, "--out", tmp_path / "out")
    assert proc.returncode == 2 and message in proc.stderr
    assert not (tmp_path / "out").exists()  # nothing ran


def test_an_out_directory_inside_the_class_or_a_file_is_refused(tmp_path):
    """`class/ --out class/results` wrote the results into the class: the next run graded them as students
    ("results: not graded, no package found"), and a runner's copy of its submission held the results."""
    class_ = tmp_path / "class"
    shutil.copytree(paths.EXAMPLES_DIR / "bob_buggy", class_ / "bob")
    inside = grade(class_, "--out", class_ / "results")
    assert inside.returncode == 2, inside.stderr[-2000:]
    assert f"--out {class_ / 'results'} lies inside the submissions given as {class_}" in inside.stderr
    assert sorted(p.name for p in class_.iterdir()) == ["bob"]
    (tmp_path / "a-file").write_text("")
    a_file = grade(class_ / "bob", "--out", tmp_path / "a-file")
    assert a_file.returncode == 2 and f"--out {tmp_path / 'a-file'} exists and is not a directory" in a_file.stderr
    beside = grade(class_ / "bob", "--out", class_ / "results", "--seed", "3")  # beside a submission: fine
    assert beside.returncode == 0 and (class_ / "results" / "bob.json").exists(), beside.stderr[-2000:]


def test_an_out_directory_of_another_assignment_is_refused_not_resumed(tmp_path):
    """A rerun keeps finished results. `--assignment modern --seed N` into the attention assignment's --out (the
    default grading-output, say) said "1 already done" and kept the student's attention result as the modern one;
    without --seed it was refused as "graded with another course secret", naming the same secret twice."""
    ann = paths.copy_template(tmp_path / "ann", frameworks.default())
    out = tmp_path / "out"
    first = grade(ann, "--out", out, "--seed", "3")
    assert first.returncode == 0, first.stderr[-2000:]
    refused = grade(ann, "--out", out, "--seed", "3", "--assignment", "modern")
    assert refused.returncode == 2
    assert f"{out} holds the results of assignment attention in torch, and this run grades modern in torch" in \
        refused.stderr
    assert load(out, "ann")["assignment"] == "attention"
    (out / "grading-run.json").unlink()  # as an older grade.py left it: no record of the assignment
    resumed = grade(ann, "--out", out, "--seed", "3", "--assignment", "modern")
    assert resumed.returncode == 0 and "1 of 1 submissions (0 already done)" in resumed.stderr.splitlines()[0]
    assert load(out, "ann")["assignment"] == "modern"


def test_a_limit_the_reference_cannot_meet_stops_the_run_before_the_class(tmp_path):
    """--memory 512 counts the ~600 MB torch maps before any student code runs: the reference lost 2.4 to 12.4
    of 100 points under it, and every correct submission would lose points too (grade.batch.preflight).
    Nothing is graded; a limit lowered that the reference meets grades as usual."""
    skipped = shutil.ignore_patterns("__pycache__", "misconceptions", "numpy", "jax", "mindspore")
    class_ = [shutil.copytree(paths.REFERENCE_DIR, tmp_path / name, ignore=skipped) for name in ("ann", "ben")]
    refused = grade(*class_, "--out", tmp_path / "out", "--memory", "512", "--seed", "3")
    assert refused.returncode == 2, refused.stderr[-2000:]
    assert "grading the reference under --memory 512 first" in refused.stderr
    assert "under --memory 512 the reference scores" in refused.stderr and "Nothing was graded" in refused.stderr
    assert sorted(p.name for p in (tmp_path / "out").glob("*.json")) == ["grading-run.json"]
    met = grade(*class_, "--out", tmp_path / "met", "--memory", "2048", "--timeout", "20", "--seed", "3")
    assert met.returncode == 0, met.stderr[-2000:]
    assert "grading the reference under --memory 2048, --timeout 20 first" in met.stderr
    assert [json.loads((tmp_path / "met" / f"{n}.json").read_text())["score"] for n in ("ann", "ben")] == [100, 100]
    alone = grade(class_[0], "--out", tmp_path / "alone", "--memory", "2048", "--seed", "3")  # one: no trial
    assert alone.returncode == 0 and "grading the reference" not in alone.stderr
