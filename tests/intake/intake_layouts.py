"""Classes as LMSs export them, built for real from the example submissions: a folder per student,
Gradescope's "Export Submissions" zip, Canvas's "Download Submissions" zip, Moodle's "Download all
submissions" zip (docs/intake.md has the formats).
Each builder returns the path to give grade.py and what grading it must produce, per student.
(conftest.py offers them as fixtures.)"""

import io
import shutil
import struct
import tarfile
import tempfile
import unicodedata
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from attnlab.core import paths
from attnlab.grade.batch.unpack import open_zip
from attnlab.student.submit import build_submission

EXAMPLES = paths.EXAMPLES_DIR
REFERENCE, PARTIAL, BUGGY, TEMPLATE = (EXAMPLES / n for n in ("reference", "alice_partial", "bob_buggy",
                                                              "untouched_template"))
MARKERS = frozenset({"softmax.py", "attention.py", "multihead.py", "rope.py", "quiz.yaml"})
PARTIAL_SCORE = 33.0  # alice_partial: softmax, simple and scaled dot-product attention, and the quiz


@dataclass
class Expected:
    """What one student's result must say: a score, or an error mentioning `error` (then it is not graded);
    and its origin."""

    score: float | None = None
    error: str | None = None
    origin: dict = field(default_factory=dict)  # keys of the result's "origin" that must match
    people: list[dict] = field(default_factory=list)  # its submitters (each: fields that must match)


def package_files(package: Path) -> dict[str, bytes]:
    """The package's files by relative path (no caches), e.g. {"softmax.py": b"...", "misconceptions/..."}."""
    root = package.resolve()
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def write_tree(root: Path, files: dict[str, bytes]) -> Path:
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


def write_zip(archive: Path, files: dict[str, bytes]) -> Path:
    archive.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel, data in files.items():
            zf.writestr(rel, data)
    return archive


def without_utf8_flag(archive: Path) -> Path:
    """The zip with its UTF-8 names' flag cleared, as macOS's Archive Utility and PHP (Moodle) write them."""
    raw = bytearray(archive.read_bytes())
    with zipfile.ZipFile(archive) as zf:
        infos, at = zf.infolist(), zf.start_dir
    for info in infos:
        raw[info.header_offset + 7] &= ~0x08  # local header: its flags' high byte (bit 11 is 0x800)
        raw[at + 9] &= ~0x08  # central header: its flags' high byte
        name, extra, comment = struct.unpack("<HHH", raw[at + 28:at + 34])
        at += 46 + name + extra + comment
    archive.write_bytes(bytes(raw))
    return archive


