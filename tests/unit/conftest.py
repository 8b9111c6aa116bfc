"""Fixtures shared by the unit tests."""

import shutil

import pytest

from attnlab.core import paths


@pytest.fixture
def spec_dir(tmp_path):
    """A writable copy of spec/, for tests of broken specs (spec_copies.edit changes one of its files)."""
    target = tmp_path / "spec"
    shutil.copytree(paths.SPEC_DIR, target)
    return target
