"""The groups pytest-xdist hands out whole (tests/xdist_groups.py), on the suite's own test ids."""

import os
import subprocess
import sys

import pytest
import xdist_groups

from attnlab.core import paths

EXERCISES = xdist_groups.exercise_ids(paths.SPEC_DIR)
MUTANTS = "tests/test_mutations.py::test_{}[{}]"


def test_a_mutants_tests_are_one_group_and_two_mutants_two():
    caught, diagnosed = (MUTANTS.format(t, "softmax/bug_no_max_shift") for t in ("bug_is_caught", "bug_is_diagnosed"))
    other = MUTANTS.format("bug_is_caught", "softmax/bug_sum_over_wrong_dim")
    assert xdist_groups.scope(caught, EXERCISES) == xdist_groups.scope(diagnosed, EXERCISES)
    assert xdist_groups.scope(other, EXERCISES) != xdist_groups.scope(caught, EXERCISES)


def test_an_exercises_jax_tests_are_one_group_across_files_and_mutants():
    ids = ["tests/test_frameworks.py::test_reference_passes_every_check_that_applies[jax-flash_attention]",
           MUTANTS.format("alternative_passes_every_check", "flash_attention/jax/alt_scan_padded_tiles"),
           MUTANTS.format("bug_is_caught", "flash_attention/jax/bug_scan_whole_key_tiles")]
    assert {xdist_groups.scope(i, EXERCISES) for i in ids} == {"jax:flash_attention"}
    rope = MUTANTS.format("bug_is_caught", "rope/jax/bug_pairs_halves")
    assert xdist_groups.scope(rope, EXERCISES) == "jax:rope"


def test_the_same_parameter_in_two_files_and_unparametrised_tests_stay_apart():
    one, two = "tests/a.py::test_x[torch]", "tests/b.py::test_x[torch]"
    assert xdist_groups.scope(one, EXERCISES) != xdist_groups.scope(two, EXERCISES)
    plain = "tests/unit/test_schema.py::test_schema_is_valid"
    assert xdist_groups.scope(plain, EXERCISES) == plain
    assert xdist_groups.scope("tests/a.py::test_y", EXERCISES) != xdist_groups.scope("tests/a.py::test_z", EXERCISES)


def test_the_tests_that_share_the_machines_grading_state_are_one_group():
    host = "tests/unit/test_sandbox_host.py"
    leased = f"{host}::test_a_leased_uid_is_this_runs_alone_and_a_dead_runs_processes_die_with_its_lease"
    swept = f"{host}::test_a_dead_runs_scratch_dir_is_swept_and_a_live_runs_is_not"
    each = f"{host}::test_each_simulated_machine_gets_its_level[docker]"
    assert {xdist_groups.scope(i, EXERCISES) for i in (leased, swept, each)} == {host}


@pytest.mark.e2e  # starts pytest itself
def test_the_suite_still_runs_without_pytest_xdist():
    """The grouping hook is xdist's: without xdist (it is a dev extra) pytest must not reject it as unknown."""
    one = "tests/unit/test_xdist_groups.py::test_a_mutants_tests_are_one_group_and_two_mutants_two"
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-q", one],
                          cwd=paths.ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]


def test_an_xdist_worker_computes_on_one_thread():
    """xdist_groups.ONE_THREAD_EACH: started by `-n`, a worker's torch (and, through the environment it started
    with, NumPy's BLAS and XLA) use one thread each."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        pytest.skip("not in a pytest-xdist worker (README's command runs this half with -n 2)")
    import torch

    assert torch.get_num_threads() == 1
    assert {name: os.environ.get(name) for name in xdist_groups.ONE_THREAD_EACH} == xdist_groups.ONE_THREAD_EACH
