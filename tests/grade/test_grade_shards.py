"""Past one machine: `grade.py --shard I/N` grades a stable slice, `grade.py merge` puts the slices back
together (refusing conflicts), and the progress display stays out of logs."""

import argparse
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from attnlab.grade.batch import cli, merge, run

pytestmark = pytest.mark.e2e  # starts runners, grade.py, browsers or pytest processes

REPO = Path(__file__).resolve().parents[2]
NAMES = [f"student{i:03d}" for i in range(200)]


def test_every_submission_lands_in_exactly_one_shard():
    for count in (1, 3, 8):
        shards = [[n for n in NAMES if cli.shard_of(n, count) == i] for i in range(count)]
        assert sorted(n for shard in shards for n in shard) == NAMES
        assert all(shards), "a hash that leaves a shard empty for 200 names is a bad hash"


def test_adding_submissions_moves_nobody_else():
    before = {n: cli.shard_of(n, 8) for n in NAMES}
    after = {n: cli.shard_of(n, 8) for n in NAMES + ["late_submitter", "another_one"]}
    assert all(after[n] == shard for n, shard in before.items())


@pytest.mark.parametrize("text", ["4/4", "-1/4", "1", "a/b", "1/0", "1/4/2"])
def test_bad_shards_are_refused(text):
    with pytest.raises(argparse.ArgumentTypeError, match="I/N"):
        cli.parse_shard(text)


def result(name: str, score: float, started: str = "2024-01-01T00:00:00+00:00") -> dict:
    exercises = [{"id": "softmax", "function": "run_softmax", "score": score, "max_score": 8.0,
                  "status": "passed", "feedback": "", "diagnoses": []}]
    return {"submission": name, "score": score, "max_score": 100.0, "exercises": exercises,
            "started_at": started, "duration_s": 1.0, "harness_version": "test"}


def write(directory: Path, *results: dict, seed: int = 7) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "grading-run.json").write_text(json.dumps({"seed": seed}))
    for r in results:
        (directory / f"{r['submission']}.json").write_text(json.dumps(r))
    return directory


def test_merge_combines_shards_and_accepts_identical_duplicates(tmp_path, capsys):
    a = write(tmp_path / "a", result("ann", 8.0), result("bob", 4.0))
    b = write(tmp_path / "b", result("cid", 0.0), result("bob", 4.0, started="2024-02-02T00:00:00+00:00"))
    assert merge.main([str(a), str(b), "--out", str(tmp_path / "all")]) == 0
    rows = (tmp_path / "all" / "summary.csv").read_text(encoding="utf-8-sig").splitlines()
    assert [r.split(",")[0] for r in rows] == ["submission", "ann", "bob", "cid"]
    assert json.loads((tmp_path / "all" / "grading-run.json").read_text()) == {"seed": 7, "secret": None}
    assert "bob" in capsys.readouterr().out


def test_merge_refuses_conflicting_duplicates(tmp_path, capsys):
    a = write(tmp_path / "a", result("bob", 4.0))
    b = write(tmp_path / "b", result("bob", 5.0))
    assert merge.main([str(a), str(b), "--out", str(tmp_path / "all")]) == 2
    err = capsys.readouterr().err
    assert "conflicting results for 'bob'" in err and str(a / "bob.json") in err and str(b / "bob.json") in err


def test_merge_refuses_shards_with_different_seeds(tmp_path, capsys):
    a = write(tmp_path / "a", result("ann", 8.0), seed=1)
    b = write(tmp_path / "b", result("bob", 4.0), seed=2)
    assert merge.main([str(a), str(b), "--out", str(tmp_path / "all")]) == 2
    assert "different seeds" in capsys.readouterr().err


def test_merge_refuses_shards_graded_with_different_checks(tmp_path, capsys):
    """A shard graded after a spec was mended (or from another checkout, or under other limits): merged, one
    class would hold scores from two graders."""
    a = write(tmp_path / "a", {**result("ann", 8.0), "checks_digest": "0123456789abcdef"})
    b = write(tmp_path / "b", {**result("bob", 4.0), "checks_digest": "fedcba9876543210"})
    assert merge.main([str(a), str(b), "--out", str(tmp_path / "all")]) == 2
    err = capsys.readouterr().err
    assert "graded with different specs, reference, grader or limits" in err
    assert f"0123456789abcdef: {a / 'ann.json'}" in err and f"fedcba9876543210: {b / 'bob.json'}" in err
    assert not (tmp_path / "all").exists()


