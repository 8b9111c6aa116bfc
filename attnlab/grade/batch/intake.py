"""grade.py's command-line paths as Submissions with unique names, in the layouts LMSs export.

Each path is read as one of these layouts (`--layout` forces one; docs/intake.md shows each):

  gradescope  submission_metadata.yml at the path's root or one folder down (Gradescope's "Export
              Submissions", zipped or not): one submission per submission_<id>/ folder, with the names,
              emails and SIDs the metadata gives (lms_layouts.py).
  canvas      a folder or zip of files only, named as Canvas's "Download Submissions" names them: one
              submission per student, that student's files under their original names.
  moodle      entries named as Moodle's "Download all submissions" names them (<Full name>_<participant
              id>_assignsubmission_<plugin>_...): one submission per participant, all plugins (moodle.py).
  brightspace folders named `<submission id>-<user id> - <name> - <when>` (D2L Brightspace's download, with its
              index.html; at the top or in one folder): one submission per student, their latest folder
              (brightspace.py).
  blackboard  a folder or zip of files only, named as Blackboard Learn's "Assignment File Download" names
              them (<assignment>_<username>_attempt_<time>[_<file>]): one submission per student, the
              latest attempt's files under the names they were uploaded with (blackboard.py).
  folders     a directory whose children (folders or zips) hold packages: one submission per top-level
              entry, named after it (the student is the folder's name).
  single      anything else: the path is one submission, named after it.

Every top-level entry of an export is a submission, also one holding nothing readable (a folder with only
.DS_Store), so that it gets a result saying why it was not graded. A path about to be graded as one
student that is a class (a zip of folders each holding a zip, a folder holding an LMS download) is refused
with the command to use. A zip is never read as `folders` unless forced: a student's zip holding two
packages is one submission with an error naming both. A tar archive given as a path is read by a zip's rules,
and one holding a class is unpacked once and read as a directory (unpacked_class). Names are file-safe
(names.slug), the person's name as written is kept apart (Submitter.name); they are made unique the same way
every time: names two submissions share take their fallback (the folder a file sits in, or the LMS's user or
submission id), and any still shared get -2, -3, ... in the order of their paths. Paths that do not exist, or
are given twice, are usage errors raised before anything runs.
"""

import atexit
import itertools
import shlex
import shutil
import tempfile
import zipfile
from collections import Counter
from dataclasses import replace
from pathlib import Path

from attnlab.core import paths
from attnlab.core.names import display_name, slug, stem_of
from attnlab.grade.batch import blackboard, brightspace, lms_layouts, moodle, outputs, unpack
from attnlab.grade.batch.lms_layouts import Candidate
from attnlab.grade.batch.notebooks import is_upload_file
from attnlab.grade.batch.submissions import IntakeError, Layout, Origin, Submission, Submitter
from attnlab.grade.batch.unpack import MAX_LISTING, open_zip, skipped, walk_files
from attnlab.grade.sandbox import runs


def listing(path: Path) -> list[str] | None:
    """Relative POSIX paths of the files in a zip or under a directory, tool folders and hidden names left
    out; None for a file that is not a readable zip (it is graded as one submission, and says why)."""
    if path.is_dir():
        files = [rel for rel, _ in itertools.islice(walk_files(path), MAX_LISTING)]
        linked = [e for e in sorted(path.iterdir()) if e.is_symlink() and e.is_dir() and not skipped(e.name)]
        for entry in linked:  # a class folder's links to students' folders are the instructor's own: followed
            files = [f for f in files if f != entry.name]
            files += [f"{entry.name}/{rel}" for rel, _ in itertools.islice(walk_files(entry.resolve()), MAX_LISTING)]
        return files
    try:
        with open_zip(path) as zf:
            names = zf.namelist()[:MAX_LISTING]
    except (zipfile.BadZipFile, OSError):
        return None
    return [n for n in names if not n.endswith("/") and not skipped(n)]


