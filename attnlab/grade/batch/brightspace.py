"""D2L Brightspace's download of an assignment's submissions: who handed in what. (intake.py decides which
layout a path is.)

The zip holds one folder per submission, named `<submission id>-<user id> - <First Last> - <when>`, with
the files the student uploaded, and an `index.html` listing them; some downloads put all of it in a folder
named after the assignment:

    Attention lab/index.html
    Attention lab/39786-640693 - Wei Zhang - Nov 20, 2026 1022 AM/attention-submission.zip
    Attention lab/39801-640693 - Wei Zhang - Nov 21, 2026 905 PM/attention-submission.zip
    Attention lab/39787-640694 - Li Si - Nov 20, 2026 1130 AM/softmax.py

(as public grading tools read these downloads). One submission per student (the user id): their latest
folder, by the time its name gives (an unreadable time sorts first, then by submission id); its origin
records the submission id, the user id and the name. The index, and anything else that is not such a
folder, is no student's: index.html is skipped, any other entry is its own submission (its message says
what it holds).
"""

import datetime as dt
import re
from pathlib import Path

from attnlab.core.names import display_name, slug
from attnlab.grade.batch.lms_layouts import Candidate, unclaimed
from attnlab.grade.batch.submissions import Layout, Origin, Submitter

FOLDER = re.compile(r"(?P<submission>\d+)-(?P<user>\d+) - (?P<name>.+) - (?P<when>[^-]+?)\s*")
INDEX = "index.html"
TIMES = ("%b %d, %Y %I%M %p", "%b %d, %Y %I:%M %p", "%d %b %Y %I%M %p", "%Y-%m-%d %H%M")


def root_of(files: list[str]) -> str | None:
    """"" or "<assignment>/" where the submission folders are, or None where this is no Brightspace download:
    at least one entry named like a submission folder, beside index.html or only such folders."""
    for root in ("", *sorted({f.split("/")[0] + "/" for f in files if f.count("/") >= 2})):
        inside = [f[len(root):] for f in files if f.startswith(root)]
        tops = {f.split("/")[0] for f in inside if "/" in f}
        named = [t for t in tops if FOLDER.fullmatch(t)]
        if named and (INDEX in inside or len(named) == len(tops)):
            return root
    return None


def _when(text: str) -> dt.datetime:
    for pattern in TIMES:
        try:
            return dt.datetime.strptime(" ".join(text.split()), pattern)
        except ValueError:
            continue
    return dt.datetime.min


def candidates(arg: Path, source: Path, files: list[str], root: str, folders: set[str]) -> list[Candidate]:
    """One candidate per student (their latest submission folder), one per other entry but the index.
    `folders`: every folder under `root` (intake.folders_in), so one holding nothing readable still counts."""
    latest: dict[str, tuple[tuple, str, re.Match]] = {}
    found = []
    for top in sorted({f[len(root):].split("/")[0] for f in files if f.startswith(root)} | folders):
        is_folder = top in folders or any(f.startswith(f"{root}{top}/") for f in files)
        parts = FOLDER.fullmatch(top) if is_folder else None
        if parts is None:
            if top.casefold() != INDEX:
                member = (f"{root}{top}/", "") if is_folder else (f"{root}{top}", top)
                found.append(unclaimed(arg, source, Layout.BRIGHTSPACE, slug(top) or "submission", member))
            continue
        order = (_when(parts.group("when")), int(parts.group("submission")))
        user = parts.group("user")
        if user not in latest or order > latest[user][0]:
            latest[user] = (order, top, parts)
    for user, (_, top, parts) in latest.items():
        person = display_name(parts.group("name"))
        name = slug(person) or f"user_{user}"
        origin = Origin(Layout.BRIGHTSPACE, f"{arg}/{root}{top}", (Submitter(name=person, user_id=user),),
                        submission_id=parts.group("submission"))
        found.append(Candidate(name, f"{name}_{user}", source, ((f"{root}{top}/", ""),), origin))
    return found
