"""Similarity detection on a class made of code not written for it (the reference, the mutation corpus's
correct alternatives and bugs, the acceptance packages, the examples: attnlab.instructor.calibration) with
disguised copies planted: every copy is found at the default threshold and at most 5 % of independent
same-exercise pairs are flagged. Helpers and classes count, the template's own code never does, known
sources are reported apart, and the output is the same in every process."""

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attnlab.core import paths
from attnlab.core.spec_load import load_course
from attnlab.instructor import calibration, similarity
from attnlab.instructor.copies import KINDS, copy_package, disguise, renaming
from attnlab.instructor.similarity_index import THRESHOLD

COURSE = load_course(paths.SPEC_DIR)
ACCEPTANCE = paths.ROOT / "tests" / "acceptance"


def package_files(directory: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(directory.glob("*.py"))}


@pytest.mark.slow  # builds a class of about 300 packages and compares both assignments (~10 s)
def test_every_planted_copy_is_found_and_few_independent_pairs_are_flagged(tmp_path):
    made = calibration.build(tmp_path / "class")
    assert {kind for copy in made.copies for kind in KINDS if copy.startswith(f"copy_{kind}-")} == set(KINDS)
    counts = calibration.tally(made, calibration.flagged_at(calibration.attnlab_scores(made, THRESHOLD), THRESHOLD))
    print(counts)
    assert counts["copies_found"] == counts["copies"] == 24
    assert counts["copy_exercises_found"] == counts["copy_exercises"] > 100  # in every exercise both did
    assert counts["independent"] > 3000 and counts["false"] <= 0.05 * counts["independent"]


def test_a_copied_class_is_found_through_renamed_attributes_and_reordered_statements():
    """run_multihead_self_attention is a short adapter; the copied code is the MultiHeadAttention class."""
    original = package_files(ACCEPTANCE / "seed002_modules_data")
    rng = random.Random(5)
    mapping, attributes = renaming(list(original.values()), rng)
    assert "W_query" in mapping  # an attribute set on self is renamed
    copied = {path: disguise(text, "restyled", mapping, attributes, rng) for path, text in original.items()}
    assert "self.W_query" not in copied["attention.py"]
    other = package_files(ACCEPTANCE / "seed004_einops")
    found = similarity.check({"ann": original, "ben": copied, "cat": other}, COURSE)
    pair = next(p for p in found.pairs if p.exercise == "multihead_self_attention" and (p.a, p.b) == ("ann", "ben"))
    assert pair.score > 0.9
    a_lines, b_lines = similarity.regions(found, pair)
    start = original["multihead.py"].splitlines().index("class MultiHeadAttention(nn.Module):") + 1
    assert any(path == "multihead.py" and first <= start + 1 <= last for path, first, last in a_lines)
    assert b_lines and all(path in copied for path, _, _ in b_lines)
    assert not [p for p in found.pairs if p.exercise == "multihead_self_attention" and "cat" in (p.a, p.b)]


def test_the_templates_own_code_never_counts(tmp_path):
    """Two students keep the lines a template gave them and write different code of their own."""
    given = ("    x = in_features.clone()\n    if dim < 0:\n        dim = x.dim() + dim\n"
             "    assert 0 <= dim < x.dim(), f'dim {dim} out of range'\n    moved = x.movedim(dim, -1)\n"
             "    flat = moved.reshape(-1, moved.shape[-1])\n    rows = flat.shape[0]\n"
             "    scale = torch.ones(rows, dtype=flat.dtype, device=flat.device).unsqueeze(-1)")
    stub = f"def run_softmax(in_features, dim):\n{given}\n    raise NotImplementedError('softmax')\n"
    (tmp_path / "template").mkdir()
    (tmp_path / "template" / "softmax.py").write_text(f"import torch\n\n\n{stub}", encoding="utf-8")
    own = ["    shifted = flat - flat.amax(dim=-1, keepdim=True)\n"
           "    weights = shifted.exp() / shifted.exp().sum(-1, keepdim=True) * scale\n"
           "    return weights.reshape(moved.shape).movedim(-1, dim)",
           "    return torch.exp(in_features.log_softmax(dim))"]
    submissions = {name: {"softmax.py": f"import torch\n\n\ndef run_softmax(in_features, dim):\n{given}\n{body}\n"}
                   for name, body in zip(("ann", "ben"), own)}
    found = similarity.check(submissions, COURSE, template_dir=tmp_path / "template", threshold=0.0)
    assert found.pairs == []  # nothing but the template's lines is shared: not even a score
    without_template = similarity.check(submissions, COURSE, template_dir=tmp_path / "elsewhere")
    assert [(p.exercise, p.a, p.b) for p in without_template.pairs] == [("softmax", "ann", "ben")]


