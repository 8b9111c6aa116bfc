"""Grades back to the LMS from a grading output: Canvas, Moodle, Blackboard or Brightspace import files.

A Canvas gradebook import CSV, a Moodle grade import CSV or a Moodle assignment's grading worksheet, a
Blackboard Grade Center upload, a Brightspace grades import:

    python -m attnlab.instructor.lms canvas GRADING_DIR --assignment "Attention lab" [--assignment-id 4242]
    python -m attnlab.instructor.lms moodle GRADING_DIR [--id participant]                 (grading worksheet)
    python -m attnlab.instructor.lms moodle GRADING_DIR --item "Attention lab" --id email|idnumber|username
    python -m attnlab.instructor.lms blackboard GRADING_DIR --column "Attention lab" [--column-id 123456]
    python -m attnlab.instructor.lms brightspace GRADING_DIR --item "Attention lab" --roster grades.csv [--out-of 10]
    (all: [--roster FILE] [--out FILE], default GRADING_DIR/<kind>-grades.csv)

One row per person: each submitter of a submission (a Gradescope group gets a row each); a folder per
student is one person, named as the folder is. The score is the result's total, rounded to 2 decimals as
Canvas's own export writes scores; a submission that could not be graded has an empty grade cell, which
both LMSs import as "no grade" (Canvas leaves the cell as it is; Moodle's importers read '' as no grade),
never a 0. Every row carries an id the LMS matches on, from the export or from --roster (roster.py: the
LMS's own class list). Whoever has none is left out and named on stderr, with exit status 1; when
nobody could be written, nothing is, with exit status 2.

Canvas, as its importer (canvas-lms app/models/gradebook_importer.rb) reads the file and Canvas's guide
"How do I import grades in the Gradebook?" describes it: a header row whose student columns are Student,
ID, SIS User ID, SIS Login ID, Section (the importer wants "Student" first, "ID" second and Section last
among them), then one column per assignment, "Title (assignment id)" to grade an existing assignment or
"Title" alone to create one; then a row whose first cell is "Points Possible"; then the students. Canvas
finds a student by ID (its user id), else SIS User ID, else SIS Login ID. Written: the Canvas user id
from a Canvas download or a roster, the SID as SIS User ID and the email as SIS Login ID from a
Gradescope export. A row with none of them would be matched on the name alone (a folder's name matches
no Canvas student): it is left out.

Moodle: a Moodle download names each student by participant id, which only the assignment's grading
worksheet takes back (Assignment → View all submissions → Upload grading worksheet, "offline grading
worksheet" feedback enabled; mod/assign/feedback/offline/importgradeslib.php reads the columns
Identifier "Participant <id>", Grade and "Last modified (grade)", and skips a grade changed in Moodle
after that time). `--id participant` writes it, the default when results carry participant ids.
Otherwise the gradebook's CSV import (grade/import/csv/classes/load_data.php): on import the teacher maps
one column to a user field ("Identify user by": email address, ID number or username) and the grade
column to a grade item. A row whose identifier matches no user aborts the whole import, so an identifier
is never guessed: a username is written only when a roster lists it.

Blackboard Learn, as its Grade Center reads an upload (Work Offline → Upload, comma-delimited, "Blackboard
Learn Help: Upload or download grade columns"): a header row, every cell in quotes; students matched by
Username; a grade column whose header ends in "|<column id>" (as the Grade Center's own download writes it:
"Attention lab [Total Pts: 100 Score] |123456") goes into that column, any other header makes a new text
column. Written: the username a Blackboard download names each student by, else the roster's Username
column (the Grade Center's download).

Brightspace, as its grades import reads a file (Grades → Import, "D2L Brightspace Help: Import grades"): a
header row of OrgDefinedId and Username (either identifies the student), then "<item> Points Grade" for a
numeric grade item, then "End-of-Line Indicator", "#" on every row. Brightspace's download names students by
an internal user id that the import does not take, so the ids come from --roster, Brightspace's own grades
export (its OrgDefinedId and Username). --out-of gives the item's maximum points (default: the results').
"""

