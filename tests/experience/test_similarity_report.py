"""The class report's similar-code section: in headless Chromium, a copied package and its original side
by side, both files whole, the matched lines highlighted in both panes (checked on the screenshot) and
linked across; the histogram with its threshold; the clusters. Without the submissions folder the
section stays and gives the command."""

import shutil
from pathlib import Path

import numpy as np
import pytest
from headless_chromium import Browser, assert_not_blank
from PIL import Image

from attnlab.core import paths
from attnlab.core.results import ExerciseResult, SubmissionResult
from attnlab.core.spec_load import load_course
from attnlab.core.status import Status
from attnlab.grade.batch.outputs import write_result
from attnlab.instructor.copies import copy_package
from attnlab.instructor.report import render

COURSE = load_course(paths.SPEC_DIR)
ACCEPTANCE = paths.ROOT / "tests" / "acceptance"
HIGHLIGHT = np.array([0xFF, 0xE0, 0x66])  # tr.hit td in report.html.j2


def passed_everything(name: str) -> SubmissionResult:
    exercises = tuple(ExerciseResult(e.id, getattr(e, "function", None), e.points, e.points, Status.PASSED, "ok")
                      for e in COURSE.exercises)
    return SubmissionResult(name, sum(e.score for e in exercises), COURSE.total_points, exercises,
                            "2024-01-01T00:00:00+00:00", 1.0, "test")


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[Path, Path]:
    """(results, submissions): an original, its restyled copy and two packages written otherwise."""
    root = tmp_path_factory.mktemp("similar-report")
    students = root / "class"
    shutil.copytree(ACCEPTANCE / "seed002_modules_data", students / "fay")
    copy_package(ACCEPTANCE / "seed002_modules_data", students / "gus", "restyled", seed=3)
    shutil.copytree(ACCEPTANCE / "loops_float64", students / "hal")
    shutil.copytree(ACCEPTANCE / "seed004_einops", students / "ivy")
    for student in sorted(students.iterdir()):
        write_result(root / "grades", passed_everything(student.name))
    return root / "grades", students


@pytest.mark.e2e  # a browser
def test_pairs_side_by_side_with_highlighted_matches_in_chromium(graded, tmp_path):
    results, students = graded
    page = tmp_path / "report.html"
    page.write_text(render(results, lang="en", submissions_dir=students), encoding="utf-8")
    with Browser(width=1200) as browser:
        browser.open(page.as_uri())
        assert browser.evaluate("document.querySelector('#pair0 h4').textContent").count("fay") == 1
        pixels = browser.shot("#pair0 .side-by-side")
        Image.fromarray(pixels).save(tmp_path / "pair0.png")  # kept with the test's files, to look at
        lit = (np.abs(pixels.astype(int) - HIGHLIGHT) <= 8).all(axis=-1)
        half = pixels.shape[1] // 2
        assert lit[:, :half].mean() > 0.05 and lit[:, half:].mean() > 0.05, (lit[:, :half].mean(), lit[:, half:].mean())
        target = browser.evaluate("(() => { const a = document.querySelector('#pair0 .side tr.hit a');"
                                  " a.click(); return location.hash; })()")
        assert target.startswith("#pair0-b")  # a line on the left leads to its match on the right
        assert browser.evaluate(f"document.querySelector('{target}').classList.contains('hit')")
        assert_not_blank(browser.shot("#similarity-histogram"), "histogram")
        assert browser.evaluate("document.querySelectorAll('#similarity-histogram rect.flagged').length") > 0
        assert browser.evaluate("document.querySelectorAll('#similarity-histogram line').length") == 2
        rows = browser.evaluate("Array.from(document.querySelectorAll('#similarity-clusters tr')).slice(1)"
                                ".map(r => [r.cells[0].textContent, r.cells[2].textContent])")
        assert ["multihead_self_attention", "fay, gus"] in rows  # the copy, and nobody written otherwise
        assert browser.evaluate("document.documentElement.scrollWidth <= innerWidth")


@pytest.mark.slow  # draws the report's charts (~1 s)
def test_without_the_submissions_the_section_gives_the_command(graded):
    results, _ = graded
    html = render(results, lang="zh")
    section = html[html.index('<section id="similar">'):].split("</section>")[0]
    assert f"python -m attnlab.instructor.report {results} --submissions" in section
    assert '<a href="#similar">' in html