def top_entries(path: Path) -> dict[str, bool]:
    """Every entry at the top of a directory or zip, tool folders and hidden names left out, whether or not
    it holds a file `listing` keeps (a student's folder holding only .DS_Store is an entry): name -> folder?"""
    if path.is_dir():
        return {e.name: e.is_dir() for e in sorted(path.iterdir()) if not skipped(e.name)}
    with open_zip(path) as zf:
        names = zf.namelist()[:MAX_LISTING]
    tops: dict[str, bool] = {}
    for name in names:
        top, sep, _ = name.partition("/")
        if top and not skipped(top):
            tops[top] = tops.get(top, False) or bool(sep)
    return dict(sorted(tops.items()))


def folders_in(path: Path, prefix: str) -> set[str]:
    """The folder names directly under `prefix` ("" or "<dir>/") of a directory or zip, also those holding only
    hidden or tool files, which `listing` leaves out (a student who opened the folder in Finder, nothing more)."""
    if path.is_dir():
        base = path / prefix
        return {e.name for e in base.iterdir() if e.is_dir() and not skipped(e.name)} if base.is_dir() else set()
    with open_zip(path) as zf:
        names = zf.namelist()[:MAX_LISTING]
    rests = (name[len(prefix):] for name in names if name.startswith(prefix))
    return {rest.split("/")[0] for rest in rests if "/" in rest and not skipped(rest.split("/")[0])}


def student_entries(files: list[str], markers: frozenset[str]) -> list[str]:
    """The children of a directory that each hold a submission when it is a class (a folder per student);
    [] when it is one submission. A child is a package itself, a zip, or a folder holding either; a package
    beside one other child (its student's zip, a backup folder) makes the directory one submission. Among
    three or more children of which some are folders holding a package, each is a student's: a class where most
    handed in a folder holding their package and one the package itself was graded as one submission, "not
    graded" for everyone. A directory with a pyproject.toml at its top is a project: one submission (a student's
    whole handout: its package, the pristine template beside it, the notebooks)."""
    if "pyproject.toml" in files:
        return []
    by_dir: dict[str, set[str]] = {}
    for rel in files:
        folder, _, name = rel.rpartition("/")
        by_dir.setdefault(folder, set()).add(name)
    packages = {d for d, names in by_dir.items() if "__init__.py" in names and names & markers}
    if "" in packages:
        return []
    holding = {d.split("/")[0] for d in packages} | {f.split("/")[0] for f in files if is_upload_file(f)}
    kinds = {child: "package" if child in packages else "zip" if child in by_dir.get("", ()) else "folder"
             for child in holding}
    present = set(kinds.values())
    if len(kinds) < 2 or ("package" in present and present != {"package"}
                          and (len(kinds) < 3 or "folder" not in present)):
        return []
    return sorted(kinds)


def detect(path: Path, files: list[str], markers: frozenset[str]) -> Layout:
    if lms_layouts.gradescope_root(files) is not None:
        return Layout.GRADESCOPE
    if blackboard.is_blackboard(files):  # before Canvas: both are flat, and Blackboard's names are the narrower
        return Layout.BLACKBOARD
    if lms_layouts.is_canvas(files):
        return Layout.CANVAS
    if moodle.is_moodle(files):
        return Layout.MOODLE
    if brightspace.root_of(files) is not None:
        return Layout.BRIGHTSPACE
    if path.is_dir() and student_entries(files, markers):
        return Layout.FOLDERS
    return Layout.SINGLE


def command(arg: Path | str, *options: str) -> str:
    return shlex.join(["python", "grade.py", str(arg), *options])


