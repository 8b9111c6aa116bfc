"""The HTML class report: misconceptions with examples, item analysis, a section of full feedback per
submission, the chosen language everywhere (status words, charts), escaping of untrusted names and
feedback, no external resources, no secret seed; in headless Chromium: not blank, Chinese drawn as
glyphs rather than boxes, and the table sorted by its inline script."""

import json
import re
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from headless_chromium import Browser, assert_not_blank
from markupsafe import escape

from attnlab.core import paths
from attnlab.core.i18n import t
from attnlab.core.results import CheckResult, ExerciseResult, SubmissionResult
from attnlab.core.spec_load import load_course
from attnlab.core.status import Status
from attnlab.grade.batch.outputs import write_result
from attnlab.instructor import charts
from attnlab.instructor.report import FONT_STACK, main, render

COURSE = load_course(paths.SPEC_DIR)
EVIL = '<script>alert("x")<script>'  # a submission name is a file's base name: no "/"
UPLOAD_PROBLEM = "bad.zip is not a readable zip: File is not a zip file"


def exercise(ex, name: str, passed: set[str], diagnoses: dict[str, str]) -> ExerciseResult:
    ok = ex.id in passed
    status = Status.PASSED if ok else (Status.FAILED if ex.id in diagnoses else Status.NOT_IMPLEMENTED)
    checks = (CheckResult("visible_case", ok, status, diagnosis=diagnoses.get(ex.id, "")),
              CheckResult("hidden_case", ok, status, visible=False),
              CheckResult("a_law", ok or ex.id in diagnoses, Status.PASSED if ok or ex.id in diagnoses else status,
                          kind="property"))
    return ExerciseResult(ex.id, getattr(ex, "function", None), ex.points if ok else 0.0, ex.points, status,
                          f'feedback for {name} on {ex.id}: <img src=x onerror="alert(1)">', checks)


def submission(name: str, passed: set[str], diagnoses: dict[str, str]) -> SubmissionResult:
    exercises = tuple(exercise(ex, name, passed, diagnoses) for ex in COURSE.exercises)
    return SubmissionResult(name, sum(e.score for e in exercises), COURSE.total_points, exercises,
                            "2024-01-01T00:00:00+00:00", 1.0, "test")


def bad_upload(name: str) -> SubmissionResult:
    exercises = tuple(ExerciseResult(ex.id, getattr(ex, "function", None), 0.0, ex.points, Status.ERROR, UPLOAD_PROBLEM)
                      for ex in COURSE.exercises)
    return SubmissionResult(name, 0.0, COURSE.total_points, exercises, "2024-01-01T00:00:00+00:00", 0.1, "test")


@pytest.fixture
def results_dir(tmp_path) -> Path:
    out = tmp_path / "grades"
    write_result(out, submission("alice", {"softmax", "causal_mask"}, {"rope": "rotate_half"}))
    write_result(out, submission("bob", {"softmax"}, {"rope": "rotate_half", "softmax": "ignores_dim"}))
    write_result(out, submission(EVIL, set(), {"rope": "ignores_positions"}))
    write_result(out, bad_upload("dora"))
    (out / "grading-run.json").write_text(json.dumps({"seed": 987654321987}))
    (out / "results.json").write_text(json.dumps({"score": 1, "tests": []}))  # Gradescope's, not a result
    return out


def test_results_graded_with_different_checks_are_said_at_the_top(tmp_path):
    """A rerun after a spec was mended regrades every result (checks_digest); one stopped halfway leaves a
    directory graded two ways, which the report says before any figure."""
    out = tmp_path / "grades"
    for name, digest in (("alice", "0123456789abcdef"), ("bob", "0123456789abcdef"), ("carl", "fedcba9876543210")):
        write_result(out, SubmissionResult(**{**submission(name, {"softmax"}, {}).__dict__, "checks_digest": digest}))
    html = render(out, lang="en")
    banner = t("report.mixed_checks", "en", digests="2 × 0123456789abcdef, 1 × fedcba9876543210")
    assert str(escape(banner)) in html and html.index(str(escape(banner))) < html.index("<nav>")
    write_result(out, SubmissionResult(**{**submission("carl", {"softmax"}, {}).__dict__,
                                          "checks_digest": "0123456789abcdef"}))
    assert "different checks" not in render(out, lang="en")  # carl regraded: one grading again


def test_a_submission_that_could_not_be_graded_is_listed_but_counted_in_no_figure(tmp_path):
    """grade.py marks an upload it could not read `not_graded`: the report lists it and says so, and the mean,
    the median, the charts and the exercise table are of the graded submissions alone (it is no 0)."""
    out = tmp_path / "grades"
    alice = submission("alice", {"softmax", "causal_mask"}, {})
    write_result(out, alice)
    write_result(out, SubmissionResult(**{**bad_upload("dora").__dict__, "not_graded": UPLOAD_PROBLEM}))
    html = render(out, lang="en")
    meta = " ".join(html[html.index('class="meta"'):html.index("</p>", html.index('class="meta"'))].split())
    assert f"mean {alice.score:.2f} / {COURSE.total_points:g}, median {alice.score:.2f} / " in meta, meta
    assert "2 submissions" in meta and "1 not graded (no score: left out of these figures" in meta, meta
    row = re.search(r'<a href="#[^"]*">dora</a></td>\s*(<td[^>]*>[^<]*</td>)', html).group(1)
    assert 'class="error"' in row and ">not graded<" in row


