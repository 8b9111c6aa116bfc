"""The LMS layouts of intake_layouts.py as fixtures, each built in its own tmp_path."""

import pytest
from intake_layouts import (
    blackboard_download,
    brightspace_download,
    canvas_download,
    folders_class,
    gradescope_export,
    moodle_download,
)


@pytest.fixture(name="folders_class")
def folders_class_fixture(tmp_path):
    return folders_class(tmp_path)


@pytest.fixture(name="gradescope_export")
def gradescope_export_fixture(tmp_path):
    return gradescope_export(tmp_path)


@pytest.fixture(name="canvas_download")
def canvas_download_fixture(tmp_path):
    return canvas_download(tmp_path)


@pytest.fixture(name="moodle_download")
def moodle_download_fixture(tmp_path):
    return moodle_download(tmp_path)


@pytest.fixture(name="blackboard_download")
def blackboard_download_fixture(tmp_path):
    return blackboard_download(tmp_path)


@pytest.fixture(name="brightspace_download")
def brightspace_download_fixture(tmp_path):
    return brightspace_download(tmp_path)
