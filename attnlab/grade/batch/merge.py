"""python grade.py merge DIR [DIR ...] --out DIR: combine the output dirs of `grade.py --shard I/N` runs.

Every DIR/<name>.json result is copied into --out (with its gradescope/<name>.json, if any), then
summary.csv is written and the table printed, exactly as one unsharded run would have. A submission in
several DIRs must have the same result in each (started_at and duration_s aside): a conflict is refused
with a message naming both files, as are shards graded with different secret seeds. Nobody is lost on the
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


def common_seed(dirs: list[Path]) -> dict | None:
    """The run record (seed, course secret's fingerprint, and the assignment and framework where recorded) all
    shards share (None if none recorded one); raises ValueError if their seeds, assignments or frameworks differ."""
    records = {}
    for directory in dirs:
        record = directory / outputs.RUN_FILE
        if record.is_file():
            found = json.loads(record.read_text())
            records[directory] = {"seed": found["seed"], "secret": found.get("secret"),
                                  **{k: found[k] for k in ("assignment", "framework") if k in found}}
    if len({r["seed"] for r in records.values()}) > 1:
        listed = ", ".join(f"{d}: {r['seed']}" for d, r in records.items())
        raise ValueError(f"the shards were graded with different seeds ({listed}); grade every shard with the "
                         "same course secret or --seed")
    graded = {(r.get("assignment"), r.get("framework")) for r in records.values()}
    if len(graded) > 1:
        listed = ", ".join(f"{d}: {r.get('assignment')} in {r.get('framework')}" for d, r in records.items())
        raise ValueError(f"the shards graded different assignments or frameworks ({listed}): merge one at a time")
    return next(iter(records.values()), None)


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
        record = common_seed(opts.dirs)
        found = collect(opts.dirs)
        assignments = {r.get("assignment", "attention") for _, r in found.values()}
        if len(assignments) > 1:
            raise ValueError(f"the shards graded different assignments {sorted(assignments)}: merge one at a time")
        course = load_course(paths.SPEC_DIR, assignments.pop() if assignments else None)
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
