"""The handout's notebooks: one per assignment and framework, in English and Chinese, made from the stubs.

    python -m attnlab.instructor.generate notebooks [--check]   # notebooks/<assignment>[-<framework>].<lang>.ipynb

Each notebook holds: what the assignment is and how it is handed in; a cell installing the handout (IPython
`%pip`/`!` lines only, so grading drops it whole); the imports of the assignment's modules and
`from attnlab.student.notebook import check, hint`; then per exercise, in the order the cells must run
(`in_source_order`), its explanation and hints from the spec (in the framework's words), its stub and
`check("<id>", run_<id>)`; per quiz a `%%writefile attention/<answers file>` cell (the answers, read as data
at grading). The same cells made from another package (`notebook_for(..., sources=...)`: the reference in
the tests, a student's package) are a notebook graded like that package. Never hand-edited:
`generate notebooks --check` is the drift check.
"""

import ast
import dataclasses
import json
from pathlib import Path

import nbformat

from attnlab.core import frameworks, paths
from attnlab.core.i18n import LANGS, t
from attnlab.core.quiz import answers_template
from attnlab.core.scoring import not_applicable_text
from attnlab.core.spec import FRAMEWORKS, Assignment, Course, ExerciseSpec, QuizSpec, SpecError, in_assignment
from attnlab.core.spec_load import load_course
from attnlab.instructor.packaging import HANDOUT_DEPS, PACKAGE, framework_requirements, requirements

NOTEBOOK_DIR = paths.ROOT / "notebooks"


def notebook_name(assignment: str, framework: str, own_framework: str, lang: str) -> str:
    """<assignment>.<lang>.ipynb in the assignment's own framework, <assignment>-<framework>.<lang>.ipynb else."""
    stem = assignment if framework == own_framework else f"{assignment}-{framework}"
    return f"{stem}.{lang}.ipynb"


def module_parts(source: str) -> tuple[list[str], list[str], dict[str, str]]:
    """A module's absolute imports, its other top-level code (helpers, constants) and its run_* functions by
    name, each as its source text; the docstring and the package-relative imports are left out (in a
    notebook every function is in one namespace)."""
    tree = ast.parse(source)
    imports, helpers, functions = [], [], {}
    for i, node in enumerate(tree.body):
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        text = "\n".join(source.split("\n")[start - 1: node.end_lineno])
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if not (isinstance(node, ast.ImportFrom) and node.level):
                imports.append(text)
        elif isinstance(node, ast.FunctionDef) and node.name.startswith("run_"):
            functions[node.name] = text
        else:
            helpers.append(text)
    return imports, helpers, functions


def sources_of(package: Path, course: Course) -> dict[str, str]:
    """module -> source of each of the assignment's modules in `package`, and answers file -> its text for
    each quiz whose answers the package holds."""
    found = {e.module: (package / f"{e.module}.py").read_text(encoding="utf-8") for e in course.coded}
    for quiz in (e for e in course.exercises if isinstance(e, QuizSpec)):
        if (package / quiz.answers_file).is_file():
            found[quiz.answers_file] = (package / quiz.answers_file).read_text(encoding="utf-8")
    return found


def _markdown(text: str):
    return nbformat.v4.new_markdown_cell(text)


def _code(text: str):
    return nbformat.v4.new_code_cell(text.rstrip("\n"))


def exercise_text(exercise: ExerciseSpec, number: int, lang: str) -> str:
    hints = exercise.hints.get(lang) or exercise.hints["en"]
    lines = [t("nbh.exercise", lang, number=number, title=exercise.title.get(lang), id=exercise.id,
               points=f"{exercise.points:g}"), "", exercise.description.get(lang).strip(), "",
             t("nbh.hints", lang), ""] + [f"- {hint}" for hint in hints]
    return "\n".join(lines)


def quiz_cells(quiz: QuizSpec, lang: str, answers: str | None = None) -> list:
    """The quiz's question and its answers cell (`answers`: the file's text; default: the template's)."""
    heading = t("nbh.quiz", lang, title=quiz.title.get(lang), points=f"{quiz.points:g}",
                file=f"{PACKAGE}/{quiz.answers_file}")
    return [_markdown(heading + "\n\n" + quiz.description.get(lang).strip()),
            _code(f"%%writefile {PACKAGE}/{quiz.answers_file}\n" + (answers or answers_template(quiz)))]


def merged_imports(imports: list[str]) -> list[str]:
    """The modules' import statements as one list: each module imported once, each `from` module's names
    together, in order of first appearance."""
    plain: dict[str, None] = {}
    names: dict[str, dict[str, None]] = {}
    for statement in imports:
        for node in ast.parse(statement).body:
            if isinstance(node, ast.Import):
                plain.update({a.name + (f" as {a.asname}" if a.asname else ""): None for a in node.names})
            elif isinstance(node, ast.ImportFrom):
                found = names.setdefault(node.module, {})
                found.update({a.name + (f" as {a.asname}" if a.asname else ""): None for a in node.names})
    return [f"import {name}" for name in plain] + [f"from {m} import {', '.join(n)}" for m, n in names.items()]


def _setup_cell(imports: list[str], lang: str) -> str:
    lines = [t("nbh.setup_comment", lang), "from attnlab.student.notebook import check, hint"]
    return "\n".join(lines + merged_imports(imports))


def handout_requirements(course: Course) -> list[str]:
    """What the handout's pyproject.toml requires (release.build_handout), so the install cell matches it."""
    return requirements(HANDOUT_DEPS + course.libraries) + framework_requirements(frameworks.adapter(course.framework))


