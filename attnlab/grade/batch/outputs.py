"""Writing results: DIR/<name>.json, DIR/summary.csv and Gradescope results.json, each atomically."""

import csv
import io
import json
import os
import tempfile
from collections import Counter
from pathlib import Path

from attnlab.core import columns
from attnlab.core.results import ExerciseResult, SubmissionResult, points_cell, score_text
from attnlab.core.status import Status

FEEDBACK_CAP = 4000
RUN_FILE = "grading-run.json"  # the secret seed of an output dir; hidden from runners with the dir
GRADESCOPE_FILE = "results.json"  # Gradescope's results, at the top of the output dir for a single submission
SHARD_FILE = "grading-shard.json"  # a --shard run's slice: I, N and its submissions' names (merge checks them)
# names no submission's result may take: DIR/<name>.json would overwrite grade.py's own file (intake.unique)
RESERVED_NAMES = frozenset(Path(f).stem for f in (RUN_FILE, GRADESCOPE_FILE, SHARD_FILE))


def atomic_write(path: Path, text: str) -> None:
    """Write to a temp file in the same directory, fsync, then rename: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def result_path(out_dir: Path, name: str) -> Path:
    return out_dir / f"{name}.json"


def write_result(out_dir: Path, result: SubmissionResult) -> Path:
    path = result_path(out_dir, result.submission)
    atomic_write(path, json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n")
    return path


def overloaded(result: dict) -> bool:
    """Whether any exercise of a result ran out of time because the machine was overloaded: such a result
    is not final (grade.py regrades it on the next run into the same directory)."""
    return any(e.get("status") == Status.OVERLOADED for e in result.get("exercises", []))


def read_result(path: Path) -> dict | None:
    """A finished result, or None if the file is missing or not a complete result."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if is_result(data) else None


def is_result(data: object) -> bool:
    """Whether parsed JSON is a finished grade.py result."""
    return isinstance(data, dict) and {"submission", "score", "exercises"} <= data.keys()


def read_results(directory: Path) -> tuple[list[dict], list[tuple[str, str]]]:
    """Every result in a grade.py output directory, and (file, why) for each other JSON file there but grade.py's
    own (grading-run.json, ...): a result someone broke (an edit, a partial copy) is named, never silently left
    out of a report or of the grades sent to an LMS."""
    results, unreadable = [], []
    for path in sorted(directory.glob("*.json")):
        if path.stem in RESERVED_NAMES:
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            unreadable.append((path.name, f"not readable as JSON ({exc})"))
            continue
        if is_result(data):
            results.append(data)
        else:
            unreadable.append((path.name, "not a grade.py result (no submission, score and exercises)"))
    return results, unreadable


def checks_of(result: dict) -> str:
    """The checks digest a result was graded with (grade.batch.checks_digest), as said to a person."""
    return str(result.get("checks_digest") or "none recorded")


def graded_with(results: list[dict]) -> list[tuple[str, int]]:
    """(checks digest, how many results) for each digest the results were graded with, most first, where more
    than one (grade.batch.checks_digest): a rerun after a spec was mended, stopped before it finished, leaves a
    directory graded two ways; its report and grade files must say so. [] when all agree."""
    counts = Counter(checks_of(result) for result in results)
    return sorted(counts.items(), key=lambda item: (-item[1], item[0])) if len(counts) > 1 else []


# after the exercise columns: who handed the submission in and where it came from (the result's "origin");
# a group submission's people are joined with "; "; last, why it could not be graded (then score is empty)
ORIGIN_COLUMNS = ("student_name", "email", "sid", "lms_user_id", "participant_id", "submission_id", "late",
                  "layout", "source", "not_graded")
_PEOPLE = {"student_name": "name", "email": "email", "sid": "sid", "lms_user_id": "user_id",
           "participant_id": "participant_id"}


def origin_cells(result: dict) -> list[str]:
    origin = result.get("origin") or {}
    people = origin.get("submitters") or []
    cells = {}
    for column, key in _PEOPLE.items():
        values = [str(p.get(key) or "") for p in people]
        cells[column] = "; ".join(values) if any(values) else ""
    late = origin.get("late")
    cells.update(submission_id=origin.get("submission_id") or "", late="" if late is None else str(late).lower(),
                 layout=origin.get("layout") or "", source=origin.get("path") or "",
                 not_graded=result.get("not_graded") or "")
    return [cells[column] for column in ORIGIN_COLUMNS]


