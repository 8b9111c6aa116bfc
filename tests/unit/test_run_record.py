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


def test_a_record_of_another_assignment_or_framework_is_refused_by_name(tmp_path):
    """A rerun keeps finished results: `--assignment modern` into the attention assignment's --out kept each
    student's attention result as their modern one ("1 already done")."""
    from attnlab.grade.batch.cli import check_same_grading

    recorded = {"seed": 5, "secret": None, "assignment": "attention", "framework": "torch"}
    check_same_grading(tmp_path, recorded, "attention", "torch")
    check_same_grading(tmp_path, {"seed": 5, "secret": None}, "modern", "numpy")  # an older record names neither
    for assignment, framework in (("modern", "torch"), ("attention", "numpy")):
        with pytest.raises(ValueError, match=f"{tmp_path} holds the results of assignment attention in torch, and "
                                             f"this run grades {assignment} in {framework}: .* add --force"):
            check_same_grading(tmp_path, recorded, assignment, framework)


def test_merge_refuses_shards_of_different_assignments_and_carries_what_they_share(tmp_path):
    from attnlab.grade.batch.merge import common_record, graded, run_records

    shards = []
    for i, assignment in enumerate(("attention", "attention", "modern")):
        shards.append(tmp_path / f"shard-{i}")
        shards[-1].mkdir()
        (shards[-1] / "grading-run.json").write_text(json.dumps(
            {"seed": 7, "secret": None, "assignment": assignment, "framework": "torch"}))
    records = run_records(shards[:2])
    assert common_record(records) == {"seed": 7, "secret": None, "assignment": "attention", "framework": "torch"}
    assert graded(records, {}) == "attention"
    with pytest.raises(ValueError, match="the shards graded different assignments or frameworks"
                                         r" \(attention in torch: .*shard-0.*; modern in torch: .*shard-2"):
        graded(run_records(shards), {})
    # a result of another framework than the records' (an --out an older grade.py left, or a copied file)
    numpy_result = {"submission": "s", "assignment": "attention", "framework": "numpy"}
    with pytest.raises(ValueError, match=r"attention in numpy: .*s\.json; attention in torch"):
        graded(records, {"s": (tmp_path / "s.json", numpy_result)})
    # an older record names neither: the results decide; one without a framework says nothing of it
    (shards[2] / "grading-run.json").write_text(json.dumps({"seed": 7, "secret": None}))
    assert graded(run_records(shards), {"s": (tmp_path / "s.json", {"submission": "s"})}) == "attention"
    (shards[2] / "grading-run.json").write_text("{not json")
    with pytest.raises(ValueError, match=f"{shards[2] / 'grading-run.json'} is not a run record grade.py wrote"):
        run_records(shards)
