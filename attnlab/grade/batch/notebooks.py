"""Notebook submissions: a `.ipynb` wherever grade.py takes a package (alone, in a zip, in an LMS export).

An upload holding no package but one notebook is graded from that notebook: attnlab.core.notebook_source
turns its code cells into a package beside the upload (never run here), and writes what the result shows
(the cells, where each run_* is, what was dropped) to `<workdir>/notebook.json`, read back by the judge
(`summary`). A notebook that cannot be read is the submission's own message; the class goes on.
"""

import json
import shutil
from pathlib import Path

from attnlab.core.i18n import t
from attnlab.core.notebook_source import MAX_NOTEBOOK_BYTES, SUMMARY, NotebookError, as_package
from attnlab.grade.batch.unpack import BadSubmission, is_archive

SUFFIX = ".ipynb"


def is_notebook(name: str) -> bool:
    return name.lower().endswith(SUFFIX)


def is_upload_file(name: str) -> bool:
    """A file that holds a whole submission by itself: a zip or tar archive, or a notebook."""
    return is_archive(name) or is_notebook(name)


def copy_notebook(source: Path, upload: Path) -> None:
    """A notebook given alone: copied into the upload folder as it is, unless it is too large to read."""
    size = source.stat().st_size
    if size > MAX_NOTEBOOK_BYTES:
        raise BadSubmission("notebook.too_big", file=source.name, mb=size >> 20, limit=MAX_NOTEBOOK_BYTES >> 20)
    shutil.copyfile(source, upload / source.name, follow_symlinks=False)


def package_of(notebook: Path, workdir: Path, data_files: frozenset[str],
               libraries: tuple[str, ...] | None = None) -> Path:
    """The package made from `notebook` under `workdir` (`libraries`: what the course offers, for
    notebook_source.read_code); raises BadSubmission naming the notebook's problem."""
    try:
        code = as_package(notebook, workdir / "notebook", data_files, libraries)
    except NotebookError as problem:
        raise BadSubmission(problem.message.key, **problem.message.values) from None
    except OSError as exc:
        raise BadSubmission("notebook.not_json", file=notebook.name, problem=str(exc)) from None
    (workdir / SUMMARY).write_text(json.dumps(code.summary(), ensure_ascii=False), encoding="utf-8")
    return workdir / "notebook"


def summary(workdir: Path, lang: str) -> dict | None:
    """What `package_of` recorded for the submission graded in `workdir`, its notes in `lang` (None: the
    submission was a package)."""
    path = workdir / SUMMARY
    if not path.is_file():
        return None
    found = json.loads(path.read_text(encoding="utf-8"))
    found["notes"] = [t(note["key"], lang, **note["values"]) for note in found["notes"]]
    return found