def test_merge_refuses_a_shard_not_given_or_left_unfinished_unless_partial(tmp_path, capsys):
    """Each shard's directory names its slice and submissions (grading-shard.json): a Slurm task that never ran,
    or was killed mid-way, must not make students vanish from the merged class."""
    a = write(tmp_path / "a", result("ann", 8.0), result("bob", 4.0))
    b = write(tmp_path / "b", result("cid", 0.0))
    (a / "grading-shard.json").write_text(json.dumps({"shard": [0, 2], "submissions": ["ann", "bob"]}))
    (b / "grading-shard.json").write_text(json.dumps({"shard": [1, 2], "submissions": ["cid", "dan", "eve"]}))
    assert merge.main([str(a), "--out", str(tmp_path / "one")]) == 2
    assert "shard 1/2 not given" in capsys.readouterr().err and not (tmp_path / "one").exists()
    assert merge.main([str(a), str(b), "--out", str(tmp_path / "all")]) == 2
    err = capsys.readouterr().err
    assert f"{b} (shard 1/2) has no finished result for 2 of its 3 submissions (dan, eve)" in err
    assert merge.main([str(a), str(b), "--out", str(tmp_path / "all"), "--partial"]) == 0
    assert "--partial" in capsys.readouterr().err
    rows = (tmp_path / "all" / "summary.csv").read_text(encoding="utf-8-sig").splitlines()
    assert [r.split(",")[0] for r in rows] == ["submission", "ann", "bob", "cid"]
    assert not (tmp_path / "all" / "grading-shard.json").exists()  # the merge is one class, not a shard
    (b / "grading-shard.json").write_text(json.dumps({"shard": [1, 3], "submissions": ["cid"]}))
    assert merge.main([str(a), str(b), "--out", str(tmp_path / "mixed")]) == 2
    assert "shards of different counts ([2, 3])" in capsys.readouterr().err


def test_sharded_runs_merge_into_one_summary(tmp_path):
    """End to end through grade.py: two shards of three stubs, then merge (stubs grade fast)."""
    subs = []
    for name in ("s_one", "s_two", "s_three"):
        (tmp_path / name).mkdir()
        for source in (REPO / "student_template").glob("*.py"):
            (tmp_path / name / source.name).write_text(source.read_text())
        subs.append(str(tmp_path / name))
    for index in (0, 1):
        argv = [sys.executable, "grade.py", *subs, "--shard", f"{index}/2", "--seed", "5", "--timeout", "5",
                "--out", str(tmp_path / f"shard{index}")]
        subprocess.run(argv, cwd=REPO, check=True, capture_output=True, timeout=300)
    merged = subprocess.run([sys.executable, "grade.py", "merge", str(tmp_path / "shard0"),
                             str(tmp_path / "shard1"), "--out", str(tmp_path / "all")],
                            cwd=REPO, check=True, capture_output=True, text=True)
    rows = (tmp_path / "all" / "summary.csv").read_text(encoding="utf-8-sig").splitlines()
    assert sorted(r.split(",")[0] for r in rows[1:]) == ["s_one", "s_three", "s_two"]
    assert "s_three" in merged.stdout
    slices = [json.loads((tmp_path / f"shard{i}" / "grading-shard.json").read_text()) for i in (0, 1)]
    assert [s["shard"] for s in slices] == [[0, 2], [1, 2]]
    assert sorted(n for s in slices for n in s["submissions"]) == ["s_one", "s_three", "s_two"]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_a_bar_on_a_terminal_and_lines_elsewhere(monkeypatch):
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    progress = run.Progress(2)
    progress.done("ann", "ann: 8 / 100 (1.0 s)")
    progress.close()
    assert log.getvalue() == "  ann: 8 / 100 (1.0 s)\n"
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    progress = run.Progress(2)
    progress.done("ann", "ann: 8 / 100 (1.0 s)")
    progress.close()
    assert "1/2" in terminal.getvalue() and "ann: 8 / 100" not in terminal.getvalue()
