"""pytester runs pytest itself in a subprocess: the plugin is tested as students run it.

Every test, and every grade.py it starts, uses a course secret of the session's own (ATTNLAB_SECRET_FILE), never
one in the checkout: grading without --seed stays reproducible within the run and writes nothing into the repo.

The MindSpore venv's tests run beside the e2e tier instead of after it (tests/mindspore_venv.py). On
pytest-xdist workers, tests that share what they compute run in the same worker, and each worker computes on one
thread (tests/xdist_groups.py)."""

import os

import mindspore_venv
import pytest
import xdist_groups

from attnlab.core import paths

pytest_plugins = ["pytester"]


def pytest_configure(config):
    xdist_groups.one_thread_each(config)


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


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected
def pytest_collection_modifyitems(config, items):
    mindspore_venv.put_last(items)


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: without xdist (dev extra, -p no:xdist) it is not called
def pytest_xdist_make_scheduler(config, log):
    """Only where xdist would use `load` (what `-n` alone chooses); another `--dist` keeps xdist's own."""
    if config.getvalue("dist") == "load":
        return xdist_groups.scheduler(config, log, paths.SPEC_DIR)
    return None


@pytest.fixture(scope="session", autouse=True)
def mindspore_tests_early(request, tmp_path_factory):
    """The MindSpore venv's tests, started with the first test where the e2e tier runs in one process, in the
    idle scheduling class (tests/mindspore_venv.py says why)."""
    mindspore_venv.start_early(request.session, tmp_path_factory)
    yield
    mindspore_venv.stop_untaken()
