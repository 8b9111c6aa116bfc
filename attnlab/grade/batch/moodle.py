"""Moodle's "Download all submissions" zip: who handed in what. (intake.py decides which layout a path is.)

Moodle (mod/assign/locallib.php, download_submissions) names each student's part of the zip after a prefix
`<Full name>_<participant id>`, where '_' in the name is written as a space (blind marking: `Participant`
in place of the name; group submissions: `<group>-<Full name>`), then `_assignsubmission_<plugin>_`:

    Wei Zhang_4711_assignsubmission_file_/attention-submission.zip     (in folders, Moodle >= 3.1's default)
    Wei Zhang_4711_assignsubmission_onlinetext_/onlinetext.html
    Wei Zhang_4711_assignsubmission_file_attention-submission.zip     ("Download submissions in folders" off)

The participant id is the assignment's own number for the student (its grading worksheet writes it
"Participant 4711"), not the Moodle user id: grades go back through that worksheet (instructor/lms.py).
A student's plugins are one submission: the uploaded files as they are, an online text under
`onlinetext/` beside them. An entry not named that way is its own submission (its message says what it
holds).
"""

import re
from pathlib import Path

from attnlab.core.names import display_name, slug
from attnlab.grade.batch.lms_layouts import Candidate, unclaimed
from attnlab.grade.batch.submissions import Layout, Origin, Submitter

ENTRY = re.compile(r"(?P<student>.+?)_(?P<participant>\d+)_assignsubmission_(?P<plugin>[a-z0-9]+)_(?P<file>.*)",
                   re.DOTALL)
BLIND = "Participant"  # the name Moodle writes for everyone under blind marking (English language pack)
UPLOADS = "file"  # the plugin whose files are the student's upload; other plugins' go into a folder of theirs


def is_moodle(files: list[str]) -> bool:
    """Some top-level entry is named the way Moodle names a student's part of its download."""
    return any(ENTRY.fullmatch(f.split("/")[0]) for f in files)


def _member(top: str, is_folder: bool, parts: re.Match) -> tuple[str, str]:
    """(the entry's path in the export, where it goes in the student's upload)."""
    plugin, file_name = parts.group("plugin"), parts.group("file")
    if is_folder:
        return f"{top}/", "" if plugin == UPLOADS else plugin
    return top, file_name if plugin == UPLOADS else f"{plugin}/{file_name}"


def _person(student: str, participant: str) -> tuple[str, Submitter]:
    """(the submission's file-safe name, the person), blind marking giving no name."""
    if student == BLIND:
        return f"participant_{participant}", Submitter(participant_id=participant)
    name = display_name(student)
    return slug(name) or f"participant_{participant}", Submitter(name=name, participant_id=participant)


def candidates(arg: Path, source: Path, tops: dict[str, bool]) -> list[Candidate]:
    """One candidate per participant (all their plugins' entries together), one per entry Moodle did not
    name. `tops`: every top-level entry (intake.top_entries), so a student whose folder holds nothing
    readable still gets a result saying so."""
    people: dict[str, tuple[str, Submitter, list[tuple[str, str]], str]] = {}
    found = []
    for top, is_folder in tops.items():
        parts = ENTRY.fullmatch(top)
        if parts is None:
            member = (f"{top}/", "") if is_folder else (top, top)
            found.append(unclaimed(arg, source, Layout.MOODLE, slug(top) or "submission", member))
            continue
        participant = parts.group("participant")
        if participant not in people:
            name, person = _person(parts.group("student"), participant)
            people[participant] = (name, person, [], top)
        people[participant][2].append(_member(top, is_folder, parts))
    for participant, (name, person, members, first) in people.items():
        origin = Origin(Layout.MOODLE, f"{arg}/{first}", (person,))
        found.append(Candidate(name, f"{name}_{participant}", source, tuple(members), origin))
    return found
