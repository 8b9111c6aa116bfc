"""Grades back to the LMS: a Canvas gradebook import CSV or a Moodle grade import CSV from a grading output.

    python -m attnlab.instructor.lms canvas GRADING_DIR --assignment "Attention lab" [--assignment-id 4242]
    python -m attnlab.instructor.lms moodle GRADING_DIR --item "Attention lab" [--id email|idnumber|username]
    (both: [--out FILE], default GRADING_DIR/canvas-grades.csv or moodle-grades.csv)

One row per person: each submitter of a submission (a Gradescope group gets a row each); a submission the
LMS export said nothing about (a folder per student) is one row under its own name. The score is the
result's total, rounded to 2 decimals as Canvas's own export writes scores.

Canvas, as its importer (canvas-lms app/models/gradebook_importer.rb) reads the file and Canvas's guide
"How do I import grades in the Gradebook?" describes it: a header row whose student columns are Student,
ID, SIS User ID, SIS Login ID, Section (the importer wants "Student" first, "ID" second and Section last
among them), then one column per assignment, "Title (assignment id)" to grade an existing assignment or
"Title" alone to create one; then a row whose first cell is "Points Possible"; then the students. Canvas
finds a student by ID (its user id), else SIS User ID, else SIS Login ID, else by name. Written: the
Canvas user id from a Canvas download, the SID as SIS User ID and the email as SIS Login ID from a
Gradescope export, and always the name (the submission's name when the export gave none).

Moodle, as its CSV grade import reads the file (grade/import/csv/classes/load_data.php; Moodle docs
"Import grades"): any header row; on import the teacher maps one column to a user field ("Identify user
by": email address, ID number or username) and the grade column to a grade item or a new one. A row whose
identifier matches no user aborts the whole import, and a blank identifier does not skip a row safely,
so rows without the chosen identifier are left out and named on stderr (exit status 1).
"""

import argparse
import csv
import io
import sys
from pathlib import Path

from attnlab.core.i18n import default_lang, t
from attnlab.grade.batch.outputs import atomic_write, read_result

CANVAS_STUDENT_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
POINTS_POSSIBLE = "Points Possible"
MOODLE_ID_COLUMNS = {"email": "Email address", "idnumber": "ID number", "username": "Username"}


def load_results(results_dir: Path) -> list[dict]:
    return [r for p in sorted(results_dir.glob("*.json")) if (r := read_result(p)) is not None]


def people(result: dict) -> list[dict]:
    """Each person a result is for: {"name", "email", "sid", "user_id", "username"}."""
    submitters = (result.get("origin") or {}).get("submitters") or [{}]
    made = []
    for person in submitters:
        email = str(person.get("email") or "")
        made.append({"name": str(person.get("name") or "") or result["submission"], "email": email,
                     "sid": str(person.get("sid") or ""), "user_id": str(person.get("user_id") or ""),
                     "username": email.partition("@")[0] or (result["submission"] if len(submitters) == 1 else "")})
    return made


def points(value: float) -> str:
    return f"{round(float(value), 2):g}"


def canvas_csv(results: list[dict], *, assignment: str, assignment_id: str | None) -> tuple[str, int]:
    """(the CSV text, the number of student rows)."""
    title = f"{assignment} ({assignment_id})" if assignment_id else assignment
    max_score = max(float(r["max_score"]) for r in results)
    rows = sorted(([p["name"], p["user_id"], p["sid"], p["email"], "", points(r["score"])]
                   for r in results for p in people(r)), key=lambda row: (row[0].lower(), row[1]))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*CANVAS_STUDENT_COLUMNS, title])
    writer.writerow([POINTS_POSSIBLE, "", "", "", "", points(max_score)])
    writer.writerows(rows)
    return buffer.getvalue(), len(rows)


def moodle_csv(results: list[dict], *, item: str, id_field: str) -> tuple[str, int, list[str]]:
    """(the CSV text, the number of rows, the submissions left out for want of the identifier)."""
    key = "sid" if id_field == "idnumber" else id_field
    rows, left_out = [], []
    for result in results:
        for person in people(result):
            if person[key]:
                rows.append([person[key], points(result["score"])])
            else:
                left_out.append(result["submission"])
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([MOODLE_ID_COLUMNS[id_field], item])
    writer.writerows(sorted(rows))
    return buffer.getvalue(), len(rows), sorted(set(left_out))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m attnlab.instructor.lms", description=__doc__.split("\n")[0])
    kinds = parser.add_subparsers(dest="kind", required=True)
    canvas = kinds.add_parser("canvas", help="Canvas gradebook import CSV")
    canvas.add_argument("--assignment", required=True, help="the assignment's title in Canvas")
    canvas.add_argument("--assignment-id", help="its id (in its URL); without it Canvas creates the assignment")
    moodle = kinds.add_parser("moodle", help="Moodle grade import CSV")
    moodle.add_argument("--item", required=True, help="the grade column's name (map it to a grade item)")
    moodle.add_argument("--id", dest="id_field", choices=sorted(MOODLE_ID_COLUMNS), default="email",
                        help="the user field rows are matched on (username: the email's local part, else "
                             "the submission's name)")
    for sub in (canvas, moodle):
        sub.add_argument("results_dir", type=Path, help="grade.py's --out directory")
        sub.add_argument("--out", type=Path, default=None, help="the CSV to write")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    lang = default_lang()
    results = load_results(opts.results_dir)
    if not results:
        print(t("lms.no_results", lang, path=opts.results_dir), file=sys.stderr)
        return 2
    out = opts.out or opts.results_dir / f"{opts.kind}-grades.csv"
    left_out: list[str] = []
    if opts.kind == "canvas":
        text, count = canvas_csv(results, assignment=opts.assignment, assignment_id=opts.assignment_id)
    else:
        text, count, left_out = moodle_csv(results, item=opts.item, id_field=opts.id_field)
    atomic_write(out, text)
    print(t("lms.written", lang, path=out, rows=count, kind=opts.kind.capitalize()), file=sys.stderr)
    if left_out:
        print(t("lms.left_out", lang, count=len(left_out), field=MOODLE_ID_COLUMNS[opts.id_field],
                names=", ".join(left_out)), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
