"""python grade.py merge DIR [DIR ...] --out DIR: combine the output dirs of `grade.py --shard I/N` runs.

Every DIR/<name>.json result is copied into --out (with its gradescope/<name>.json, if any), then
summary.csv is written and the table printed, exactly as one unsharded run would have. A submission in
several DIRs must have the same result in each (started_at and duration_s aside): a conflict is refused
with a message naming both files, as are shards graded with different secret seeds or of different
assignments or frameworks. Nobody is lost on the
way: each shard's DIR says which slice it is and which submissions it holds (outputs.SHARD_FILE), and a
shard not given, or a submission of a given one without a finished result (a Slurm task killed mid-way),
is refused, naming them, unless --partial merges what there is.
"""

import argparse
import json
import shutil
import sys
from pathlib import Path

from attnlab.core import paths
from attnlab.core.spec import SpecError
from attnlab.core.spec_load import load_course
from attnlab.grade.batch import outputs

TIMING = ("started_at", "duration_s")  # the only fields allowed to differ between two gradings


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="grade.py merge", description="Combine shard outputs of grade.py.")
    parser.add_argument("dirs", nargs="+", type=Path, help="output dirs of grade.py --shard I/N runs")
    parser.add_argument("--out", type=Path, required=True, help="merged results directory")
    parser.add_argument("--partial", action="store_true",
                        help="merge even with shards or results missing (they are listed)")
    return parser.parse_args(argv)


def _without_timing(result: dict) -> dict:
    return {k: v for k, v in result.items() if k not in TIMING}


def collect(dirs: list[Path]) -> dict[str, tuple[Path, dict]]:
    """submission name -> (the file it came from, its result); raises ValueError on a conflict."""
    found: dict[str, tuple[Path, dict]] = {}
    for directory in dirs:
        if not directory.is_dir():
            raise ValueError(f"{directory} is not a directory")
        for path in sorted(directory.glob("*.json")):
            result = outputs.read_result(path)
            if result is None:
                continue  # grading-run.json, or a file that is not a finished result
            name = result["submission"]
            if path.name != f"{name}.json":
                raise ValueError(f"{path} holds the result of {name!r}: results are named after their submission")
            if name in found and _without_timing(found[name][1]) != _without_timing(result):
                first = found[name]
                raise ValueError(f"conflicting results for {name!r}: {first[0]} (score {first[1]['score']}) and "
                                 f"{path} (score {result['score']}); regrade it once, or remove one of them")
            found.setdefault(name, (path, result))
    return found


def run_records(dirs: list[Path]) -> dict[Path, dict]:
    """Each directory's run record (outputs.RUN_FILE), where it has one; raises ValueError naming a broken one."""
    records = {}
    for directory in dirs:
        path = directory / outputs.RUN_FILE
        if path.is_file():
            try:
                record = json.loads(path.read_text(encoding="utf-8"))
            except ValueError as exc:
                raise ValueError(f"{path} is not a run record grade.py wrote ({exc})") from None
            if not isinstance(record, dict) or "seed" not in record:
                raise ValueError(f"{path} is not a run record grade.py wrote (no seed)")
            records[path] = record
    return records


def common_record(records: dict[Path, dict]) -> dict | None:
    """The run record (seed, course secret's fingerprint, and the assignment and framework where recorded) all
    shards share (None if none recorded one); raises ValueError if their seeds differ (what they graded is
    checked with the results: `graded`)."""
    if len({r["seed"] for r in records.values()}) > 1:
        listed = ", ".join(f"{path}: {r['seed']}" for path, r in records.items())
        raise ValueError(f"the shards were graded with different seeds ({listed}); grade every shard with the "
                         "same course secret or --seed")
    return next(({"seed": r["seed"], "secret": r.get("secret"),
                  **{k: r[k] for k in ("assignment", "framework") if k in r}} for r in records.values()), None)


def graded(records: dict[Path, dict], found: dict[str, tuple[Path, dict]]) -> str | None:
    """The one assignment that the shards' run records and results name (None if none does); raises ValueError,
    naming where each comes from, if they name more than one assignment or framework. A result without an
    assignment is the attention assignment's (an older grade.py); a record or result without a framework
    (older still) says nothing of it, and a record without an assignment nothing at all."""
    sources: dict[tuple[str, str | None], list[str]] = {}
    named = [(path, r) for path, r in records.items() if "assignment" in r] + list(found.values())
    for path, r in named:
        sources.setdefault((r.get("assignment", "attention"), r.get("framework")), []).append(str(path))
    assignments = {a for a, _ in sources}
    if len(assignments) > 1 or len({f for _, f in sources if f is not None}) > 1:
        listed = "; ".join(f"{a} in {f or 'an unrecorded framework'}: {', '.join(where[:3])}"
                           + (f" and {len(where) - 3} more" if len(where) > 3 else "")
                           for (a, f), where in sorted(sources.items(), key=str))
        raise ValueError(f"the shards graded different assignments or frameworks ({listed}): merge one at a time")
    return assignments.pop() if assignments else None