def refuse_a_class_as_one(arg: Path, source: Path, files: list[str], markers: frozenset[str]) -> None:
    """A path about to be graded as one student that is a class: a zip or tar of folders that each hold an
    archive (a class zipped by hand, an LMS download of a layout not read here), or a directory holding an LMS
    export beside no package. Refused with the command to use, never graded as one student."""
    entries = student_entries(files, markers)
    holding_zips = [e for e in entries if unpack.is_archive(e) or any(
        f.startswith(e + "/") and unpack.is_archive(f) for f in files)]
    if source.is_file() and len(holding_zips) >= 2:
        raise IntakeError("intake.looks_like_class", path=str(arg), count=len(holding_zips),
                          folders=command(arg, "--layout", "folders"), single=command(arg, "--layout", "single"))
    if not source.is_dir() or any(f.rpartition("/")[2] in markers for f in files):
        return  # a zip, or a student's folder (it holds exercise modules)
    for rel in (f for f in files if "/" not in f and f.lower().endswith(".zip")):
        inner = listing(source / rel)
        layout = detect(source / rel, inner, markers) if inner else Layout.SINGLE
        if layout in (Layout.GRADESCOPE, Layout.CANVAS, Layout.MOODLE, Layout.BLACKBOARD, Layout.BRIGHTSPACE):
            raise IntakeError("intake.export_inside", path=str(arg), export=rel, layout=str(layout),
                              command=command(arg / rel))


def single(arg: Path, source: Path) -> list[Candidate]:
    """The path is one submission, named after the path as given (a link is named after the link)."""
    given = arg.absolute()
    name = slug(stem_of(given.name)) or "submission"
    parent = slug(given.parent.name)
    fallback = (parent or name) if source.is_file() else f"{parent}-{name}" if parent else name
    return [Candidate(name, fallback, source, (), Origin(Layout.SINGLE, str(arg)))]


def folders(arg: Path, source: Path, tops: dict[str, bool]) -> list[Candidate]:
    """Every top-level entry is a student's: a folder (also one holding nothing but .DS_Store, or no package:
    it gets its message), a zip, or a loose file (its message says what it holds). The student is the
    entry's name, kept as written (display_name) beside the file-safe one."""
    found = []
    for top, is_folder in tops.items():
        name = slug(stem_of(top)) or "submission"
        who = (Submitter(name=display_name(stem_of(top))),)
        origin = Origin(Layout.FOLDERS, f"{arg}/{top}", who)
        if (source / top).is_symlink():  # a linked folder (see listing): graded where it really is
            found.append(Candidate(name, f"{slug(source.name)}-{name}", (source / top).resolve(), (), origin))
            continue
        member = (f"{top}/", "") if is_folder else (top, top)
        found.append(Candidate(name, f"{slug(source.name)}-{name}", source, (member,), origin))
    return found


def unpacked_class(arg: Path, source: Path, layout: Layout | None,
                   markers: frozenset[str]) -> tuple[Path, Layout] | None:
    """A tar archive given on the command line that holds a class (an LMS download, or `layout` given), unpacked
    once into a directory of its own named as the archive is (removed when this process exits, or by a later
    run's sweep where it was killed), and its layout; None where it is one student's upload, by a zip's rules (a
    tar of folders that each hold an archive is refused: refuse_a_class_as_one). A tar is read in order, so the
    students' files cannot be taken from it one at a time as a zip's are."""
    try:
        files = unpack.tar_listing(source)
    except unpack.BadSubmission as problem:
        if layout is None:
            return None  # graded as one upload, whose result says what is wrong with it
        raise IntakeError("intake.bad_class_archive", path=str(arg), problem=str(problem)) from None
    chosen = layout or detect(source, files, markers)
    if chosen is Layout.SINGLE:
        refuse_a_class_as_one(arg, source, files, markers)
        return None
    work = Path(tempfile.mkdtemp(prefix=f"{runs.SCRATCH_PREFIX}class-"))
    atexit.register(shutil.rmtree, work, True)
    runs.mark(work)
    target = work / source.name  # named as the archive: the students' messages name it, as they name a zip
    try:
        unpack.unpack_class_tar(source, target)
    except unpack.BadSubmission as problem:
        raise IntakeError("intake.bad_class_archive", path=str(arg), problem=str(problem)) from None
    return target, chosen


