"""The HTML class report: content, escaping of untrusted names and feedback, no external resources, no
secret seed, and a real render in headless Chromium that is not blank."""

import json
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from markupsafe import escape
from PIL import Image

from attnlab.core import paths
from attnlab.core.results import CheckResult, ExerciseResult, SubmissionResult
from attnlab.core.spec_load import load_course
from attnlab.grade.batch.outputs import write_result
from attnlab.instructor.report import main, render

COURSE = load_course(paths.SPEC_DIR)
EVIL = '<script>alert("x")<script>'  # a submission name is a file's base name: no "/"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"  # Debian's package


def submission(name: str, passed: set[str], diagnoses: dict[str, str]) -> SubmissionResult:
    exercises = []
    for ex in COURSE.exercises:
        ok = ex.id in passed
        checks = (CheckResult("c", ok, "passed" if ok else "failed", "" if ok else "bad",
                              diagnosis=diagnoses.get(ex.id, "")),)
        status = "passed" if ok else ("failed" if ex.id in diagnoses else "not_implemented")
        exercises.append(ExerciseResult(ex.id, getattr(ex, "function", None), ex.points if ok else 0.0,
                                        ex.points, status,
                                        f'feedback for {name}: <img src=x onerror="alert(1)">', checks))
    return SubmissionResult(name, sum(e.score for e in exercises), COURSE.total_points, tuple(exercises),
                            "2024-01-01T00:00:00+00:00", 1.0, "test")


@pytest.fixture
def results_dir(tmp_path) -> Path:
    out = tmp_path / "grades"
    write_result(out, submission("alice", {"softmax", "causal_mask"}, {"rope": "rotate_half"}))
    write_result(out, submission("bob", {"softmax"}, {"rope": "rotate_half", "softmax": "ignores_dim"}))
    write_result(out, submission(EVIL, set(), {"rope": "ignores_positions"}))
    (out / "grading-run.json").write_text(json.dumps({"seed": 987654321987}))
    (out / "results.json").write_text(json.dumps({"score": 1, "tests": []}))  # Gradescope's, not a result
    return out


class Attributes(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls, self.tags = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.urls += [value for key, value in attrs if key in ("src", "href", "action", "data") and value]


def test_report_shows_rates_misconceptions_and_submissions(results_dir):
    html = render(results_dir, lang="en")
    assert "3 submissions" in html and "2 / 3 (67%)" in html  # softmax: alice and bob passed
    rope_message = next(m for m in COURSE.get("rope").misconceptions if m.id == "rotate_half").message.en
    assert "rotate_half</span> — 2 (67% share of submissions)" in html
    assert str(escape(rope_message)) in html
    assert html.index(">alice<") < html.index(">bob<")  # by score


def test_report_escapes_untrusted_text_and_loads_nothing_from_outside(results_dir):
    html = render(results_dir, lang="en")
    assert EVIL not in html and "&lt;script&gt;alert(" in html
    assert "<img src=x" not in html and 'onerror="alert' not in html
    parser = Attributes()
    parser.feed(html)
    assert parser.tags.count("img") == 2 and "script" not in parser.tags and "link" not in parser.tags
    assert parser.urls and all(url.startswith("data:image/png;base64,") for url in parser.urls)
    assert "@import" not in html and "url(" not in html
    assert "987654321987" not in html  # the secret seed of the run is never read


def test_report_cli_writes_the_file_and_refuses_an_empty_dir(results_dir, tmp_path, capsys):
    assert main([str(results_dir), "--lang", "zh"]) == 0
    html = (results_dir / "report.html").read_text(encoding="utf-8")
    assert "班级报告" in html and "各练习通过率" in html
    (tmp_path / "empty").mkdir()
    assert main([str(tmp_path / "empty")]) == 2
    assert "holds no grade.py results" in capsys.readouterr().err


@pytest.mark.e2e
def test_report_renders_in_headless_chromium(results_dir, tmp_path):
    if not Path(CHROMIUM).exists():
        if os.environ.get("ATTNLAB_SKIP_BROWSER") == "1":
            pytest.skip("ATTNLAB_SKIP_BROWSER=1 and chromium is not installed")
        pytest.fail(f"{CHROMIUM} not found: install Debian's chromium (`apt-get install -y chromium`), "
                    "or set ATTNLAB_SKIP_BROWSER=1 to skip this test")
    report = tmp_path / "report.html"
    report.write_text(render(results_dir, lang="en"), encoding="utf-8")
    shot, profile = tmp_path / "shot.png", tmp_path / "profile"
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", f"--screenshot={shot}", "--window-size=1200,1600",
               report.as_uri()]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    pixels = np.asarray(Image.open(shot).convert("RGB"))
    assert pixels.shape[:2] == (1600, 1200)
    colours = len(np.unique(pixels.reshape(-1, 3), axis=0))
    not_white = (pixels < 240).any(axis=-1).mean()
    assert colours > 50 and not_white > 0.03, (colours, not_white)
    shutil.rmtree(profile, ignore_errors=True)
