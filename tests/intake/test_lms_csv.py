"""The Canvas, Moodle, Blackboard and Brightspace grade files, rosters, summary.csv's origin columns and
Gradescope's results for a submission that could not be graded, from results as grade.py writes them (fast:
no grading; test_intake_grading.py makes the same files from real gradings)."""

import csv
import io
import json
import unicodedata

import pytest
from intake_layouts import YORUBA

from attnlab.core.results import SubmissionResult
from attnlab.grade.batch import outputs
from attnlab.grade.batch.submissions import Layout, Origin, Submitter
from attnlab.instructor import lms
from attnlab.instructor.roster import RosterError, read_roster


def result(name: str, score: float, origin: Origin | None, not_graded: str | None = None) -> dict:
    return {"submission": name, "score": score, "max_score": 100.0, "exercises": [],
            "started_at": "2026-03-01T10:00:00+00:00", "not_graded": not_graded,
            "origin": origin.to_json() if origin else None}


GROUP = Origin(Layout.GRADESCOPE, "export.zip/a/submission_7", (Submitter("Fang Wang", "fang@x.edu", "3"),
                                                                 Submitter("Jun Chen", "", "4")), "7")
CANVAS = Origin(Layout.CANVAS, "s.zip/lisi_LATE_102_9_a.zip", (Submitter(user_id="102"),), late=True)
EMPTY = "submission ming: the submission is empty"
RESULTS = [result("fang-4", 87.456, GROUP), result("lisi", 100.0, CANVAS), result("alice", 12.5, None),
           result("ming", 0.0, Origin(Layout.GRADESCOPE, "e/s_8", (Submitter("Ming Liu", "ming@x.edu", "5"),), "8"),
                  not_graded=EMPTY)]


def folder(name: str) -> Origin:
    return Origin(Layout.FOLDERS, f"class/{name}", (Submitter(name=name),))


def moodle(name: str, participant: str) -> Origin:
    return Origin(Layout.MOODLE, f"m.zip/{name}_{participant}_assignsubmission_file_",
                  (Submitter(name=name, participant_id=participant),))


FOLDERS = [result("Alice_Chen", 90.0, folder("Alice Chen")), result("bob", 40.0, folder("bob")),
           result("Olúwádámilọ́lá_Adébáyọ̀", 33.0, folder(YORUBA)), result("zoe", 0.0, folder("zoe"), "empty"),
           result("stranger", 10.0, folder("stranger"))]
MOODLE = [result("Wei_Zhang", 100.0, moodle("Wei Zhang", "4712")),
          result(YORUBA, 33.0, moodle(YORUBA, "4711")), result("Na_Li", 0.0, moodle("Na Li", "4713"), "empty")]
CANVAS_ROSTER = """Student,ID,SIS User ID,SIS Login ID,Section,Attention lab (4242)
    Points Possible,,,,,100
"Chen, Alice",201,S1,achen,Section 1,
"Smith, Bob",202,S2,bob,Section 1,
"Adébáyọ̀, Olúwádámilọ́lá",203,S3,oadebayo,Section 1,
"Student, Test",999,,,Section 1,
"Lin, Zoe",204,S4,zoe,Section 1,
"""
MOODLE_GRADES_EXPORT = """First name,Last name,ID number,Institution,Department,Email address,Assignment: Lab (Real)
Wei,Zhang,2023001,,,wei.zhang@example.edu,-
Olúwádámilọ́lá,Adébáyọ̀,2023009,,,o.adebayo@example.edu,-
Na,Li,2023002,,,li.na@example.edu,-
"""


def rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def persons(results, roster=None):
    found, unmatched = lms.everyone(results, roster)
    return found


def test_canvas_rows_per_person_with_the_ids_canvas_matches_on():
    text, count, left_out = lms.canvas_csv(persons(RESULTS), assignment="Lab 1", assignment_id=None)
    header, possible, *students = rows(text)
    assert header == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 1"]  # no id: a new one
    assert possible == ["Points Possible", "", "", "", "", "100"] and count == len(students) == 4
    assert students == [["Fang Wang", "", "3", "fang@x.edu", "", "87.46"], ["Jun Chen", "", "4", "", "", "87.46"],
                        ["lisi", "102", "", "", "", "100"], ["Ming Liu", "", "5", "ming@x.edu", "", ""]]
    assert left_out == ["alice"]  # no id at all: Canvas would match the name only