import argparse
import csv
import io
import math
import sys
from dataclasses import dataclass
from pathlib import Path

from attnlab.core.i18n import default_lang, t
from attnlab.grade.batch.outputs import atomic_write, graded, graded_with, read_results
from attnlab.grade.batch.submissions import Layout
from attnlab.instructor import roster as rosters

CANVAS_STUDENT_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
POINTS_POSSIBLE = "Points Possible"
MOODLE_ID_COLUMNS = {"email": "Email address", "idnumber": "ID number", "username": "Username",
                     "participant": "Identifier"}
MOODLE_KEYS = {"email": "email", "idnumber": "sid", "username": "username", "participant": "participant_id"}
WORKSHEET_COLUMNS = ("Identifier", "Full name", "Email address", "Grade", "Maximum Grade", "Last modified (grade)")
PARTICIPANT = "Participant "  # Moodle's "hiddenuser" string, before the participant id in Identifier
PERSON_KEYS = ("name", "email", "sid", "user_id", "participant_id")
BLACKBOARD_USERNAME = "Username"


@dataclass
class Person:
    """A row to write: the person's fields, and the result they are graded by."""

    fields: dict
    result: dict

    @property
    def grade(self) -> str:
        return points(self.result["score"]) if graded(self.result) else ""


def people(result: dict) -> list[dict]:
    """Each person a result is for: {"name", "email", "sid", "user_id", "participant_id", "username"}; the
    username is never guessed (only a roster gives it)."""
    submitters = (result.get("origin") or {}).get("submitters") or [{}]
    made = []
    for person in submitters:
        fields = {key: str(person.get(key) or "") for key in PERSON_KEYS}
        made.append({**fields, "name": fields["name"] or result["submission"], "username": ""})
    return made


def everyone(results: list[dict], roster: list | None) -> tuple[list[Person], list[str]]:
    """(the people of the results, completed from the roster where one is given; the submissions a roster
    matches nobody or several people to, each saying which)."""
    found, unmatched = [], []
    for result in results:
        for person in people(result):
            if roster is None:
                found.append(Person(person, result))
                continue
            rows = rosters.match(person, result["submission"], roster)
            if len(rows) == 1:
                found.append(Person(rosters.completed(person, rows[0]), result))
            else:
                lines = ", ".join(str(e.row) for e in rows)
                unmatched.append(f"{result['submission']} ({person['name']}: " +
                                 (f"rows {lines} of the roster)" if rows else "nobody in the roster)"))
    return found, unmatched


def points(value: float) -> str:
    return f"{round(float(value), 2):g}"


