"""A class mixing packages and notebooks, broken notebooks included, graded by one grade.py run (a subprocess):
one result per student; each notebook, alone, zipped, in a folder or in a Canvas download, scores exactly what
its package twin scores, exercise by exercise; each broken notebook gets its own message naming the problem
and nothing else is lost; errors name the cell; the class report links a notebook's feedback to its cells."""

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from headless_chromium import Browser

from attnlab.core import paths
from attnlab.core.spec_load import load_course
from attnlab.instructor.notebooks import notebook_for, sources_of, text_of
from attnlab.student.submit import build_notebook_submission

pytestmark = pytest.mark.e2e  # starts grade.py and its runners

COURSE = load_course(paths.SPEC_DIR, "attention")
EXAMPLES = paths.EXAMPLES_DIR
TWINS = {"ref": EXAMPLES / "reference", "alice": EXAMPLES / "alice_partial", "bob": EXAMPLES / "bob_buggy",
         "carol": EXAMPLES / "carol_library_calls", "tom": EXAMPLES / "untouched_template"}


def notebook_of(package: Path, lang: str = "en") -> nbformat.NotebookNode:
    """The handout's notebook with `package`'s code and quiz answers in its cells, as a student would fill it."""
    return notebook_for(COURSE, lang, sources_of(package, COURSE))


def cell_number(notebook, text: str) -> int:
    return next(i for i, c in enumerate(notebook.cells, 1) if c.cell_type == "code" and text in c.source)


def with_cell(notebook, after: int, source: str):
    notebook.cells.insert(after, nbformat.v4.new_code_cell(source))
    notebook.cells[after]["id"] = "inserted"
    return notebook


PLOTS = ("import matplotlib.pyplot as plt\n"
         "w = run_softmax(torch.randn(4, 4), dim=-1)\nfig, ax = plt.subplots()\nax.imshow(w)\ndisplay(w)")


def broken_notebooks(folder: Path) -> dict[str, str]:
    """name -> what its message must say; written into `folder` (one per student)."""
    (folder / "bad_json.ipynb").write_text('{"cells": [{"cell_type": "code", "source": "def run_softmax(', "utf-8")
    (folder / "old_format.ipynb").write_text(json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {},
                                                         "worksheets": [{"cells": []}]}), "utf-8")
    many = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1") for _ in range(10_000)])
    (folder / "many_cells.ipynb").write_text(nbformat.writes(many), "utf-8")
    prose = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("I did it on paper."),
                                            nbformat.v4.new_code_cell("import torch\nprint(torch.__version__)")])
    (folder / "no_functions.ipynb").write_text(nbformat.writes(prose), "utf-8")
    return {"bad_json": "bad_json.ipynb is not a notebook: its JSON is invalid (Unterminated string",
            "old_format": "old_format.ipynb is in nbformat 3, older than the nbformat 4",
            "many_cells": "many_cells.ipynb has 10000 cells; a notebook may have at most 2000",
            "no_functions": "no_functions.ipynb defines no run_* function in any of its 1 code cells"}


def huge_notebook(path: Path) -> Path:
    """100 MB of outputs in an otherwise fine notebook (written without holding it in memory twice)."""
    notebook = notebook_of(TWINS["alice"])
    notebook.cells[4].outputs = [nbformat.v4.new_output("stream", name="stdout", text="@FILL@")]
    head, tail = text_of(notebook).split("@FILL@")
    with path.open("w", encoding="utf-8") as out:
        out.write(head)
        for _ in range(100):
            out.write("x" * (1 << 20))
        out.write(tail)
    return path


