"""Run by setup.sh when the autograder image is built: grade the reference and the untouched template through
run_autograder, exactly as Gradescope will grade a submission, and fail the build (exit status 1) with what to
change when student code would run as root, or the reference does not score full marks, or the template
scores anything.

    python self_test.py     # from the autograder's source directory (this file's), with the image's python
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SOURCE = Path(__file__).resolve().parent
sys.path.insert(0, str(SOURCE))

from attnlab.core.i18n import default_lang, t  # noqa: E402 -- after the source directory is importable

LANG = default_lang()


def grade(package: Path, work: Path) -> tuple[dict | None, str]:
    """(results.json, or None if grade.py wrote none of its own; the grader's log) for `package` uploaded
    to a fresh fake /autograder tree under `work`."""
    root = work / package.name
    shutil.copytree(package, root / "submission", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_SOURCE": str(SOURCE),
           "AUTOGRADER_PYTHON": sys.executable}
    done = subprocess.run([str(SOURCE / "run_autograder")], env=env, capture_output=True, text=True, check=False)
    print(done.stdout, done.stderr, sep="", flush=True)  # the grader's log, into the build log
    try:
        results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        results = None
    return (results if results and results.get("tests") else None), done.stdout


def problems(reference: dict | None, template: dict | None, log: str) -> list[str]:
    """What is wrong with this image, each with what to change ([] when it grades as it must)."""
    level = re.search(r"isolation: (\S+)", log)
    if reference is None:
        refused = level is None and "rlimits-only" in log
        return [t("autograder.selftest_refused", LANG) if refused
                else t("autograder.selftest_no_results", LANG, what="reference/")]
    found = []
    if os.geteuid() == 0 and (level is None or level.group(1) == "rlimits-only"):
        found.append(t("autograder.selftest_root", LANG, level=level.group(1) if level else "?"))
    full = sum(test["max_score"] for test in reference["tests"])
    lost = [test["name"] for test in reference["tests"] if test["score"] < test["max_score"]]
    if lost:
        found.append(t("autograder.selftest_reference", LANG, score=reference["score"], max=full,
                       failed=", ".join(lost)))
    if template is None:
        found.append(t("autograder.selftest_no_results", LANG, what="student_template/"))
    elif template["score"] != 0:
        scored = [test["name"] for test in template["tests"] if test["score"] > 0]
        found.append(t("autograder.selftest_template", LANG, score=template["score"], failed=", ".join(scored)))
    return found


def reference_package() -> Path:
    """The reference in the assignment's framework: reference/ (the default) or reference/<framework>/."""
    from attnlab.core import frameworks
    from attnlab.core.spec_load import assignment_framework

    return SOURCE / "reference" / frameworks.adapter(assignment_framework(SOURCE / "spec")).subfolder


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="attnlab-self-test-") as work:
        reference, log = grade(reference_package(), Path(work))
        template = grade(SOURCE / "student_template", Path(work))[0] if reference is not None else None
    found = problems(reference, template, log)
    for problem in found:
        print(problem, file=sys.stderr)
    if found:
        return 1
    level = re.search(r"isolation: (\S+)", log).group(1)
    print(t("autograder.selftest_level", LANG, level=level))
    print(t("autograder.selftest_ok", LANG, max=sum(test["max_score"] for test in reference["tests"]), level=level))
    return 0


if __name__ == "__main__":
    sys.exit(main())
