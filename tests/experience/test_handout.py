"""The student handout: what it holds, that it leaks no solution or hidden data, and that a new student
can go from the handout alone to "0.00 / N", implement softmax and see it pass."""

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from attnlab.core import paths
from attnlab.core.spec_load import load_course
from attnlab.instructor.release import PACKAGE, build_handout, package_files


def _visible_checks(exercise_id: str) -> int:
    exercise = load_course(paths.SPEC_DIR).get(exercise_id)
    return sum(c.visible for c in exercise.cases) + sum(p.visible for p in exercise.properties)


SOFTMAX_VISIBLE = _visible_checks("softmax")

pytestmark = pytest.mark.e2e  # starts runners, grade.py, browsers or pytest processes

STUB = '    raise NotImplementedError("exercise softmax: implement run_softmax")\n'
SOFTMAX = ("    shifted = in_features - in_features.amax(dim=dim, keepdim=True)\n"
           "    exps = torch.exp(shifted)\n"
           "    return exps / exps.sum(dim=dim, keepdim=True)\n")
# Run with only the handout importable: the repo's editable install (a meta-path finder that maps
# `attnlab` and `reference` to this repository) is removed before anything is imported.
BOOT = """
import sys
sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "__module__", "").startswith("__editable__")]
sys.path_hooks[:] = [h for h in sys.path_hooks if not getattr(h, "__module__", "").startswith("__editable__")]
sys.path_importer_cache.clear()
import importlib.util
print("reference importable:", importlib.util.find_spec("reference") is not None, flush=True)
what, args = sys.argv[1], sys.argv[2:]
if what == "pytest":
    import pytest
    sys.exit(pytest.main(args))
from attnlab.student.cli import main
sys.exit(main(args))
"""


@pytest.fixture(scope="module")
def handout(tmp_path_factory) -> Path:
    return build_handout(out=tmp_path_factory.mktemp("dist"))


