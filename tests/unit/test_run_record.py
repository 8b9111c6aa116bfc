"""grade.py's run record in --out (grading-run.json): what an earlier run left there is read, or refused by
name when it is not one (before intake reserved the name, a student's result could be written over it)."""

import json

import pytest

from attnlab.grade.batch.cli import recorded_run


def test_a_record_is_read_and_a_missing_one_is_none(tmp_path):
    record = tmp_path / "grading-run.json"
    assert recorded_run(record, force=False) is None
    record.write_text(json.dumps({"seed": 5, "secret": None}))
    assert recorded_run(record, force=False) == {"seed": 5, "secret": None}


@pytest.mark.parametrize("text", [json.dumps({"submission": "grading-run", "score": 0.0, "exercises": []}),
                                  "{not json", json.dumps({"seed": "5"}), "[]"])
def test_anything_else_is_refused_by_name_unless_forced(tmp_path, text):
    record = tmp_path / "grading-run.json"
    record.write_text(text)
    with pytest.raises(ValueError, match=f"{record} is not a record of grade.py's.*add --force"):
        recorded_run(record, force=False)
    assert recorded_run(record, force=True) is None  # --force regrades everything and writes a new one
