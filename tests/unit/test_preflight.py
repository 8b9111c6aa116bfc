"""grade.batch.preflight without grading: which options lower a limit, and when the reference's result under
them stops the run."""

import argparse
from types import SimpleNamespace

import pytest

from attnlab.core.config import resolve
from attnlab.core.status import Status
from attnlab.grade.batch import preflight


@pytest.fixture(scope="module")
def torch_run():
    return resolve(assignment="attention", framework="torch")


def opts(memory=None, timeout=None, import_timeout=None) -> argparse.Namespace:
    return argparse.Namespace(memory=memory, timeout=timeout, import_timeout=import_timeout)


def test_only_limits_below_the_defaults_count(torch_run):
    assert preflight.lowered(opts(), torch_run) == []
    assert preflight.lowered(opts(memory=8192, timeout=600, import_timeout=60), torch_run) == []  # raised
    assert preflight.lowered(opts(memory=4096, timeout=60.0), torch_run) == []  # the defaults themselves
    assert preflight.lowered(opts(memory=512, timeout=4, import_timeout=6), torch_run) == [
        "--memory 512", "--timeout 4", "--import-timeout 6"]


def test_on_a_device_without_a_default_cap_any_memory_cap_is_lowered(torch_run):
    on_cuda = torch_run.replace(device="cuda")  # no address-space cap there by default (config.Limits)
    assert preflight.lowered(opts(memory=65536), on_cuda) == ["--memory 65536"]


def exercise(id_, score, max_score, status=Status.PASSED, checks=()):
    return SimpleNamespace(id=id_, score=score, max_score=max_score, status=status, checks=checks)


def result(*exercises):
    return SimpleNamespace(exercises=exercises, score=sum(e.score for e in exercises),
                           max_score=sum(e.max_score for e in exercises))


def test_a_point_lost_stops_the_run_and_says_where():
    why = preflight.refusal(["--memory 512"], result(exercise("softmax", 8, 8),
                                                     exercise("dropout", 3.6, 6, Status.FAILED)))
    assert why.startswith("under --memory 512 the reference scores 11.6 of 14 (dropout: failed (3.6 of 6))")
    assert preflight.refusal(["--memory 512"], result(exercise("softmax", 8, 8), exercise("table", 0, 0))) is None


def test_points_lost_only_to_a_busy_machine_do_not_stop_it():
    starved = exercise("rope", 0, 10, Status.FAILED, checks=(SimpleNamespace(status=Status.OVERLOADED),))
    assert preflight.refusal(["--timeout 4"], result(exercise("softmax", 8, 8), starved)) is None
    assert preflight.refusal(["--timeout 4"], result(exercise("rope", 0, 10, Status.OVERLOADED))) is None
    assert preflight.refusal(["--timeout 4"], result(starved, exercise("causal", 0, 6, Status.TIMEOUT))) is not None
