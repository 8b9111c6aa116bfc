"""The constructions behind `attnlab viz`: they read true attention weights off a run_* function, the
student side equals the reference side for a correct package, and fixtures/_viz/ is current."""

import matplotlib.image
import numpy as np
import pytest

import reference
from attnlab.core import frameworks, paths, pictures
from attnlab.core.impl import InProcessImpl
from attnlab.core.spec_load import load_course
from attnlab.student import viz

COURSE = load_course(paths.SPEC_DIR)
ROPE_LEN = 16  # spec/rope.py draws positions 0..15


def test_viz_fixtures_are_current():
    assert viz.sync_viz(COURSE, reference, check=True) == [], "run `python -m attnlab.instructor.generate viz`"


@pytest.mark.parametrize("exercise_id", viz.drawable(COURSE))
def test_a_correct_package_draws_exactly_the_reference(exercise_id):
    exercise = COURSE.find(exercise_id)
    yours, problem = viz.student_weights(exercise, InProcessImpl(paths.EXAMPLES_DIR / "reference",
                                                                 adapter=frameworks.default()), "en")
    assert problem == "" and np.allclose(yours, viz.reference_weights(exercise), atol=1e-10)


def test_pictures_show_weights_masks_and_the_relative_position_pattern():
    arrays = viz.viz_arrays(COURSE, reference)
    for exercise_id, weights in arrays.items():
        if viz.picture_of(COURSE.find(exercise_id)).kind == "weights":
            assert np.allclose(weights.sum(-1), 1.0) and (weights >= 0).all(), exercise_id
    for causal in ("causal_attention", "multihead_self_attention", "gpt2_causal_self_attention",
                   "multihead_attention_wrapper", "multihead_self_attention_with_rope"):
        assert arrays[causal].shape[0] == (1 if causal == "causal_attention" else pictures.HEADS)
        rows, cols = np.tril_indices(pictures.SEQ)
        assert np.allclose(np.triu(arrays[causal], 1), 0.0), causal
        assert (arrays[causal][:, rows, cols] > 0).all(), causal
    assert np.array_equal(arrays["causal_mask"][0], np.tril(np.ones((pictures.SEQ, pictures.SEQ))))
    scores = arrays["rope"][0]  # depends on m - n only: constant along every diagonal
    for offset in range(-ROPE_LEN + 1, ROPE_LEN):
        assert np.allclose(np.diagonal(scores, offset), np.diagonal(scores, offset)[0])
    assert not np.allclose(scores, scores[0, 0])
    assert np.triu(arrays["self_attention"][0], 1).max() > 0.01  # no mask: the future gets weight


def test_a_wrong_shape_is_shown_not_raised(tmp_path):
    package = tmp_path / "wrong"
    package.mkdir()
    (package / "__init__.py").write_text("def run_causal_attention(**kwargs):\n"
                                         "    return kwargs['in_features'][:, :3]\n")
    impl = InProcessImpl(package, adapter=frameworks.default())
    yours, problem = viz.student_weights(COURSE.find("causal_attention"), impl, "en")
    assert yours is None and "(8, 3)" in problem, problem


def test_without_the_reference_the_saved_pictures_are_used(monkeypatch):
    saved = viz.viz_arrays(COURSE, reference)
    monkeypatch.setattr(viz, "load_reference", lambda: None)
    for exercise_id in ("causal_mask", "rope"):  # equal up to the last bits of another CPU's kernels
        assert np.allclose(viz.reference_weights(COURSE.find(exercise_id)), saved[exercise_id], rtol=1e-12, atol=1e-12)


@pytest.mark.slow  # draws heatmaps with matplotlib
@pytest.mark.parametrize("exercise_id", ["causal_attention", "multihead_self_attention"])
def test_yours_and_the_reference_are_side_by_side(tmp_path, exercise_id):
    """Per head a row: yours on the left, the reference's at the same height on the right."""
    exercise = COURSE.get(exercise_id)
    reference_side = viz.reference_weights(exercise)
    fig = viz.figure(exercise, reference_side, "", reference_side, lang="en")
    fig.canvas.draw()
    panels = [ax for ax in fig.axes if ax.get_images()]  # the heatmaps, not their colour bars
    assert len(panels) == 2 * reference_side.shape[0]
    for yours, ref in zip(panels[::2], panels[1::2]):
        assert yours.get_title().startswith("yours") and ref.get_title().startswith("reference")
        left, right = yours.get_position(), ref.get_position()
        assert left.x1 < right.x0 and abs(left.y0 - right.y0) < 0.02 and abs(left.height - right.height) < 0.02
    out = tmp_path / "side.png"
    viz.draw(exercise, InProcessImpl(paths.EXAMPLES_DIR / "reference", adapter=frameworks.default()), out, lang="en")
    height, width = matplotlib.image.imread(out).shape[:2]
    assert (width > 1.4 * height) if reference_side.shape[0] == 1 else (width > 0.8 * height)
