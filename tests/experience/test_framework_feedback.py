"""Every place a NumPy, JAX or MindSpore student (or their instructor) reads a hint or a misconception reads it
in that framework's words: a real check run of a corpus bug, `attnlab hint`, the notebook's hint(), the
handout's specs, the class report of results graded in NumPy, and pytest itself. MindSpore's run in its venv
(`-k mindspore`); JAX's in-process checks carry `slow`."""

import os
import shutil

import pytest

from attnlab.core import frameworks, paths
from attnlab.core.impl import FileImpl
from attnlab.core.results import SubmissionResult
from attnlab.core.scoring import grade_exercise, make_context
from attnlab.core.spec_load import load_course
from attnlab.grade.batch.outputs import write_result
from attnlab.instructor import mutants
from attnlab.instructor.release import copy_spec
from attnlab.instructor.report import render
from attnlab.student.cli import main as attnlab
from attnlab.student.notebook import hint

COURSE = load_course(paths.SPEC_DIR)
CORPUS = mutants.CORPUS_DIR
NUMPY_BUG = CORPUS / "causal_mask" / "numpy" / "bug_negated_triu_k0.py"  # ~np.triu(ones): no diagonal


def mutant(path, framework: str) -> mutants.Mutant:
    found = [m for m in mutants.discover() if m.path == path]
    assert len(found) == 1 and found[0].framework == framework, found
    return found[0]


def diagnosed(results, misconception_id: str):
    found = [r for r in results if r.diagnosis == misconception_id]
    assert found, [(r.name, r.diagnosis, r.message) for r in results if not r.passed]
    return found[0]


def numpy_result(lang: str):
    exercise = COURSE.find("causal_mask").in_framework("numpy")
    return grade_exercise(make_context(exercise, FileImpl(NUMPY_BUG, adapter=frameworks.adapter("numpy")), lang=lang))


def test_a_numpy_bug_is_diagnosed_in_numpys_words():
    found = diagnosed(mutants.evaluate(mutant(NUMPY_BUG, "numpy"), COURSE), "diagonal_excluded")
    assert "np.tril keeps the diagonal" in found.message and "torch" not in found.message
    for lang, words in (("en", ["np.tril keeps the diagonal", "~np.triu(..., k=1)", "np.tril keeps the diagonal "
                                "and everything below it"]),
                        ("zh", ["np.tril 会保留对角线", "np.tril 保留对角线及其下方"])):
        feedback = numpy_result(lang).feedback  # the diagnosis, then the exercise's hints
        assert all(w in feedback for w in words) and "torch" not in feedback, feedback


@pytest.mark.slow  # JAX compiles every case's shapes
def test_a_jax_bug_is_diagnosed_in_jaxs_words():
    path = CORPUS / "grouped_query_attention" / "jax" / "bug_tile_instead_of_repeat.py"
    found = diagnosed(mutants.evaluate(mutant(path, "jax"), COURSE), "kv_head_modulo")
    assert "jnp.repeat(k, group, axis=-3)" in found.message and "repeat_interleave" not in found.message


def test_a_mindspore_bug_is_diagnosed_in_mindspores_words():
    pytest.importorskip("mindspore")  # runs in MindSpore's venv
    path = CORPUS / "multihead_self_attention" / "mindspore" / "bug_merge_without_transpose.py"
    results = mutants.evaluate(mutant(path, "mindspore"), COURSE)
    found = diagnosed(results, "merge_without_transpose")
    assert ".swapaxes(-3, -2)" in found.message and "view" not in found.message
    exercise = COURSE.find("multihead_self_attention").in_framework("mindspore")
    feedback = grade_exercise(make_context(exercise, FileImpl(path, adapter=frameworks.adapter("mindspore")))).feedback
    assert "ops.reshape(x.swapaxes(-3, -2)" in feedback and ".transpose(-3, -2)" not in feedback, feedback


