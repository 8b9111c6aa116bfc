"""Runners that crash, exit, or attack the judge through signals and file descriptors: the call fails
(never the judge), nothing is left behind, and the next call gets a fresh runner."""

import pytest
import torch

from attnlab.core.outcomes import Outcome, SubmissionError

pytestmark = pytest.mark.e2e  # starts runners, grade.py, browsers or pytest processes

HONEST = """
import torch
def run_softmax(x):
    return torch.softmax(x, -1)
"""


def call(impl, module="softmax", **kwargs):
    kwargs.setdefault("x", torch.ones(2))
    [got] = impl.call_many(exercise=module, module=module, function="run_softmax", calls=[kwargs],
                           forbidden_calls=())
    if isinstance(got, Exception):
        raise got
    return got.output


CRASHES = {
    "segfault": ("import ctypes, torch\ndef run_softmax(x):\n    return ctypes.string_at(0)\n", "signal 11"),
    # through a builtin, so each level uses C stack (plain Python calls do not, since 3.11)
    "c_stack_overflow": (("import sys, torch\nsys.setrecursionlimit(10**7)\n"
                          "class Deep:\n    def __getattr__(self, name):\n"
                          "        return getattr(self, name)\n"
                          "def run_softmax(x):\n    return Deep().anything\n"), "signal 11"),
    "abort": ("import os, torch\ndef run_softmax(x):\n    os.abort()\n", "signal (6|11)"),
    "exit_in_call": ("import os, torch\ndef run_softmax(x):\n    os._exit(3)\n", "exited with status 3"),
}


@pytest.mark.parametrize("name", list(CRASHES))
def test_crashes_fail_the_call_and_leave_nothing(make_submission, remote, leftovers, name):
    source, message = CRASHES[name]
    package, marker = make_submission({"softmax.py": source})
    with pytest.raises(SubmissionError, match=message):
        call(remote(package))
    assert leftovers(marker) == []


def test_after_a_crash_the_next_call_gets_a_fresh_runner(make_submission, remote):
    package, _ = make_submission({"softmax.py": CRASHES["segfault"][0], "other.py": HONEST})
    impl = remote(package)
    with pytest.raises(SubmissionError, match="crashed"):
        call(impl)
    assert call(impl, module="other", x=torch.zeros(2)).tolist() == [0.5, 0.5]


KILL_PARENT = """
import os, signal, torch
def run_softmax(x):
    for target in (os.getppid(), 0):
        try:
            os.kill(target, signal.SIGKILL)
        except OSError:
            pass
    return torch.ones(1)
"""


def test_killing_the_parent_does_not_touch_the_judge(make_submission, remote):
    package, _ = make_submission({"softmax.py": KILL_PARENT, "other.py": HONEST})
    impl = remote(package)
    if impl.isolation == "rlimits-only":
        pytest.skip("rlimits-only: the runner shares the judge's uid and could kill it (see README)")
    try:
        call(impl)
    except Outcome:
        pass  # the runner may have killed itself; what matters is that this process (the judge) lives on
    assert call(impl, module="other", x=torch.zeros(2)).tolist() == [0.5, 0.5]


WRITE_ALL_FDS = """
import os, torch
def run_softmax(x):
    for fd in range(1024):
        try:
            os.write(fd, b"\\x00\\x00\\x00\\x10{\\"status\\": \\"ok\\"" + b"\\xff" * 64)
        except OSError:
            pass
    return torch.ones(1)
"""


def test_writing_to_every_fd_is_a_protocol_violation_not_a_judge_problem(make_submission, remote):
    package, _ = make_submission({"softmax.py": WRITE_ALL_FDS, "other.py": HONEST})
    impl = remote(package)
    with pytest.raises(SubmissionError, match="runner protocol violation"):
        call(impl)
    assert call(impl, module="other", x=torch.zeros(2)).tolist() == [0.5, 0.5]


PICKY = """
import os, torch
def run_softmax(x):
    if float(x[0]) == 7.0:      # this call kills its runner
        os._exit(5)
    if float(x[0]) < 0:         # this one changes its input in place
        x.mul_(2)
    return torch.softmax(x, -1)
"""


def test_a_batch_of_calls_gets_one_result_per_call_even_past_a_runner_death(make_submission, remote):
    """call_many sends the calls in one request; a call that kills the runner fails alone and the calls
    after it go to a fresh runner, as if each had been made on its own."""
    package, _ = make_submission({"softmax.py": PICKY})
    impl = remote(package)
    xs = [torch.tensor([1.0, 2.0]), torch.tensor([-1.0, 0.0]), torch.tensor([7.0, 0.0]), torch.tensor([0.0, 0.0])]
    results = impl.call_many(exercise="softmax", module="softmax", function="run_softmax",
                             calls=[{"x": x} for x in xs], forbidden_calls=())
    assert len(results) == 4
    first, second, death, last = results
    torch.testing.assert_close(first.output, torch.softmax(torch.tensor([1.0, 2.0]), -1))
    assert first.modified == () and last.modified == ()
    assert second.modified == ("x",) and xs[1].tolist() == [-2.0, 0.0]  # mirrored into the caller's tensor
    assert isinstance(death, SubmissionError) and "exited with status 5" in str(death)
    assert last.output.tolist() == [0.5, 0.5]


HANGS_ON_NINE = """
import torch
def run_softmax(x):
    while float(x[0]) == 9.0:
        pass
    return torch.softmax(x, -1)
"""


def test_a_batch_keeps_the_results_before_a_call_that_runs_out_of_time(make_submission, remote):
    from attnlab.core.outcomes import Overloaded, TimeLimit

    package, _ = make_submission({"softmax.py": HANGS_ON_NINE})
    impl = remote(package)
    impl.start()
    xs = [torch.zeros(2), torch.zeros(2), torch.tensor([9.0, 0.0]), torch.zeros(2)]
    with impl.budget(1.0):
        results = impl.call_many(exercise="softmax", module="softmax", function="run_softmax",
                                 calls=[{"x": x} for x in xs], forbidden_calls=())
    assert [r.output.tolist() for r in results[:2]] == [[0.5, 0.5], [0.5, 0.5]]
    # the hang ends at its CPU limit (or, on a machine too busy to let it spend it, as overloaded)
    assert all(isinstance(r, (TimeLimit, Overloaded)) for r in results[2:])
    assert all("its 1 s of CPU time" in str(r) for r in results[2:] if isinstance(r, TimeLimit))
