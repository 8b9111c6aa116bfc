"""grade.py's intake without grading: which layout a path is, the names and metadata of its submissions
(unique, the same every time), usage errors, and finding the package inside any nesting."""

import shutil
import unicodedata
import zipfile
from dataclasses import asdict
from pathlib import Path

import pytest
from intake_layouts import (
    MARKERS,
    PARTIAL,
    TEMPLATE,
    YORUBA,
    as_tar,
    package_files,
    submitted,
    under,
    write_tree,
    write_zip,
)

from attnlab.core.names import display_name, slug
from attnlab.grade.batch.intake import IntakeError, discover
from attnlab.grade.batch.lms_layouts import _canvas_parts
from attnlab.grade.batch.submissions import BadSubmission, Layout, Submission, Submitter, prepare


def found(*args, layout=None) -> dict[str, Submission]:
    return {s.name: s for s in discover([Path(a) for a in args], markers=MARKERS, layout=layout)}


def package_of(sub: Submission, tmp_path: Path) -> Path:
    work = tmp_path / f"work-{sub.name}"
    work.mkdir()
    return prepare(sub, work, MARKERS)


def problem(sub: Submission, tmp_path: Path) -> str:
    with pytest.raises(BadSubmission) as info:
        package_of(sub, tmp_path)
    return str(info.value)


def test_each_lms_layout_gives_one_submission_per_student(folders_class, gradescope_export, canvas_download,
                                                          moodle_download, blackboard_download, brightspace_download):
    for (path, expected), layout in ((folders_class, "folders"), (gradescope_export, "gradescope"),
                                     (canvas_download, "canvas"), (moodle_download, "moodle"),
                                     (blackboard_download, "blackboard"), (brightspace_download, "brightspace")):
        subs = found(path)  # no --layout: every one is recognised
        assert sorted(subs) == sorted(expected), layout
        assert {s.origin.layout for s in subs.values()} == {layout}
        for name, want in expected.items():
            people = [asdict(p) for p in subs[name].origin.submitters]
            assert len(people) == len(want.people) and all(w.items() <= p.items() for w, p in zip(want.people, people))


def test_moodle_participants_with_all_their_plugins(moodle_download, tmp_path):
    subs = found(moodle_download[0])
    student = subs[slug(YORUBA)]
    assert student.origin.submitters == (Submitter(name=YORUBA, participant_id="4711"),)  # NFC, marks kept
    assert [dst for _, dst in student.members] == ["", "onlinetext"]  # the online text is no extra student
    package = package_of(student, tmp_path)
    assert (package / "softmax.py").read_bytes() == (PARTIAL / "softmax.py").read_bytes()
    assert subs["Wei_Zhang"].members == (("Wei Zhang_4712_assignsubmission_file_notes.txt", "notes.txt"),)
    blind = write_zip(tmp_path / "blind.zip", {"Participant_31_assignsubmission_file_/a.zip": b"PK",
                                               "Participant_32_assignsubmission_file_/a.zip": b"PK",
                                               "export-notes.txt": b"hi"})
    blind_subs = found(blind)
    assert sorted(blind_subs) == ["export-notes.txt", "participant_31", "participant_32"]
    assert blind_subs["participant_31"].origin.submitters == (Submitter(participant_id="31"),)


def test_blackboard_students_latest_attempts_under_their_uploaded_names(blackboard_download, tmp_path):
    subs = found(blackboard_download[0])
    zhang = subs["zhangwei"]
    assert zhang.origin.submission_id == "2026-11-20-10-30-06"  # the later of two attempts
    assert zhang.members == (("Attention lab_2026_zhangwei_attempt_2026-11-20-10-30-06_attention-submission.zip",
                              "attention-submission.zip"),)
    assert (package_of(zhang, tmp_path) / "softmax.py").read_bytes() == (PARTIAL / "softmax.py").read_bytes()
    assert subs["li_si"].origin.submitters == (Submitter(name="Li Si", user_id="li_si"),)  # not "si": the receipt
    assert [dst for _, dst in subs["li_si"].members] == ["lisi-submission.zip"]  # the browser's path left off
    wang = subs["wangfang"]
    assert wang.origin.submitters == (Submitter(name="王芳", user_id="wangfang"),)  # a CRLF receipt
    assert sorted(dst for _, dst in wang.members) == sorted(package_files(PARTIAL))
    assert "no package found" in problem(subs["zhaolei"], tmp_path)  # text alone: the receipt is named
    assert subs["gradebook_notes.txt"].origin.submitters == ()
    # without receipts (not downloaded): the username is the prefix's last part, the files' names as stored
    bare = write_zip(tmp_path / "bare.zip", {"HW 1_jsmith_attempt_2026-01-02-03-04-05_softmax.py": b"x = 1\n",
                                             "HW 1_jsmith_attempt_2026-01-02-03-04-05_quiz.yaml": b"q: 1\n"})
    [(name, sub)] = found(bare).items()
    assert name == "jsmith" and sorted(dst for _, dst in sub.members) == ["quiz.yaml", "softmax.py"]
    assert sub.origin.layout == Layout.BLACKBOARD and sub.origin.submitters == (Submitter(user_id="jsmith"),)


