"""Each LMS layout graded for real by grade.py (a subprocess), none named with --layout: one result per
entry of the export, with the right name, score or the reason it was not graded, and the metadata the export
carried, in the result JSON, summary.csv, shard merges and the Canvas and Moodle grade import files (checked
against the columns their importers read)."""

import csv
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from intake_layouts import (
    PARTIAL,
    TEMPLATE,
    Expected,
    as_tar,
    blackboard_download,
    brightspace_download,
    canvas_download,
    folders_class,
    gradescope_export,
    moodle_download,
    submitted,
    write_tree,
    write_zip,
)

from attnlab.core import paths
from attnlab.core.spec_load import load_course
from attnlab.grade.batch.outputs import ORIGIN_COLUMNS

pytestmark = pytest.mark.e2e  # starts grade.py and its runners

EXERCISE_IDS = [e.id for e in load_course(paths.SPEC_DIR).exercises]
LAYOUTS = {"folders": folders_class, "gradescope": gradescope_export, "canvas": canvas_download,
           "moodle": moodle_download, "blackboard": blackboard_download, "brightspace": brightspace_download}
SEED = "7"


def run(*args, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, timeout=timeout,
                          cwd=paths.ROOT, env={**os.environ, "ATTNLAB_LANG": "en"})


def grade(*args) -> subprocess.CompletedProcess:
    return run(paths.ROOT / "grade.py", *args, "--seed", SEED, "--jobs", "2")


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, tuple[Path, dict[str, Expected], Path]]:
    """layout -> (the path graded, what each student's result must say, the output dir)."""
    made = {}
    for layout, build in LAYOUTS.items():
        work = tmp_path_factory.mktemp(layout)
        path, expected = build(work)
        out = work / "out"
        proc = grade(path, "--out", out)
        assert proc.returncode == 0, proc.stderr[-3000:]
        made[layout] = (path, expected, out)
    return made


def results(out: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in out.glob("*.json") if p.name != "grading-run.json"}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_one_result_per_student_with_its_name_score_and_origin(graded, layout):
    _, expected, out = graded[layout]
    found = results(out)
    assert sorted(found) == sorted(expected)
    for name, want in expected.items():
        result = found[name]
        feedback = " ".join(e["feedback"] for e in result["exercises"])
        if want.error:  # not graded, and says why (its score of 0 is no grade: summary and LMS files leave it empty)
            assert result["score"] == 0 and want.error in feedback and want.error in result["not_graded"], name
        else:
            assert result["not_graded"] is None, name
            assert "submission " + name + ":" not in feedback, (name, feedback[:300])  # no upload message
            if want.score is not None:
                assert result["score"] == want.score, name
        assert result["origin"]["layout"] == layout
        assert want.origin.items() <= result["origin"].items(), name
        people = result["origin"]["submitters"]
        assert len(people) == len(want.people) and all(w.items() <= p.items() for w, p in zip(want.people, people))


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_summary_csv_carries_the_metadata(graded, layout):
    _, expected, out = graded[layout]
    rows = {r["submission"]: r for r in csv.DictReader((out / "summary.csv").open(encoding="utf-8-sig"))}
    assert sorted(rows) == sorted(expected)
    header = list(next(iter(rows.values())))
    assert header == ["submission", "score", "max_score", *EXERCISE_IDS, *ORIGIN_COLUMNS]
    for name, want in expected.items():
        row = rows[name]
        assert row["layout"] == layout and row["source"].startswith(str(graded[layout][0]))
        if want.people and all("sid" in p for p in want.people):
            assert row["sid"] == "; ".join(p["sid"] for p in want.people)
        if "user_id" in (want.people or [{}])[0]:
            assert row["lms_user_id"] == want.people[0]["user_id"]
        if "late" in want.origin:
            assert row["late"] == str(want.origin["late"]).lower()
        assert (row["score"] == "") == bool(want.error) and (want.error or "") in row["not_graded"]
        if want.people and "participant_id" in want.people[0]:
            assert row["participant_id"] == want.people[0]["participant_id"]
            assert row["student_name"] == want.people[0]["name"]
    if layout == "gradescope":
        group = rows["fang.wang-jun.chen"]
        assert group["student_name"] == "Fang Wang; Jun Chen" and group["submission_id"] == "1003"
        assert group["email"] == "fang.wang@example.edu; jun.chen@example.edu"