def expand(arg: Path, markers: frozenset[str], layout: Layout | None) -> list[Candidate]:
    """The submissions in one command-line path."""
    source = arg.resolve()
    if layout is not Layout.SINGLE and source.is_file() and unpack.is_tar(source.name):
        source, layout = unpacked_class(arg, source, layout, markers) or (source, Layout.SINGLE)
    files = None if layout is Layout.SINGLE else listing(source)
    if files is None:
        if layout not in (None, Layout.SINGLE):
            raise IntakeError("upload.not_dir_or_zip", path=str(arg))
        return single(arg, source)
    chosen = layout or detect(source, files, markers)
    if chosen is Layout.GRADESCOPE:
        if lms_layouts.gradescope_root(files) is None:
            raise IntakeError("intake.not_gradescope", path=str(arg))
        return lms_layouts.gradescope(arg, source, files, folders_in(source, lms_layouts.gradescope_root(files)))
    if chosen is Layout.CANVAS:
        return lms_layouts.canvas(arg, source, files, markers)
    if chosen is Layout.MOODLE:
        return moodle.candidates(arg, source, top_entries(source))
    if chosen is Layout.BLACKBOARD:
        return blackboard.candidates(arg, source, files)
    if chosen is Layout.BRIGHTSPACE:
        root = brightspace.root_of(files)
        if root is None:
            raise IntakeError("intake.not_brightspace", path=str(arg))
        return brightspace.candidates(arg, source, files, root, folders_in(source, root))
    if chosen is Layout.FOLDERS:
        return folders(arg, source, top_entries(source))
    if layout is None:
        refuse_a_class_as_one(arg, source, files, markers)
    return single(arg, source)


def unique(candidates: list[Candidate]) -> list[Submission]:
    """Submissions with distinct names, the same every time for the same paths (see the module docstring). A
    name of grade.py's own files in --out (outputs.RESERVED_NAMES: a folder called grading-run would overwrite
    the run's seed record, and the next run would stop) gets -2 as if another submission had it, in any case:
    a laptop's file system may not tell Results.json from results.json."""
    ordered = sorted(candidates, key=lambda c: (str(c.source), c.members))
    shared = Counter(c.name for c in ordered)
    ordered = [replace(c, name=c.fallback) if shared[c.name] > 1 and c.fallback else c for c in ordered]
    taken: set[str] = set()
    made = []
    for c in ordered:
        name, n = c.name, 1
        while name in taken or name.casefold() in outputs.RESERVED_NAMES:
            n += 1
            name = f"{c.name}-{n}"
        taken.add(name)
        made.append(Submission(name=name, source=c.source, members=c.members, origin=c.origin))
    return made


def check_paths(args: list[Path]) -> None:
    """Usage errors found before anything runs: paths that do not exist, the same path twice."""
    missing = [str(a) for a in args if not a.exists()]
    if missing:
        raise IntakeError("intake.missing", paths=", ".join(missing))
    seen: dict[Path, Path] = {}
    for arg in args:
        if arg.resolve() in seen:
            raise IntakeError("intake.given_twice", path=str(arg), first=str(seen[arg.resolve()]))
        seen[arg.resolve()] = arg


def check_out(out: Path, args: list[Path]) -> None:
    """Usage errors in --out: a file, or a directory inside a path given as submissions (`class/ --out
    class/results`), where the results of one run would be read as submissions by the next."""
    if out.exists() and not out.is_dir():
        raise IntakeError("intake.out_not_dir", path=str(out))
    inside = out.resolve()
    for arg in args:
        if arg.is_dir() and (arg.resolve() == inside or arg.resolve() in inside.parents):
            raise IntakeError("intake.out_inside", out=str(out), path=str(arg))


def discover(args: list[Path], *, markers: frozenset[str], layout: Layout | None = None,
             examples: Path = paths.EXAMPLES_DIR) -> list[Submission]:
    """The submissions grade.py grades for its command-line paths (none: the bundled example class `examples`,
    the framework's: paths.examples_dir)."""
    if not args:
        args = sorted(p for p in examples.iterdir() if not p.name.startswith("."))
        layout = Layout.SINGLE
    check_paths(args)
    return unique([c for arg in args for c in expand(arg, markers, layout)])
