"""Two LMS exports that say who handed in what: Gradescope's and Canvas's (Moodle's: moodle.py). (intake.py
decides which layout a path is; this module reads them.)

Gradescope's "Export Submissions" zip holds `assignment_<id>_export/`, in it `submission_metadata.yml` and
one folder per submission, `submission_<id>/`, with the files the student uploaded (a zip they uploaded is
stored unpacked). The metadata maps each folder name to its submitters, keys written as Ruby symbols:

    submission_123456789:
      :submitters:
      - :name: Wei Zhang
        :sid: '2023001'
        :email: wei.zhang@example.edu
      :created_at: 2024-03-01 10:00:00.000000000 -08:00
      ...

(as read by otter-grader's GradescopeParser and Gradescope exports parsed in public tools; a group
submission lists several submitters). Unknown YAML tags (Ruby objects) are read as plain data.

Canvas's "Download Submissions" zip holds one file per uploaded file, named by canvas-lms
lib/content_zipper.rb: `<lastfirst>[_LATE]_<user id>_<attachment id>_<file name>`, where <lastfirst> is
the student's sortable name, lower-cased, with everything but letters, digits and '_' removed, LATE
(older exports: late) marks a late submission, and anonymous grading writes `anon_<anonymous id>` in place
of the name and user id; text entries and URLs are `<lastfirst>[_LATE]_<user id>_text.html` / `_link.html`.
The second number is the id of the uploaded file, not of the submission, so it is not recorded. A file
not named that way is its own submission (and gets a message saying what it holds).
"""

import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

from attnlab.core.names import display_name, slug, stem_of
from attnlab.grade.batch.submissions import IntakeError, Layout, Origin, Submitter
from attnlab.grade.batch.unpack import open_zip

METADATA = "submission_metadata.yml"
MAX_METADATA_BYTES = 64 << 20
_UPLOAD = r"(?:(?P<file>\d+)_(?P<original>.+)|(?P<kind>text|link)\.html)"
CANVAS_NAMED = re.compile(rf"(?P<student>\w+?)_(?:(?P<late>late)_)?(?P<user>\d+)_{_UPLOAD}", re.IGNORECASE)
CANVAS_ANON = re.compile(rf"(?:(?P<late>late)_)?(?P<student>anon_[0-9a-z]+)_{_UPLOAD}", re.IGNORECASE)
DUPLICATE = re.compile(r"(?P<stem>.+)-\d+(?P<ext>\.[^.]+)")  # Canvas renames a re-uploaded softmax.py softmax-1.py


@dataclass(frozen=True)
class Candidate:
    """A submission before names are made unique (intake.unique)."""

    name: str
    fallback: str  # the name to take when another submission has the same one
    source: Path
    members: tuple[tuple[str, str], ...]
    origin: Origin


def unclaimed(arg: Path, source: Path, layout: Layout, name: str, member: tuple[str, str]) -> Candidate:
    """An entry of an export that names no student (`member`: its path in the export, where it goes): its own
    submission, whose message says what it holds; `name` (file-safe), else that and the export's name."""
    return Candidate(name, f"{name}-{slug(source.name)}", source, (member,),
                     Origin(layout, f"{arg}/{member[0].rstrip('/')}"))


def flat_and_named(files: list[str], named: Callable[[str], object]) -> bool:
    """Files only (no folders), at least one named the way the LMS names them (`named` says)."""
    return bool(files) and all("/" not in f for f in files) and any(named(f) for f in files)


def gradescope_root(files: list[str]) -> str | None:
    """The folder ("" or "<name>/") holding submission_metadata.yml at the root or one folder down."""
    roots = sorted({f[: -len(METADATA)] for f in files if f.rpartition("/")[2] == METADATA and f.count("/") <= 1})
    if len(roots) > 1:
        raise IntakeError("intake.two_exports", found=", ".join(r + METADATA for r in roots))
    return roots[0] if roots else None


class _Lenient(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml when there: a class's metadata is long
    """Safe YAML that reads tags it does not know (a Ruby object, say) as the plain data under them."""


def _plain(loader: yaml.SafeLoader, _suffix: str, node: yaml.Node):
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node, deep=True)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_scalar(node)


_Lenient.add_multi_constructor("!", _plain)


