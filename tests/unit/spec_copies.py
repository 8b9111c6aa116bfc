"""Editing one file of a copy of spec/ (the `spec_dir` fixture in conftest.py), for tests of broken specs."""

import yaml


def edit(path, change):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
