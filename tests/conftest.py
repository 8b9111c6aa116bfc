"""pytester runs pytest itself in a subprocess: the plugin is tested as students run it.

Every test, and every grade.py it starts, uses a course secret of the session's own (ATTNLAB_SECRET_FILE), never
one in the checkout: grading without --seed stays reproducible within the run and writes nothing into the repo."""

import os

import pytest

pytest_plugins = ["pytester"]


@pytest.fixture(scope="session", autouse=True)
def course_secret(tmp_path_factory):
    previous = os.environ.get("ATTNLAB_SECRET_FILE")
    path = tmp_path_factory.mktemp("secret") / "course-secret"
    os.environ["ATTNLAB_SECRET_FILE"] = str(path)
    yield path
    if previous is None:
        os.environ.pop("ATTNLAB_SECRET_FILE", None)
    else:
        os.environ["ATTNLAB_SECRET_FILE"] = previous