def test_moodle_never_guesses_an_identifier_and_writes_no_grade_as_empty():
    text, count, left_out = lms.moodle_csv(persons(RESULTS), item="Lab 1", id_field="email")
    assert rows(text) == [["Email address", "Lab 1"], ["fang@x.edu", "87.46"], ["ming@x.edu", ""]] and count == 2
    assert left_out == ["alice", "fang-4", "lisi"]
    text, count, left_out = lms.moodle_csv(persons(RESULTS), item="Lab 1", id_field="username")
    assert rows(text) == [["Username", "Lab 1"]] and count == 0  # usernames come from a roster or not at all


def test_moodle_worksheet_takes_participant_ids_back():
    text, count, left_out = lms.moodle_worksheet(persons(MOODLE))
    header, *body = rows(text)
    assert header == ["Identifier", "Full name", "Email address", "Grade", "Maximum Grade", "Last modified (grade)"]
    assert body == [["Participant 4711", YORUBA, "", "33", "100", "2026-03-01T10:00:00+00:00"],
                    ["Participant 4712", "Wei Zhang", "", "100", "100", "2026-03-01T10:00:00+00:00"],
                    ["Participant 4713", "Na Li", "", "", "100", "2026-03-01T10:00:00+00:00"]]
    assert count == 3 and left_out == []


def test_a_canvas_roster_gives_a_folder_class_its_canvas_ids(tmp_path):
    (tmp_path / "gradebook.csv").write_text(CANVAS_ROSTER, encoding="utf-8")
    roster = read_roster(tmp_path / "gradebook.csv")
    assert [e.user_id for e in roster] == ["201", "202", "203", "204"]  # points row and test student skipped
    found, unmatched = lms.everyone(FOLDERS, roster)
    by_submission = {p.result["submission"]: p.fields for p in found}
    assert by_submission["Alice_Chen"]["user_id"] == "201"  # "Alice Chen" is "Chen, Alice"
    assert by_submission["bob"]["user_id"] == "202"  # the folder's name is the SIS login
    assert by_submission["Olúwádámilọ́lá_Adébáyọ̀"]["user_id"] == "203"  # the name, marks and all
    assert by_submission["zoe"]["name"] == "Lin, Zoe"
    assert unmatched == ["stranger (stranger: nobody in the roster)"]
    text, count, _ = lms.canvas_csv(found, assignment="Lab", assignment_id="4242")
    assert ["Chen, Alice", "201", "S1", "achen", "", "90"] in rows(text) and count == 4
    assert ["Lin, Zoe", "204", "S4", "zoe", "", ""] in rows(text)  # not graded: no grade, not 0


def test_a_moodle_grades_export_gives_emails(tmp_path):
    (tmp_path / "grades.csv").write_text(MOODLE_GRADES_EXPORT, encoding="utf-8-sig")
    found, unmatched = lms.everyone(MOODLE, read_roster(tmp_path / "grades.csv"))
    assert unmatched == []
    text, _, _ = lms.moodle_csv(found, item="Lab", id_field="idnumber")
    assert rows(text)[1:] == [["2023001", "100"], ["2023002", ""], ["2023009", "33"]]