def _symbols(data):
    """Ruby-symbol keys (":name") as plain ones ("name"), all the way down."""
    if isinstance(data, dict):
        return {str(k).lstrip(":"): _symbols(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_symbols(v) for v in data]
    return data


def member_bytes(source: Path, rel: str, cap: int) -> bytes:
    """The first `cap` bytes of the export's file `rel` (the export a directory or a zip); raises OSError,
    KeyError (no such entry) or zipfile.BadZipFile."""
    if source.is_dir():
        return source.joinpath(rel).read_bytes()[:cap]
    with open_zip(source) as zf, zf.open(rel) as fh:
        return fh.read(cap)


def read_metadata(arg: Path, source: Path, rel: str) -> dict:
    """submission_metadata.yml as {folder name: {"submitters": [...], ...}}; raises IntakeError."""
    try:
        raw = member_bytes(source, rel, MAX_METADATA_BYTES)
        data = _symbols(yaml.load(raw.decode("utf-8", "replace"), Loader=_Lenient))  # a SafeLoader: no objects
    except (OSError, KeyError, zipfile.BadZipFile, yaml.YAMLError) as exc:
        raise IntakeError("intake.bad_metadata", path=f"{arg}/{rel}", problem=str(exc).splitlines()[0]) from None
    if not isinstance(data, dict):
        raise IntakeError("intake.bad_metadata", path=f"{arg}/{rel}", problem="not a mapping of submissions")
    return {str(k): v if isinstance(v, dict) else {} for k, v in data.items()}


def _submitter(entry) -> Submitter:
    entry = entry if isinstance(entry, dict) else {}
    text = {k: "" if entry.get(k) is None else str(entry[k]).strip() for k in ("name", "email", "sid")}
    return Submitter(name=display_name(text["name"]), email=text["email"], sid=text["sid"])


def _who(submitters: tuple[Submitter, ...]) -> str:
    """A name for the submitters: each one's email local part, else SID, else name; '-' between them."""
    keys = [s.email.partition("@")[0] or s.sid or s.name for s in submitters]
    return "-".join(filter(None, (slug(k) for k in keys)))


def gradescope(arg: Path, source: Path, files: list[str], empty_folders: set[str] = frozenset()) -> list[Candidate]:
    """One candidate per submission folder or metadata entry (a folder the metadata names but the export
    lacks gets its message when graded). `empty_folders`: folders under the export's root that hold no file
    `files` keeps (only .DS_Store, say): each is a candidate too, whose result says it has no files."""
    root = gradescope_root(files) or ""
    metadata = read_metadata(arg, source, root + METADATA)
    folders = {f[len(root):].split("/")[0] for f in files if f.startswith(root) and "/" in f[len(root):]}
    folders |= set(empty_folders)
    found = []
    for folder in sorted(folders | set(metadata)):
        submitters = tuple(_submitter(s) for s in metadata.get(folder, {}).get("submitters") or [])
        number = re.fullmatch(r"submission_(\d+)", folder)
        submission_id = number.group(1) if number else ""
        name = _who(submitters) or slug(folder) or "submission"
        origin = Origin(Layout.GRADESCOPE, f"{arg}/{root}{folder}", submitters, submission_id)
        found.append(Candidate(name, f"{name}_{submission_id or slug(folder)}", source,
                               ((f"{root}{folder}/", ""),), origin))
    return found


def _canvas_parts(file_name: str) -> re.Match | None:
    return CANVAS_ANON.fullmatch(file_name) or CANVAS_NAMED.fullmatch(file_name)


def is_canvas(files: list[str]) -> bool:
    return flat_and_named(files, _canvas_parts)


def _original(part: re.Match, markers: frozenset[str]) -> str:
    """The file's name as the student uploaded it (Canvas's "-1" on a re-uploaded module taken off)."""
    if part.group("kind"):
        return f"{part.group('kind').lower()}.html"
    original = part.group("original")
    dup = DUPLICATE.fullmatch(original)
    if dup and dup.group("stem") + dup.group("ext") in markers | {"__init__.py"}:
        return dup.group("stem") + dup.group("ext")
    return original


def canvas(arg: Path, source: Path, files: list[str], markers: frozenset[str]) -> list[Candidate]:
    """One candidate per student (their files together), one per file Canvas did not name."""
    students: dict[tuple[str, str], list[tuple[str, str, bool]]] = {}
    found = []
    for file_name in sorted(files):
        parts = _canvas_parts(file_name)
        if parts is None:
            found.append(unclaimed(arg, source, Layout.CANVAS, slug(stem_of(file_name)) or "submission",
                                   (file_name, file_name)))
            continue
        key = (parts.group("student"), parts.groupdict().get("user") or "")
        students.setdefault(key, []).append((file_name, _original(parts, markers),
                                             bool(parts.group("late"))))
    for (student, user), entries in students.items():
        name = slug(student) or "submission"
        origin = Origin(Layout.CANVAS, f"{arg}/{entries[0][0]}", (Submitter(user_id=user),) if user else (),
                        late=any(late for _, _, late in entries))
        found.append(Candidate(name, f"{name}_{user}" if user else name, source,
                               tuple((f, original) for f, original, _ in entries), origin))
    return found