def test_attnlab_hint_and_the_notebook_speak_the_chosen_framework(capsys):
    assert attnlab(["hint", "causal_mask", "--framework", "numpy", "--lang", "zh"]) == 0
    shown = capsys.readouterr().out
    assert "np.tril 保留对角线及其下方" in shown and "NumPy 数组总在 CPU 上" in shown and "torch" not in shown
    text = hint("causal_mask", lang="zh", framework="mindspore", show=False)  # needs no MindSpore to read
    assert "ops.tril 保留对角线及其下方" in text and "mindspore.set_device" in text and "torch" not in text
    text = hint("dropout", lang="en", framework="jax", show=False)
    assert "jax.random.uniform(generator" in text and "torch.rand" not in text
    assert "torch.rand" in hint("dropout", lang="en", framework="torch", show=False)


def test_a_numpy_handouts_specs_carry_numpys_words(tmp_path):
    course = load_course(paths.SPEC_DIR, "attention", "numpy")
    copy_spec(course, tmp_path / "spec")  # as the handout and the autograder copy them
    shipped = load_course(tmp_path / "spec")  # the handout's course.yaml names numpy
    assert shipped.framework == "numpy"
    assert shipped.get("causal_mask").hints == course.get("causal_mask").hints
    assert "np.tril" in shipped.get("causal_mask").hint("en")


@pytest.mark.slow  # renders two reports
def test_the_class_report_of_a_numpy_class_shows_numpys_sentences(tmp_path):
    result = numpy_result("en")
    assert "diagonal_excluded" in {c.diagnosis for c in result.checks}
    for name, framework in (("numpy_class", "numpy"), ("torch_class", "torch")):
        write_result(tmp_path / name, SubmissionResult("wei", result.score, COURSE.total_points, (result,),
                                                       "2024-01-01T00:00:00+00:00", 1.0, "test", framework=framework))
    numpy_html, torch_html = (render(tmp_path / name, lang="en") for name in ("numpy_class", "torch_class"))
    assert "~np.triu(..., k=1)" in numpy_html and "torch.tril keeps" not in numpy_html
    assert "torch.tril keeps the diagonal" in torch_html


@pytest.mark.e2e  # runs pytest
def test_pytest_with_framework_numpy_tells_the_numpy_words(pytester, tmp_path, monkeypatch):
    package = tmp_path / "attention_pkg"
    shutil.copytree(paths.reference_dir(frameworks.adapter("numpy")), package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    bug = "def " + NUMPY_BUG.read_text(encoding="utf-8").split("def ", 1)[1]
    with (package / "attention.py").open("a", encoding="utf-8") as module:  # replaces the reference's function
        module.write("\n\n" + bug)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(paths.ROOT), os.environ.get("PYTHONPATH", "")]))
    result = pytester.runpytest_subprocess(str(paths.SPEC_DIR), "-q", "-p", "no:cacheprovider", "--framework",
                                           "numpy", "--impl", str(package), "-m", "causal_mask")
    out = result.stdout.str()
    assert result.ret == 1, out
    assert "np.tril keeps the diagonal, and so does the negation ~np.triu(..., k=1)" in out and "torch.tril" not in out


@pytest.mark.e2e  # grade.py: the judge's feedback, from a sandboxed runner
def test_grade_py_tells_a_numpy_class_the_numpy_words(tmp_path):
    import json
    import subprocess
    import sys

    package = tmp_path / "numpy_student"
    shutil.copytree(paths.template_dir(frameworks.adapter("numpy")), package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    bug = "def " + NUMPY_BUG.read_text(encoding="utf-8").split("def ", 1)[1]
    with (package / "attention.py").open("a", encoding="utf-8") as module:  # replaces the stub
        module.write("\n\n" + bug)
    proc = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), str(package), "--framework", "numpy",
                           "--out", str(tmp_path / "out"), "--seed", "7", "--jobs", "1"],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads((tmp_path / "out" / "numpy_student.json").read_text())
    [mask] = [e for e in result["exercises"] if e["id"] == "causal_mask"]
    assert mask["status"] == "failed" and "np.tril keeps the diagonal" in mask["feedback"], mask["feedback"]
    assert "torch" not in mask["feedback"], mask["feedback"]
