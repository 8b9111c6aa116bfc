"""`attnlab viz EXERCISE`: the student's attention weights beside the reference's, as a PNG heatmap.

What is drawn comes from the exercise's own spec/<id>.py (PICTURE, see attnlab.core.pictures): weights read
off the student's own function by construction, never from its internals. The reference side is computed
live where reference/ exists, else read from fixtures/_viz/<id>.npz, made by
`python -m attnlab.instructor.generate viz` (drift-checked with `--check`).
"""

import textwrap
from pathlib import Path

import numpy as np
import torch

from attnlab.core import fixtures, paths
from attnlab.core.exercises import code_for
from attnlab.core.i18n import Message, t
from attnlab.core.impl import Implementation, find_function
from attnlab.core.outcomes import RAISED
from attnlab.core.scoring import load_reference, make_context
from attnlab.core.spec import Course, ExerciseSpec

VIZ_DIR = paths.FIXTURES_DIR / "_viz"


def picture_of(exercise: ExerciseSpec):
    return code_for(exercise.path.parent, exercise.id).picture


def drawable(course: Course) -> list[str]:
    """The ids of the course's exercises that have a picture."""
    return [e.id for e in course.all_coded if picture_of(e) is not None]


def student_weights(exercise: ExerciseSpec, impl: Implementation, lang: str) -> tuple[np.ndarray | None, str]:
    """The student's picture, or (None, what went wrong) — a crash or a wrong shape is shown, not raised."""
    weights, problem = student_picture(exercise, impl)
    return weights, "" if problem is None else problem.text(lang)


def student_picture(exercise: ExerciseSpec, impl: Implementation) -> tuple[np.ndarray | None, Message | None]:
    """student_weights, with what went wrong as a Message (to be said in the console's and the figure's
    language, which differ where no CJK font is installed). The picture reads the student's outputs as the
    checks do (count, type, shape, dtype validated first: attnlab.core.checks.Context), so a wrong output is
    named, never raised; an error of the picture's own code is said as the grader's, not the student's."""
    try:
        ctx = make_context(exercise, impl)
        with torch.no_grad():
            weights = picture_of(exercise).compute(lambda **kwargs: ctx.call(kwargs))
    except RAISED as outcome:
        return None, outcome.message
    except Exception as exc:  # noqa: BLE001 -- the picture's own code, on outputs that were validated
        return None, Message("internal_check", {"exercise": exercise.id, "name": "viz", "type": type(exc).__name__})
    return _readable_picture(weights, reference_weights(exercise))


def _readable_picture(weights, reference: np.ndarray | None) -> tuple[np.ndarray | None, Message | None]:
    """The picture as a (heads, rows, cols) float64 array of the reference's shape, or what is wrong with it."""
    weights = np.asarray(weights, dtype=np.float64)
    expected = reference.shape if reference is not None else None
    if weights.ndim != 3 or (expected is not None and weights.shape != expected):
        return None, Message("picture_shape", {"got": weights.shape, "expected": expected or "(heads, rows, cols)"})
    return weights, None


def reference_weights(exercise: ExerciseSpec) -> np.ndarray | None:
    """Live from reference/ when it is here (the repo), else the saved fixtures/_viz/<id>.npz (a handout)."""
    reference = load_reference()
    if reference is not None:
        with torch.no_grad():
            return picture_of(exercise).compute(find_function(reference, exercise.module, exercise.function))
    path = VIZ_DIR / f"{exercise.id}.npz"
    return fixtures.read(path)["weights"] if path.is_file() else None


FIG_WORDS = ("yours", "reference", "head", "key", "query", "diff", "missing")
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Source Han Sans SC", "WenQuanYi Zen Hei", "SimHei",
             "Microsoft YaHei", "PingFang SC")


def _cjk_font() -> str | None:
    from matplotlib import font_manager

    names = {f.name for f in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FONTS if name in names), None)


def _panel(ax, data: np.ndarray | None, kind: str, title: str, problem: str):
    ax.set_title(title, fontsize=10)
    if data is None:
        ax.text(0.5, 0.5, textwrap.fill(problem, 34), ha="center", va="center", fontsize=8, wrap=True)
        ax.set_axis_off()
        return None
    finite = np.abs(data[np.isfinite(data)])  # NaN and inf are drawn blank
    limit = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    style = {"weights": ("viridis", 0.0, 1.0), "mask": ("Greys", 0.0, 1.0),
             "scores": ("coolwarm", -limit, limit)}
    cmap, low, high = style[kind]
    return ax.imshow(data, cmap=cmap, vmin=low, vmax=high)


