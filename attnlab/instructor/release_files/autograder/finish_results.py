"""Put grade.py's Gradescope results.json in place; or, when grade.py was stopped before it wrote one, its
partial results (written after each exercise: the exercises not reached score 0 and say why); or a score-0
results.json saying why there is none.

    python finish_results.py GRADE_RESULTS_JSON GRADE_LOG GRADE_EXIT_STATUS DESTINATION [PARTIAL_JSON]

Standard library only: it must work even when the grader's dependencies do not import.
"""

import json
import os
import sys
from pathlib import Path

LOG_LINES = 15


def valid(data) -> bool:
    score = data.get("score") if isinstance(data, dict) else None
    number = isinstance(score, (int, float)) and not isinstance(score, bool)
    return number and isinstance(data.get("tests", []), list)


def fallback(log: Path, status: str) -> dict:
    try:
        tail = "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-LOG_LINES:])
    except OSError:
        tail = "(no log)"
    message = (f"The autograder could not grade this submission (grade.py exit status {status}). "
               f"Please tell the course staff. The end of the grader's log:\n{tail}")
    return {"score": 0, "output": message, "visibility": "visible", "stdout_visibility": "hidden",
            "tests": []}


def load(path: str):
    try:
        return json.loads(Path(path).read_text(encoding="utf-8")) if path else None
    except (OSError, ValueError):
        return None


def main(argv: list) -> int:
    results, log, status, destination = argv[:4]
    partial = argv[4] if len(argv) > 4 else ""
    data = load(results)
    if not valid(data):
        data = load(partial)
        if not valid(data) or not data.get("tests"):
            data = fallback(Path(log), status)
    target = Path(destination)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, target)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
