"""Similarity reads a plain directory's sources where they are: the same files, texts and refusals as
reading grade.py's private copy of it (prepare), for hostile uploads too."""

import os
import shutil
import zipfile

import pytest

from attnlab.core import paths
from attnlab.core.spec_load import load_course
from attnlab.grade.batch import unpack
from attnlab.grade.batch.submissions import Submission
from attnlab.instructor import sources

COURSE = load_course(paths.SPEC_DIR)


@pytest.fixture(scope="module")
def uploads(tmp_path_factory):
    """A class of uploads: plain, nested, hostile (symlinks, a name that escapes, too many bytes), a
    package zipped inside a folder, a .py file too large to be a solution, CRLF line ends."""
    root = tmp_path_factory.mktemp("uploads")

    def package(where):
        shutil.copytree(paths.TEMPLATE_DIR, where)
        return where

    package(root / "plain")
    (package(root / "nested" / "work" / "attention") / "helpers").mkdir()
    (root / "nested" / "work" / "attention" / "helpers" / "mha.py").write_text("x = 1\r\ny = 2\n")
    (root / "nested" / "work" / "notes.py").write_text("outside = 1\n")  # above the package: not read
    os.symlink(paths.REFERENCE_DIR / "softmax.py", package(root / "linked") / "extra.py")
    os.symlink(paths.REFERENCE_DIR, package(root / "linked_dir") / "ref")
    (package(root / "escapes") / "a:b.py").write_text("x = 1\n")
    (package(root / "large") / "data.py").write_text("#" * (sources.MAX_SOURCE_BYTES + 1))
    (package(root / "hidden") / ".venv").mkdir()
    (root / "hidden" / ".venv" / "lib.py").write_text("x = 1\n")
    (root / "zipped").mkdir()
    with zipfile.ZipFile(root / "zipped" / "handin.zip", "w") as archive:
        for path in sorted(paths.TEMPLATE_DIR.glob("*.*")):
            archive.write(path, f"attention/{path.name}")
    (root / "big").mkdir()
    package(root / "big" / "attention")
    with open(root / "big" / "blob.bin", "wb") as blob:
        blob.truncate(unpack.MAX_SUBMISSION_BYTES + 1)  # sparse: costs no disk
    return root


def test_reading_in_place_gives_what_reading_the_copy_gives(uploads, monkeypatch):
    in_place = sources.read_sources(uploads, COURSE)
    markers = COURSE.package_markers
    assert sources._in_place(Submission("nested", uploads / "nested"), markers) == in_place[0]["nested"]
    assert sources._in_place(Submission("zipped", uploads / "zipped"), markers) is None  # prepare unpacks it
    monkeypatch.setattr(sources, "_in_place", lambda submission, markers: None)  # every upload copied first
    copied = sources.read_sources(uploads, COURSE)
    assert in_place[0] == copied[0] and list(in_place[0]) == list(copied[0])
    assert all(list(in_place[0][name]) == list(copied[0][name]) for name in copied[0])
    assert {n: m.text("en") for n, m in in_place[1].items()} == {n: m.text("en") for n, m in copied[1].items()}
    assert set(in_place[1]) == {"linked", "linked_dir", "escapes", "big"}
    assert "helpers/mha.py" in in_place[0]["nested"] and in_place[0]["nested"]["helpers/mha.py"] == "x = 1\ny = 2\n"
    assert "data.py" not in in_place[0]["large"] and "softmax.py" in in_place[0]["large"]
    assert not any(".venv" in path for path in in_place[0]["hidden"])
    top_level = {path: text for path, text in in_place[0]["plain"].items() if "/" not in path}
    assert in_place[0]["zipped"] == top_level  # unpacked from its zip as before (its top-level files)
