"""The registered commands that make generated files, and their drift checks.

    python -m attnlab.instructor.generate template [--check]  # student_template/ from reference/
    python -m attnlab.instructor.generate fixtures [--check]  # fixtures/ from reference/ + spec/
    python -m attnlab.instructor.generate viz [--check]       # fixtures/_viz/: the reference's pictures
    python -m attnlab.instructor.generate laws [--check]      # fixtures/_laws.json: hypothesis's law inputs
    python -m attnlab.instructor.generate schema [--check]    # spec/schema/*.json: JSON Schemas of the specs
    python -m attnlab.instructor.generate notebooks [--check] # notebooks/*.ipynb: the handout's notebooks
    python -m attnlab.instructor.generate all [--check]

With --check nothing is written; the command lists what differs from a fresh generation and exits 1.
"""

import argparse
import re
import sys
from pathlib import Path

import numpy as np
import torch

from attnlab.core import fixtures, frameworks, inputs, laws, paths
from attnlab.core.checks import gradients_of
from attnlab.core.compare import tolerance_for
from attnlab.core.diagnose import misconception_function, run_misconception
from attnlab.core.frameworks.names import NAMES as FRAMEWORKS
from attnlab.core.impl import find_function
from attnlab.core.outputs import parts
from attnlab.core.quiz import answers_template
from attnlab.core.spec import Course, ExerciseSpec, QuizSpec, SpecError, Tolerance
from attnlab.core.spec_load import load_course

BEGIN, END = "# BEGIN SOLUTION", "# END SOLUTION"
DEF = re.compile(r"^(\s*)def (run_\w+)\(")
TEMPLATE_EXCLUDE = ("misconceptions", "__pycache__")
# what a student reads at the top of each stub: only what they have (no reference/, no generator)
STUB_HEADER = ("# Your implementation: keep every function's name, arguments and annotations; replace each\n"
               "# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.\n")
PACKAGE_DOC = ('"""Your attention exercises{language}: one run_* function per exercise id, in the module the exercise '
               'names\n(run_softmax in softmax.py, run_causal_attention in attention.py, ...), called by keyword by '
               'the checks.\n`attnlab status` lists them, `attnlab hint <exercise>` says what each must do.\n"""\n')
FRAMEWORK_NAMES = {"numpy": "NumPy", "jax": "JAX", "mindspore": "MindSpore"}


def strip_solutions(source: str, filename: str) -> str:
    """Replace each marked solution block by a NotImplementedError naming its exercise."""
    out, function, inside = [], None, None
    for lineno, line in enumerate(source.splitlines(keepends=True), 1):
        match = DEF.match(line)
        if match and inside is None:
            function = match.group(2)
        stripped = line.strip()
        if stripped == BEGIN:
            if inside is not None:
                raise ValueError(f"{filename}:{lineno}: nested {BEGIN}")
            inside = line[: len(line) - len(line.lstrip())]
            if inside and function:
                exercise = function.removeprefix("run_")
                out.append(f'{inside}raise NotImplementedError("exercise {exercise}: implement {function}")\n')
        elif stripped == END:
            if inside is None:
                raise ValueError(f"{filename}:{lineno}: {END} without {BEGIN}")
            inside = None
        elif inside is None:
            out.append(line)
    if inside is not None:
        raise ValueError(f"{filename}: unterminated {BEGIN}")
    return "".join(out)


def template_files(course: Course) -> dict[str, str]:
    """Relative path -> text of every file of student_template/."""
    files = {}
    for path in sorted(paths.REFERENCE_DIR.rglob("*.py")):
        rel = path.relative_to(paths.REFERENCE_DIR)
        if any(part in TEMPLATE_EXCLUDE for part in rel.parts):
            continue
        if rel.name == "__init__.py":  # the reference's docstring speaks of reference/ and the generator
            framework = FRAMEWORK_NAMES.get(rel.parts[0]) if len(rel.parts) > 1 else None
            files[str(rel)] = PACKAGE_DOC.format(language=f" in {framework}" if framework else "")
            continue
        files[str(rel)] = STUB_HEADER + strip_solutions(path.read_text(encoding="utf-8"), f"reference/{rel}")
    for ex in course.everything:
        if isinstance(ex, QuizSpec):
            files[ex.answers_file] = answers_template(ex)
    return files


