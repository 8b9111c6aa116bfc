"""The handout's notebooks run top to bottom in a real Jupyter kernel (nbclient + ipykernel), in the handout
folder as a student runs them, install cell included: with the reference filled in every check() passes,
with the stubs every check() says "not implemented", and the feedback is what `attnlab check` prints. Each
installed framework runs its reference in one language and its stubs in the other, in one kernel."""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from attnlab.core import frameworks, paths
from attnlab.core.i18n import t
from attnlab.core.spec_load import load_course
from attnlab.instructor.notebooks import notebook_for, sources_of
from attnlab.instructor.release import build_handout

pytestmark = pytest.mark.e2e  # starts Jupyter kernels

RUNS = [("torch", "en", "zh"), ("numpy", "zh", "en"), ("jax", "en", "zh")]  # framework, reference's, stubs' language


def installed(framework: str) -> bool:
    return frameworks.adapter(framework).extra is None or importlib.util.find_spec(framework) is not None


@pytest.fixture(scope="module", params=[r for r in RUNS if installed(r[0])], ids=lambda r: r[0])
def ran(request, tmp_path_factory) -> dict:
    """A built handout in `framework`; in one kernel (one start, one torch import: the suite's time), the
    handout's stub notebook top to bottom, then the notebook with the reference filled in top to bottom."""
    framework, reference_lang, stub_lang = request.param
    folder = build_handout(out=tmp_path_factory.mktemp(f"handout-{framework}"), assignment="attention",
                           framework=framework)
    course = load_course(paths.SPEC_DIR, "attention", framework)
    stubs = nbformat.read(folder / f"attention.{stub_lang}.ipynb", as_version=4)
    reference = paths.reference_dir(frameworks.adapter(framework))
    filled = notebook_for(course, reference_lang, sources_of(reference, course))
    for cell in filled.cells:
        cell["id"] = f"reference-{cell['id']}"  # ids stay unique in the two notebooks run as one
    both = nbformat.v4.new_notebook(cells=stubs.cells + filled.cells, metadata=stubs.metadata)
    run_in_kernel(both, folder)
    return {"folder": folder, "framework": framework, "course": course,
            "stubs": (stub_lang, check_outputs(both.cells[:len(stubs.cells)])),
            "reference": (reference_lang, check_outputs(both.cells[len(stubs.cells):]))}


def run_in_kernel(notebook: nbformat.NotebookNode, folder: Path) -> nbformat.NotebookNode:
    from nbclient import NotebookClient

    # a cell that raises fails the test here (CellExecutionError), naming the cell
    where = {"metadata": {"path": str(folder)}}  # the kernel's working directory: the handout, as a student's
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources=where).execute()
    return notebook


def check_outputs(cells) -> dict[str, str]:
    """exercise id -> the text its check() cell showed (exactly once)."""
    shown = {}
    for cell in (c for c in cells if c.cell_type == "code"):
        found = re.fullmatch(r'check\("(\w+)", run_\w+, lang="\w+"\)', cell.source)
        if found:
            assert len(cell.outputs) == 1, (found.group(1), cell.outputs)  # shown once, not again as the cell's value
            shown[found.group(1)] = cell.outputs[0]["data"]["text/plain"]
    return shown


def score_line(lang: str, score: float, points: float, status: str) -> re.Pattern:
    """The last line check() shows: the visible checks' score and status (passed/total: any numbers)."""
    line = t("cli.score", lang, score=score, points=points, passed="@P", total="@T", status=t(f"status.{status}", lang))
    return re.compile(re.escape(line).replace("@P", r"(\d+)").replace("@T", r"(\d+)"))


def test_the_reference_in_the_notebook_passes_every_check(ran):
    lang, shown = ran["reference"]
    assert sorted(shown) == sorted(e.id for e in ran["course"].coded)
    for exercise in ran["course"].coded:
        last = shown[exercise.id].rstrip("\n").split("\n")[-1]
        found = score_line(lang, exercise.points, exercise.points, "passed").fullmatch(last)
        assert found and found.group(1) == found.group(2), (exercise.id, shown[exercise.id][-1500:])


def test_the_handouts_stubs_say_not_implemented(ran):
    lang, shown = ran["stubs"]
    assert sorted(shown) == sorted(e.id for e in ran["course"].coded)
    for exercise in ran["course"].coded:
        lines = shown[exercise.id].rstrip("\n").split("\n")
        assert score_line(lang, 0.0, exercise.points, "not_implemented").fullmatch(lines[-1]), (exercise.id, lines)
        assert lines[1].strip() == t("nb.start_here", lang, function=exercise.function)


def test_check_shows_what_attnlab_check_prints(ran):
    if ran["framework"] != "torch":
        pytest.skip("the same code renders every framework's feedback: compared once, in torch")
    lang, shown = ran["stubs"]
    cli = subprocess.run([sys.executable, "-m", "attnlab.student.cli", "--lang", lang, "check", "softmax"],
                         capture_output=True, text=True, cwd=ran["folder"], timeout=300,
                         env={**os.environ, "PYTHONPATH": str(ran["folder"])})
    printed = cli.stdout.rstrip("\n").split("\n")
    notebook = shown["softmax"].rstrip("\n").split("\n")
    assert printed[1].strip() == t("cli.start_here", lang, function="run_softmax", module="softmax")
    assert notebook[:1] + notebook[2:] == printed[:1] + printed[2:]  # the same feedback but where to start
