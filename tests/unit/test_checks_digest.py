"""What a rerun compares before keeping a finished result: the checks it was graded with (specs, reference,
grader, the limits that can end a check), as one digest (attnlab.grade.batch.checks_digest)."""

import dataclasses
import shutil

from attnlab.core import config, paths
from attnlab.grade.batch.checks_digest import checks_digest, same_checks
from attnlab.grade.judge import judge


def test_the_digest_follows_what_decides_a_score_and_nothing_else(tmp_path, monkeypatch):
    run = config.resolve()
    digest = checks_digest(run)
    assert digest == checks_digest(config.resolve()) and len(digest) == 16
    limits = run.limits
    # where and as whom a runner runs, and the feedback's language, change no score
    same = run.replace(lang="zh", limits=dataclasses.replace(limits, uid=64100, gid=64100, cpu=1, isolation="rlimits"))
    assert checks_digest(same) == digest
    assert checks_digest(run.replace(limits=dataclasses.replace(limits, timeout_s=limits.timeout_s + 1))) != digest
    assert checks_digest(run.replace(limits=dataclasses.replace(limits, memory_mb=2048))) != digest
    assert checks_digest(config.resolve(assignment="modern")) != digest

    spec = tmp_path / "spec"  # a tolerance mended by the instructor
    shutil.copytree(paths.SPEC_DIR, spec, ignore=shutil.ignore_patterns("__pycache__"))
    (spec / "softmax.yaml").write_text((spec / "softmax.yaml").read_text(encoding="utf-8") + "\n# mended\n")
    monkeypatch.setattr(paths, "SPEC_DIR", spec)
    assert checks_digest(run) != digest
    monkeypatch.undo()

    reference = tmp_path / "reference"  # the reference, or one of its misconceptions, changed
    shutil.copytree(paths.REFERENCE_DIR, reference, ignore=shutil.ignore_patterns("__pycache__"))
    misconceptions = reference / "misconceptions" / "softmax.py"
    misconceptions.write_text(misconceptions.read_text(encoding="utf-8") + "\n# one more\n")
    monkeypatch.setattr(judge, "installed_reference", lambda: [reference])
    assert checks_digest(run) != digest


def test_a_result_without_a_digest_was_graded_by_another_grader():
    assert same_checks({"checks_digest": "abc"}, "abc")
    assert not same_checks({"checks_digest": "abd"}, "abc") and not same_checks({}, "abc")