def fixture_arrays(course: Course, reference) -> dict[str, tuple[dict[str, np.ndarray], Tolerance]]:
    """Relative path -> (arrays of the fixture file, the tolerance its misconception outputs are held to).
    Expected outputs are computed by the reference in float64; misconception outputs in the case's own
    dtype, so their last bits depend on the CPU's kernels (AVX2 vs AVX-512): the spec's tolerance for that
    dtype, the one diagnosis matches them with, is the difference that matters."""
    files = {}
    for ex in course.all_coded:
        fn = find_function(reference, ex.module, ex.function)
        for case in ex.cases:
            args = inputs.build_args(case)
            expected = fn(**inputs.to_float64(args)) if "value" in case.checks else None
            wrong = {m.id: out for m in ex.misconceptions if "value" in case.checks and case.diagnosed
                     and (out := run_misconception(ex, m, args)) is not None}
            dtypes = [part.dtype for out in wrong.values() for part in parts(out) if part.is_floating_point()]
            rel = fixtures.fixture_path(Path("."), ex, case)
            names = tuple(r.name for r in ex.returns)
            files[str(rel)] = (fixtures.arrays(args, expected, wrong, _gradients(ex, case.name, fn, args), names),
                               tolerance_for(ex.tolerance, dtypes[0] if dtypes else torch.float32))
    return files


def _gradients(exercise: ExerciseSpec, case_name: str, fn, args: dict):
    """The gradient law's cotangent and reference gradients when a visible gradient law uses this case (so a
    handout, which has no reference, can check it); None otherwise."""
    for prop in exercise.properties:
        if prop.check == "gradient" and prop.visible and prop.params.get("base_case") == case_name:
            return gradients_of(fn, exercise, inputs.to_float64(args), tuple(prop.params["wrt"]))
    return None


def _same_arrays(a: dict[str, np.ndarray], b: dict[str, np.ndarray], outputs_tol: Tolerance) -> bool:
    if a.keys() != b.keys():
        return False
    for key in a:
        if a[key].dtype != b[key].dtype or a[key].shape != b[key].shape:
            return False
        # inputs must match exactly; float64 outputs may differ in the last bits between BLAS builds
        atol = rtol = 0.0 if key.startswith(("arg.", "gradient.cotangent")) else 1e-12
        if key.startswith("misconception."):
            atol, rtol = outputs_tol.atol, outputs_tol.rtol
        if not np.allclose(a[key], b[key], rtol=rtol, atol=atol, equal_nan=True):
            return False
    return True


