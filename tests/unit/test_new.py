"""python -m attnlab.instructor.new: the files one new exercise owns, a spec that loads and validates, and
its line in course.yaml; nothing written when the id exists, the assignment does not or the points are negative."""

import json
import shutil

import jsonschema
import pytest
import yaml

from attnlab.core import paths
from attnlab.core.spec_load import load_course
from attnlab.instructor import new
from attnlab.instructor.generate import strip_solutions
from attnlab.instructor.schema import SCHEMA_DIR


@pytest.fixture
def project(tmp_path):
    """A copy of this project's specs and references to scaffold into."""
    for folder in ("spec", "reference"):
        shutil.copytree(paths.ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_scaffold_makes_an_exercise_the_course_loads(project, capsys):
    assert new.main(["toy_scale", "--assignment", "modern", "--points", "0", "--root", str(project)]) == 0
    owned = {p.relative_to(project).as_posix() for p in project.rglob("*toy_scale*")}
    assert owned == {"spec/toy_scale.yaml", "spec/toy_scale.py", "reference/toy_scale.py",
                     "reference/misconceptions/toy_scale.py", "tests/mutations/toy_scale"}
    course = load_course(project / "spec", "modern")
    assert course.exercises[-1].id == "toy_scale" and course.get("toy_scale").function == "run_toy_scale"
    spec_text = (project / "spec" / "toy_scale.yaml").read_text(encoding="utf-8")
    assert spec_text.startswith("# yaml-language-server: $schema=schema/exercise.json")
    schema = json.loads((SCHEMA_DIR / "exercise.json").read_text(encoding="utf-8"))
    jsonschema.validate(yaml.safe_load(spec_text), schema)
    stub = strip_solutions((project / "reference" / "toy_scale.py").read_text(encoding="utf-8"), "toy_scale.py")
    assert 'raise NotImplementedError("exercise toy_scale: implement run_toy_scale")' in stub
    assert "added toy_scale to assignment modern" in capsys.readouterr().out


def test_nothing_is_written_for_a_taken_id_or_an_unknown_assignment(project):
    before = sorted(p.relative_to(project) for p in project.rglob("*"))
    course_yaml = (project / "spec" / "course.yaml").read_text(encoding="utf-8")
    for argv in (["softmax", "--assignment", "attention"], ["toy_scale", "--assignment", "nope"],
                 ["toy_scale", "--assignment", "modern", "--points", "-3"]):
        with pytest.raises(SystemExit) as exit_:
            new.main([*argv, "--root", str(project)])
        assert exit_.value.code == 2
    assert sorted(p.relative_to(project) for p in project.rglob("*")) == before
    assert (project / "spec" / "course.yaml").read_text(encoding="utf-8") == course_yaml