def test_brightspace_students_latest_folders(brightspace_download, tmp_path):
    subs = found(brightspace_download[0])
    wei = subs["Wei_Zhang"]  # two submissions: the later by its time (Nov 20 after Nov 9), not by name
    assert wei.origin.submission_id == "39835" and wei.members == (
        ("Attention lab/39835-640693 - Wei Zhang - Nov 20, 2026 1022 AM/", ""),)
    assert (package_of(wei, tmp_path) / "softmax.py").read_bytes() == (PARTIAL / "softmax.py").read_bytes()
    assert subs["Li_Si"].origin.submitters == (Submitter(name="Li Si", user_id="640694"),)
    assert "index.html" not in " ".join(subs)  # the download's own page is nobody's
    # no folder named after the assignment, no index: still Brightspace's folders; a stray folder is its own
    bare = write_zip(tmp_path / "bare.zip", {"12-34 - Na Li - Jan 5, 2026 900 AM/softmax.py": b"x = 1\n",
                                             "12-34 - Na Li - Jan 5, 2026 900 AM/__init__.py": b"",
                                             "13-35 - O'Brien - Jan 6, 2026 1201 PM/a.zip": b"PK"})
    assert sorted(found(bare)) == ["Na_Li", "O_Brien"] and found(bare)["Na_Li"].origin.layout == Layout.BRIGHTSPACE
    with pytest.raises(IntakeError, match="not a Brightspace download"):
        found(write_zip(tmp_path / "other.zip", {"alice/softmax.py": b""}), layout=Layout.BRIGHTSPACE)


def test_display_names_are_kept_and_file_safe_names_are_apart(tmp_path):
    decomposed = unicodedata.normalize("NFD", YORUBA)
    assert slug(decomposed) == slug(YORUBA) == "Olúwádámilọ́lá_Adébáyọ̀"  # no mark replaced or dropped
    assert display_name(f" {decomposed}\t") == YORUBA
    for student in (decomposed, "Wei Zhang"):
        write_tree(tmp_path / "class" / student, under("attention", package_files(TEMPLATE)))
    subs = found(tmp_path / "class")
    assert sorted(subs) == ["Olúwádámilọ́lá_Adébáyọ̀", "Wei_Zhang"]
    assert subs["Olúwádámilọ́lá_Adébáyọ̀"].origin.submitters[0].name == YORUBA


def test_a_class_given_as_one_path_is_refused_with_the_command(tmp_path, monkeypatch, moodle_download):
    monkeypatch.setenv("ATTNLAB_LANG", "en")
    monkeypatch.chdir(tmp_path)
    students = {f"{s}/{s}-submission.zip": b"PK" for s in ("alice", "bob", "carol")}
    write_zip(tmp_path / "class.zip", students)
    with pytest.raises(IntakeError) as info:
        found("class.zip")
    assert "looks like a class" in str(info.value) and "3 entries are archives" in str(info.value)
    assert "`python grade.py class.zip --layout folders`" in str(info.value)
    assert sorted(found("class.zip", layout=Layout.FOLDERS)) == ["alice", "bob", "carol"]
    assert list(found("class.zip", layout=Layout.SINGLE)) == ["class"]
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    shutil.copy(moodle_download[0], downloads / "moodle lab.zip")
    with pytest.raises(IntakeError) as info:
        found("downloads")
    assert "holds a moodle download, moodle lab.zip: give the download itself, " \
           "`python grade.py 'downloads/moodle lab.zip'`" in str(info.value)