def sync_template(course: Course, *, check: bool) -> list[str]:
    wanted = template_files(course)
    present = {str(p.relative_to(paths.TEMPLATE_DIR)) for p in paths.TEMPLATE_DIR.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    drift = sorted(rel for rel in wanted if rel not in present
                   or (paths.TEMPLATE_DIR / rel).read_text(encoding="utf-8") != wanted[rel])
    drift += sorted(f"{rel} (not generated: remove it)" for rel in present - set(wanted))
    if not check:
        for rel in present - set(wanted):
            (paths.TEMPLATE_DIR / rel).unlink()
        for rel, text in wanted.items():
            (paths.TEMPLATE_DIR / rel).parent.mkdir(parents=True, exist_ok=True)
            (paths.TEMPLATE_DIR / rel).write_text(text, encoding="utf-8")
    return [f"student_template/{d}" for d in drift]


def sync_fixtures(course: Course, reference, *, check: bool) -> list[str]:
    wanted = fixture_arrays(course, reference)
    present = {str(p.relative_to(paths.FIXTURES_DIR)) for p in paths.FIXTURES_DIR.rglob("*.npz")
               if p.parent.name != "_viz"}  # fixtures/_viz/ belongs to the viz target
    drift = sorted(rel for rel in wanted if rel not in present
                   or not _same_arrays(fixtures.read(paths.FIXTURES_DIR / rel), *wanted[rel]))
    drift += sorted(f"{rel} (not generated: remove it)" for rel in present - set(wanted))
    if not check:
        for rel in present - set(wanted):
            (paths.FIXTURES_DIR / rel).unlink()
        for rel in drift:
            if rel in wanted:
                fixtures.save(paths.FIXTURES_DIR / rel, wanted[rel][0])
    return [f"fixtures/{d}" for d in drift]


def law_draws(course: Course) -> dict:
    """fixtures/_laws.json: for each hypothesis-driven law the specs use, its examples as drawn now."""
    used = [p for ex in course.all_coded for p in ex.properties if p.check in laws.DRAWS]
    entries = []
    for name in sorted({p.check for p in used}):
        counts = {p.params.get("examples", laws.parameters(p.law)["examples"].default) for p in used
                  if p.check == name}
        if len(counts) > 1:
            raise ValueError(f"law {name} is used with different example counts {sorted(counts)}: use one")
        examples = counts.pop()
        entries.append({"law": name, "examples": examples, "source": laws.strategies_digest(name),
                        "draws": laws.draw_examples(name, examples)})
    return {"note": "generated by `python -m attnlab.instructor.generate laws`; hypothesis's draws, replayed "
                    "by every check of these laws", "laws": entries}


def _law_keys(data: dict) -> list[tuple]:
    return [(e.get("law"), e.get("examples"), e.get("source"), bool(e.get("draws"))) for e in data.get("laws", [])]


def sync_laws(course: Course, *, check: bool) -> list[str]:
    """Stale when a law, its example count or its strategies' source changed. The draws themselves are
    not compared: another hypothesis version may draw others, and any complete draw is valid."""
    import json

    from attnlab.core.laws import LAWS_FILE

    wanted = law_draws(course)
    try:
        present = json.loads(LAWS_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        present = {}
    if _law_keys(present) == _law_keys(wanted):
        return []
    if not check:
        LAWS_FILE.write_text(json.dumps(wanted, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return [f"fixtures/{LAWS_FILE.name}"]


def missing_references(course: Course) -> list[str]:
    """What the specs promise and reference/ lacks: an exercise is written in every framework its spec's
    `frameworks:` lists (all of them when it lists none), so each needs its reference there. Everything generated
    is made from those files; without this, the first generator to read one stopped with a traceback."""
    problems = []
    for exercise in course.all_coded:
        lacking = {}
        for name in exercise.frameworks:
            module = paths.reference_dir(frameworks.adapter(name)) / f"{exercise.module}.py"
            shown = module.relative_to(paths.REFERENCE_DIR.parent).as_posix()
            if not module.is_file():
                lacking[name] = f"{shown} does not exist"
            elif not re.search(rf"^def {exercise.function}\(", module.read_text(encoding="utf-8"), re.MULTILINE):
                lacking[name] = f"{shown} does not define {exercise.function}"
        if lacking:
            listed = ("every framework, as it lists no `frameworks:`" if exercise.frameworks == FRAMEWORKS
                      else "its `frameworks:`")
            has = [name for name in exercise.frameworks if name not in lacking]
            problems.append(f"spec/{exercise.id}.yaml: {exercise.id} is written in {', '.join(exercise.frameworks)} "
                            f"({listed}), but {'; '.join(lacking.values())}: write {exercise.function} there, or "
                            f"list only the frameworks it has a reference in (`frameworks: [{', '.join(has)}]`)"
                            if has else f"spec/{exercise.id}.yaml: {'; '.join(lacking.values())}: write "
                            f"{exercise.function} there")
        problems += _missing_misconceptions(exercise)
    return problems


def _missing_misconceptions(exercise: ExerciseSpec) -> list[str]:
    """The spec's misconception ids without their function in reference/misconceptions/<id>.py (the fixtures
    hold each one's output, so the generator needs every one)."""
    where = f"reference/misconceptions/{exercise.id}.py"
    problems = []
    for misconception in exercise.misconceptions:
        try:
            misconception_function(exercise, misconception)
        except LookupError:
            problems.append(f"spec/{exercise.id}.yaml: misconception {misconception.id!r} has no function in {where}")
        except ImportError as exc:
            if exc.name != f"reference.misconceptions.{exercise.id}":
                return [f"{where} does not import: {type(exc).__name__}: {exc}"]
            ids = ", ".join(m.id for m in exercise.misconceptions)
            return [f"spec/{exercise.id}.yaml lists misconceptions ({ids}), but {where} does not exist: write one "
                    f"function per id, taking {exercise.function}'s arguments"]
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attnlab.instructor.generate", description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["template", "fixtures", "viz", "laws", "schema", "notebooks", "all"])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if anything is out of date")
    opts = parser.parse_args(argv)
    try:
        course = load_course(paths.SPEC_DIR)
    except SpecError as exc:  # a broken spec: its file and key, as grade.py and attnlab say it
        print(f"python -m attnlab.instructor.generate: {exc}", file=sys.stderr)
        return 2
    if problems := missing_references(course):
        print("\n".join(problems), file=sys.stderr)
        return 2
    drift = []
    if opts.what in ("template", "all"):
        drift += sync_template(course, check=opts.check)
    if opts.what in ("laws", "all"):
        drift += sync_laws(course, check=opts.check)
    if opts.what in ("schema", "all"):
        from attnlab.instructor.schema import sync_schema

        drift += sync_schema(check=opts.check)
    if opts.what in ("notebooks", "all"):  # after the template: notebooks are made from the stubs
        from attnlab.instructor.notebooks import sync_notebooks

        drift += sync_notebooks(check=opts.check)
    if opts.what in ("fixtures", "viz", "all"):
        import reference

        if opts.what != "viz":
            drift += sync_fixtures(course, reference, check=opts.check)
        if opts.what != "fixtures":
            from attnlab.student.viz import sync_viz

            drift += sync_viz(course, reference, check=opts.check)
    verb = "out of date (run `python -m attnlab.instructor.generate " + opts.what + "`)" if opts.check else "written"
    for rel in drift:
        print(f"{verb}: {rel}")
    if not drift:
        print("up to date")
    return 1 if drift and opts.check else 0


if __name__ == "__main__":
    sys.exit(main())
