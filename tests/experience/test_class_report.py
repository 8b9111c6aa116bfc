"""The class report as an instructor meets it: the bundled examples and a generated class of 200 varied
submissions (correct, each diagnosed bug, not implemented, crashing, not importing, unusable uploads)
graded by grade.py, reported in English and Chinese, and looked at in headless Chromium."""

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from headless_chromium import Browser, assert_not_blank

from attnlab.core import paths
from attnlab.core.i18n import t
from attnlab.instructor.items import code_ran
from attnlab.instructor.report import render
from attnlab.instructor.synthetic import make_class

pytestmark = pytest.mark.e2e  # grade.py and a browser
CLASS_SIZE = 200
SECTIONS = ("#overview", "#misconceptions", "#misconception-table", "#items", "#item-table", "#table", "#similar",
            "section.submission")


def grade(submissions: list[Path], out: Path) -> None:
    started = time.monotonic()
    done = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), *map(str, submissions), "--out", str(out),
                           "--seed", "20240", "--jobs", "2"], capture_output=True, text=True, timeout=1200,
                          cwd=paths.ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    print(f"graded {len(submissions) or 'the bundled example'} submissions in {time.monotonic() - started:.1f} s")


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, tuple[Path, Path, list]]:
    """name -> (results directory, submissions directory, what was planted)."""
    work = tmp_path_factory.mktemp("classes")
    planted = make_class(work / "class", count=CLASS_SIZE, seed=3)
    grade(sorted((work / "class").iterdir()), work / "class-out")
    grade([], work / "examples-out")  # no argument: the bundled examples
    return {"class": (work / "class-out", work / "class", planted),
            "examples": (work / "examples-out", paths.EXAMPLES_DIR, [])}


def test_the_generated_class_is_varied(graded):
    out, _, planted = graded["class"]
    results = [json.loads(p.read_text()) for p in out.glob("student_*.json")]
    assert len(results) == CLASS_SIZE
    statuses = {e["status"] for r in results for e in r["exercises"]}
    assert {"passed", "failed", "not_implemented", "error"} <= statuses
    kinds = {p.kind for p in planted}
    assert {"package", "syntax_error", "bad_zip"} <= kinds
    made = {label.split(":")[0] for p in planted for label in p.exercises.values()}
    assert made == {"correct", "bug", "stub", "crash"}
    diagnosed = {d for r in results for e in r["exercises"] for d in e["diagnoses"]}
    assert len(diagnosed) >= 30  # most of the corpus' misconceptions show up


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("which", ["examples", "class"])
def test_class_report_in_headless_chromium(graded, which, lang, tmp_path):
    out, submissions, planted = graded[which]
    html = render(out, lang=lang, submissions_dir=submissions)
    results = [json.loads(p.read_text()) for p in sorted(out.glob("*.json")) if p.name != "grading-run.json"]
    assert html.count('<section class="submission"') == len(results)
    anchors = set(re.findall(r'<section class="submission" id="(sub-\d+)"', html))
    assert set(re.findall(r'<td title="[^"]*"><a href="#(sub-\d+)">', html)) == anchors  # each reachable
    diagnosed = {(e["id"], d) for r in results for e in r["exercises"] for d in e["diagnoses"]}
    misconceptions = html[html.index('id="misconception-table"'):html.index('id="items"')]
    assert misconceptions.count('<td><span class="mid">') == len(diagnosed)  # every one, with examples
    ran = {(e["id"], c["name"]) for r in results for e in r["exercises"] if code_ran(e) for c in e["checks"]}
    items = html[html.index('id="item-table"'):html.index('id="table"')]
    assert len(re.findall(r'<td class="mid">\w+</td><td class="mid">\w+</td>', items)) == len(ran) > 50
    sections = dict(re.findall(r'<section class="submission" id="(sub-\d+)">\s*<h3>(\S+) ', html))
    by_name = {name: html[html.index(f'id="{anchor}"'):].split("</section>")[0] for anchor, name in sections.items()}
    for p in planted:  # an unusable upload says why once; a syntax error names its file and line
        if p.kind == "bad_zip":
            assert by_name[p.name].count(t("report.upload_error", lang)) == 1
        if p.kind == "syntax_error":
            assert re.search(r"SyntaxError: invalid syntax \(\w+\.py, line \d+\)", by_name[p.name])
    report = tmp_path / f"report-{lang}.html"
    report.write_text(html, encoding="utf-8")
    with Browser(width=1200) as browser:
        browser.open(report.as_uri())
        for selector in SECTIONS:
            assert_not_blank(browser.shot(selector), selector)
        assert browser.evaluate("document.documentElement.scrollWidth <= innerWidth")
        assert browser.evaluate("document.documentElement.lang") == ("zh-CN" if lang == "zh" else "en")