def refuse_mixed_checks(found: dict[str, tuple[Path, dict]]) -> None:
    """ValueError, naming where each comes from, when the results were graded with different checks (specs,
    reference, grader or limits: grade.batch.checks_digest): merged, one class would be graded two ways."""
    sources: dict[str, list[str]] = {}
    for path, result in found.values():
        sources.setdefault(outputs.checks_of(result), []).append(str(path))
    if len(sources) > 1:
        listed = "; ".join(f"{digest}: {', '.join(where[:3])}"
                           + (f" and {len(where) - 3} more" if len(where) > 3 else "")
                           for digest, where in sorted(sources.items(), key=str))
        raise ValueError(f"the shards were graded with different specs, reference, grader or limits (checks "
                         f"{listed}): regrade the odd ones from the same checkout with the same limits")


def missing(dirs: list[Path], found: dict[str, tuple[Path, dict]]) -> list[str]:
    """What the shards' own records say is missing: shards not among `dirs`, and submissions of a given shard
    without a finished result. Directories without a record (an unsharded run, an older grade.py) say nothing."""
    records = {}
    for directory in dirs:
        path = directory / outputs.SHARD_FILE
        if path.is_file():
            try:
                record = json.loads(path.read_text(encoding="utf-8"))
                index, count = record["shard"]
                records[directory] = (int(index), int(count), [str(n) for n in record["submissions"]])
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{path} is not a shard record grade.py wrote ({exc})") from None
    if not records:
        return []
    counts = {count for _, count, _ in records.values()}
    if len(counts) > 1:
        raise ValueError(f"the directories were graded as shards of different counts ({sorted(counts)}): "
                         "merge the shards of one run")
    count = counts.pop()
    problems = []
    absent = sorted(set(range(count)) - {index for index, _, _ in records.values()})
    if absent:
        problems.append(f"shard {', '.join(f'{i}/{count}' for i in absent)} not given")
    for directory, (index, _, names) in records.items():
        lost = [name for name in names if name not in found]
        if lost:
            shown = ", ".join(lost[:10]) + (", ..." if len(lost) > 10 else "")
            problems.append(f"{directory} (shard {index}/{count}) has no finished result for {len(lost)} of its "
                            f"{len(names)} submissions ({shown}): rerun that shard into it, which grades only those")
    return problems


def write(out: Path, found: dict[str, tuple[Path, dict]], record: dict | None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, (path, result) in found.items():
        target = outputs.result_path(out, name)
        if path.resolve() != target.resolve():
            outputs.atomic_write(target, json.dumps(result, indent=2, ensure_ascii=False) + "\n")
        gradescope = path.parent / "gradescope" / f"{name}.json"
        if gradescope.is_file() and gradescope.resolve() != (out / "gradescope" / gradescope.name).resolve():
            (out / "gradescope").mkdir(exist_ok=True)
            shutil.copyfile(gradescope, out / "gradescope" / gradescope.name)
    if record is not None:  # as one grade.py run with the same seed writes it
        outputs.atomic_write(out / outputs.RUN_FILE, json.dumps(record) + "\n")


def main(argv: list[str]) -> int:
    opts = parse_args(argv)
    try:
        records = run_records(opts.dirs)
        record = common_record(records)
        found = collect(opts.dirs)
        course = load_course(paths.SPEC_DIR, graded(records, found))
        refuse_mixed_checks(found)
        problems = missing(opts.dirs, found)
        if problems and not opts.partial:
            raise ValueError("; ".join(problems) + " (or add --partial to merge what there is)")
        for problem in problems:
            print(f"grade.py merge: --partial: {problem}", file=sys.stderr)
        write(opts.out, found, record)
    except (SpecError, ValueError, OSError) as exc:
        print(f"grade.py merge: {exc}", file=sys.stderr)
        return 2
    outputs.write_summary(opts.out, [e.id for e in course.exercises])
    print(f"merged {len(found)} results from {len(opts.dirs)} directories into {opts.out}", file=sys.stderr)
    outputs.print_table([result for _, result in found.values()])
    return 0