def in_source_order(course: Course, parts: dict) -> list:
    """The exercises as the cells must run: modules in the course's order, each module's functions in the
    order its file defines them (a function calls only what its file or an earlier one defined: self-attention
    uses scaled dot-product attention, defined above it), the quizzes last."""
    modules = list(dict.fromkeys(e.module for e in course.coded))
    position = {fn: i for m in modules for i, fn in enumerate(parts[m][2])}
    coded = sorted(course.coded, key=lambda e: (modules.index(e.module), position.get(e.function, -1)))
    return coded + [e for e in course.exercises if isinstance(e, QuizSpec)]


def notebook_for(course: Course, lang: str, sources: dict[str, str]) -> nbformat.NotebookNode:
    """The assignment's notebook in `lang`, its functions taken from `sources` (module -> source)."""
    parts = {e.module: module_parts(sources[e.module]) for e in course.coded}
    cells = [_markdown(t("nbh.intro", lang, title=course.assignment.title.get(lang), framework=course.framework,
                         package=PACKAGE, points=f"{course.total_points:g}")),
             _code(t("nbh.install", lang, requirements=" ".join(f'"{r}"' for r in handout_requirements(course)))),
             _code(_setup_cell([line for m in parts.values() for line in m[0]], lang))]
    if course.not_applicable:  # Triton outside torch: not in this notebook, and why
        cells.insert(1, _markdown("\n\n".join(not_applicable_text(e, course, lang) for e in course.not_applicable)))
    helpers_shown: set[str] = set()
    for number, exercise in enumerate(in_source_order(course, parts), 1):
        if isinstance(exercise, QuizSpec):
            cells += quiz_cells(exercise, lang, sources.get(exercise.answers_file))
            continue
        imports, helpers, functions = parts[exercise.module]
        cells.append(_markdown(exercise_text(exercise, number, lang)))
        if helpers and exercise.module not in helpers_shown:
            helpers_shown.add(exercise.module)
            cells.append(_code("\n\n\n".join(helpers)))
        cells.append(_code(functions[exercise.function]))
        cells.append(_code(f'check("{exercise.id}", {exercise.function}, lang="{lang}")'))
    cells.append(_markdown(t("nbh.hand_in", lang, package=PACKAGE)))
    notebook = nbformat.v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"}})
    for i, cell in enumerate(notebook.cells, 1):  # stable ids: the same notebook every time
        cell["id"] = f"cell-{i}"
    return notebook


def text_of(notebook: nbformat.NotebookNode) -> str:
    nbformat.validate(notebook)
    return json.dumps(notebook, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def in_framework(full: Course, assignment: Assignment, framework: str) -> Course:
    """What load_course(spec, assignment, framework) gives, made from the course loaded once (loading the
    specs is what takes the time); SpecError where an exercise cannot be written in `framework`."""
    everything = tuple(e.in_framework(framework) if isinstance(e, ExerciseSpec) else e for e in full.everything)
    chosen = dataclasses.replace(assignment, framework=framework)
    own = full.assignment.libraries if full.assignment else ()
    placed = in_assignment(chosen, {e.id: e for e in full.everything},
                           tuple(n for n in full.libraries if n not in own))
    return dataclasses.replace(full, title=chosen.title, assignment=chosen, everything=everything, **placed)


def wanted_notebooks(only: tuple[str, str] | None = None) -> tuple[dict[str, str], dict[str, str]]:
    """notebooks/<name> -> text, for every assignment in every framework all its exercises can be written in
    (`only`: for this (assignment, framework) alone); and notebooks/<name> -> why not, for the others."""
    full = load_course(paths.SPEC_DIR)
    files, refused = {}, {}
    for assignment in full.assignments:
        for framework in FRAMEWORKS:
            if only is not None and only != (assignment.id, framework):
                continue
            names = [notebook_name(assignment.id, framework, assignment.framework, lang) for lang in LANGS]
            try:
                course = in_framework(full, assignment, framework)
            except SpecError as exc:  # an exercise not written in this framework: no notebook
                refused.update(dict.fromkeys(names, str(exc)))
                continue
            sources = sources_of(paths.template_dir(frameworks.adapter(framework)), course)
            for name, lang in zip(names, LANGS):
                files[name] = text_of(notebook_for(course, lang, sources))
    return files, refused


def sync_notebooks(*, check: bool, only: tuple[str, str] | None = None) -> list[str]:
    """Write (or with `check`, compare) notebooks/; `only` one (assignment, framework), whose files alone
    are then considered."""
    wanted, refused = wanted_notebooks(only)
    present = {p.name for p in NOTEBOOK_DIR.glob("*.ipynb")} if NOTEBOOK_DIR.is_dir() else set()
    drift = sorted(n for n in wanted if n not in present or (NOTEBOOK_DIR / n).read_text(encoding="utf-8") != wanted[n])
    if only is not None:
        present &= set(wanted)
    # a notebook left over from an assignment no longer offered in its framework says why, so that adding an
    # exercise written in fewer frameworks does not silently take an assignment's notebooks away
    action = "not generated: remove it" if check else "removed: no longer generated"
    drift += sorted(f"{n} ({action}; {refused[n]})" if n in refused else f"{n} ({action})"
                    for n in present - set(wanted))
    if not check:
        NOTEBOOK_DIR.mkdir(exist_ok=True)
        for name in present - set(wanted):
            (NOTEBOOK_DIR / name).unlink()
        for name, text in wanted.items():
            (NOTEBOOK_DIR / name).write_text(text, encoding="utf-8")
    return [f"notebooks/{d}" for d in drift]