def submitted(package: Path, student: str, tmp: Path) -> bytes:
    """The bytes of what `attnlab submit --name <student>` makes of `package` (as `attention/`)."""
    staged = Path(tempfile.mkdtemp(prefix=f"stage-{student}-", dir=tmp)) / "attention"
    shutil.copytree(package.resolve(), staged, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return build_submission(staged, out_dir=staged.parent, student=student).path.read_bytes()


def as_tar(export: Path, archive: Path) -> Path:
    """A .tar.gz of `export`: a folder as `tar czf ARCHIVE -C FOLDER .` makes it ("./" first), a zip entry by
    entry with its folders (names as grade.py reads the zip)."""
    with tarfile.open(archive, "w:gz") as tf:
        if export.is_dir():
            tf.add(export, arcname=".")
            return archive
        with open_zip(export) as zf:
            for info in zf.infolist():
                member = tarfile.TarInfo(info.filename)
                data = b"" if info.is_dir() else zf.read(info)
                member.type, member.size = (tarfile.DIRTYPE, 0) if info.is_dir() else (tarfile.REGTYPE, len(data))
                tf.addfile(member, io.BytesIO(data))
    return archive


def under(prefix: str, files: dict[str, bytes]) -> dict[str, bytes]:
    return {f"{prefix}/{rel}": data for rel, data in files.items()}


def folders_class(tmp_path: Path) -> tuple[Path, dict[str, Expected]]:
    """class/<student>/...: the student is the folder's name, whatever the upload inside is called."""
    root = tmp_path / "class"
    write_tree(root / "alice", {"attention-submission.zip": submitted(PARTIAL, "attention", tmp_path)})
    write_tree(root / "bob", under("attention", package_files(BUGGY)))
    nested = {**under("student/attention", package_files(TEMPLATE)), "__MACOSX/student/._softmax.py": b"\0",
              "student/.venv/lib/python3.11/site-packages/torch/__init__.py": b"raise SystemExit\n",
              "student/.git/HEAD": b"ref: refs/heads/main\n"}
    write_zip(root / "carol" / "carol-submission.zip", nested)  # zipped the folder above the package
    write_tree(root / "dave", {**under("a/attention", package_files(TEMPLATE)),
                               **under("b/attention", package_files(TEMPLATE))})
    write_tree(root / "erin", {"notes.txt": b"I ran out of time\n"})
    write_tree(root, {"frank-submission.zip": submitted(REFERENCE, "frank", tmp_path)})
    write_tree(root / "zoe", {".DS_Store": b"\0\0\0\1Bud1"})  # opened in Finder, nothing handed in
    expected = {
        "alice": Expected(score=PARTIAL_SCORE, origin={"layout": "folders"}),
        "bob": Expected(origin={"layout": "folders"}),
        "carol": Expected(score=0.0, origin={"layout": "folders"}),
        "dave": Expected(error="two candidate packages: a/attention, b/attention"),
        "erin": Expected(error="found: notes.txt"),
        "frank": Expected(score=100.0, origin={"layout": "folders"}),
        "zoe": Expected(error="has no files at zoe/"),
    }
    for name, want in expected.items():  # the student is the folder's name, as written
        want.people = [{"name": name, "user_id": ""}]
    return root, expected


GRADESCOPE_METADATA = """\
submission_1001:
  :submitters:
  - :name: Wei Zhang
    :sid: '2023001'
    :email: wei.zhang@example.edu
  :created_at: 2024-03-01 10:00:00.000000000 -08:00
  :score: 0.0
  :status: processed
  :results: !ruby/hash:ActiveSupport::HashWithIndifferentAccess
    score: 0.0
  :history: []
submission_1002:
  :submitters:
  - :name: Na Li
    :sid: '2023002'
    :email: li.na@example.edu
  :created_at: 2024-03-02 23:59:00.000000000 -08:00
  :history: []
submission_1003:
  :submitters:
  - :name: Fang Wang
    :sid: '2023003'
    :email: fang.wang@example.edu
  - :name: Jun Chen
    :sid: '2023004'
    :email: jun.chen@example.edu
  :created_at: 2024-03-03 09:30:00.000000000 -08:00
submission_1004:
  :submitters:
  - :name: Ming Liu
    :sid: '2023005'
    :email: ming.liu@example.edu
"""


def gradescope_export(tmp_path: Path) -> tuple[Path, dict[str, Expected]]:
    """Gradescope's export zip: uploads stored unpacked per submission, one zip kept as uploaded, a group,
    a submission the metadata names but the export lacks, and a folder holding only .DS_Store that the
    metadata does not name."""
    top = "assignment_4242_export"
    files = {f"{top}/submission_metadata.yml": GRADESCOPE_METADATA.encode(),
             f"__MACOSX/{top}/._submission_metadata.yml": b"\0",
             **under(f"{top}/submission_1001/attention", package_files(REFERENCE)),
             f"{top}/submission_1001/MANIFEST.json": b"{}",
             f"{top}/submission_1002/li.na-submission.zip": submitted(BUGGY, "li.na", tmp_path),
             **under(f"{top}/submission_1003", package_files(PARTIAL)),
             f"{top}/submission_1005/.DS_Store": b"\0\0\0\1Bud1"}  # in no metadata: opened in Finder, nothing more
    archive = write_zip(tmp_path / "export.zip", files)

    def person(name, sid, email):
        return {"name": name, "sid": sid, "email": email}

    return archive, {
        "wei.zhang": Expected(score=100.0, origin={"layout": "gradescope", "submission_id": "1001"},
                              people=[person("Wei Zhang", "2023001", "wei.zhang@example.edu")]),
        "li.na": Expected(origin={"layout": "gradescope", "submission_id": "1002"},
                          people=[person("Na Li", "2023002", "li.na@example.edu")]),
        "fang.wang-jun.chen": Expected(score=PARTIAL_SCORE, origin={"layout": "gradescope", "submission_id": "1003"},
                                       people=[person("Fang Wang", "2023003", "fang.wang@example.edu"),
                                               person("Jun Chen", "2023004", "jun.chen@example.edu")]),
        "ming.liu": Expected(error="has no files at assignment_4242_export/submission_1004/",
                             origin={"submission_id": "1004"}, people=[person("Ming Liu", "2023005",
                                                                              "ming.liu@example.edu")]),
        "submission_1005": Expected(error="has no files at assignment_4242_export/submission_1005/",
                                    origin={"submission_id": "1005"}),
    }


def canvas_download(tmp_path: Path) -> tuple[Path, dict[str, Expected]]:
    """Canvas's download zip: <lastfirst>[_LATE]_<user id>_<file id>_<file name>, two students with the same
    name, a late one, one who uploaded the package's files one by one (one re-uploaded: rope-1.py), a
    text entry, and a file Canvas did not name."""
    one_by_one = {f"wangfang_103_{9100 + i}_{'rope-1.py' if rel == 'rope.py' else rel}": data
                  for i, (rel, data) in enumerate(package_files(PARTIAL).items())}
    files = {"zhangwei_101_9001_attention-submission.zip": submitted(PARTIAL, "attention", tmp_path),
             "zhangwei_104_9002_zhangwei-submission.zip": submitted(BUGGY, "zhangwei", tmp_path),
             "lisi_LATE_102_9003_lisi-submission.zip": submitted(REFERENCE, "lisi", tmp_path),
             **one_by_one,
             "zhaolei_105_text.html": b"<p>see my email</p>",
             "notes.txt": b"exported 2024-03-04\n"}
    archive = write_zip(tmp_path / "submissions.zip", files)
    return archive, {
        "zhangwei_101": Expected(score=PARTIAL_SCORE, origin={"layout": "canvas", "late": False},
                                 people=[{"user_id": "101"}]),
        "zhangwei_104": Expected(origin={"layout": "canvas", "late": False}, people=[{"user_id": "104"}]),
        "lisi": Expected(score=100.0, origin={"layout": "canvas", "late": True}, people=[{"user_id": "102"}]),
        "wangfang": Expected(score=PARTIAL_SCORE, origin={"layout": "canvas", "late": False},
                             people=[{"user_id": "103"}]),
        "zhaolei": Expected(error="found: text.html", people=[{"user_id": "105"}]),
        "notes.txt": Expected(error="found: notes.txt", origin={"layout": "canvas"}),
    }


YORUBA = "Olúwádámilọ́lá Adébáyọ̀"  # ọ́ and ọ̀ have no precomposed form: a letter and a combining mark even in NFC


def moodle_download(tmp_path: Path) -> tuple[Path, dict[str, Expected]]:
    """Moodle's download zip, folders per participant and plugin, names in UTF-8 without the zip's flag and
    decomposed (made on a Mac): a student with a file and an online text, one whose folder holds only
    .DS_Store, one with an online text alone, and a flat entry ("Download submissions in folders" off)."""
    nfd = unicodedata.normalize("NFD", YORUBA)
    files = {f"{nfd}_4711_assignsubmission_file_/attention-submission.zip": submitted(PARTIAL, "attention", tmp_path),
             f"{nfd}_4711_assignsubmission_onlinetext_/onlinetext.html": b"<p>my notes</p>",
             "Na Li_4713_assignsubmission_file_/.DS_Store": b"\0\0\0\1Bud1",
             "Jun Chen_4714_assignsubmission_onlinetext_/onlinetext.html": b"<p>I will send it later</p>",
             "Wei Zhang_4712_assignsubmission_file_notes.txt": b"no code yet\n"}
    archive = without_utf8_flag(write_zip(tmp_path / "Attention lab-4242.zip", files))

    def person(name, participant):
        return {"name": name, "participant_id": participant, "user_id": ""}

    return archive, {
        "Olúwádámilọ́lá_Adébáyọ̀": Expected(score=PARTIAL_SCORE, origin={"layout": "moodle"},
                                            people=[person(YORUBA, "4711")]),
        "Na_Li": Expected(error="has no files at Na Li_4713_assignsubmission_file_/", people=[person("Na Li", "4713")]),
        "Jun_Chen": Expected(error="found: onlinetext/onlinetext.html", people=[person("Jun Chen", "4714")]),
        "Wei_Zhang": Expected(error="found: notes.txt", people=[person("Wei Zhang", "4712")]),
    }


def blackboard_receipt(name: str, user: str, uploads: dict[str, str], *, crlf: bool = False) -> bytes:
    """The receipt Blackboard writes beside an attempt's files: the student, and each file's uploaded name."""
    listed = "".join(f"\tOriginal filename: {original}\n\tFilename: {stored}\n" for stored, original in uploads.items())
    text = (f"Name: {name} ({user})\nAssignment: Attention lab_2026\nDate Submitted: Friday, November 20, 2026 "
            "10:30:06 AM CST\nCurrent Grade: Needs Grading\n\nSubmission Field:\n"
            + ("There is no student submission text data for this assignment.\n" if uploads else "<p>see email</p>\n")
            + "\nComments:\nThere are no student comments for this assignment.\n\nFiles:\n" + listed)
    return (text.replace("\n", "\r\n") if crlf else text).encode()


def lms_user(name: str, user: str) -> dict:
    """A submitter as Blackboard and Brightspace name them: a name and the LMS's user id."""
    return {"name": name, "user_id": user}


def blackboard_download(tmp_path: Path) -> tuple[Path, dict[str, Expected]]:
    """Blackboard Learn's gradebook zip, flat: <assignment>_<username>_attempt_<time>, a receipt (.txt) per
    attempt and its files after it. An assignment name with a space and '_', a student with two attempts
    (the later graded), a username holding '_' (told apart by the receipt), a receipt with Windows line
    ends and the package's files uploaded one by one, a browser that sent the whole path, an attempt of text
    alone, and a file Blackboard did not name."""
    lab = "Attention lab_2026"
    files: dict[str, bytes] = {}

    def attempt(name, user, when, uploads: dict[str, bytes], originals=None, crlf=False):
        prefix = f"{lab}_{user}_attempt_{when}"
        stored = {f"{prefix}_{rel}": data for rel, data in uploads.items()}
        files.update(stored)
        named = dict(zip(stored, originals or uploads))
        files[f"{prefix}.txt"] = blackboard_receipt(name, user, named, crlf=crlf)

    attempt("Zhang Wei", "zhangwei", "2026-11-18-09-00-00",
            {"attention-submission.zip": submitted(BUGGY, "a", tmp_path)})
    attempt("Zhang Wei", "zhangwei", "2026-11-20-10-30-06",
            {"attention-submission.zip": submitted(PARTIAL, "attention", tmp_path)})
    attempt("Li Si", "li_si", "2026-11-19-22-15-40", {"lisi-submission.zip": submitted(REFERENCE, "lisi", tmp_path)},
            originals=["C:\\Users\\lisi\\Desktop\\lisi-submission.zip"])
    attempt("王芳", "wangfang", "2026-11-20-23-59-59", package_files(PARTIAL), crlf=True)
    attempt("Zhao Lei", "zhaolei", "2026-11-21-08-00-00", {})
    files["gradebook_notes.txt"] = b"downloaded 2026-11-22\n"
    archive = write_zip(tmp_path / "gradebook_Attention_lab.zip", files)

    return archive, {
        "zhangwei": Expected(score=PARTIAL_SCORE, people=[lms_user("Zhang Wei", "zhangwei")],
                             origin={"layout": "blackboard", "submission_id": "2026-11-20-10-30-06"}),
        "li_si": Expected(score=100.0, origin={"layout": "blackboard"}, people=[lms_user("Li Si", "li_si")]),
        "wangfang": Expected(score=PARTIAL_SCORE, origin={"layout": "blackboard"},
                             people=[lms_user("王芳", "wangfang")]),
        "zhaolei": Expected(error="found: attempt_2026-11-21-08-00-00.txt", people=[lms_user("Zhao Lei", "zhaolei")]),
        "gradebook_notes.txt": Expected(error="found: gradebook_notes.txt", origin={"layout": "blackboard"}),
    }


def brightspace_download(tmp_path: Path) -> tuple[Path, dict[str, Expected]]:
    """D2L Brightspace's download zip: `<submission id>-<user id> - <name> - <when>/` per submission and an
    index.html, in a folder named after the assignment. A student who submitted twice (the later graded, the
    earlier time later in the alphabet), one who uploaded the package's files one by one, one whose folder
    holds only .DS_Store, and a stray file."""
    lab = "Attention lab"
    files = {f"{lab}/index.html": b"<html><body>submissions</body></html>",
             f"{lab}/39801-640693 - Wei Zhang - Nov 9, 2026 905 PM/attention-submission.zip":
                 submitted(BUGGY, "attention", tmp_path),
             f"{lab}/39835-640693 - Wei Zhang - Nov 20, 2026 1022 AM/attention-submission.zip":
                 submitted(PARTIAL, "attention", tmp_path),
             **under(f"{lab}/39787-640694 - Li Si - Nov 20, 2026 1130 AM", package_files(REFERENCE)),
             f"{lab}/39790-640695 - Zhao Lei - Nov 22, 2026 800 AM/.DS_Store": b"\0\0\0\1Bud1",
             f"{lab}/grading notes.txt": b"to do\n"}
    archive = write_zip(tmp_path / f"{lab} Download Nov 23, 2026 1015 AM.zip", files)

    return archive, {
        "Wei_Zhang": Expected(score=PARTIAL_SCORE, people=[lms_user("Wei Zhang", "640693")],
                              origin={"layout": "brightspace", "submission_id": "39835"}),
        "Li_Si": Expected(score=100.0, origin={"layout": "brightspace"}, people=[lms_user("Li Si", "640694")]),
        "Zhao_Lei": Expected(error="has no files at Attention lab/39790-640695 - Zhao Lei - Nov 22, 2026 800 AM/",
                             people=[lms_user("Zhao Lei", "640695")]),
        "grading_notes.txt": Expected(error="found: grading notes.txt", origin={"layout": "brightspace"}),
    }