def test_gradescope_metadata_is_carried(gradescope_export):
    subs = found(gradescope_export[0])
    group = subs["fang.wang-jun.chen"].origin
    assert group.submission_id == "1003" and [p.sid for p in group.submitters] == ["2023003", "2023004"]
    assert [p.email for p in group.submitters] == ["fang.wang@example.edu", "jun.chen@example.edu"]
    assert subs["wei.zhang"].origin.to_json()["submitters"] == [
        {"name": "Wei Zhang", "email": "wei.zhang@example.edu", "sid": "2023001", "user_id": "", "participant_id": ""}]
    assert subs["wei.zhang"].members == (("assignment_4242_export/submission_1001/", ""),)


def test_canvas_names_ids_and_late_marks(canvas_download):
    subs = found(canvas_download[0])
    assert subs["lisi"].origin.late is True and subs["zhangwei_101"].origin.late is False
    assert [p.user_id for p in subs["zhangwei_104"].origin.submitters] == ["104"]
    assert dict(subs["wangfang"].members)["wangfang_103_9104_rope-1.py"] == "rope.py"  # Canvas's -1 undone
    assert subs["notes.txt"].origin.submitters == () and subs["notes.txt"].members == (("notes.txt", "notes.txt"),)


@pytest.mark.parametrize("file_name, student, user, late, original", [
    ("doejane_123_456_attention-submission.zip", "doejane", "123", None, "attention-submission.zip"),
    ("doejane_LATE_123_456_a_b.zip", "doejane", "123", "LATE", "a_b.zip"),
    ("doejane_late_123_456_x.py", "doejane", "123", "late", "x.py"),  # older exports
    ("o_brien_7_8_9_notes.zip", "o_brien", "7", None, "9_notes.zip"),
    ("张伟_88_99_作业.zip", "张伟", "88", None, "作业.zip"),
    ("anon_k3Xq9_456_x.zip", "anon_k3Xq9", None, None, "x.zip"),
    ("LATE_anon_k3Xq9_456_x.zip", "anon_k3Xq9", None, "LATE", "x.zip"),
    ("doejane_123_text.html", "doejane", "123", None, None),
])
def test_canvas_file_names(file_name, student, user, late, original):
    parts = _canvas_parts(file_name)
    assert parts is not None
    assert (parts.group("student"), parts.groupdict().get("user"), parts.group("late"),
            parts.group("original")) == (student, user, late, original)


@pytest.mark.parametrize("file_name", ["notes.txt", "attention-submission.zip", "doejane_123_x.zip", "a_b_c.zip"])
def test_files_canvas_did_not_name(file_name):
    assert _canvas_parts(file_name) is None


def test_same_file_name_in_a_folder_per_student_is_named_after_the_folder(tmp_path):
    """The issue's case: `grade.py class/*/attention-submission.zip`."""
    zips = [write_tree(tmp_path / "class" / s, {"attention-submission.zip": submitted(PARTIAL, "x", tmp_path)})
            / "attention-submission.zip" for s in ("bob", "alice", "carol")]
    subs = found(*zips)
    assert sorted(subs) == ["alice", "bob", "carol"]
    assert subs["alice"].source == zips[1].resolve() and subs["alice"].origin.layout is Layout.SINGLE