def run_in(handout: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ATTNLAB_IMPL")}
    env.update(PYTHONPATH=str(handout), ATTNLAB_LANG="en")
    return subprocess.run([sys.executable, "-c", BOOT, *args], cwd=handout, env=env, check=False,
                          capture_output=True, text=True, timeout=300)


def files_under(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


def test_handout_has_the_student_package_and_checks_and_no_instructor_material(handout):
    present = files_under(handout)
    for needed in ("README.md", "pyproject.toml", "spec/course.yaml", "spec/softmax.yaml", "spec/rope.py",
                   f"{PACKAGE}/__init__.py", "student_template/__init__.py", "attnlab/student/cli.py",
                   "attnlab/student/pytest_plugin.py", "attnlab/core/checks.py", "fixtures/_viz/causal_attention.npz"):
        assert needed in present, needed
    assert not (handout / "reference").exists() and not (handout / "examples").exists()
    # no test module: the plugin collects the checks from spec/
    assert not (handout / "tests").exists() and not (handout / "conftest.py").exists()
    shipped = {p.split("/")[1] for p in present if p.startswith("attnlab/") and p.count("/") > 1}
    assert shipped == {"core", "student"}, shipped  # an allow-list: no grading, sandbox or instructor code
    template = set(package_files(load_course(paths.SPEC_DIR)))  # the released assignment's modules only
    for copy in (PACKAGE, "student_template"):  # the working package and the pristine stubs
        assert files_under(handout / copy) == template
        for rel in template:
            assert (handout / copy / rel).read_bytes() == (paths.TEMPLATE_DIR / rel).read_bytes(), rel
    assert 'attnlab_impl = "attention"' in (handout / "pyproject.toml").read_text()
    assert 'attnlab = "attnlab.student.cli:main"' in (handout / "pyproject.toml").read_text()
    assert 'attnlab = "attnlab.student.pytest_plugin"' in (handout / "pyproject.toml").read_text()
    readme = (handout / "README.md").read_text()
    assert "attnlab status" in readme and "安装" in readme and "pip install -e ." in readme
    for lang in ("en", "zh"):  # the assignment as a notebook, as generated (test_notebook_kernel.py runs it)
        notebook = handout / f"attention.{lang}.ipynb"
        assert notebook.read_bytes() == (paths.ROOT / "notebooks" / f"attention.{lang}.ipynb").read_bytes()
        assert f"attention.{lang}.ipynb" in readme


def test_handout_specs_and_fixtures_hold_only_visible_checks(handout):
    course, shipped = load_course(paths.SPEC_DIR), load_course(handout / "spec")
    expected_fixtures = set()
    for original, copy in zip(course.coded, shipped.coded):
        assert copy.cases == tuple(c for c in original.cases if c.visible)
        assert copy.properties == tuple(p for p in original.properties if p.visible)
        assert copy.points == original.points and copy.misconceptions == original.misconceptions
        expected_fixtures |= {f"{original.id}/{c.name}.npz" for c in copy.cases}
    pictures = {f"_viz/{e.id}.npz" for e in course.coded if (paths.FIXTURES_DIR / "_viz" / f"{e.id}.npz").is_file()}
    assert files_under(handout / "fixtures") == expected_fixtures | pictures | {"_laws.json"}
    for rel in expected_fixtures | {"_laws.json"}:  # copied whole: inputs, expected output and misconception outputs
        assert (handout / "fixtures" / rel).read_bytes() == (paths.FIXTURES_DIR / rel).read_bytes()
    for spec in (handout / "spec").glob("*.yaml"):
        assert "visible: false" not in spec.read_text(encoding="utf-8"), spec.name


def _solution_lines() -> set[str]:
    lines, inside = set(), False
    for path in paths.REFERENCE_DIR.glob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            if stripped in ("# BEGIN SOLUTION", "# END SOLUTION"):
                inside = stripped == "# BEGIN SOLUTION"
            elif inside and len(stripped) > 25 and not stripped.startswith("#"):
                lines.add(stripped)
    return lines


def _misconception_lines() -> set[str]:
    """Every specific line of every function body in reference/misconceptions/ (docstrings excluded)."""
    lines = set()
    for path in (paths.REFERENCE_DIR / "misconceptions").glob("*.py"):
        source = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(ast.parse("\n".join(source))):
            if not isinstance(node, ast.FunctionDef):
                continue
            body = node.body[1:] if ast.get_docstring(node) else node.body
            for statement in body:
                for line in source[statement.lineno - 1: statement.end_lineno]:
                    stripped = line.strip()
                    if len(stripped) > 25 and not stripped.startswith("#"):
                        lines.add(stripped)
    return lines


def _quiz_answer_patterns() -> list[re.Pattern]:
    """`key: value` of every answer, and the explanations after them, from reference/quiz.yaml."""
    text = (paths.REFERENCE_DIR / "quiz.yaml").read_text(encoding="utf-8")
    patterns = [re.compile(rf"{re.escape(str(k))}\s*:\s*['\"]?{re.escape(str(v))}\b".encode())
                for k, v in yaml.safe_load(text)["answers"].items()]
    explanations = [line.split("#", 1)[1].strip() for line in text.splitlines()
                    if re.match(r"\s+\w+:", line) and "#" in line]
    return patterns + [re.compile(re.escape(e.encode())) for e in explanations if len(e) > 25]


def _hidden_names() -> tuple[set[str], set[str]]:
    """(names only hidden checks have, the specific ones of those: worth searching every file for)."""
    course = load_course(paths.SPEC_DIR)
    checks = [c for e in course.coded for c in (*e.cases, *e.properties)]
    hidden = {c.name for c in checks if not c.visible} - {c.name for c in checks if c.visible}
    return hidden, {n for n in hidden if "_" in n and len(n) >= 10}


def _public_text() -> str:
    """What students are meant to read: every spec's description and hints (a hint may quote a formula)."""
    return "\n".join(part for e in load_course(paths.SPEC_DIR).coded
                     for part in (e.description.en, e.description.zh, *e.hints["en"], *e.hints["zh"]))


def leaks(root: Path) -> list[str]:
    public = _public_text()
    needles = {**{line: "solution line" for line in _solution_lines() if line not in public},
               **{line: "misconception code" for line in _misconception_lines() if line not in public},
               **{name: "hidden case name" for name in _hidden_names()[1]}}
    patterns = _quiz_answer_patterns()
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        found += [f"{path.relative_to(root)}: {kind}: {needle!r}" for needle, kind in needles.items()
                  if needle.encode() in data]
        found += [f"{path.relative_to(root)}: quiz answer: {p.pattern!r}" for p in patterns if p.search(data)]
    return found


def test_the_leak_search_has_needles_and_finds_them_in_the_reference():
    assert len(_solution_lines()) >= 30 and len(_misconception_lines()) >= 30
    assert len(_hidden_names()[1]) >= 15 and len(_quiz_answer_patterns()) >= 9
    found = " ".join(leaks(paths.REFERENCE_DIR))
    assert "solution line" in found and "misconception code" in found and "quiz answer" in found


def test_handout_leaks_no_solution_misconception_hidden_case_or_quiz_answer(handout):
    assert leaks(handout) == []
    hidden, _ = _hidden_names()
    shipped = load_course(handout / "spec")
    assert not hidden & {c.name for e in shipped.coded for c in (*e.cases, *e.properties)}
    assert not hidden & {p.stem for p in (handout / "fixtures").rglob("*.npz")}


def test_a_new_student_goes_from_zero_to_a_passing_softmax(handout, tmp_path):
    student = shutil.copytree(handout, tmp_path / "handout")
    fresh = run_in(student, "pytest", "-q")
    assert fresh.stdout.startswith("reference importable: False\n")
    total = sum(e.points for e in load_course(paths.SPEC_DIR).coded)
    assert re.search(rf"total\s+0\.00 / {total:g}\n", fresh.stdout), fresh.stdout[-3000:]
    assert fresh.returncode == 1 and re.search(r"softmax\s+not implemented\s+0/", fresh.stdout)
    assert len(fresh.stdout.splitlines()) <= 35 and "FAILURES" not in fresh.stdout, fresh.stdout  # compact
    assert re.search(r"quiz\s+not answered\s+0/9\s+– / 6", fresh.stdout)

    softmax = student / PACKAGE / "softmax.py"
    stub = softmax.read_text(encoding="utf-8")
    softmax.write_text(stub.replace(STUB, SOFTMAX.replace("dim=dim", "dim=-1")), encoding="utf-8")
    diagnosed = run_in(student, "attnlab", "check", "softmax")  # from the fixtures' misconception outputs
    assert diagnosed.returncode == 1 and "✗ case first_dim: failed" in diagnosed.stdout
    assert "Likely cause: your output equals a softmax over the last dimension" in diagnosed.stdout

    softmax.write_text(stub.replace(STUB, SOFTMAX), encoding="utf-8")
    one = run_in(student, "pytest", "-q", "-m", "softmax")
    assert one.returncode == 0, one.stdout[-3000:]
    passed_row = rf"softmax\s+passed\s+{SOFTMAX_VISIBLE}/{SOFTMAX_VISIBLE}\s+8\.00 / 8\n"
    assert re.search(passed_row, one.stdout), one.stdout[-2000:]

    status = run_in(student, "attnlab", "status")
    assert status.returncode == 0, status.stderr
    assert re.search(passed_row, status.stdout), status.stdout
    assert re.search(r"rope\s+not implemented", status.stdout)
    assert re.search(rf"total \(visible checks\)\s+8\.00 / {total:g}\n", status.stdout), status.stdout
    assert "Next: simple_self_attention" in status.stdout and str(student / PACKAGE) in status.stdout


def test_a_package_anywhere_is_checked_and_the_quiz_format_too(handout, tmp_path):
    """`--impl` with an absolute path outside the handout (pytest then looks for conftest files there: the
    option comes from the installed plugin), and a quiz answer in the wrong format fails before submitting."""
    student = shutil.copytree(handout, tmp_path / "handout")
    mine = shutil.copytree(student / PACKAGE, tmp_path / "elsewhere" / "mine")
    softmax = mine / "softmax.py"
    softmax.write_text(softmax.read_text(encoding="utf-8").replace(STUB, SOFTMAX), encoding="utf-8")
    (mine / "quiz.yaml").write_text("answers:\n  exercise_3_3_parameter_count: 2,360,064\n  query_role: e\n")
    done = run_in(student, "pytest", "-q", "--impl", str(mine), "-m", "softmax or quiz")
    assert "unrecognized arguments" not in done.stderr and "(mine)" in done.stdout, done.stdout + done.stderr
    assert re.search(rf"softmax\s+passed\s+{SOFTMAX_VISIBLE}/{SOFTMAX_VISIBLE}\s+8\.00 / 8\n", done.stdout)
    assert "quiz.yaml: query_role: 'e' is not one of the choices a, b, c" in done.stdout
    assert re.search(r"quiz\s+format problem\s+1/9", done.stdout) and done.returncode == 1