def test_a_result_someone_broke_is_named_not_silently_left_out(results_dir, capsys):
    """A result file cut short (a partial copy) or replaced by other JSON was dropped without a word: that
    student vanished from the report. grade.py's own files (grading-run.json, results.json) are no results
    and are not named."""
    assert "no readable result" not in render(results_dir, lang="en")
    (results_dir / "erin.json").write_text('{"submission": "erin", "score": 5')
    (results_dir / "notes.json").write_text("[1, 2]")
    html = render(results_dir, lang="en")
    start = html.index('class="meta error"')
    warning = " ".join(html[start:html.index("</p>", start)].split())
    assert "2 JSON file(s) in this directory are no readable result, and are left out of everything below" in warning
    assert "<code>erin.json</code> (not readable as JSON" in warning
    assert "<code>notes.json</code> (not a grade.py result" in warning
    assert main([str(results_dir)]) == 0
    said = capsys.readouterr().err
    assert f"{results_dir / 'erin.json'} left out: not readable as JSON" in said and "notes.json left out" in said


def section(html: str, anchor: str) -> str:
    start = html.index(f'<section class="submission" id="{anchor}">')
    return html[start:html.index("</section>", start)]


def test_report_shows_misconceptions_items_and_a_section_per_submission(results_dir):
    html = render(results_dir, lang="en")
    assert "4 submissions" in html and "2 / 4 (50%)" in html  # softmax: alice and bob passed
    rope_message = next(m for m in COURSE.get("rope").misconceptions if m.id == "rotate_half").message.en
    row = re.search(r'rotate_half</span>: (.*?)</td>\s*<td class="num">2</td>.*?<td>(.*?)</td>', html, re.S)
    assert row and row.group(1) == str(escape(rope_message))
    examples = re.findall(r'<a href="#(sub-\d+)">(\w+)</a>', row.group(2))
    assert [name for _, name in examples] == ["alice", "bob"]
    for anchor, name in examples:  # each example links to that submission's full feedback
        assert f"feedback for {name} on rope" in section(html, anchor)
    # item analysis: every check, with its kind and visibility; the hidden case is flagged nowhere (4 submissions)
    items = html[html.index('id="item-table"'):html.index('id="table"')]
    assert {"visible_case", "hidden_case", "a_law"} <= set(re.findall(r'<td class="mid">(\w+)</td>', items))
    assert "law, visible" in items and "case, hidden" in items
    # a bad upload: its one message once, not once per exercise
    dora = section(html, re.search(r'<a href="#(sub-\d+)">dora</a>', html).group(1))
    assert dora.count(UPLOAD_PROBLEM) == 1 and t("report.upload_error", "en") in dora
    table = html[html.index('<table id="submissions">'):]
    assert table.index(">alice</a>") < table.index(">bob</a>") < table.index(">dora</a>")  # best first


def test_report_escapes_untrusted_text_and_loads_nothing_from_outside(results_dir):
    html = render(results_dir, lang="en")
    assert EVIL not in html and "&lt;script&gt;alert(" in html
    assert "<img src=x" not in html and 'onerror="alert' not in html

    class Attributes(HTMLParser):
        def __init__(self):
            super().__init__()
            self.urls, self.tags, self.scripts = [], [], []

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)
            self.urls += [v for k, v in attrs if k in ("src", "href", "action", "data", "srcset") and v]
            self.scripts += [dict(attrs) for _ in [0] if tag == "script"]

    parser = Attributes()
    parser.feed(html)
    assert parser.tags.count("img") == 3 and "link" not in parser.tags and "iframe" not in parser.tags
    assert parser.scripts == [{}]  # one inline script (sorting), no src
    images = [u for u in parser.urls if not u.startswith("#")]
    assert images and all(u.startswith("data:image/png;base64,") for u in images)
    assert "@import" not in html and "url(" not in html and "http" not in html.split("<script>")[1]
    assert "987654321987" not in html  # the secret seed of the run is never read


@pytest.mark.slow  # renders a report with its charts
def test_chinese_report_has_chinese_status_words_and_charts(results_dir, monkeypatch):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns for every glyph its font lacks
        html = render(results_dir, lang="zh")
    words = html[html.index('id="sections"'):]
    assert t("status.not_implemented", "zh") in words and t("status.passed", "zh") in words
    assert ">not implemented<" not in html and ">passed<" not in html
    assert "逐题分析" in html and "各练习的错误理解" in html and '<html lang="zh-CN">' in html
    assert ("图表使用英文标注" in html) == (charts.cjk_font() is None)
    monkeypatch.setattr(charts, "cjk_font", lambda: None)  # a machine without a CJK font
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "图表使用英文标注" in render(results_dir, lang="zh")  # English labels, never boxes


