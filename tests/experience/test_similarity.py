"""Similarity detection: renamed copies are flagged with their originals and nothing else is; the
template's own code never counts; the output is the same on every run and in every process."""

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from attnlab.core import paths
from attnlab.core.spec_load import load_course
from attnlab.instructor import similarity
from attnlab.instructor.splice import copy_renamed
from attnlab.instructor.synthetic import sources, template_modules, use_source, write_modules

COURSE = load_course(paths.SPEC_DIR)
# exercises with enough code to tell solutions apart, each with several independently written correct ones
EXERCISES = ("scaled_dot_product_attention", "multihead_self_attention", "gpt2_causal_self_attention", "rope",
             "multihead_self_attention_with_rope")
COPIED = {"rope": "alt_complex.py", "gpt2_causal_self_attention": "multihead.py",
          "scaled_dot_product_attention": "alt_key_blocks.py"}
QUIZ = (paths.TEMPLATE_DIR / "quiz.yaml").read_text(encoding="utf-8")


def student(root: Path, name: str, exercise_id: str, source: Path) -> Path:
    modules = template_modules()
    assert use_source(modules, COURSE.get(exercise_id), source)
    write_modules(root / name, modules, QUIZ)
    return root / name


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> tuple[Path, set[tuple[str, str, str]]]:
    """Per exercise, one student per independently written correct solution (the reference's and the
    corpus' alt_*); three of them copied with every local renamed and comments dropped; one copy zipped."""
    root = tmp_path_factory.mktemp("class")
    expected = set()
    for exercise_id in EXERCISES:
        for source in sources(COURSE.get(exercise_id))["correct"]:
            name = f"{exercise_id}-{source.stem}"
            student(root, name, exercise_id, source)
            if COPIED.get(exercise_id) == source.name:
                copy_renamed(root / name, root / f"copy-{name}", seed=len(expected))
                expected.add((exercise_id, *sorted([name, f"copy-{name}"])))
    zipped = next(p for p in sorted(root.glob("copy-*")))
    with zipfile.ZipFile(root / f"{zipped.name}-zip.zip", "w") as archive:
        for path in sorted(zipped.rglob("*")):
            archive.write(path, f"package/{path.relative_to(zipped)}")
    exercise_id = next(e for e in EXERCISES if zipped.name.startswith(f"copy-{e}-"))
    original = zipped.name[len("copy-"):]
    expected |= {(exercise_id, *sorted([original, f"{zipped.name}-zip"])),
                 (exercise_id, *sorted([zipped.name, f"{zipped.name}-zip"]))}
    (root / "broken.zip").write_bytes(b"not a zip")
    return root, expected


def test_renamed_copies_are_flagged_and_unrelated_solutions_are_not(planted):
    root, expected = planted
    found = similarity.check_dir(root, COURSE)
    assert {(p.exercise, p.a, p.b) for p in found.pairs} == expected
    assert set(found.skipped) == {"broken"} and found.submissions == len(list(root.iterdir())) - 1
    groups = [members for _, members in found.matches()]  # the zipped copy: three with the same code, once
    assert sorted(map(len, groups)) == [2, 2, 3] and len(found.pairs) == 5
    copy = next(p for p in found.pairs if p.exercise == "rope")
    assert copy.similarity == 1.0  # renaming and dropping comments change no normalised token
    (fragment,) = found.fragments(copy)
    original = copy.a if not copy.a.startswith("copy-") else copy.b
    names_in = {copy.a: fragment.a_text, copy.b: fragment.b_text}
    assert "torch.view_as_complex" in names_in[original] and "torch.view_as_complex" in names_in[f"copy-{original}"]
    assert names_in[original] != names_in[f"copy-{original}"]  # the two sides show each file's own text


def test_the_templates_own_code_never_counts(tmp_path):
    """Two students keep the lines a template gave them and write different code of their own."""
    given = ("    x = in_features.clone()\n    if dim < 0:\n        dim = x.dim() + dim\n"
             "    assert 0 <= dim < x.dim(), f'dim {dim} out of range'\n    moved = x.movedim(dim, -1)\n"
             "    flat = moved.reshape(-1, moved.shape[-1])")
    stub = f"def run_softmax(in_features, dim):\n{given}\n    raise NotImplementedError('softmax')\n"
    (tmp_path / "template").mkdir()
    (tmp_path / "template" / "softmax.py").write_text(f"import torch\n\n\n{stub}", encoding="utf-8")
    own = ["    shifted = in_features - in_features.amax(dim=dim, keepdim=True)\n"
           "    return shifted.exp() / shifted.exp().sum(dim)",
           "    return torch.exp(in_features.log_softmax(dim))"]
    submissions = {name: {"softmax.py": f"import torch\n\n\ndef run_softmax(in_features, dim):\n{given}\n{body}\n"}
                   for name, body in zip(("ann", "ben"), own)}
    found = similarity.check(submissions, COURSE, template_dir=tmp_path / "template")
    assert found.pairs == []
    without_template = similarity.check(submissions, COURSE, template_dir=tmp_path / "elsewhere")
    assert [(p.exercise, p.a, p.b) for p in without_template.pairs] == [("softmax", "ann", "ben")]


@pytest.mark.e2e  # two processes, each loading the course (and torch with it)
def test_the_same_directory_gives_the_same_output_in_every_process(planted, tmp_path):
    root, _ = planted
    outputs = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"pairs-{hash_seed}.json"
        done = subprocess.run([sys.executable, "-m", "attnlab.instructor.similarity", str(root), "--json", str(out),
                               "--lang", "en", "--top", "1"], capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONHASHSEED": hash_seed}, cwd=paths.ROOT)
        assert done.returncode == 0, done.stderr[-2000:]
        outputs.append(out.read_text(encoding="utf-8"))
    assert outputs[0] == outputs[1] and len(json.loads(outputs[0])) >= 3
    assert " | " in done.stdout and "broken: not compared" in done.stdout  # side by side; the bad zip named
