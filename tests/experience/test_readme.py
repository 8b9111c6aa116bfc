"""README.md's commands, run as written: the quick start (grade the bundled examples, then the class report
with its similar-code section), the handout the student section builds, and the student's commands in it
(status, check, hint, submit). Where a command writes into the checkout (grading-output/, dist/), the test
points it at a temporary directory instead; nothing else is changed."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from attnlab.core import paths

pytestmark = pytest.mark.e2e  # grade.py, its runners, and the student's commands as processes

README = (paths.ROOT / "README.md").read_text(encoding="utf-8")
# the handout's attnlab only: the checkout's editable install is removed before anything is imported
BOOT = """
import sys
sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "__module__", "").startswith("__editable__")]
sys.path_hooks[:] = [h for h in sys.path_hooks if not getattr(h, "__module__", "").startswith("__editable__")]
sys.path_importer_cache.clear()
from attnlab.student.cli import main
sys.exit(main(sys.argv[1:]))
"""


def block_after(heading: str) -> str:
    """The first ```bash block of README's section `heading`."""
    section = README.split(f"\n## {heading}\n", 1)[1]
    return section.split("```bash\n", 1)[1].split("```", 1)[0]


def run(argv: list[str], cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode in (0, 1), f"{shlex.join(argv)}: {done.stdout[-2000:]}{done.stderr[-3000:]}"
    return done


def quick_start_commands(out: Path) -> list[list[str]]:
    """The quick start's grade.py and report commands (after the venv and installs), into `out`."""
    chain = block_after("Quick start (a fresh machine, two commands)").strip().split(" && ")
    commands = [shlex.split(c.replace("grading-output", str(out))) for c in chain if c.startswith(".venv/bin/python ")]
    assert [c[1] for c in commands] == ["grade.py", "-m"], chain
    return [[sys.executable, *c[1:]] for c in commands]


def student_commands() -> tuple[list[str], list[list[str]]]:
    """The handout's build command (from the student section's text) and the `attnlab` lines of its block."""
    section = README.split("\n## For students\n", 1)[1]
    build = re.search(r"`(python -m attnlab\.instructor\.release handout --assignment \w+)`", section).group(1)
    lines = [line.split("#")[0].split() for line in block_after("For students").splitlines()]
    return build.split(), [line[1:] for line in lines if line[:1] == ["attnlab"]]


def test_readme_commands_work_as_written(tmp_path):
    # the instructor's quick start: graded, then the report, whose path is the last line printed
    grade, report = quick_start_commands(tmp_path / "grading-output")
    run(grade, paths.ROOT)
    printed = run(report, paths.ROOT).stdout.strip().splitlines()
    html = tmp_path / "grading-output" / "report.html"
    assert printed[-1] == f"wrote {html}" and html.stat().st_mode & 0o777 == 0o600
    assert 'id="similar"' in html.read_text(encoding="utf-8")

    # the student's path: the handout of the assignment the commands' exercises belong to
    build, commands = student_commands()
    run([sys.executable, *build[1:], "--out", str(tmp_path / "dist")], paths.ROOT)
    [handout] = (tmp_path / "dist").glob("*/handout")
    named = {command[1] for command in commands if command[0] in ("check", "hint", "viz")}
    exercises = {p.stem for p in (handout / "spec").glob("*.yaml")} - {"course"}
    assert named <= exercises, f"README's student commands name {named - exercises}, not in {handout.parent.name}"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ATTNLAB_IMPL")}
    env.update(PYTHONPATH=str(handout), ATTNLAB_LANG="en", LOGNAME="wei_zhang", USER="wei_zhang",
               GIT_CONFIG_GLOBAL=str(tmp_path / "no-gitconfig"), GIT_CONFIG_NOSYSTEM="1")
    said = {command[0]: run([sys.executable, "-c", BOOT, *command], handout, env).stdout for command in commands
            if command[0] != "viz"}  # a picture: tests/experience/test_viz.py
    assert set(said) == {"status", "check", "hint", "submit"}
    promised = re.search(r"\(0\.00 / (\S+) at the start\)", (handout / "README.md").read_text(encoding="utf-8"))
    assert promised and re.search(rf"total \(visible checks\)\s+0\.00 / {re.escape(promised.group(1))}\n",
                                  said["status"]), said["status"]  # the handout README says what status prints
    assert "run_softmax in softmax.py still raises NotImplementedError" in said["check"]
    assert "Hints for softmax:" in said["hint"]
    assert "submitting as wei_zhang (your login name; change it with --name)" in said["submit"]
    assert (handout / "wei_zhang-submission.zip").is_file()
