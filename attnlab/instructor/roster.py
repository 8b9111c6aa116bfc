"""An LMS's own class list, to give each graded submission the LMS's ids when the export carried none
(a folder per student), for `python -m attnlab.instructor.lms ... --roster FILE`.

Read: Canvas's gradebook export (Grades → Export → CSV: Student as "Last, First", ID, SIS User ID, SIS
Login ID, Section, then a "Points Possible" row), Moodle's grades export (Export → Plain text: First name,
Last name, ID number, Email address, ...), its participants download (First name, Last name, Email
address, ...), an assignment's grading worksheet (Identifier "Participant 4711", Full name, Email
address, ...), Blackboard's Grade Center download (Last Name, First Name, Username, Student ID, ...) and
Brightspace's grades export (OrgDefinedId, Username, Last Name, First Name, Email, ...; "#" before the ids).
Columns are found by their header, in any order; others are ignored.

A person is matched to one roster row by, in order: an id both carry (Canvas user id, Moodle participant
id, student id, email or login), else their name as the export wrote it (case, spacing and the order of
"Last, First" aside), else the submission's file-safe name against the row's name, login, email's local
part or username. The first of these that finds anyone must find exactly one row.
"""

import csv
import re
from dataclasses import dataclass, fields
from pathlib import Path

from attnlab.core.names import display_name, slug

COLUMNS = {  # roster field -> the headers (case-folded) that hold it
    "name": ("student", "full name", "fullname", "name"),
    "first": ("first name", "firstname"),
    "last": ("last name", "surname", "lastname"),
    "user_id": ("id",),
    "sid": ("sis user id", "id number", "idnumber", "student id", "orgdefinedid"),
    "login": ("sis login id",),
    "email": ("email address", "email"),
    "username": ("username",),
    "participant_id": ("identifier",),
}
IDS = ("user_id", "participant_id", "sid", "email", "login")  # matched in this order, exactly (email: any case)
MAX_ROSTER_BYTES = 32 << 20


class RosterError(ValueError):
    """A roster that cannot be read: the message names the file and what is wrong."""


@dataclass(frozen=True)
class Entry:
    """One person of the roster, "" for what it does not say."""

    row: int
    name: str = ""
    user_id: str = ""
    sid: str = ""
    login: str = ""
    email: str = ""
    username: str = ""
    participant_id: str = ""

    def names(self) -> set[str]:
        """The name as keys to compare: as written, and a "Last, First" also as "First Last"."""
        keys = {name_key(self.name)}
        if "," in self.name:
            last, _, first = self.name.partition(",")
            keys.add(name_key(f"{first} {last}"))
        return keys - {""}


def name_key(name: str) -> str:
    return display_name(name).casefold()


def _columns(header: list[str], path: Path) -> dict[str, int]:
    folded = [cell.strip().casefold() for cell in header]
    found = {key: folded.index(h) for key, heads in COLUMNS.items() for h in heads if h in folded}
    if not found.keys() & {*IDS, "username"}:
        raise RosterError(f"{path}: no column of ids in its header ({', '.join(header[:8])}); expected one of "
                          "ID, SIS User ID, SIS Login ID, Identifier, ID number, Email address, Username")
    return found


def _entry(row: list[str], number: int, columns: dict[str, int]) -> Entry | None:
    # Brightspace's export writes "#" before OrgDefinedId and Username (so that Excel keeps them text)
    cell = {key: row[i].strip().removeprefix("#") if key in ("sid", "username") else row[i].strip()
            for key, i in columns.items() if i < len(row)}
    if cell.get("name", "").casefold().startswith("points possible") or cell.get("name") == "Student, Test":
        return None  # Canvas's row of maximum points, and its test student
    name = cell.get("name") or " ".join(filter(None, (cell.get("first"), cell.get("last"))))
    participant = re.sub(r"\D", "", cell.get("participant_id", ""))
    values = {f.name: cell.get(f.name, "") for f in fields(Entry) if f.name not in ("row", "name", "participant_id")}
    entry = Entry(row=number, name=display_name(name), participant_id=participant, **values)
    return entry if any(getattr(entry, key) for key in (*IDS, "username")) else None


def read_roster(path: Path) -> list[Entry]:
    """The people of a roster file; raises RosterError."""
    utf16 = False
    try:
        raw = path.read_bytes()[:MAX_ROSTER_BYTES]
        # Blackboard's Grade Center download is UTF-16 and tab-delimited (its ".xls"); the others UTF-8 CSV
        utf16 = raw[:2] in (b"\xff\xfe", b"\xfe\xff")
        text = raw.decode("utf-16" if utf16 else "utf-8-sig")
    except OSError as exc:
        raise RosterError(f"cannot read the roster {path}: {exc}") from None
    except UnicodeDecodeError as exc:
        if utf16:  # cut short (an odd number of bytes) or damaged on the way
            raise RosterError(f"the roster {path} is UTF-16, as Blackboard's Grade Center downloads it, but damaged: "
                              f"bytes {exc.start + 1} to {exc.end} are no character ({exc.reason}); download it "
                              "from the LMS again") from None
        # re-saved by Excel in the machine's code page (GBK, Windows-1252, ...)
        raise RosterError(f"the roster {path} is not UTF-8 (byte {exc.start + 1} is {raw[exc.start]:#04x}): a file "
                          "re-saved by Excel is in the computer's own encoding; save it as \"CSV UTF-8\" or "
                          "download it from the LMS again") from None
    lines = text.splitlines()
    rows = list(csv.reader(lines, dialect="excel-tab" if lines and "\t" in lines[0] else "excel"))
    if not rows:
        raise RosterError(f"the roster {path} is empty")
    columns = _columns(rows[0], path)
    entries = [e for n, row in enumerate(rows[1:], start=2) if (e := _entry(row, n, columns))]
    if not entries:
        raise RosterError(f"the roster {path} lists nobody")
    return entries


def _by_id(person: dict, roster: list[Entry]) -> list[Entry]:
    for key in IDS:
        wanted = person.get("email" if key == "login" else key, "").casefold()
        found = [e for e in roster if wanted and getattr(e, key).casefold() == wanted]
        if found:
            return found
    return []


def _by_file_name(submission: str, roster: list[Entry]) -> list[Entry]:
    def keys(e: Entry) -> set[str]:
        local = e.email.partition("@")[0]
        return {k.casefold() for k in (slug(e.name), e.login, e.username, local, slug(local)) if k}

    return [e for e in roster if submission.casefold() in keys(e)]


def match(person: dict, submission: str, roster: list[Entry]) -> list[Entry]:
    """The roster rows a person is (see the module docstring): one, or several when it is ambiguous, or
    none."""
    by_name = [e for e in roster if name_key(person.get("name", "")) in e.names()]
    for found in (_by_id(person, roster), by_name, _by_file_name(submission, roster)):
        if found:
            return found
    return []


def completed(person: dict, entry: Entry) -> dict:
    """The person with the roster's name and every id the roster has that the export did not give."""
    made = dict(person)
    for key in ("user_id", "sid", "email", "username", "participant_id"):
        made[key] = made.get(key) or getattr(entry, key) or (entry.login if key == "email" and
                                                             "@" in entry.login else "")
    made["login"] = entry.login
    made["name"] = entry.name or made.get("name", "")
    return made
