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


def tar_with(path, entries, mode="w:gz"):
    """A tar archive of (TarInfo or name, bytes) entries."""
    import io
    import tarfile

    with tarfile.open(path, mode) as tf:
        for name, data in entries:
            info = name if isinstance(name, tarfile.TarInfo) else tarfile.TarInfo(name)
            if info.name.endswith("/"):
                info.type = tarfile.DIRTYPE
            if info.isreg():
                info.size = len(data)
            tf.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return path


def template_entries(prefix: str) -> list[tuple[str, bytes]]:
    return [(f"{prefix}{f.name}", f.read_bytes()) for f in sorted(paths.TEMPLATE_DIR.glob("*.*"))]


@pytest.mark.parametrize("suffix, mode", [(".tar.gz", "w:gz"), (".tgz", "w:gz"), (".tar", "w"),
                                          (".tar.bz2", "w:bz2"), (".tar.xz", "w:xz")])
def test_a_tar_archive_as_macos_and_linux_make_it_is_graded_like_a_zip(tmp_path, suffix, mode):
    """`tar czf hw.tgz hw/` (what macOS's and Linux's students reach for): its package found at any depth, its
    tool folders skipped, a device file or fifo ignored; named as its zip would be."""
    import tarfile

    from attnlab.core.names import stem_of

    fifo = tarfile.TarInfo("./hw/pipe")
    fifo.type = tarfile.FIFOTYPE
    archive = tar_with(tmp_path / f"alice{suffix}", [("./hw/", b""), *template_entries("./hw/"), (fifo, b""),
                                                       ("./hw/__pycache__/softmax.cpython-311.pyc", b"\0" * 10),
                                                       ("./hw/.venv/lib/site.py", b"x")], mode)
    pkg = prepare(Submission("alice", archive), tmp_path / "work", MARKERS)
    assert pkg.name == "hw" and (pkg / "softmax.py").read_bytes() == (paths.TEMPLATE_DIR / "softmax.py").read_bytes()
    assert not (pkg / "pipe").exists() and not (pkg / "__pycache__").exists() and not (pkg / ".venv").exists()
    assert stem_of(archive.name) == "alice"


@pytest.mark.parametrize("name", ["../evil.py", "/etc/evil.py", "hw/../../evil.py"])
def test_tar_entries_escaping_are_refused(tmp_path, name):
    archive = tar_with(tmp_path / "s.tgz", [*template_entries("hw/"), (name, b"x")])
    assert "archive entry escapes the submission" in prepare_err(tmp_path, archive)
    assert not (tmp_path / "evil.py").exists()


@pytest.mark.parametrize("kind", ["SYMTYPE", "LNKTYPE"])
def test_tar_links_are_refused(tmp_path, kind):
    import tarfile

    link = tarfile.TarInfo("hw/secret.py")
    link.type, link.linkname = getattr(tarfile, kind), "/etc/passwd"
    archive = tar_with(tmp_path / "s.tgz", [*template_entries("hw/"), (link, b"")])
    assert "archive entry is a link: 'hw/secret.py'" in prepare_err(tmp_path, archive)


def test_tar_bombs_are_stopped_before_filling_the_disk_or_the_judges_memory(tmp_path):
    """A gzip of zeros inflates about 1000×: stopped at the zip's ratio (200× the archive), and a member whose
    header promises more than that is refused before its bytes are read (a tar is read in order: skipping it
    means inflating it). A GNU long name of 300 MB (300 kB of gzip) is read whole by tarfile, however
    long: everything inflated counts against the cap, so the judge holds at most 200× the archive."""
    import io
    import tarfile
    import tracemalloc

    bomb = tar_with(tmp_path / "bomb.tgz", [*template_entries("hw/"), ("hw/zeros.py", b"\0" * (MAX_TOTAL_BYTES // 2))])
    assert prepare_err(tmp_path, bomb) == "bomb.tgz inflates to more than 200 times its size (an archive bomb?)"
    huge = tarfile.TarInfo("hw/huge.bin")
    huge.size = 1 << 40
    with tarfile.open(tmp_path / "huge.tar", "w") as tf:  # the header alone: the archive ends where data would be
        tf.addfile(huge)
    assert prepare_err(tmp_path, tmp_path / "huge.tar") == \
        "huge.tar inflates to more than 200 times its size (an archive bomb?)"
    name = tarfile.TarInfo("././@LongLink")
    name.type, name.size = tarfile.GNUTYPE_LONGNAME, 300 << 20

    class Zeros(io.RawIOBase):
        def readinto(self, buffer):
            buffer[:] = bytes(len(buffer))
            return len(buffer)

    with tarfile.open(tmp_path / "long.tgz", "w:gz", format=tarfile.GNU_FORMAT) as tf:
        tf.addfile(name, Zeros())
        tf.addfile(tarfile.TarInfo("hw/softmax.py"), io.BytesIO(b""))
    tracemalloc.start()
    try:
        said = prepare_err(tmp_path, tmp_path / "long.tgz")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    cap = 200 * (tmp_path / "long.tgz").stat().st_size + (1 << 20)
    assert said == "long.tgz inflates to more than 200 times its size (an archive bomb?)" and peak < cap + (8 << 20)
    assert cap < 100 << 20, cap  # against the 300 MB tarfile alone would have read


def test_a_damaged_tar_and_archives_not_unpacked_say_what_they_are(tmp_path):
    whole = tar_with(tmp_path / "whole.tgz", template_entries("hw/"))
    cut = tmp_path / "cut.tgz"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    assert "not a readable tar archive" in prepare_err(tmp_path, cut)
    folder = tmp_path / "bob"
    folder.mkdir()
    (folder / "作业.rar").write_bytes(b"Rar!\x1a\x07\x01\x00" + os.urandom(64))
    assert prepare_err(tmp_path, folder) == (
        "作业.rar: a RAR archive, which grade.py does not unpack (it reads .zip, and .tar, .tar.gz, .tgz, .tar.bz2, "
        ".tar.xz): ask for a zip of the package folder, or unpack it into a folder and grade that")


def test_a_tar_inside_an_upload_is_unpacked_as_a_zip_there_is(tmp_path):
    """An LMS that keeps the student's file (Canvas, Moodle, Gradescope) holds the tar inside their upload."""
    folder = tmp_path / "carol"
    folder.mkdir()
    tar_with(folder / "hw.tar.gz", template_entries("hw/"))
    pkg = prepare(Submission("carol", folder), tmp_path / "work", MARKERS)
    assert pkg.name == "hw" and (pkg / "rope.py").is_file()