@pytest.fixture(scope="module")
def with_known(tmp_path_factory) -> tuple[Path, Path]:
    """Two students who disguised the same public code, one who copied a classmate, one on their own;
    the public code is given as a known source."""
    root = tmp_path_factory.mktemp("known")
    students, known = root / "class", root / "known"
    (known / "public_repo").mkdir(parents=True)
    shutil.copy(ACCEPTANCE / "seed004_einops" / "multihead.py", known / "public_repo" / "mha.py")
    copy_package(ACCEPTANCE / "seed004_einops", students / "dan", "renamed", seed=1)
    copy_package(ACCEPTANCE / "seed004_einops", students / "eve", "dead_code", seed=2)
    shutil.copytree(ACCEPTANCE / "seed002_modules_data", students / "fay")
    copy_package(ACCEPTANCE / "seed002_modules_data", students / "gus", "restyled", seed=3)
    shutil.copytree(ACCEPTANCE / "loops_float64", students / "hal")
    (students / "broken.zip").write_bytes(b"not a zip")
    return students, known


def test_matches_with_a_known_source_are_reported_apart(with_known):
    students, known = with_known
    found = similarity.check_dir(students, COURSE, known_dir=known)
    exercise = "multihead_self_attention"
    assert {(p.a, p.b) for p in found.known if p.exercise == exercise} == {("dan", "public_repo/mha.py"),
                                                                          ("eve", "public_repo/mha.py")}
    assert ("dan", "eve") in {(p.a, p.b) for p in found.explained if p.exercise == exercise}
    student_pairs = {(p.a, p.b) for p in found.pairs if p.exercise == exercise}
    assert ("fay", "gus") in student_pairs and ("dan", "eve") not in student_pairs
    source = next(c for c in found.clusters() if c.source and c.exercise == exercise)
    assert source.members == ("dan", "eve")
    assert set(found.skipped) == {"broken"}


@pytest.mark.e2e  # two processes, each loading the course
def test_the_same_directories_give_the_same_json_in_every_process(with_known, tmp_path):
    students, known = with_known
    outputs = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"pairs-{hash_seed}.json"
        done = subprocess.run([sys.executable, "-m", "attnlab.instructor.similarity", str(students),
                               "--known", str(known), "--json", str(out), "--lang", "en", "--top", "2"],
                              capture_output=True, text=True,
                              timeout=300, env={**os.environ, "PYTHONHASHSEED": hash_seed}, cwd=paths.ROOT)
        assert done.returncode == 0, done.stderr[-2000:]
        outputs.append(out.read_text(encoding="utf-8"))
    assert outputs[0] == outputs[1]
    every = json.loads(outputs[0])
    pair = next(p for p in every["pairs"] if (p["a"], p["b"]) == ("fay", "gus"))
    assert pair["exercise"] and pair["score"] >= every["threshold"] and pair["a_lines"] and pair["b_lines"]
    assert all(len(span) == 3 and span[1] <= span[2] for span in pair["a_lines"] + pair["b_lines"])
    assert {p["a"] for p in every["known"]} == {"dan", "eve"}
    assert "broken: not compared" in done.stdout and "fay" in done.stdout