def graded(result: dict) -> bool:
    """Whether a result is a grade: an upload that could not be graded has a score of 0 that is no grade."""
    return not result.get("not_graded")


def summary_csv(results: list[dict], exercise_ids: list[str]) -> str:
    """A row per result; one not graded has empty score and exercise cells and says why in not_graded."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["submission", "score", "max_score", *exercise_ids, *ORIGIN_COLUMNS])
    for data in sorted(results, key=lambda d: d["submission"]):
        by_id = {e["id"]: e["score"] for e in data["exercises"]} if graded(data) else {}
        writer.writerow([data["submission"], points_cell(data["score"]) if graded(data) else "",
                         points_cell(data["max_score"]), *[points_cell(by_id.get(i, "")) for i in exercise_ids],
                         *origin_cells(data)])
    return buffer.getvalue()


def write_summary(out_dir: Path, exercise_ids: list[str]) -> Path:
    """DIR/summary.csv, in UTF-8 with a byte-order mark: Excel (and WPS) read a CSV without one in the
    machine's code page, and a class's 李华 or Adébáyọ̀ came out as mojibake (Python: encoding="utf-8-sig")."""
    results = [r for p in sorted(out_dir.glob("*.json")) if (r := read_result(p)) is not None]
    path = out_dir / "summary.csv"
    atomic_write(path, "\ufeff" + summary_csv(results, exercise_ids))
    return path


def _gradescope_test(ex: ExerciseResult) -> dict:
    return {"name": ex.id, "score": ex.score, "max_score": ex.max_score,
            "status": "passed" if ex.status == Status.PASSED else "failed",  # Gradescope's two words
            "output": f"[{ex.status}] {ex.feedback}"[:FEEDBACK_CAP], "visibility": "visible"}


def gradescope(result: SubmissionResult) -> dict:
    """Gradescope's autograder results schema: total score plus one test per exercise. Gradescope has no
    "not graded" score, so an upload that could not be graded says so first in its output, lists no tests
    (no exercise was run) and carries extra_data {"graded": false} for whoever reads the results back."""
    if result.not_graded:
        return {"score": 0.0, "execution_time": round(result.duration_s, 3),
                "output": f"NOT GRADED: {result.not_graded}"[:FEEDBACK_CAP], "visibility": "visible",
                "stdout_visibility": "hidden", "tests": [],
                "extra_data": {"graded": False, "not_graded": result.not_graded}}
    return {"score": result.score, "execution_time": round(result.duration_s, 3),
            "output": "\n".join([f"attnlab {result.harness_version}: {score_text(result.score, result.max_score)}",
                                 *(result.notebook or {}).get("notes", ())]),  # what a notebook's grading left out
            "visibility": "visible", "stdout_visibility": "hidden",
            "tests": [_gradescope_test(ex) for ex in result.exercises]}


def write_gradescope(path: Path, result: SubmissionResult) -> None:
    atomic_write(path, json.dumps(gradescope(result), indent=2, ensure_ascii=False) + "\n")


def print_table(results: list[dict]) -> None:
    """A row per submission, its name padded by display width (a name in Chinese takes two columns a character)."""
    name_width = max([columns.width(r["submission"]) for r in results] + [10])
    print(f"{columns.pad('submission', name_width)}  {'score':>13}  exercises passed")
    for r in sorted(results, key=lambda d: d["submission"]):
        name = columns.pad(r["submission"], name_width)
        if not graded(r):
            print(f"{name}  {'not graded':>13}  {r['not_graded']}")
            continue
        counted = [e for e in r["exercises"] if e["status"] != Status.NOT_APPLICABLE]  # Triton outside torch
        passed = sum(e["status"] == Status.PASSED for e in counted)
        score = score_text(r["score"], r["max_score"])
        print(f"{name}  {score:>13}  {passed}/{len(counted)}")
