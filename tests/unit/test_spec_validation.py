"""A broken spec fails with its file, the key path and what was expected."""


import pytest
from spec_copies import edit

from attnlab.core import paths
from attnlab.core.spec import SpecError
from attnlab.core.spec_load import load_course


def expect_error(spec_dir, *fragments):
    with pytest.raises(SpecError) as info:
        load_course(spec_dir)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


def test_the_real_course_loads():
    course = load_course(paths.SPEC_DIR)
    assert course.total_points == sum(e.points for e in course.exercises) == 100
    assert [e.id for e in course.exercises][0] == "softmax"


def test_wrong_dtype_names_file_key_and_choices(spec_dir):
    edit(spec_dir / "softmax.yaml", lambda d: d["cases"][2]["args"]["in_features"].update(dtype="float"))
    expect_error(spec_dir, "softmax.yaml", "cases[2].args.in_features.dtype", "'float32'", "got 'float'")


def test_missing_required_key(spec_dir):
    edit(spec_dir / "rope.yaml", lambda d: d.pop("tolerance"))
    expect_error(spec_dir, "rope.yaml", "tolerance", "mapping")


def test_tolerance_needs_a_justification(spec_dir):
    edit(spec_dir / "rope.yaml", lambda d: d["tolerance"].update(why="ok"))
    expect_error(spec_dir, "rope.yaml", "tolerance.why", "justification")


def test_unknown_key_is_rejected(spec_dir):
    edit(spec_dir / "dropout.yaml", lambda d: d.update(pionts=3))
    expect_error(spec_dir, "dropout.yaml", "pionts")


def test_id_must_match_file_and_function(spec_dir):
    edit(spec_dir / "causal_mask.yaml", lambda d: d.update(function="run_mask"))
    expect_error(spec_dir, "causal_mask.yaml", "function", "'run_causal_mask'")


def test_points_must_add_up(spec_dir):
    edit(spec_dir / "course.yaml", lambda d: d["assignments"][0].update(total_points=99))
    expect_error(spec_dir, "course.yaml", "assignments[0].total_points", "99")


@pytest.mark.parametrize("points", [-3, float("inf")])
def test_an_exercise_is_worth_zero_points_or_more(spec_dir, points):
    """`points: -3` loaded (the totals can be made to match): passing the exercise would have cost points."""
    edit(spec_dir / "dropout.yaml", lambda d: d.update(points=points))
    expect_error(spec_dir, "dropout.yaml", "points", "a number of points, 0 or more", f"got {points!r}")


@pytest.mark.parametrize("atol", [-1e-6, float("inf"), float("nan")])
def test_a_tolerance_is_finite_and_zero_or_more(spec_dir, atol):
    """A negative atol failed every output, the reference's too; .inf passed every output, a wrong one's too."""
    edit(spec_dir / "rope.yaml", lambda d: d["tolerance"]["float32"].update(atol=atol))
    expect_error(spec_dir, "rope.yaml", "tolerance.float32.atol", "a finite number, 0 or more")


def test_a_quiz_question_is_worth_zero_points_or_more_and_its_tolerance_is_not_negative(spec_dir):
    edit(spec_dir / "quiz.yaml", lambda d: d["questions"][0].update(points=-1))
    expect_error(spec_dir, "quiz.yaml", "questions[0].points", "a number of points, 0 or more", "got -1.0")
    edit(spec_dir / "quiz.yaml", lambda d: d["questions"][0].update(points=1, tolerance=-0.5))
    expect_error(spec_dir, "quiz.yaml", "questions[0].tolerance", "a finite number, 0 or more", "got -0.5")


def test_course_and_files_must_agree(spec_dir):
    (spec_dir / "extra.yaml").write_text("id: extra\n")
    expect_error(spec_dir, "course.yaml", "assignments", "extra")


def test_an_unknown_assignment_names_the_ones_there_are():
    with pytest.raises(SpecError, match="no assignment 'nope'.*'attention'"):
        load_course(paths.SPEC_DIR, "nope")


def test_bad_shape_and_invalid_yaml(spec_dir):
    edit(spec_dir / "softmax.yaml", lambda d: d["cases"][0]["args"]["in_features"].update(tensor=[3, -1]))
    expect_error(spec_dir, "cases[0].args.in_features.tensor", "non-negative")
    (spec_dir / "softmax.yaml").write_text("id: [unclosed\n")
    expect_error(spec_dir, "softmax.yaml", "not valid YAML")


def test_specs_are_frozen():
    course = load_course(paths.SPEC_DIR)
    with pytest.raises(AttributeError):
        course.get("softmax").points = 100


def test_unknown_law_names_file_key_and_the_laws_there_are(spec_dir):
    edit(spec_dir / "softmax.yaml", lambda d: d["properties"][1].update(check="softmax_shift_invariant"))
    expect_error(spec_dir, "softmax.yaml", "properties[1].check", "softmax_shift_invariance", "causality")


def test_law_parameters_are_checked_against_the_law(spec_dir):
    edit(spec_dir / "causal_attention.yaml", lambda d: d["properties"][0].update(bse_case="x"))
    expect_error(spec_dir, "causal_attention.yaml", "properties[0].bse_case", "'base_case'")
    edit(spec_dir / "causal_attention.yaml", lambda d: d["properties"][0].pop("bse_case"))
    edit(spec_dir / "causal_attention.yaml", lambda d: d["properties"][0].pop("arg"))
    expect_error(spec_dir, "causal_attention.yaml", "properties[0].arg", "requires 'arg'")


def test_law_references_name_a_case_and_its_arguments(spec_dir):
    edit(spec_dir / "softmax.yaml", lambda d: d["properties"][2].update(base_case="no_such_case"))
    expect_error(spec_dir, "softmax.yaml", "properties[2].base_case", "last_dim")
    edit(spec_dir / "softmax.yaml", lambda d: d["properties"][2].update(base_case="last_dim", wrt=["x"]))
    expect_error(spec_dir, "softmax.yaml", "properties[2].wrt", "in_features")


def test_a_broken_exercise_module_names_its_file(spec_dir):
    (spec_dir / "rope.py").write_text("import no_such_module\n")
    expect_error(spec_dir, "rope.py", "cannot be imported", "no_such_module")


def test_identity_when_names_only_arguments_of_the_cases(spec_dir):
    edit(spec_dir / "dropout.yaml", lambda d: d["returns"][0].update(identity_when=[{"trainng": False}]))
    expect_error(spec_dir, "dropout.yaml", "returns[0].identity_when[0].trainng", "'training'")


def test_identity_when_holds_plain_values(spec_dir):
    edit(spec_dir / "dropout.yaml", lambda d: d["returns"][0].update(identity_when=[{"p": [0.0]}]))
    expect_error(spec_dir, "dropout.yaml", "returns[0].identity_when[0].p", "plain value")


def test_a_derived_argument_names_a_function_its_exercise_module_lists(spec_dir):
    edit(spec_dir / "triton_flash_backward.yaml",
         lambda d: d["cases"][0]["args"]["O"].update(derived="forward_outputs"))
    expect_error(spec_dir, "triton_flash_backward.yaml", "cases[0].args.O.derived", "'forward_output'",
                 "got 'forward_outputs'")
