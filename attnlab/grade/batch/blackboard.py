"""Blackboard Learn's "Assignment File Download" (the gradebook zip): who handed in what. (intake.py decides
which layout a path is.)

The zip is flat. Each attempt of each student is a receipt and the files uploaded with it, all named after
`<assignment>_<username>_attempt_<yyyy-mm-dd-hh-mm-ss>`:

    Attention lab_zhangwei_attempt_2026-11-20-10-30-06.txt                  the receipt
    Attention lab_zhangwei_attempt_2026-11-20-10-30-06_attention.py         an uploaded file
    Attention lab_zhangwei_attempt_2026-11-20-10-30-06_attention-submission.zip

The receipt names the student ("Name: Zhang Wei (zhangwei)", its label in the course's language) and maps
each stored file to the name it was uploaded under ("Original filename: attention.py", then "Filename:
<the stored name>"). As assignment names and usernames may both hold '_', the username is the one in the
receipt's parentheses where it ends the prefix, else the prefix's last '_'-separated part (as public tools
that organise these downloads split it).

One submission per student: the latest attempt in the zip (an export of "all attempts" holds each; the
later ones replace the earlier), its files under the names they were uploaded with. Its origin records the
attempt (submission_id: its timestamp) and the student (user_id: the username; name: from the receipt). A
student whose attempt holds no file (text typed into the submission field) is graded from the receipt alone,
so the result says there is no package, naming it. A file not named this way is its own submission.
"""

import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from attnlab.core.i18n import decoded
from attnlab.core.names import display_name, slug, stem_of
from attnlab.grade.batch.lms_layouts import Candidate, flat_and_named, member_bytes, unclaimed
from attnlab.grade.batch.submissions import Layout, Origin, Submitter

ENTRY = re.compile(r"(?P<prefix>.+)_attempt_(?P<when>\d{4}(?:-\d{2}){5})(?:_(?P<file>.+)|(?P<receipt>\.txt))",
                   re.DOTALL)
NAMED = re.compile(r"[^:：\n]*[:：][ \t]*(?P<name>[^\n]*?)[ \t]*\((?P<user>[^()\n]+)\)[ \t]*$", re.MULTILINE)
ORIGINAL = re.compile(r"^[ \t]*[^:：\n]*[:：][ \t]*(?P<original>[^\n]+?)[ \t]*\n[ \t]*[^:：\n]*[:：][ \t]*"
                      r"(?P<stored>[^\n]+?_attempt_\d{4}(?:-\d{2}){5}_[^\n]+?)[ \t]*$", re.MULTILINE)
MAX_RECEIPT_BYTES = 1 << 20


def is_blackboard(files: list[str]) -> bool:
    return flat_and_named(files, ENTRY.fullmatch)


@dataclass
class _Attempt:
    prefix: str  # <assignment>_<username>
    when: str
    receipt: str = ""  # its file name in the export, if there is one
    files: list[str] = field(default_factory=list)  # the attempt's stored files (export names)


def _read(source: Path, name: str) -> str:
    """A receipt's text ('' where it cannot be read: the student is then known by the file names alone)."""
    try:
        raw = member_bytes(source, name, MAX_RECEIPT_BYTES)
    except (OSError, KeyError, zipfile.BadZipFile):
        return ""
    try:  # Blackboard writes UTF-8; a copy saved again on Windows may not be
        text = decoded(raw, bom=True)
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _student(prefix: str, receipt: str) -> tuple[str, str]:
    """(username, name as the receipt writes it, or '')."""
    for found in NAMED.finditer(receipt):
        user = found.group("user").strip()
        if prefix.endswith("_" + user):
            return user, display_name(found.group("name"))
    return prefix.rpartition("_")[2], ""


def _uploaded_names(receipt: str) -> dict[str, str]:
    """Stored file name -> the name it was uploaded under, as the receipt lists them (its last part: a
    browser may have sent the whole path, C:\\Users\\...\\attention.py)."""
    names = {}
    for found in ORIGINAL.finditer(receipt):
        base = re.split(r"[/\\]", found.group("original"))[-1].strip()
        if base not in ("", ".", "..") and ":" not in base:
            names[found.group("stored")] = base
    return names


def _members(attempt: _Attempt, uploaded: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """(export name, name in the upload) of the attempt's files: as uploaded where the receipt says, else the
    stored name without Blackboard's prefix; a name taken twice keeps the stored one for the later file."""
    start = len(f"{attempt.prefix}_attempt_{attempt.when}_")
    members, taken = [], set()
    for stored in attempt.files:
        name = uploaded.get(stored) or stored[start:]
        name = name if name.casefold() not in taken else stored[start:]
        taken.add(name.casefold())
        members.append((stored, name))
    if not members:  # text typed into the submission field, no file: the receipt, so the result names it
        members.append((attempt.receipt, attempt.receipt[len(attempt.prefix) + 1:]))
    return tuple(members)


def candidates(arg: Path, source: Path, files: list[str]) -> list[Candidate]:
    """One candidate per student (their latest attempt), one per file Blackboard did not name."""
    attempts: dict[tuple[str, str], _Attempt] = {}
    found = []
    for file_name in sorted(files):
        parts = ENTRY.fullmatch(file_name)
        if parts is None:
            found.append(unclaimed(arg, source, Layout.BLACKBOARD, slug(stem_of(file_name)) or "submission",
                                   (file_name, file_name)))
            continue
        attempt = attempts.setdefault((parts.group("prefix"), parts.group("when")),
                                      _Attempt(parts.group("prefix"), parts.group("when")))
        if parts.group("receipt"):
            attempt.receipt = file_name
        else:
            attempt.files.append(file_name)
    latest: dict[str, tuple[_Attempt, str, str]] = {}  # username -> (attempt, name, receipt text)
    for attempt in sorted(attempts.values(), key=lambda a: a.when):
        receipt = _read(source, attempt.receipt) if attempt.receipt else ""
        user, name = _student(attempt.prefix, receipt)
        latest[user] = (attempt, name or (latest[user][1] if user in latest else ""), receipt)
    for user, (attempt, name, receipt) in latest.items():
        members = _members(attempt, _uploaded_names(receipt))
        key = slug(user) or "submission"
        origin = Origin(Layout.BLACKBOARD, f"{arg}/{attempt.receipt or attempt.files[0]}",
                        (Submitter(name=name, user_id=user),), submission_id=attempt.when)
        found.append(Candidate(key, f"{key}_{slug(attempt.when)}", source, members, origin))
    return found
