"""How long grade.py's intake takes for a large class, before any grading: reading a path's layout and
naming every submission (discover), and copying one student's part out of the class export (prepare).

    python benchmarks/intake_scale.py [--students N]

Builds, in a temporary directory, a Canvas download (one submitted zip per student), a Gradescope export
(each submission's package stored unpacked) and a folder per student, all from student_template/.
Prints times; judges nothing.
"""

import argparse
import io
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attnlab.core import paths  # noqa: E402
from attnlab.grade.batch.intake import discover  # noqa: E402
from attnlab.grade.batch.submissions import prepare  # noqa: E402

MARKERS = frozenset({"softmax.py", "attention.py", "multihead.py", "rope.py", "quiz.yaml"})


def template_files() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in paths.TEMPLATE_DIR.iterdir() if p.is_file()}


def zipped(files: dict[str, bytes], prefix: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(f"{prefix}{name}", data)
    return buffer.getvalue()


def build(root: Path, students: int) -> dict[str, Path]:
    files = template_files()
    one_zip = zipped(files, "attention/")
    canvas = root / "submissions.zip"
    with zipfile.ZipFile(canvas, "w") as zf:
        for i in range(students):
            zf.writestr(f"student{i}_{1000 + i}_{9000 + i}_attention-submission.zip", one_zip)
    gradescope = root / "export.zip"
    metadata = "".join(f"submission_{i}:\n  :submitters:\n  - :name: S {i}\n    :email: s{i}@example.edu\n"
                       for i in range(students))
    with zipfile.ZipFile(gradescope, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("assignment_1_export/submission_metadata.yml", metadata)
        for i in range(students):
            for name, data in files.items():
                zf.writestr(f"assignment_1_export/submission_{i}/attention/{name}", data)
    folders = root / "class"
    for i in range(students):
        (folders / f"student{i}").mkdir(parents=True)
        (folders / f"student{i}" / "attention-submission.zip").write_bytes(one_zip)
    return {"canvas": canvas, "gradescope": gradescope, "folders": folders}


def timed(fn, repeat: int = 3) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=500)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        made = build(root, opts.students)
        work = iter(range(10**9))
        for layout, path in made.items():
            seconds, subs = timed(lambda path=path: discover([path], markers=MARKERS))

            def one(subs=subs):
                return prepare(subs[len(subs) // 2], root / f"work-{next(work)}", MARKERS)

            per_student, _ = timed(one, repeat=5)
            print(f"{layout:10s} {len(subs)} students: discover {seconds * 1000:7.1f} ms, "
                  f"prepare one student {per_student * 1000:6.2f} ms")


if __name__ == "__main__":
    main()