def test_blackboard_rows_by_username_every_cell_quoted(tmp_path):
    """A Blackboard download's usernames (the LMS's user id there); any other layout's only from a roster: a
    Canvas user id is no Blackboard username. The Grade Center's own download is UTF-16 and tab-delimited."""
    bb = [result("li_si", 100.0, Origin(Layout.BLACKBOARD, "g.zip/x", (Submitter(name="Li Si", user_id="li_si"),))),
          result("zhaolei", 0.0, Origin(Layout.BLACKBOARD, "g.zip/y", (Submitter(user_id="zhaolei"),)), "no package")]
    text, count, left_out = lms.blackboard_csv(persons(bb + RESULTS), column="Lab 1", column_id="77")
    assert text.splitlines() == ['"Username","Lab 1 [Total Pts: 100 Score] |77"', '"li_si","100"', '"zhaolei",""']
    assert count == 2 and left_out == ["alice", "fang-4", "lisi", "ming"]
    assert rows(lms.blackboard_csv(persons(bb), column="Lab 1", column_id=None)[0])[0] == ["Username", "Lab 1"]
    download = "Last Name\tFirst Name\tUsername\tStudent ID\tLast Access\tLab 1 [Total Pts: 100 Score] |77\n" \
               "Chen\tAlice\tachen\t2026001\t\t\nSmith\tBob\tbob\t2026002\t\t\n"
    (tmp_path / "gc.xls").write_bytes(download.encode("utf-16"))
    found, unmatched = lms.everyone(FOLDERS[:2], read_roster(tmp_path / "gc.xls"))
    assert unmatched == [] and rows(lms.blackboard_csv(found, column="Lab 1", column_id="77")[0])[1:] == [
        ["achen", "90"], ["bob", "40"]]


def test_brightspace_rows_from_its_grades_export_scaled_to_the_item(tmp_path):
    """Brightspace's download names students by an internal id its import does not take: OrgDefinedId and
    Username come from its grades export ("#" before each), the grade on the item's scale, "#" ending rows."""
    bs = [result("Wei_Zhang", 87.5, Origin(Layout.BRIGHTSPACE, "b.zip/1-640693 - Wei Zhang - x", (
              Submitter(name="Wei Zhang", user_id="640693"),), "1")),
          result("Na_Li", 0.0, Origin(Layout.BRIGHTSPACE, "b.zip/2-640694 - Na Li - x", (
              Submitter(name="Na Li", user_id="640694"),), "2"), "no package"),
          result("Zoe_Wu", 50.0, Origin(Layout.BRIGHTSPACE, "b.zip/3-640695 - Zoe Wu - x", (
              Submitter(name="Zoe Wu", user_id="640695"),), "3"))]
    export = ("OrgDefinedId,Username,Last Name,First Name,Email,Lab Points Grade <Numeric MaxPoints:10>,"
              "End-of-Line Indicator\n#2026001,#wzhang,Zhang,Wei,wzhang@x.edu,,#\n#2026002,#nli,Li,Na,nli@x.edu,,#\n")
    (tmp_path / "grades.csv").write_text(export, encoding="utf-8-sig")
    found, unmatched = lms.everyone(bs, read_roster(tmp_path / "grades.csv"))
    assert unmatched == ["Zoe_Wu (Zoe Wu: nobody in the roster)"]
    text, count, left_out = lms.brightspace_csv(found, item="Lab", out_of=10)
    assert rows(text) == [["OrgDefinedId", "Username", "Lab Points Grade", "End-of-Line Indicator"],
                          ["2026001", "wzhang", "8.75", "#"], ["2026002", "nli", "", "#"]]  # not graded: no grade
    assert count == 2 and left_out == []
    assert rows(lms.brightspace_csv(persons(bs), item="Lab", out_of=None)[0]) == [
        ["OrgDefinedId", "Username", "Lab Points Grade", "End-of-Line Indicator"]]  # no roster: no ids, no rows


def test_a_roster_without_ids_is_refused(tmp_path):
    (tmp_path / "names.csv").write_text("Name,Grade\nWei Zhang,1\n")
    with pytest.raises(RosterError, match="names.csv: no column of ids"):
        read_roster(tmp_path / "names.csv")


def test_a_roster_excel_saved_in_the_machines_encoding_says_how_to_save_it(tmp_path):
    """Excel on a Chinese Windows saves "CSV" in GBK: the instructor is told what to do, not given a codec error."""
    (tmp_path / "class.csv").write_bytes("Student,ID,SIS Login ID\n张伟,101,zhangwei\n".encode("gbk"))
    with pytest.raises(RosterError, match=r"class.csv is not UTF-8 \(byte 25 is 0xd5\).*save it as \"CSV UTF-8\""):
        read_roster(tmp_path / "class.csv")