def figure(exercise: ExerciseSpec, yours: np.ndarray | None, problem: str, reference: np.ndarray | None,
           *, lang: str):
    """Yours beside the reference's: one row per head, yours on the left, the reference's on the right."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    word = {key: t(f"viz.{key}", lang) for key in FIG_WORDS}
    picture = picture_of(exercise)
    shown = next((a for a in (reference, yours) if a is not None), np.zeros((1, 1, 1)))
    heads = shown.shape[0]
    fig = Figure(figsize=(8.0, 3.4 * heads + 1.4), layout="constrained")
    axes = fig.subplots(heads, 2, squeeze=False)
    if yours is not None and reference is not None and yours.shape == reference.shape:
        blank = int((~np.isfinite(yours)).sum())
        problem = t("picture_values", lang, count=blank) if blank else \
            f"{word['diff']} = {np.abs(yours - reference).max():.3g}"
    elif yours is not None and reference is not None:
        problem, yours = t("viz.shape_differs", lang, yours=yours.shape, reference=reference.shape), None
    for column, (label, data) in enumerate(((word["yours"], yours), (word["reference"], reference))):
        for h in range(heads):
            note = f"\n{problem}" if column == 0 and data is not None and h == 0 else ""
            title = label + (f" · {word['head']} {h}" if heads > 1 else "") + note
            ax = axes[h][column]
            image = _panel(ax, None if data is None else data[h], picture.kind, title,
                           problem if data is not None or column == 0 else word["missing"])
            if image is not None:
                columns, rows = (a.get(lang) for a in picture.axes) if picture.axes else (word["key"], word["query"])
                ax.set_xlabel(columns, fontsize=8)
                ax.set_ylabel(rows, fontsize=8)
                fig.colorbar(image, ax=ax, shrink=0.8)
    chars = int(fig.get_figwidth() * (6 if lang == "zh" else 11))  # what fits across the figure
    heading = [f"{exercise.id}: {exercise.title.get(lang)}", picture.caption.get(lang)]
    fig.suptitle("\n".join(textwrap.fill(line, chars) for line in heading), fontsize=11)
    return fig


def draw(exercise: ExerciseSpec, impl: Implementation, out: Path, *, lang: str) -> str:
    """Write the PNG to `out`; return what went wrong with the student's side ('' if nothing)."""
    from matplotlib import rc_context

    yours, problem = student_picture(exercise, impl)
    font = _cjk_font() if lang == "zh" else None
    drawn_in = lang if font or lang != "zh" else "en"  # no CJK font: English labels rather than empty boxes
    rc = {"font.sans-serif": [font, "DejaVu Sans"]} if font else {}
    with rc_context(rc):
        fig = figure(exercise, yours, problem.text(drawn_in) if problem else "", reference_weights(exercise),
                     lang=drawn_in)
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, dpi=110)
    return problem.text(lang) if problem else ""


def viz_arrays(course: Course, reference) -> dict[str, np.ndarray]:
    """Exercise id -> the reference's picture (float64), for the files in fixtures/_viz/."""
    arrays = {}
    for exercise in course.all_coded:
        picture = picture_of(exercise)
        if picture is not None:
            with torch.no_grad():
                arrays[exercise.id] = picture.compute(find_function(reference, exercise.module, exercise.function))
    return arrays


def sync_viz(course: Course, reference, *, check: bool, viz_dir: Path = VIZ_DIR) -> list[str]:
    """Write viz_dir/<id>.npz (or with check=True only list what is out of date)."""
    wanted = viz_arrays(course, reference)
    present = {p.stem for p in viz_dir.glob("*.npz")}
    drift = [i for i in wanted if i not in present or not np.allclose(
        fixtures.read(viz_dir / f"{i}.npz")["weights"], wanted[i], rtol=1e-12, atol=1e-12)]
    drift += [f"{i} (not generated: remove it)" for i in sorted(present - set(wanted))]
    if not check:
        for stale in present - set(wanted):
            (viz_dir / f"{stale}.npz").unlink()
        for exercise_id in drift:
            if exercise_id in wanted:
                fixtures.save(viz_dir / f"{exercise_id}.npz", {"weights": wanted[exercise_id]})
    return [f"fixtures/_viz/{d}" for d in drift]
