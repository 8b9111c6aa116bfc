"""python grade.py merge DIR [DIR ...] --out DIR: combine the output dirs of `grade.py --shard I/N` runs.

Every DIR/<name>.json result is copied into --out (with its gradescope/<name>.json, if any), then
summary.csv is written and the table printed, exactly as one unsharded run would have. A submission in
several DIRs must have the same result in each (started_at and duration_s aside): a conflict is refused
with a message naming both files, as are shards graded with different secret seeds.
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
    """The run record (seed, course secret's fingerprint) all shards share (None if none recorded one); raises
    ValueError if their seeds differ."""
    records = {}
    for directory in dirs:
        record = directory / outputs.RUN_FILE
        if record.is_file():
            found = json.loads(record.read_text())
            records[directory] = {"seed": found["seed"], "secret": found.get("secret")}
    if len({r["seed"] for r in records.values()}) > 1:
        listed = ", ".join(f"{d}: {r['seed']}" for d, r in records.items())
        raise ValueError(f"the shards were graded with different seeds ({listed}); grade every shard with the "
                         "same course secret or --seed")
    return next(iter(records.values()), None)


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
        write(opts.out, found, record)
    except (SpecError, ValueError, OSError) as exc:
        print(f"grade.py merge: {exc}", file=sys.stderr)
        return 2
    outputs.write_summary(opts.out, [e.id for e in course.exercises])
    print(f"merged {len(found)} results from {len(opts.dirs)} directories into {opts.out}", file=sys.stderr)
    outputs.print_table([result for _, result in found.values()])
    return 0