def _csv(header: list[str], rows: list[list[str]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def canvas_csv(persons: list[Person], *, assignment: str, assignment_id: str | None) -> tuple[str, int, list[str]]:
    """(the CSV text, the number of student rows, the submissions left out for want of any Canvas id)."""
    title = f"{assignment} ({assignment_id})" if assignment_id else assignment
    max_score = max((float(p.result["max_score"]) for p in persons), default=0.0)
    rows, left_out = [], []
    for p in persons:
        ids = [p.fields["user_id"], p.fields["sid"], p.fields.get("login") or p.fields["email"]]
        if any(ids):
            rows.append([p.fields["name"], *ids, "", p.grade])
        else:
            left_out.append(p.result["submission"])
    rows.sort(key=lambda row: (row[0].lower(), row[1]))
    text = _csv([*CANVAS_STUDENT_COLUMNS, title], [[POINTS_POSSIBLE, "", "", "", "", points(max_score)], *rows])
    return text, len(rows), sorted(set(left_out))


def moodle_csv(persons: list[Person], *, item: str, id_field: str) -> tuple[str, int, list[str]]:
    """(the CSV text, the number of rows, the submissions left out for want of the identifier)."""
    key = MOODLE_KEYS[id_field]
    rows = sorted([p.fields[key], p.grade] for p in persons if p.fields.get(key))
    left_out = sorted({p.result["submission"] for p in persons if not p.fields.get(key)})
    return _csv([MOODLE_ID_COLUMNS[id_field], item], rows), len(rows), left_out


def moodle_worksheet(persons: list[Person]) -> tuple[str, int, list[str]]:
    """A Moodle assignment's grading worksheet: (the CSV text, the number of rows, the submissions left out
    for want of a participant id)."""
    rows = sorted([f"{PARTICIPANT}{p.fields['participant_id']}", p.fields["name"], p.fields["email"], p.grade,
                   points(p.result["max_score"]), p.result.get("started_at") or ""]
                  for p in persons if p.fields["participant_id"])
    left_out = sorted({p.result["submission"] for p in persons if not p.fields["participant_id"]})
    return _csv(list(WORKSHEET_COLUMNS), rows), len(rows), left_out


def blackboard_csv(persons: list[Person], *, column: str, column_id: str | None) -> tuple[str, int, list[str]]:
    """(the CSV text, the number of rows, the submissions left out for want of a username)."""
    max_score = max((float(p.result["max_score"]) for p in persons), default=0.0)
    header = f"{column} [Total Pts: {points(max_score)} Score] |{column_id}" if column_id else column
    named = [(username(p), p) for p in persons]
    rows = sorted([user, p.grade] for user, p in named if user)
    left_out = sorted({p.result["submission"] for user, p in named if not user})
    buffer = io.StringIO()
    csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows([[BLACKBOARD_USERNAME, header], *rows])
    return buffer.getvalue(), len(rows), left_out


def brightspace_csv(persons: list[Person], *, item: str, out_of: float | None) -> tuple[str, int, list[str]]:
    """(the CSV text, the number of rows, the submissions left out for want of an OrgDefinedId or Username)."""
    def grade(p: Person) -> str:
        if not p.grade or out_of is None:
            return p.grade
        return points(float(p.result["score"]) * out_of / float(p.result["max_score"] or 1))

    def identified(p: Person) -> bool:  # OrgDefinedId or Username: what the import matches a student by
        return bool(p.fields["sid"] or p.fields.get("username"))

    rows = sorted([p.fields["sid"], p.fields.get("username", ""), grade(p), "#"] for p in persons if identified(p))
    left_out = sorted({p.result["submission"] for p in persons if not identified(p)})
    header = ["OrgDefinedId", "Username", f"{item} Points Grade", "End-of-Line Indicator"]
    return _csv(header, rows), len(rows), left_out


def username(person: Person) -> str:
    """The person's Blackboard username: the one its download gave (the LMS's user id there), else a roster's."""
    from_blackboard = (person.result.get("origin") or {}).get("layout") == str(Layout.BLACKBOARD)
    from_export = person.fields["user_id"] if from_blackboard else ""
    return from_export or person.fields.get("username", "")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m attnlab.instructor.lms", description=__doc__.split("\n")[0])
    kinds = parser.add_subparsers(dest="kind", required=True)
    canvas = kinds.add_parser("canvas", help="Canvas gradebook import CSV")
    canvas.add_argument("--assignment", required=True, help="the assignment's title in Canvas")
    canvas.add_argument("--assignment-id", help="its id (in its URL); without it Canvas creates the assignment")
    moodle = kinds.add_parser("moodle", help="Moodle grading worksheet or grade import CSV")
    moodle.add_argument("--item", help="the grade column's name (map it to a grade item); not for --id participant")
    moodle.add_argument("--id", dest="id_field", choices=sorted(MOODLE_ID_COLUMNS), default=None,
                        help="the field rows are matched on: participant (the assignment's grading worksheet; "
                             "the default for a Moodle download), else email; username only from --roster")
    blackboard = kinds.add_parser("blackboard", help="Blackboard Grade Center upload CSV")
    blackboard.add_argument("--column", required=True, help="the grade column's name in the Grade Center")
    blackboard.add_argument("--column-id", help="its column id (the number after '|' in the Grade Center's own "
                                                "download); without it Blackboard makes a new text column")
    brightspace = kinds.add_parser("brightspace", help="Brightspace grades import CSV (ids from --roster)")
    brightspace.add_argument("--item", required=True, help="the grade item's name in Brightspace")
    brightspace.add_argument("--out-of", type=float, default=None,
                             help="the grade item's maximum points (default: the results' maximum score)")
    for sub in (canvas, moodle, blackboard, brightspace):
        sub.add_argument("results_dir", type=Path, help="grade.py's --out directory")
        sub.add_argument("--roster", type=Path, default=None,
                         help="the LMS's class list (Canvas gradebook export; Moodle grades export, participants "
                              "or grading worksheet; Blackboard Grade Center download; Brightspace grades export) "
                              "giving the ids an export without them lacks")
        sub.add_argument("--out", type=Path, default=None, help="the CSV to write")
    return parser.parse_args(argv)


def written(opts: argparse.Namespace, persons: list[Person]) -> tuple[str, int, list[str], str]:
    """(the file's text, its rows, the submissions left out, what they lacked); raises ValueError for an
    option that cannot work."""
    if opts.kind == "canvas":
        text, count, left_out = canvas_csv(persons, assignment=opts.assignment, assignment_id=opts.assignment_id)
        return text, count, left_out, "Canvas ID, SIS User ID or SIS Login ID"
    if opts.kind == "blackboard":
        return (*blackboard_csv(persons, column=opts.column, column_id=opts.column_id), "Blackboard username")
    if opts.kind == "brightspace":
        if opts.out_of is not None and not (opts.out_of > 0 and math.isfinite(opts.out_of)):
            raise ValueError(f"--out-of must be a positive number of points, not {opts.out_of:g}")
        return (*brightspace_csv(persons, item=opts.item, out_of=opts.out_of), "OrgDefinedId or Username")
    id_field = opts.id_field or ("participant" if any(p.fields["participant_id"] for p in persons) else "email")
    if id_field == "participant":
        return (*moodle_worksheet(persons), "Moodle participant id")
    if not opts.item:
        raise ValueError(t("lms.item_needed", default_lang(), id=id_field))
    return (*moodle_csv(persons, item=opts.item, id_field=id_field), MOODLE_ID_COLUMNS[id_field])


def _digests(mixed: list[tuple[str, int]]) -> str:
    return ", ".join(f"{count} with {digest}" for digest, count in mixed)


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    lang = default_lang()
    results, unreadable = read_results(opts.results_dir) if opts.results_dir.is_dir() else ([], [])
    for name, why in unreadable:  # a result someone broke: that student's grade would be missing, unsaid
        print(t("lms.unreadable", lang, path=opts.results_dir / name, why=why), file=sys.stderr)
    if not results:
        print(t("lms.no_results", lang, path=opts.results_dir), file=sys.stderr)
        return 2
    if mixed := graded_with(results):  # an LMS import of these would carry two gradings as one
        print(t("lms.mixed_checks", lang, path=opts.results_dir, digests=_digests(mixed)), file=sys.stderr)
        return 2
    try:
        roster = rosters.read_roster(opts.roster) if opts.roster else None
        persons, unmatched = everyone(results, roster)
        text, count, left_out, field = written(opts, persons)
    except ValueError as exc:  # RosterError included
        print(f"lms: {exc}", file=sys.stderr)
        return 2
    if unmatched:
        print(t("lms.roster_unmatched", lang, count=len(unmatched), path=opts.roster, names="; ".join(unmatched)),
              file=sys.stderr)
    hint = "" if roster else t("lms.roster_hint", lang)
    if left_out:
        print(t("lms.left_out", lang, count=len(left_out), field=field, names=", ".join(left_out)) + hint,
              file=sys.stderr)
    if count == 0:
        print(t("lms.nothing_written", lang, kind=opts.kind.capitalize(), field=field), file=sys.stderr)
        return 2
    out = opts.out or opts.results_dir / f"{opts.kind}-grades.csv"
    atomic_write(out, text)
    print(t("lms.written", lang, path=out, rows=count, kind=opts.kind.capitalize()), file=sys.stderr)
    return 1 if left_out or unmatched or unreadable else 0


if __name__ == "__main__":
    sys.exit(main())