def test_a_damaged_utf16_roster_is_said_to_be_damaged_not_to_be_no_utf8(tmp_path):
    """A Grade Center download (UTF-16) cut short by a byte: not "not UTF-8, save it as CSV UTF-8", which would
    send the instructor to Excel, but damaged UTF-16 and to download it again."""
    download = "Last Name\tFirst Name\tUsername\nChen\tAlice\tachen\n".encode("utf-16")
    (tmp_path / "gc.xls").write_bytes(download[:-1])
    with pytest.raises(RosterError, match=r"gc.xls is UTF-16, as Blackboard's Grade Center downloads it, but damaged: "
                                          r"bytes 95 to 95 are no character \(truncated data\); download it") as raised:
        read_roster(tmp_path / "gc.xls")
    assert "UTF-8" not in str(raised.value)


def write_results(directory, results):
    directory.mkdir(exist_ok=True)
    for data in results:
        (directory / f"{data['submission']}.json").write_text(json.dumps(data))
    (directory / outputs.RUN_FILE).write_text('{"seed": 1}')
    return directory


def test_lms_command_exit_status(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ATTNLAB_LANG", "en")
    mixed, folders, moodle_out = (write_results(tmp_path / n, r) for n, r in
                                  (("mixed", RESULTS), ("folders", FOLDERS), ("moodle", MOODLE)))
    assert lms.main(["canvas", str(mixed), "--assignment", "Lab", "--assignment-id", "9"]) == 1
    assert rows((mixed / "canvas-grades.csv").read_text())[0][-1] == "Lab (9)"
    assert "left out 1 submission(s) with no Canvas ID, SIS User ID or SIS Login ID" in capsys.readouterr().err
    assert lms.main(["canvas", str(folders), "--assignment", "Lab"]) == 2  # names only: nothing Canvas can match
    assert "nothing written" in capsys.readouterr().err and not (folders / "canvas-grades.csv").exists()
    (tmp_path / "gradebook.csv").write_text(CANVAS_ROSTER, encoding="utf-8")
    assert lms.main(["canvas", str(folders), "--assignment", "Lab", "--roster", str(tmp_path / "gradebook.csv")]) == 1
    assert "stranger (stranger: nobody in the roster)" in capsys.readouterr().err
    assert lms.main(["moodle", str(moodle_out)]) == 0  # a Moodle download: the grading worksheet
    assert rows((moodle_out / "moodle-grades.csv").read_text())[1][0] == "Participant 4711"
    write_results(moodle_out, [result("notes.txt", 0.0, Origin(Layout.MOODLE, "m.zip/notes.txt"), "no package")])
    assert lms.main(["moodle", str(moodle_out)]) == 1  # an entry Moodle did not name is nobody in Moodle
    assert "left out 1 submission(s) with no Moodle participant id in their LMS data: notes.txt" in \
        capsys.readouterr().err
    assert lms.main(["moodle", str(moodle_out), "--id", "username", "--item", "Lab"]) == 2  # would be rejected
    assert "nothing written: no row has a Username" in capsys.readouterr().err
    assert lms.main(["moodle", str(mixed), "--id", "email"]) == 2
    assert "--item is needed with --id email" in capsys.readouterr().err
    assert lms.main(["moodle", str(tmp_path / "empty"), "--item", "Lab"]) == 2


def test_a_result_someone_broke_is_named_and_the_exit_status_says_so(tmp_path, capsys, monkeypatch):
    """A result file cut short was dropped without a word: that student's grade was simply missing from the
    file imported into the LMS, and the command exited 0."""
    monkeypatch.setenv("ATTNLAB_LANG", "en")
    out = write_results(tmp_path / "moodle", MOODLE)
    assert lms.main(["moodle", str(out)]) == 0
    (out / "Wei_Zhang.json").write_text((out / "Wei_Zhang.json").read_text()[:40])
    assert lms.main(["moodle", str(out)]) == 1
    said = capsys.readouterr().err
    assert f"left out {out / 'Wei_Zhang.json'}: not readable as JSON" in said and "has no grade in the file" in said
    assert [r[0] for r in rows((out / "moodle-grades.csv").read_text())[1:]] == ["Participant 4711", "Participant 4713"]


def test_summary_csv_origin_columns_and_no_grade_for_what_was_not_graded():
    header, *body = rows(outputs.summary_csv(RESULTS + MOODLE, ["softmax"]))
    assert header == ["submission", "score", "max_score", "softmax", *outputs.ORIGIN_COLUMNS]
    by_name = {row[0]: dict(zip(header, row)) for row in body}
    assert by_name["fang-4"]["student_name"] == "Fang Wang; Jun Chen"
    assert by_name["fang-4"]["email"] == "fang@x.edu; "  # aligned with the names: Jun Chen gave none
    assert by_name["lisi"]["late"] == "true" and by_name["lisi"]["lms_user_id"] == "102"
    assert [by_name["alice"][c] for c in outputs.ORIGIN_COLUMNS] == [""] * len(outputs.ORIGIN_COLUMNS)
    assert by_name["ming"]["score"] == "" and by_name["ming"]["not_graded"] == EMPTY
    assert by_name["fang-4"]["not_graded"] == "" and by_name["Na_Li"]["participant_id"] == "4713"


def test_gradescope_results_say_not_graded():
    made = SubmissionResult(submission="ming", score=0.0, max_score=100.0, exercises=(), started_at="",
                            duration_s=1.0, harness_version="x", not_graded=EMPTY)
    data = outputs.gradescope(made)
    assert data["output"] == f"NOT GRADED: {EMPTY}" and data["tests"] == []
    assert data["extra_data"] == {"graded": False, "not_graded": EMPTY}


def test_summary_csv_starts_with_a_byte_order_mark_so_excel_reads_every_script(tmp_path):
    """Excel and WPS read a CSV without a byte-order mark in the machine's code page: a UTF-8 李华 or Yorùbá
    name came out as mojibake in the file an instructor opens first."""
    out = write_results(tmp_path / "out", RESULTS + MOODLE)
    path = outputs.write_summary(out, ["softmax"])
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbfsubmission,score,") and raw.count(b"\xef\xbb\xbf") == 1
    assert raw.decode("utf-8-sig") == outputs.summary_csv(RESULTS + MOODLE, ["softmax"])


def test_no_grade_file_from_results_graded_with_different_checks(tmp_path, capsys, monkeypatch):
    """A rerun stopped after a spec was mended leaves results graded two ways: an LMS import of them would carry
    both gradings as one, so no file is written and the message says how to finish."""
    monkeypatch.setenv("ATTNLAB_LANG", "en")
    out = write_results(tmp_path / "moodle", [{**r, "checks_digest": "a" * 16} for r in MOODLE[:-1]]
                        + [{**MOODLE[-1], "checks_digest": "b" * 16}])
    assert lms.main(["moodle", str(out)]) == 2
    said = capsys.readouterr().err
    assert f"{out} holds results graded with different checks ({len(MOODLE) - 1} with {'a' * 16}, 1 with " \
           f"{'b' * 16})" in said and "Run grade.py into it again" in said
    assert not (out / "moodle-grades.csv").exists()


def test_grade_pys_table_lines_up_names_in_chinese(capsys):
    """A class folder named after its students (张伟/, Olúwádámilọ́lá/) prints one column of scores: a CJK
    character takes two columns of a terminal, a combining mark none."""
    outputs.print_table([result("张伟", 33.0, None), result("alice", 100.0, None), result(YORUBA, 12.5, None),
                         result("李四", 0.0, None, not_graded=EMPTY)])
    shown = {"张伟": 4, "alice": 5, "李四": 4, YORUBA: sum(not unicodedata.combining(c) for c in YORUBA)}
    assert shown[YORUBA] == 21 < len(YORUBA)  # its marks sit on letters
    pad = {name: " " * (max(shown.values()) - columns) for name, columns in shown.items()}
    assert capsys.readouterr().out.splitlines() == [
        "submission" + " " * (max(shown.values()) - 10) + "          score  exercises passed",
        f"{YORUBA}{pad[YORUBA]}    12.50 / 100  0/0",
        f"alice{pad['alice']}   100.00 / 100  0/0",
        f"张伟{pad['张伟']}    33.00 / 100  0/0",
        f"李四{pad['李四']}     not graded  {EMPTY}"]