def test_names_are_the_same_whatever_the_order_and_collisions_get_fallbacks(tmp_path):
    for parent in ("c1", "c2", "c3"):
        shutil.copytree(TEMPLATE, tmp_path / parent / "alice", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(TEMPLATE, tmp_path / "c1" / "bob", ignore=shutil.ignore_patterns("__pycache__"))
    args = [tmp_path / "c2" / "alice", tmp_path / "c1" / "alice", tmp_path / "c3" / "alice", tmp_path / "c1" / "bob"]
    first = {n: s.source for n, s in found(*args).items()}
    assert first == {n: s.source for n, s in found(*reversed(args)).items()}
    assert sorted(first) == ["bob", "c1-alice", "c2-alice", "c3-alice"]
    for parent in ("x", "y"):  # the fallbacks ("alice", the folder of a.zip) are shared too, and by c1/alice
        write_tree(tmp_path / parent / "alice", {"a.zip": b"PK"})
    names = found(tmp_path / "y" / "alice" / "a.zip", tmp_path / "x" / "alice" / "a.zip", tmp_path / "c1" / "alice")
    assert {n: s.source.parts[-3:] for n, s in names.items()} == {
        "alice": (tmp_path.name, "c1", "alice"),
        "alice-2": ("x", "alice", "a.zip"), "alice-3": ("y", "alice", "a.zip")}


def test_no_submission_takes_the_name_of_a_file_grade_py_writes(tmp_path):
    """DIR/grading-run.json holds the run's seed and DIR/results.json Gradescope's result: a student folder called
    grading-run overwrote the seed record, and the next grade.py into that --out stopped with a traceback."""
    for name in ("grading-run", "Results", "summary"):
        shutil.copytree(TEMPLATE, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    assert sorted(found(*(tmp_path / n for n in ("grading-run", "Results", "summary")))) == [
        "Results-2", "grading-run-2", "summary"]  # summary.csv is not a .json: no clash


def test_two_students_with_the_same_name_in_canvas_keep_their_user_ids(canvas_download):
    assert {"zhangwei_101", "zhangwei_104"} <= set(found(canvas_download[0]))


@pytest.mark.parametrize("args, message", [
    (["does_not_exist.zip"], "no such file or directory: does_not_exist.zip"),
    ([".", "./"], "is given twice"),
])
def test_usage_errors_name_the_path(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ATTNLAB_LANG", "en")
    with pytest.raises(IntakeError) as info:
        found(*args)
    assert message in str(info.value)


def test_forcing_a_layout(tmp_path, gradescope_export):
    with pytest.raises(IntakeError, match="not a Gradescope export"):
        found(TEMPLATE, layout=Layout.GRADESCOPE)
    assert list(found(gradescope_export[0], layout=Layout.SINGLE)) == ["export"]
    write_tree(tmp_path / "one", {"a.zip": b"PK", "b.zip": b"PK"})
    assert list(found(tmp_path / "one", layout=Layout.SINGLE)) == ["one"]
    assert sorted(found(tmp_path / "one")) == ["a", "b"]


@pytest.mark.parametrize("tree, layout", [
    ({**under("attention", package_files(TEMPLATE)), "alice-submission.zip": b"PK"}, Layout.SINGLE),
    ({**under("attention", package_files(TEMPLATE)), **under("backup/attention", package_files(TEMPLATE))},
     Layout.SINGLE),
    (under("student/attention", package_files(TEMPLATE)), Layout.SINGLE),
    ({**under("alice", package_files(TEMPLATE)), **under("bob", package_files(TEMPLATE))}, Layout.FOLDERS),
    ({"alice/x.zip": b"PK", **under("bob/attention", package_files(TEMPLATE))}, Layout.FOLDERS),
    (package_files(TEMPLATE), Layout.SINGLE),
    # a class where one student handed in the package itself and others a folder holding it (or a zip): the
    # mix made the whole class one submission, "not graded: several candidate packages"
    ({**under("alice", package_files(TEMPLATE)), **under("bob", package_files(TEMPLATE)),
      **under("carol/attention", package_files(TEMPLATE))}, Layout.FOLDERS),
    ({"alice/x.zip": b"PK", **under("bob", package_files(TEMPLATE)),
      **under("carol/hw/attention", package_files(TEMPLATE))}, Layout.FOLDERS),
])
def test_a_student_folder_is_not_mistaken_for_a_class(tmp_path, tree, layout):
    subs = found(write_tree(tmp_path / "d", tree))
    assert {s.origin.layout for s in subs.values()} == {layout}


def test_a_zip_is_one_submission_even_with_two_packages(tmp_path):
    archive = write_zip(tmp_path / "wei.zip", {**under("a/attention", package_files(TEMPLATE)),
                                               **under("b/attention", package_files(TEMPLATE))})
    subs = found(archive)
    assert list(subs) == ["wei"]
    assert "two candidate packages: a/attention, b/attention" in problem(subs["wei"], tmp_path)


def test_the_package_is_found_at_any_depth_with_tool_folders_skipped(tmp_path):
    project = write_tree(tmp_path / "project", under("student/attention", package_files(PARTIAL)))
    (project / ".venv" / "bin").mkdir(parents=True)
    (project / ".venv" / "bin" / "python").symlink_to("/usr/bin/python3")  # a venv holds links: never copied
    write_tree(project, {".venv/lib/site-packages/attention/__init__.py": b"", "__MACOSX/._x": b"\0"})
    package = package_of(Submission("p", project), tmp_path)
    assert package.name == "attention"
    assert (package / "softmax.py").read_bytes() == (PARTIAL / "softmax.py").read_bytes()
    archive = write_zip(tmp_path / "p.zip", {**under("student/attention", package_files(PARTIAL)),
                                             "student/.venv/lib/big.bin": b"\0" * 60_000_000})
    assert package_of(Submission("z", archive), tmp_path).parts[-2:] == ("student", "attention")


def test_a_zip_inside_the_upload_is_unpacked_once(tmp_path):
    inner = submitted(PARTIAL, "wei", tmp_path)
    folder = write_tree(tmp_path / "gs", {"wei-submission.zip": inner, "README.txt": b"hi"})
    assert (package_of(Submission("a", folder), tmp_path) / "softmax.py").is_file()
    middle = write_zip(tmp_path / "i.zip", {"x.zip": inner}).read_bytes()
    twice = write_zip(tmp_path / "twice.zip", {"inner.zip": middle})
    assert "holds no package, only another zip (x.zip)" in problem(Submission("b", twice), tmp_path)
    several = write_tree(tmp_path / "several", {"a.zip": inner, "b.zip": inner})
    assert "several zip files inside (a.zip, b.zip)" in problem(Submission("c", several), tmp_path)


def test_exercise_modules_without_init_are_the_package_and_what_was_found_is_named_when_there_is_none(tmp_path):
    """Gradescope's and Canvas's uploads of files one by one leave __init__.py out (its template is a docstring
    alone): the modules were refused as "no package", every point lost. The one folder holding them is the
    package, with an empty __init__.py in grading's copy; two such folders are still named."""
    flat = write_tree(tmp_path / "flat", {"softmax.py": b"x = 1\n", "notes.md": b"hi"})
    package = package_of(Submission("f", flat), tmp_path)
    assert (package / "__init__.py").read_text() == "" and (package / "softmax.py").read_text() == "x = 1\n"
    assert not (flat / "__init__.py").exists()  # the student's folder is never written
    nested = write_tree(tmp_path / "nested", {"hw/softmax.py": b"x = 1\n"})
    assert package_of(Submission("n", nested), tmp_path).name == "hw"
    two = write_tree(tmp_path / "two", {"hw/softmax.py": b"x = 1\n", "old/softmax.py": b"x = 0\n"})
    assert "several folders hold exercise modules (hw/, old/)" in problem(Submission("t", two), tmp_path)
    top = write_tree(tmp_path / "top", {"softmax.py": b"x = 1\n", "backup/softmax.py": b"x = 0\n"})
    assert "several folders hold exercise modules (./, backup/)" in problem(Submission("u", top), tmp_path)
    other = write_tree(tmp_path / "other", {"report.pdf": b"%PDF", "code/main.py": b""})
    assert "no package found" in (text := problem(Submission("o", other), tmp_path))
    assert "found: code/main.py, report.pdf" in text
    archive = write_zip(tmp_path / "e.zip", {"a/__init__.py": b""})
    assert "found: a/__init__.py" in problem(Submission("e", archive), tmp_path)
    part = Submission("m", archive, members=(("nothing/", ""),))
    assert "e.zip has no files at nothing/" in problem(part, tmp_path)


def test_a_bad_entry_of_another_student_does_not_fail_this_one(tmp_path):
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for rel, data in under("good", package_files(TEMPLATE)).items():
            zf.writestr(rel, data)
        zf.writestr("evil/../../x.py", "x")
    assert package_of(Submission("g", archive, members=(("good/", ""),)), tmp_path).name == "upload"
    assert "escapes" in problem(Submission("e", archive), tmp_path)


def test_an_encrypted_entry_is_a_message_not_a_crash(tmp_path):
    archive = write_zip(tmp_path / "locked.zip", under("attention", package_files(TEMPLATE)))
    raw = bytearray(archive.read_bytes())
    for signature, flags in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # local and central headers
        at = raw.find(signature)
        raw[at + flags] |= 1  # "encrypted"
    archive.write_bytes(bytes(raw))
    assert "is encrypted" in problem(Submission("l", archive), tmp_path)


def test_a_submissions_fingerprint_changes_with_what_it_holds_and_only_then(tmp_path):
    """What a rerun compares to decide whether a finished result still stands (grade.py regrades the rest):
    a folder's files, a zip's or notebook's bytes, one student's entries in a class export."""
    from attnlab.grade.batch.submissions import fingerprint

    folder = write_tree(tmp_path / "alice", package_files(TEMPLATE))
    first = fingerprint(Submission("alice", folder))
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "softmax.cpython-311.pyc").write_bytes(b"\0")  # not graded, not compared
    assert fingerprint(Submission("alice", folder)) == first
    (folder / "softmax.py").write_bytes((PARTIAL / "softmax.py").read_bytes())
    assert fingerprint(Submission("alice", folder)) not in (first, None)
    alice = submitted(TEMPLATE, "alice", tmp_path)  # the same bytes in both downloads

    def canvas(bob: Path) -> Path:  # Canvas's download: each student's zip is an entry of the class's zip
        return write_zip(tmp_path / "export.zip", {
            "alice_101_9001_alice-submission.zip": alice,
            "bob_102_9002_bob-submission.zip": submitted(bob, "bob", tmp_path)})

    export = canvas(TEMPLATE)
    before = {name: fingerprint(sub) for name, sub in found(export).items()}
    assert None not in before.values() and len(set(before.values())) == 2  # each student's own entries
    canvas(PARTIAL)
    after = {name: fingerprint(sub) for name, sub in found(export).items()}
    assert after["alice"] == before["alice"] and after["bob"] != before["bob"]
    notebook = tmp_path / "wei.ipynb"
    notebook.write_text("{}")
    assert fingerprint(Submission("wei", notebook)) != fingerprint(Submission("wei", export))
    assert fingerprint(Submission("gone", tmp_path / "missing")) is None


def test_a_windows_zip_with_backslashes_is_read_as_info_zip_reads_it(tmp_path):
    """Windows PowerShell's Compress-Archive writes `attention\\softmax.py` (made by MS-DOS, 0): the names were
    refused as escaping the upload, and nothing was graded. Backslashes are separators there, as for Info-ZIP's
    unzip; a name escaping with them is still refused, and a Unix zip's backslash is still no separator."""
    def windows_zip(path: Path, files: dict[str, bytes], system: int = 0) -> Path:
        with zipfile.ZipFile(path, "w") as zf:
            for name, data in files.items():
                info = zipfile.ZipInfo(name)
                info.create_system = system
                zf.writestr(info, data)
        return path

    files = {f"attention\\{rel}": data for rel, data in package_files(PARTIAL).items()}
    package = package_of(Submission("w", windows_zip(tmp_path / "w.zip", files)), tmp_path)
    assert package.name == "attention"
    assert (package / "softmax.py").read_bytes() == (PARTIAL / "softmax.py").read_bytes()
    escaping = windows_zip(tmp_path / "e.zip", {**files, "..\\..\\evil.py": b"x = 1\n"})
    assert "escapes" in problem(Submission("e", escaping), tmp_path)
    unix = windows_zip(tmp_path / "u.zip", files, system=3)
    assert "escapes" in problem(Submission("u", unix), tmp_path)


def test_a_chinese_windows_zip_names_in_gbk_are_read(tmp_path):
    """Explorer's "Send to → Compressed folder" on a Chinese Windows writes names in GBK without the UTF-8
    flag: `作业4/attention/...` was refused as "not UTF-8" and nothing graded. Made on Windows, names that are
    GB18030 are read as that; the same bytes from a Unix zip are still refused."""
    gbk, placeholder = "作业4".encode("gbk"), b"ABCD4"
    assert len(gbk) == len(placeholder)

    def zipped(path: Path, system: int) -> Path:
        with zipfile.ZipFile(path, "w") as zf:
            for rel, data in package_files(PARTIAL).items():
                info = zipfile.ZipInfo(f"ABCD4/attention/{rel}")
                info.create_system = system
                zf.writestr(info, data)
        path.write_bytes(path.read_bytes().replace(placeholder, gbk))
        return path

    package = package_of(Submission("g", zipped(tmp_path / "g.zip", 0)), tmp_path)
    assert package.parts[-2:] == ("作业4", "attention") and (package / "softmax.py").is_file()
    assert "not UTF-8" in problem(Submission("u", zipped(tmp_path / "u.zip", 3)), tmp_path)


def test_a_whole_handout_handed_in_is_its_students_package(tmp_path):
    """The handout ships the stubs as student_template/ beside the student's attention/, with its notebooks,
    pyproject.toml and spec/. Handed in whole (a zip of the folder, or the folder), it was "two candidate
    packages: attention, student_template", not graded; and with my intake change of this stop, the folder
    alone became a class of nine. The untouched template is not a candidate, and a pyproject.toml at the top
    makes a folder one project."""
    handout = {**under("attention", package_files(PARTIAL)), **under("student_template", package_files(TEMPLATE)),
               "attention.en.ipynb": b"{}", "attention.zh.ipynb": b"{}", "pyproject.toml": b"[project]\n",
               "README.md": b"# handout\n", "spec/softmax.py": b"x = 1\n"}
    folder = write_tree(tmp_path / "wei", handout)
    assert list(found(folder)) == ["wei"]
    for sub in (Submission("wei", folder), Submission("zipped", write_zip(tmp_path / "wei.zip", handout))):
        package = package_of(sub, tmp_path)
        assert package.name == "attention"
        assert (package / "softmax.py").read_bytes() == (PARTIAL / "softmax.py").read_bytes()
    klass = write_tree(tmp_path / "class", {**{f"wei/{k}": v for k, v in handout.items()},
                                           **{f"li/{k}": v for k, v in handout.items()}})
    assert sorted(found(klass)) == ["li", "wei"]
    both = write_tree(tmp_path / "both", {**under("a", package_files(TEMPLATE)), **under("b", package_files(TEMPLATE))})
    assert "two candidate packages: a, b" in problem(Submission("both", both), tmp_path)  # templates alone: named


def test_a_class_of_folders_zips_and_tars_is_one_submission_each_and_a_rar_says_what_it_is(tmp_path):
    """Students of one class hand in what their machine makes: a zip (Windows), a .tar.gz (macOS, Linux),
    a .rar or .7z (WinRAR, 7-Zip). The tar is graded as the zip is, named without its suffix; the RAR is
    its own submission, whose message says what it is and what to do, not "no package found"."""
    import io
    import tarfile

    inner = submitted(PARTIAL, "wei", tmp_path)
    tar = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(inner)) as zf, tarfile.open(fileobj=tar, mode="w:gz") as tf:
        for info in zf.infolist():
            data = zf.read(info)
            member = tarfile.TarInfo(info.filename)
            member.size = len(data)
            tf.addfile(member, io.BytesIO(data))
    root = write_tree(tmp_path / "class", {"wei.zip": inner, "li.tar.gz": tar.getvalue(),
                                          "zhang.rar": b"Rar!\x1a\x07\x00" + b"\0" * 40})
    subs = found(root)
    assert sorted(subs) == ["li", "wei", "zhang.rar"]
    assert (package_of(subs["li"], tmp_path) / "softmax.py").read_bytes() == \
        (package_of(subs["wei"], tmp_path) / "softmax.py").read_bytes()
    assert problem(subs["zhang.rar"], tmp_path).startswith("zhang.rar: a RAR archive, which grade.py does not unpack")


def outcome(sub: Submission, tmp_path: Path, archive_name: str) -> dict[str, bytes] | str:
    """What grading copies of `sub` (its files), or its message with its archive's name left out."""
    work = tmp_path / "work" / sub.origin.path.replace("/", "_")
    work.mkdir(parents=True)
    try:
        return package_files(prepare(sub, work, MARKERS))
    except BadSubmission as problem:
        return str(problem).replace(archive_name, "ARCHIVE")


@pytest.mark.parametrize("export", ["folders_class", "gradescope_export", "canvas_download", "moodle_download",
                                    "blackboard_download", "brightspace_download"])
def test_a_class_handed_over_as_a_tar_is_read_as_what_it_was_made_from(export, tmp_path, request):
    """An instructor or a TA who packs a class, or an LMS download, with tar (macOS, Linux) gets the same
    students, metadata, files and messages as from the folder or zip it was made of; each named in its origin
    after the archive. A tar of student folders each holding a zip is refused as a zip of them is, with the
    command to use (`--layout folders`)."""
    path, expected = request.getfixturevalue(export)
    archive = as_tar(path, tmp_path / f"{export}.tar.gz")
    layout = Layout.FOLDERS if export == "folders_class" else None
    if layout is not None:
        with pytest.raises(IntakeError, match=r"looks like a class.*--layout folders"):
            found(archive)
    direct, packed = found(path, layout=layout), found(archive, layout=layout)
    assert sorted(packed) == sorted(direct) == sorted(expected)
    for name, sub in packed.items():
        was = direct[name].origin
        assert (sub.origin.layout, sub.origin.submitters) == (was.layout, was.submitters)
        assert sub.origin.path.startswith(f"{archive}/"), sub.origin.path
        assert outcome(sub, tmp_path / "packed", archive.name) == outcome(direct[name], tmp_path / "direct", path.name)


def test_a_class_tar_never_writes_through_a_link_and_a_link_fails_only_its_student(tmp_path, monkeypatch):
    """Links inside a class's tar: one student's symbolic link, then a file "inside" it (the classic tar escape
    to wherever the link points) and a hard link. Nothing is written outside the unpacked class, the two
    students with links get a directory's link message, the others are untouched. A link at the archive's
    top stands for a whole student: the archive is refused, naming it. The unpacked class is removed at exit."""
    import io
    import subprocess
    import sys
    import tarfile

    outside = tmp_path / "outside"
    outside.mkdir()
    files = {**under("li/attention", package_files(PARTIAL)), **under("wei/attention", package_files(PARTIAL)),
             **under("chen/attention", package_files(PARTIAL))}

    def pack(archive: Path, links: list[tuple[str, str, bytes]]) -> Path:
        with tarfile.open(archive, "w:gz") as tf:
            for rel, data in files.items():
                member = tarfile.TarInfo(rel)
                member.size = len(data)
                tf.addfile(member, io.BytesIO(data))
            for name, target, kind in links:
                member = tarfile.TarInfo(name)
                member.type, member.linkname = kind, target
                tf.addfile(member)
                if kind == tarfile.SYMTYPE:  # then a file below it
                    below = tarfile.TarInfo(f"{name}/pwned.py")
                    below.size = 4
                    tf.addfile(below, io.BytesIO(b"evil"))
        return archive

    archive = pack(tmp_path / "class.tgz", [("li/attention/notes", str(outside), tarfile.SYMTYPE),
                                           ("wei/attention/softmax.py", "li/attention/softmax.py", tarfile.LNKTYPE)])
    subs = found(archive, layout=Layout.FOLDERS)
    assert sorted(subs) == ["chen", "li", "wei"]
    assert list(outside.iterdir()) == []
    assert problem(subs["li"], tmp_path) == "symlinks are not allowed in a submission: li/attention/notes"
    assert problem(subs["wei"], tmp_path) == "symlinks are not allowed in a submission: wei/attention/softmax.py"
    assert package_files(package_of(subs["chen"], tmp_path)) == package_files(PARTIAL)
    top = pack(tmp_path / "top.tgz", [("zoe", "/", tarfile.SYMTYPE)])
    with pytest.raises(IntakeError, match=r"cannot unpack the class archive .*top.tgz: archive entry is a link: 'zoe'"):
        found(top, layout=Layout.FOLDERS)
    assert list(outside.iterdir()) == []
    private = tmp_path / "tmp"
    private.mkdir()
    code = ("import sys; from pathlib import Path; from attnlab.grade.batch.intake import discover; "
            "subs = discover([Path(sys.argv[1])], markers=frozenset(sys.argv[2:]), layout='folders'); "
            "assert all(s.source.is_dir() for s in subs), subs; print(subs[0].source)")
    done = subprocess.run([sys.executable, "-c", code, str(archive), *MARKERS], capture_output=True, text=True,
                          env={**__import__("os").environ, "TMPDIR": str(private)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith(f"{private}/attnlab-class-")
    assert list(private.glob("attnlab-class-*")) == []  # unpacked there, then removed at exit


def test_similarity_reads_an_lms_download_as_grade_py_took_it(canvas_download, tmp_path, capsys):
    """`grade.py export.zip` is how an LMS download is graded; the report's similar-code section
    (`--submissions`) and the similarity command take the same zip, or its tar, not only a folder."""
    from attnlab.core import paths
    from attnlab.core.spec_load import load_course
    from attnlab.instructor import report, similarity, sources

    path, expected = canvas_download
    archive = as_tar(path, tmp_path / "canvas.tar.gz")
    course = load_course(paths.SPEC_DIR)
    zipped, packed = sources.read_sources(path, course), sources.read_sources(archive, course)
    assert sorted(zipped[0]) == sorted(name for name, want in expected.items() if not want.error)
    assert packed[0] == zipped[0] and sorted(packed[1]) == sorted(zipped[1]) == ["notes.txt", "zhaolei"]
    assert similarity.main([str(archive)]) == 0 and "4 submissions, 12 exercises" in capsys.readouterr().out
    assert report.main([str(tmp_path), "--submissions", str(path / "nothing")]) == 2
    assert "is not a directory, nor a zip or tar archive" in capsys.readouterr().err