def build_class(work: Path) -> tuple[list[Path], dict[str, str]]:
    """The paths to grade, and the broken submissions' expected messages. The class folder holds each twin's
    package in a folder, and its notebook: alone (ref, tom), in a folder (bob), in a zip in a folder
    (alice), zipped by `attnlab submit --notebook` (eve); carol's notebook is in a Canvas download and in a
    Gradescope export (fei.liu), dan's is a path of its own."""
    klass = work / "class"
    for name, package in TWINS.items():
        shutil.copytree(package.resolve(), klass / name / "attention",
                        ignore=shutil.ignore_patterns("__pycache__", "numpy", "jax", "mindspore", "misconceptions"))
    (klass / "ref_nb.ipynb").write_text(text_of(notebook_of(TWINS["ref"])), "utf-8")
    (klass / "tom_nb.ipynb").write_text(text_of(notebook_of(TWINS["tom"], "zh")), "utf-8")
    (klass / "bob_nb").mkdir()
    (klass / "bob_nb" / "bob.ipynb").write_text(text_of(notebook_of(TWINS["bob"])), "utf-8")
    (klass / "alice_nb").mkdir()
    with zipfile.ZipFile(klass / "alice_nb" / "work.zip", "w") as zf:
        zf.writestr("hw4/attention.en.ipynb", text_of(notebook_of(TWINS["alice"])))
        zf.writestr("hw4/.ipynb_checkpoints/attention.en-checkpoint.ipynb", "{}")  # Jupyter's: skipped
    eve = work / "eve.ipynb"  # `attnlab submit --notebook`: the notebook and its manifest, zipped
    eve.write_text(text_of(notebook_of(TWINS["bob"], "zh")), "utf-8")
    build_notebook_submission(eve, out_dir=klass, student="eve", data_files=frozenset({"quiz.yaml"}))
    plots = notebook_of(TWINS["ref"])  # drawn in the student's kernel with libraries grading does not offer
    with_cell(plots, cell_number(plots, "def run_softmax("), PLOTS)
    plots.cells.insert(0, nbformat.v4.new_code_cell("from google.colab import drive\ndrive.mount('/content/drive')"))
    plots.cells[0]["id"] = "colab"
    (klass / "plots_nb.ipynb").write_text(text_of(plots), "utf-8")
    expected = broken_notebooks(klass)
    ref = notebook_of(TWINS["ref"])  # an error at import and one in a function: both name their cell
    setup = cell_number(ref, "from attnlab.student.notebook import")
    (klass / "import_error.ipynb").write_text(text_of(with_cell(ref, setup, "x = 1\ny = undefined_name + x")), "utf-8")
    typo = notebook_of(TWINS["ref"])
    softmax = cell_number(typo, "def run_softmax(")
    typo.cells[softmax - 1].source = typo.cells[softmax - 1].source.replace("in_features - ", "in_feature - ")
    (klass / "typo.ipynb").write_text(text_of(typo), "utf-8")
    expected["import_error"] = f"NameError: name 'undefined_name' is not defined (at cell {setup + 1}, line 2)"
    expected["typo"] = f"NameError: name 'in_feature' is not defined (at cell {softmax}, line "
    with zipfile.ZipFile(work / "canvas.zip", "w") as zf:  # Canvas's "Download Submissions"
        zf.writestr("carolnb_103_2001_attention.en.ipynb", text_of(notebook_of(TWINS["carol"])))
    with zipfile.ZipFile(work / "gradescope.zip", "w") as zf:  # Gradescope's "Export Submissions"
        zf.writestr("assignment_7_export/submission_metadata.yml",
                    "submission_501:\n  :submitters:\n  - :name: Fei Liu\n    :email: fei.liu@example.edu\n")
        zf.writestr("assignment_7_export/submission_501/attention.en.ipynb", text_of(notebook_of(TWINS["carol"])))
    (work / "solo").mkdir()
    (work / "solo" / "dan.ipynb").write_text(text_of(notebook_of(TWINS["alice"], "zh")), "utf-8")
    expected["huge"] = "huge.ipynb is 100 MB, over the 50 MB a notebook may be: clear its outputs"
    return [klass, work / "canvas.zip", work / "gradescope.zip", work / "solo" / "dan.ipynb",
            huge_notebook(work / "huge.ipynb")], expected


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[dict[str, dict], dict[str, str], Path]:
    work = tmp_path_factory.mktemp("notebook-class")
    args, broken = build_class(work)
    out = work / "out"
    proc = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), *map(str, args), "--out", str(out),
                           "--seed", "11", "--jobs", "2", "--assignment", "attention"],
                          capture_output=True, text=True, timeout=900, cwd=paths.ROOT,
                          env={**os.environ, "ATTNLAB_LANG": "en"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = {p.stem: json.loads(p.read_text("utf-8")) for p in out.glob("*.json") if p.name != "grading-run.json"}
    return results, broken, out


def by_exercise(result: dict) -> list[tuple[str, float, str]]:
    return [(e["id"], e["score"], e["status"]) for e in result["exercises"]]


def test_one_result_per_student(graded):
    results, broken, _ = graded
    twins = {*TWINS, *(f"{n}_nb" for n in ("ref", "tom", "bob", "alice", "plots")), "carolnb", "fei.liu", "dan", "eve"}
    assert sorted(results) == sorted(twins | set(broken))


def test_each_notebook_scores_what_its_package_twin_scores(graded):
    results, _, _ = graded
    pairs = {"ref_nb": "ref", "tom_nb": "tom", "bob_nb": "bob", "alice_nb": "alice", "carolnb": "carol",
             "fei.liu": "carol", "dan": "alice", "eve": "bob", "plots_nb": "ref"}
    for notebook, package in pairs.items():
        assert by_exercise(results[notebook]) == by_exercise(results[package]), notebook
        assert results[notebook]["notebook"]["file"].endswith(".ipynb")
        assert results[package]["notebook"] is None
    assert results["ref"]["score"] == 100 and results["tom"]["score"] == 0
    assert 0 < results["alice"]["score"] < results["ref"]["score"] and 0 < results["bob"]["score"] < 100
    assert results["carolnb"]["origin"]["layout"] == "canvas" and results["fei.liu"]["origin"]["layout"] == "gradescope"


def test_plots_with_libraries_grading_does_not_offer_cost_nothing_and_are_named(graded):
    """The reference's notebook with a Colab mount and a plot of the weights (matplotlib, Jupyter's display):
    full marks (the comparison with its package twin above), and the result says what did not run."""
    notes = "\n".join(graded[0]["plots_nb"]["notebook"]["notes"])
    assert "`from google.colab import drive` is not run at grading (google is not offered in this course)" in notes
    assert "`import matplotlib.pyplot as plt` is not run at grading (matplotlib is not offered" in notes
    assert "`ax.imshow(w)` is not run at grading (it uses matplotlib, which is not run at grading)" in notes
    assert "display(w)" not in notes  # Jupyter's display: a no-op at grading, run as it is


def test_a_notebook_result_says_where_each_function_is_and_what_was_dropped(graded):
    results, _, _ = graded
    notebook = results["alice_nb"]["notebook"]
    assert notebook["file"] == "attention.en.ipynb"
    reference = notebook_of(TWINS["alice"])
    assert notebook["functions"]["run_softmax"] == cell_number(reference, "def run_softmax(")
    assert [c["cell"] for c in notebook["cells"]] == [i for i, c in enumerate(reference.cells, 1)
                                                      if c.cell_type == "code" and not c.source.startswith("%%")]
    install = cell_number(reference, "%pip install")
    assert len(notebook["notes"]) == 1, notebook["notes"]
    assert notebook["notes"][0].startswith(f"cell {install}, line 5: `%pip install -q \"torch>=2.1\"")
    assert notebook["notes"][0].endswith("is not run at grading (IPython magics and shell escapes are dropped)")


def test_broken_notebooks_get_their_message_and_errors_name_the_cell(graded):
    results, broken, _ = graded
    for name, message in broken.items():
        result = results[name]
        feedback = " ".join(e["feedback"] for e in result["exercises"])
        assert message in feedback, (name, feedback[:400])
        if name in ("import_error", "typo"):
            continue  # graded, and failing where the error is
        assert result["score"] == 0 and all(e["status"] == "error" for e in result["exercises"]), name
    typo = {e["id"]: e for e in results["typo"]["exercises"]}
    assert typo["softmax"]["status"] == "error" and typo["causal_mask"]["status"] == "passed"
    failed_import = {e["id"]: e["status"] for e in results["import_error"]["exercises"]}
    assert failed_import.pop("quiz") == "passed"  # its answers are data, read whatever the code does
    assert set(failed_import.values()) == {"error"}


def test_the_class_report_links_a_notebooks_feedback_to_its_cells(graded):
    from attnlab.instructor.report import render

    results, _, out = graded
    html = render(out, lang="en")
    section = html[html.index(">typo — "):]
    section = section[:section.index("</section>")]
    anchor = re.search(r'id="(sub-\d+)-cell-', section).group(1)
    softmax = results["typo"]["notebook"]["functions"]["run_softmax"]
    assert f'href="#{anchor}-cell-{softmax}">cell {softmax}</a>' in section  # the exercise's function
    assert re.search(rf'\(at <a href="#{anchor}-cell-{softmax}">cell {softmax}</a>, line \d+\)', section)
    assert f'<div class="nbcell" id="{anchor}-cell-{softmax}"><b>cell {softmax}</b><pre>def run_softmax(' in section
    assert "in_feature - " in section
    package_section = html[html.index(">alice — "):]
    assert "nbcell" not in package_section[:package_section.index("</section>")]
    report = out / "report.html"
    report.write_text(html, encoding="utf-8")
    with Browser(width=1200) as browser:  # a link to a cell opens the folded cells and shows that one
        browser.open(report.as_uri())
        cell = f"document.getElementById('{anchor}-cell-{softmax}')"
        assert browser.evaluate(f"{cell}.closest('details').open") is False
        browser.evaluate(f"document.querySelector('a[href=\"#{anchor}-cell-{softmax}\"]').click()")
        browser.evaluate("new Promise(done => setTimeout(done, 200))")
        assert browser.evaluate(f"{cell}.closest('details').open") is True
        top = browser.evaluate(f"{cell}.getBoundingClientRect().top")
        assert abs(top) < 2, top  # scrolled to the top of the window
