"""Upload intake: every problem with the upload itself is a clear per-submission message."""

import os
import stat
import tempfile
import zipfile
from pathlib import Path

import pytest

from attnlab.core import paths
from attnlab.grade.batch.submissions import MAX_TOTAL_BYTES, BadSubmission, Submission, prepare

MARKERS = frozenset({"softmax.py", "attention.py", "multihead.py", "rope.py", "quiz.yaml"})


def zip_with(path, entries):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            if isinstance(name, zipfile.ZipInfo):
                zf.writestr(name, data)
            else:
                zf.writestr(name, data)
    return path


def prepare_err(tmp_path, source) -> str:
    with pytest.raises(BadSubmission) as info:
        prepare(Submission(name="s", source=source), Path(tempfile.mkdtemp(dir=tmp_path)), MARKERS)
    return str(info.value)


def test_directory_and_zip_of_the_template_are_accepted(tmp_path):
    pkg = prepare(Submission("t", paths.TEMPLATE_DIR), tmp_path / "a", MARKERS)
    assert (pkg / "__init__.py").is_file() and (pkg / "softmax.py").is_file()
    archive = tmp_path / "sub.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for f in paths.TEMPLATE_DIR.glob("*.*"):
            zf.write(f, f"mypkg/{f.name}")
    pkg = prepare(Submission("sub", archive), tmp_path / "b", MARKERS)
    assert pkg.name == "mypkg" and (pkg / "attention.py").is_file()


def test_missing_empty_and_not_a_package(tmp_path):
    assert "does not exist" in prepare_err(tmp_path, tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    assert "empty" in prepare_err(tmp_path, tmp_path / "empty")
    (tmp_path / "flat").mkdir()  # the modules without __init__.py (uploaded one by one): grading adds it
    (tmp_path / "flat" / "softmax.py").write_text("x = 1\n")
    (tmp_path / "flat" / "attention.py").write_text("x = 2\n")
    package = prepare(Submission(name="s", source=tmp_path / "flat"), tmp_path / "one", MARKERS)
    assert (package / "__init__.py").read_text() == "" and (package / "attention.py").is_file()
    (tmp_path / "flat" / "loose").mkdir()  # two such folders: named, never guessed between
    (tmp_path / "flat" / "loose" / "softmax.py").write_text("x = 3\n")
    assert "several folders hold exercise modules (./, loose/)" in prepare_err(tmp_path, tmp_path / "flat")


def test_symlink_in_directory_is_refused(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    os.symlink(paths.REFERENCE_DIR / "softmax.py", pkg / "softmax.py")
    assert "symlink" in prepare_err(tmp_path, pkg)


@pytest.mark.parametrize("name", ["../evil.py", "/etc/evil.py", "pkg/../../evil.py", "C:\\evil.py"])
def test_zip_entries_escaping_are_refused(tmp_path, name):
    archive = zip_with(tmp_path / "a.zip", [("pkg/__init__.py", ""), ("pkg/softmax.py", ""), (name, "x")])
    assert "escapes" in prepare_err(tmp_path, archive)
    assert not (tmp_path / "evil.py").exists()


def test_zip_symlink_entry_is_refused(tmp_path):
    link = zipfile.ZipInfo("pkg/softmax.py")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    archive = zip_with(tmp_path / "a.zip", [("pkg/__init__.py", ""), (link, "/work/main/reference/softmax.py")])
    assert "symlink" in prepare_err(tmp_path, archive)


def test_zip_non_utf8_name_is_refused(tmp_path):
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("pkg/__init__.py", "")
        info = zipfile.ZipInfo("pkg/x.py")
        zf.writestr(info, "")
    raw = archive.read_bytes().replace(b"pkg/x.py", b"pkg/\xe9.py")  # a latin-1 name, no UTF-8 flag
    archive.write_bytes(raw)
    assert "not UTF-8" in prepare_err(tmp_path, archive)


def test_zip_bomb_is_stopped_while_inflating(tmp_path):
    archive = zip_with(tmp_path / "a.zip", [("pkg/__init__.py", ""), ("pkg/bomb.py", b"\0" * (MAX_TOTAL_BYTES + 1))])
    assert archive.stat().st_size < 1 << 20
    message = prepare_err(tmp_path, archive)
    assert "inflates" in message


def test_not_a_zip(tmp_path):
    fake = tmp_path / "fake.zip"
    fake.write_bytes(b"this is not a zip")
    assert "not a readable zip" in prepare_err(tmp_path, fake)