def test_results_without_per_check_outcomes_still_make_a_report(results_dir):
    for path in results_dir.glob("*.json"):
        data = json.loads(path.read_text())
        for ex in data.get("exercises", []):
            ex.pop("checks", None)
        path.write_text(json.dumps(data))
    html = render(results_dir, lang="en")
    assert t("report.no_checks", "en") in html and 'id="item-table"' not in html


def test_report_cli_writes_the_file_and_refuses_an_empty_dir(results_dir, tmp_path, capsys):
    assert main([str(results_dir), "--lang", "zh"]) == 0
    report = results_dir / "report.html"
    html = report.read_text(encoding="utf-8")
    assert "班级报告" in html and "各练习通过率" in html
    assert report.stat().st_mode & 0o777 == 0o600  # as the results it shows: every student's feedback
    printed = capsys.readouterr().out.splitlines()
    assert printed == [f"wrote {report.resolve()}", "no --submissions: the report has no similar-code section "
                       "(give the directory that was graded)"]
    (tmp_path / "empty").mkdir()
    assert main([str(tmp_path / "empty")]) == 2
    assert "holds no grade.py results" in capsys.readouterr().err
    assert main([str(results_dir), "--submissions", str(tmp_path / "missing")]) == 2


NAMES_IN_TABLE = "Array.from(document.querySelectorAll('#submissions tbody tr td:first-child')).map(c => c.textContent)"


@pytest.mark.e2e
def test_report_renders_fits_and_sorts_in_headless_chromium(results_dir, tmp_path):
    report = tmp_path / "report.html"
    report.write_text(render(results_dir, lang="en", submissions_dir=paths.EXAMPLES_DIR), encoding="utf-8")
    with Browser(width=1200) as browser:
        browser.open(report.as_uri())
        for selector in ("#overview", "#misconceptions", "#items", "#table", "#similar", "section.submission"):
            assert_not_blank(browser.shot(selector), selector)
        assert browser.evaluate("document.documentElement.scrollWidth <= innerWidth")  # nothing wider than the page
        assert browser.evaluate(NAMES_IN_TABLE) == ["alice", "bob", EVIL, "dora"]  # best first, then by name
        browser.evaluate("document.querySelectorAll('#submissions th')[1].click()")  # score, ascending
        assert browser.evaluate(NAMES_IN_TABLE)[-2:] == ["bob", "alice"]
        browser.evaluate("document.querySelectorAll('#submissions th')[0].click()")  # name
        assert browser.evaluate(NAMES_IN_TABLE) == sorted([EVIL, "alice", "bob", "dora"], key=str.lower)
        assert browser.evaluate("location.hash") == "#sort=0-asc"
        browser.evaluate("document.querySelector('#submissions a').click()")  # a name leads to its feedback
        heading = browser.evaluate("document.querySelector(location.hash).querySelector('h3').textContent")
        assert heading.startswith(EVIL)


@pytest.mark.e2e
def test_chinese_is_drawn_as_glyphs_not_boxes(tmp_path):
    """Two different Chinese strings in the report's font stack must render differently. The control
    renders them with fontconfig limited to DejaVu (no CJK font): both become the same row of boxes."""
    lines = [t("report.title", "zh")[-4:], t("report.misconception", "zh")]
    assert len(lines[0]) == len(lines[1]) == 4
    probe = tmp_path / "probe.html"
    probe.write_text(f'<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8"><style>body {{ margin: 0; '
                     f'font-family: {FONT_STACK}; font-size: 48px; }} div {{ position: absolute; left: 20px; '
                     f'top: 20px; width: 240px; height: 70px; white-space: nowrap; }}</style></head><body>'
                     f'<div id="a">{lines[0]}</div><div id="b" style="top: 120px">{lines[1]}</div></body></html>',
                     encoding="utf-8")

    def rows(env: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
        with Browser(width=400, height=240, env=env) as browser:
            browser.open(probe.as_uri())
            return browser.shot("#a").mean(axis=-1), browser.shot("#b").mean(axis=-1)

    first, second = rows()
    assert (first < 128).mean() > 0.02, "nothing drawn"
    assert np.abs(first - second).mean() > 5, "Chinese renders as boxes: install Debian's fonts-noto-cjk"
    config = tmp_path / "fonts.conf"
    config.write_text('<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
                      f'<dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>{tmp_path}/fc-cache</cachedir>'
                      '</fontconfig>', encoding="utf-8")
    boxes = rows({"FONTCONFIG_FILE": str(config)})
    assert np.abs(boxes[0] - boxes[1]).mean() < 1  # the control: without the font, the two strings look alike