def test_a_canvas_download_packed_with_tar_is_graded_as_the_zip_was(graded, tmp_path):
    """The Canvas download as a TA on Linux or macOS may hand it on (`tar czf`): the same students, scores,
    messages (naming the archive) and metadata as from the zip; the unpacked copy is gone afterwards."""
    path, _, out = graded["canvas"]
    archive = as_tar(path, tmp_path / "canvas.tar.gz")
    before = set(Path(tempfile.gettempdir()).glob("attnlab-class-*"))
    proc = grade(archive, "--out", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert set(Path(tempfile.gettempdir()).glob("attnlab-class-*")) <= before
    zipped, packed = results(out), results(tmp_path / "out")
    assert sorted(packed) == sorted(zipped)
    for name, result in packed.items():
        was = zipped[name]
        assert result["score"] == was["score"] and result["origin"]["submitters"] == was["origin"]["submitters"]
        assert result["origin"]["path"] == was["origin"]["path"].replace(str(path), str(archive))
        why, was_why = result["not_graded"] or "", was["not_graded"] or ""
        assert why.replace(archive.name, "X") == was_why.replace(path.name, "X")


def test_same_zip_name_in_every_student_folder(tmp_path):
    """The issue's `grade.py class/*/attention-submission.zip` (it used to exit 2: names shared)."""
    zips = [write_tree(tmp_path / "class" / s, {"attention-submission.zip": submitted(p, "attention", tmp_path)})
            / "attention-submission.zip" for s, p in (("alice", PARTIAL), ("bob", TEMPLATE))]
    proc = grade(*zips, "--out", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = results(tmp_path / "out")
    assert sorted(found) == ["alice", "bob"] and found["alice"]["score"] == 33.0


def test_shards_merged_carry_the_origin(graded, tmp_path):
    path, _, whole = graded["gradescope"]
    shards = []
    for index in range(2):
        shards.append(tmp_path / f"shard-{index}")
        proc = grade(path, "--out", shards[-1], "--shard", f"{index}/2")
        assert proc.returncode == 0, proc.stderr[-3000:]
    merged = tmp_path / "merged"
    proc = run(paths.ROOT / "grade.py", "merge", *shards, "--out", merged)
    assert proc.returncode == 0, proc.stderr[-3000:]
    timing = ("started_at", "duration_s")
    expected = {n: {k: v for k, v in r.items() if k not in timing} for n, r in results(whole).items()}
    assert {n: {k: v for k, v in r.items() if k not in timing} for n, r in results(merged).items()} == expected
    assert (merged / "summary.csv").read_text() == (whole / "summary.csv").read_text()


def read_csv(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.reader(fh))


def check_canvas_format(rows: list[list[str]], *, title: str, assignment_id: str, points: str) -> list[list[str]]:
    """The rules of canvas-lms app/models/gradebook_importer.rb: header cell 0 holds "Student", cell 1 "ID",
    then SIS User ID and SIS Login ID, Section last of the student columns; assignment columns "Title (id)";
    a "Points Possible" row; then one row per student, every cell a plain value, a grade empty or a number.
    Returns the student rows."""
    header, possible, *students = rows
    assert "Student" in header[0] and "ID" in header[1] and len(header) > 3
    assert re.fullmatch(r"SIS\s+User\s+ID", header[2]) and re.fullmatch(r"SIS\s+Login\s+ID", header[3])
    assert "Section" in header[4]
    title_and_id = re.fullmatch(r"(.*)\s+\((\d+)\)", header[5])
    assert title_and_id and title_and_id.groups() == (title, assignment_id) and len(header) == 6
    assert "Points Possible" in possible[0] and possible[5] == points and possible[1:5] == ["", "", "", ""]
    for row in students:
        assert len(row) == 6 and row[0] and (row[1] == "" or row[1].isdigit())
        assert row[5] == "" or 0 <= float(row[5]) <= float(points)  # empty: not graded (Canvas keeps the cell)
    return students


CANVAS_ROSTER = """Student,ID,SIS User ID,SIS Login ID,Section,Attention lab (4242)
    Points Possible,,,,,100
"Lee, Alice",301,,alice,A,
"Brown, Bob",302,,bob,A,
"Cole, Carol",303,,carol,A,
"Diaz, Dave",304,,dave,A,
"Eng, Erin",305,,erin,A,
"Fox, Frank",306,,frank,A,
"Zhou, Zoe",307,,zoe,A,
"""


def lms_run(*args) -> subprocess.CompletedProcess:
    return run("-m", "attnlab.instructor.lms", *args)


def test_canvas_gradebook_csv_from_each_layout(graded, tmp_path):
    (tmp_path / "roster.csv").write_text(CANVAS_ROSTER, encoding="utf-8")
    for layout in ("canvas", "gradescope", "folders"):
        out = tmp_path / f"{layout}.csv"
        roster = ["--roster", tmp_path / "roster.csv"] if layout == "folders" else []
        proc = lms_run("canvas", graded[layout][2], "--assignment", "Attention lab", "--assignment-id", "4242",
                       "--out", out, *roster)
        assert proc.returncode == (0 if layout == "folders" else 1) and "wrote" in proc.stderr, proc.stderr
        students = check_canvas_format(read_csv(out), title="Attention lab", assignment_id="4242", points="100")
        by_name = {row[0]: row for row in students}
        if layout == "canvas":  # Canvas's own user ids, so the importer matches on ID
            assert by_name["lisi"][1:] == ["102", "", "", "", "100"]
            assert by_name["zhangwei_101"][1] == "101" and by_name["zhangwei_104"][1] == "104"
            assert by_name["zhaolei"][1:] == ["105", "", "", "", ""]  # not graded: no grade, not 0
            assert "notes.txt" in proc.stderr  # a file Canvas did not name is nobody in Canvas
        if layout == "gradescope":  # one row per group member; SID and email for Canvas to match on
            assert by_name["Wei Zhang"] == ["Wei Zhang", "", "2023001", "wei.zhang@example.edu", "", "100"]
            assert by_name["Fang Wang"][5] == by_name["Jun Chen"][5] == "33" and by_name["Ming Liu"][5] == ""
            assert len(students) == 5
            assert "submission_1005" in proc.stderr  # a folder no metadata names is nobody in Canvas: said, exit 1
        if layout == "folders":  # the roster (Canvas's gradebook export) gives each folder its Canvas user id
            assert {row[1] for row in students} == {str(i) for i in range(301, 308)}
            assert by_name["Fox, Frank"][5] == "100" and by_name["Zhou, Zoe"][5] == ""
    proc = lms_run("canvas", graded["folders"][2], "--assignment", "Lab", "--out", tmp_path / "x.csv")
    assert proc.returncode == 2 and "nothing written" in proc.stderr and not (tmp_path / "x.csv").exists()


def test_moodle_grade_files(graded, tmp_path):
    out = tmp_path / "moodle.csv"
    proc = lms_run("moodle", graded["gradescope"][2], "--item", "Attention lab", "--out", out)
    assert proc.returncode == 1 and "submission_1005" in proc.stderr, proc.stderr  # nobody's folder: said
    header, *rows = read_csv(out)
    assert header == ["Email address", "Attention lab"]  # Moodle: map "Email address" to the user's email
    assert dict(rows) == {"wei.zhang@example.edu": "100", "li.na@example.edu": dict(rows)["li.na@example.edu"],
                          "fang.wang@example.edu": "33", "jun.chen@example.edu": "33", "ming.liu@example.edu": ""}
    proc = lms_run("moodle", graded["gradescope"][2], "--item", "Lab", "--id", "idnumber", "--out", out)
    assert proc.returncode == 1 and read_csv(out)[0] == ["ID number", "Lab"] and len(read_csv(out)) == 6
    proc = lms_run("moodle", graded["moodle"][2], "--out", out)  # a Moodle download: its grading worksheet
    assert proc.returncode == 0, proc.stderr
    header, *rows = read_csv(out)
    assert header[:4] == ["Identifier", "Full name", "Email address", "Grade"] and "Last modified (grade)" in header
    assert {r[0]: (r[1], r[3]) for r in rows} == {
        "Participant 4711": ("Olúwádámilọ́lá Adébáyọ̀", "33"), "Participant 4712": ("Wei Zhang", ""),
        "Participant 4713": ("Na Li", ""), "Participant 4714": ("Jun Chen", "")}
    for layout, args in (("folders", ["--id", "username"]), ("canvas", ["--id", "email"])):
        proc = lms_run("moodle", graded[layout][2], "--item", "Lab", *args, "--out", tmp_path / "no.csv")
        assert proc.returncode == 2 and "nothing written" in proc.stderr, proc.stderr  # never a row Moodle rejects
        assert not (tmp_path / "no.csv").exists()


def test_blackboard_grade_upload(graded, tmp_path):
    """Blackboard's Grade Center upload: Username and the grade column, every cell quoted; the usernames of a
    Blackboard download, or of the Grade Center's own download (UTF-16, tab-delimited) for a folder class."""
    out = tmp_path / "bb.csv"
    proc = lms_run("blackboard", graded["blackboard"][2], "--column", "Attention lab", "--column-id", "123456",
                   "--out", out)
    assert proc.returncode == 1 and "gradebook_notes.txt" in proc.stderr, proc.stderr  # a file nobody handed in
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == '"Username","Attention lab [Total Pts: 100 Score] |123456"'
    assert lines[1:] == ['"li_si","100"', '"wangfang","33"', '"zhangwei","33"', '"zhaolei",""']
    roster = "\t".join(["Last Name", "First Name", "Username", "Student ID", "Attention lab |123456"]) + "\n" + "".join(
        f"{last}\t{first}\t{user}\t{sid}\t\n" for last, first, user, sid in (
            ("Lee", "Alice", "alice", "2026001"), ("Brown", "Bob", "bob", "2026002"), ("Cole", "Carol", "carol", ""),
            ("Diaz", "Dave", "dave", ""), ("Eng", "Erin", "erin", ""), ("Fox", "Frank", "frank", ""),
            ("Zhou", "Zoe", "zoe", "")))
    (tmp_path / "gc.xls").write_bytes(roster.encode("utf-16"))  # the Grade Center's download, as Blackboard writes it
    proc = lms_run("blackboard", graded["folders"][2], "--column", "Lab", "--roster", tmp_path / "gc.xls",
                   "--out", out)
    assert proc.returncode == 0, proc.stderr
    rows = dict(csv.reader(out.read_text(encoding="utf-8").splitlines()))
    assert rows["Username"] == "Lab" and rows["frank"] == "100" and rows["zoe"] == "" and len(rows) == 8


def test_brightspace_grades_import(graded, tmp_path):
    """Brightspace's import file from a Brightspace download, its ids from Brightspace's grades export."""
    export = ("OrgDefinedId,Username,Last Name,First Name,Email,End-of-Line Indicator\n"
              "#2026001,#wzhang,Zhang,Wei,wzhang@x.edu,#\n#2026002,#lisi,Si,Li,lisi@x.edu,#\n"
              "#2026003,#zlei,Lei,Zhao,zlei@x.edu,#\n")
    (tmp_path / "grades.csv").write_text(export, encoding="utf-8-sig")
    out = tmp_path / "bs.csv"
    proc = lms_run("brightspace", graded["brightspace"][2], "--item", "Attention lab", "--out-of", "10",
                   "--roster", tmp_path / "grades.csv", "--out", out)
    assert proc.returncode == 1 and "grading_notes.txt" in proc.stderr, proc.stderr  # nobody in the roster: said
    assert read_csv(out) == [["OrgDefinedId", "Username", "Attention lab Points Grade", "End-of-Line Indicator"],
                             ["2026001", "wzhang", "3.3", "#"], ["2026002", "lisi", "10", "#"],
                             ["2026003", "zlei", "", "#"]]
    proc = lms_run("brightspace", graded["brightspace"][2], "--item", "Lab", "--out", tmp_path / "no.csv")
    assert proc.returncode == 2 and "nothing written" in proc.stderr and not (tmp_path / "no.csv").exists()


def test_a_class_zip_without_layout_is_refused_with_the_command(tmp_path):
    zips = {f"{s}/{s}-submission.zip": submitted(TEMPLATE, s, tmp_path) for s in ("alice", "bob")}
    archive = write_zip(tmp_path / "class.zip", zips)
    proc = grade(archive, "--out", tmp_path / "out")
    assert proc.returncode == 2 and "--layout folders" in proc.stderr and "looks like a class" in proc.stderr
    assert not list((tmp_path / "out").glob("*.json"))
