"""The Canvas and Moodle grade files and summary.csv's origin columns, from results as grade.py writes them
(fast: no grading; test_intake_grading.py makes the same files from real gradings)."""

import csv
import io
import json

from attnlab.grade.batch import outputs
from attnlab.grade.batch.submissions import Layout, Origin, Submitter
from attnlab.instructor import lms


def result(name: str, score: float, origin: Origin | None) -> dict:
    return {"submission": name, "score": score, "max_score": 100.0, "exercises": [],
            "origin": origin.to_json() if origin else None}


GROUP = Origin(Layout.GRADESCOPE, "export.zip/a/submission_7", (Submitter("Fang Wang", "fang@x.edu", "3"),
                                                                 Submitter("Jun Chen", "", "4")), "7")
CANVAS = Origin(Layout.CANVAS, "s.zip/lisi_LATE_102_9_a.zip", (Submitter(user_id="102"),), late=True)
RESULTS = [result("fang-4", 87.456, GROUP), result("lisi", 100.0, CANVAS), result("alice", 12.5, None)]


def rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_canvas_rows_per_person_with_the_ids_canvas_matches_on():
    text, count = lms.canvas_csv(RESULTS, assignment="Lab 1", assignment_id=None)
    header, possible, *students = rows(text)
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 1"]  # no id: a new one
    assert possible == ["Points Possible", "", "", "", "", "100"] and count == len(students) == 4
    assert students == [["alice", "", "", "", "", "12.5"], ["Fang Wang", "", "3", "fang@x.edu", "", "87.46"],
                        ["Jun Chen", "", "4", "", "", "87.46"], ["lisi", "102", "", "", "", "100"]]


def test_moodle_leaves_out_whoever_lacks_the_identifier():
    text, count, left_out = lms.moodle_csv(RESULTS, item="Lab 1", id_field="email")
    assert rows(text) == [["Email address", "Lab 1"], ["fang@x.edu", "87.46"]] and count == 1
    assert left_out == ["alice", "fang-4", "lisi"]
    text, _, left_out = lms.moodle_csv(RESULTS, item="Lab 1", id_field="username")
    assert rows(text)[1:] == [["alice", "12.5"], ["fang", "87.46"], ["lisi", "100"]]
    assert left_out == ["fang-4"]  # Jun Chen: in a group, without an email, no username to give


def test_lms_command_writes_the_file_and_exits_1_when_someone_is_left_out(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ATTNLAB_LANG", "en")
    for data in RESULTS:
        (tmp_path / f"{data['submission']}.json").write_text(json.dumps(data))
    (tmp_path / outputs.RUN_FILE).write_text('{"seed": 1}')
    assert lms.main(["canvas", str(tmp_path), "--assignment", "Lab", "--assignment-id", "9"]) == 0
    assert rows((tmp_path / "canvas-grades.csv").read_text())[0][-1] == "Lab (9)"
    assert lms.main(["moodle", str(tmp_path), "--item", "Lab", "--id", "idnumber"]) == 1
    assert "left out 2 submission(s) with no ID number in their LMS data: alice, lisi" in capsys.readouterr().err
    assert lms.main(["moodle", str(tmp_path / "empty"), "--item", "Lab"]) == 2


def test_summary_csv_origin_columns():
    header, *body = rows(outputs.summary_csv(RESULTS, ["softmax"]))
    assert header == ["submission", "score", "max_score", "softmax", *outputs.ORIGIN_COLUMNS]
    by_name = {row[0]: dict(zip(header, row)) for row in body}
    assert by_name["fang-4"]["student_name"] == "Fang Wang; Jun Chen"
    assert by_name["fang-4"]["email"] == "fang@x.edu; "  # aligned with the names: Jun Chen gave none
    assert by_name["lisi"]["late"] == "true" and by_name["lisi"]["lms_user_id"] == "102"
    assert [by_name["alice"][c] for c in outputs.ORIGIN_COLUMNS] == [""] * len(outputs.ORIGIN_COLUMNS)
