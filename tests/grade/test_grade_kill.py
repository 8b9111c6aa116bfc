"""Runners that hang, fork, crash or attack the judge: each fails its own call, nothing is left behind,
and the judge carries on. One runner per test (each costs an `import torch`, ~2 s, outside the budget)."""

import dataclasses
import time

import pytest
import torch

from attnlab.core.outcomes import Overloaded, TimeLimit

pytestmark = pytest.mark.e2e  # starts runners, grade.py, browsers or pytest processes

BUDGET = 2.0
BACKSTOP = 1.5 * BUDGET + 1.0  # FAST's wall-clock backstop: a machine too busy to give 2 s of CPU by then
SLACK = 3.0  # kill + reap of a whole pid namespace (a fork bomb: dozens of busy processes), on a loaded machine
# runaway code ends at its CPU limit, or, on a machine too busy to let it spend it, at the backstop as
# overloaded: either way it is stopped and leaves nothing behind
STOPPED = (TimeLimit, Overloaded)

HONEST = """
import torch
def run_softmax(x):
    return torch.softmax(x, -1)
"""


def call(impl, **kwargs):
    kwargs.setdefault("x", torch.ones(2))
    [got] = impl.call_many(exercise="softmax", module="softmax", function="run_softmax", calls=[kwargs],
                           forbidden_calls=())
    if isinstance(got, Exception):
        raise got
    return got.output


def timed_call(impl):
    """Start the runner first, so only the call is timed against the budget."""
    impl.start()
    started = time.monotonic()
    with impl.budget(BUDGET):
        with pytest.raises(STOPPED) as first:
            call(impl)
        with pytest.raises(type(first.value)):  # the rest of the budget is gone: the same verdict at once
            call(impl)
    if isinstance(first.value, TimeLimit):
        assert "2 s of CPU time" in str(first.value)
    return time.monotonic() - started


def wait_until_gone(find, marker, timeout_s=3.0):
    end = time.monotonic() + timeout_s
    while (left := find(marker)) and time.monotonic() < end:
        time.sleep(0.05)
    return left


LOOP = """
import torch
def run_softmax(x):
    while True:
        pass
"""

IGNORE_SIGNALS = """
import signal, torch
def run_softmax(x):
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1):
        signal.signal(sig, signal.SIG_IGN)
    while True:
        pass
"""

FORK_BOMB = """
import os, torch
def run_softmax(x):
    while True:
        try:
            os.fork()
        except OSError:
            pass
"""


@pytest.mark.parametrize("source", [LOOP, IGNORE_SIGNALS, FORK_BOMB], ids=["loop", "sigterm", "forkbomb"])
def test_runaway_code_times_out_and_leaves_nothing(make_submission, remote, leftovers, source):
    package, marker = make_submission({"softmax.py": source})
    impl = remote(package)
    impl.start()
    assert leftovers(marker), "the marker must identify the runner's processes"
    assert timed_call(impl) < BACKSTOP + SLACK
    assert leftovers(marker) == []


DAEMON = """
import os, sys, time, torch
def run_softmax(x):
    name = os.path.basename(os.path.dirname(os.path.abspath(__file__))) + "-daemon"
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time\\nwhile True: time.sleep(1)", name])
        os._exit(0)
    return torch.zeros(1)
"""


@pytest.mark.parametrize("isolation", ["auto", "rlimits-only"])
def test_setsid_daemon_is_killed_with_its_runner(make_submission, remote, leftovers, fast_limits, isolation):
    package, marker = make_submission({"softmax.py": DAEMON})
    impl = remote(package, dataclasses.replace(fast_limits, isolation=isolation))
    assert call(impl).tolist() == [0.0]
    end = time.monotonic() + 5
    while not leftovers(f"{marker}-daemon") and time.monotonic() < end:
        time.sleep(0.05)
    assert leftovers(f"{marker}-daemon"), "the daemon runs (in its own session) before close()"
    impl.close()
    assert leftovers(marker) == []


SESSION_TRICKS = """
import os, time, torch
def run_softmax(x):
    for _ in range(3):
        if os.fork() == 0:
            os.setpgid(0, 0)  # its own process group, same session
            while True:
                time.sleep(1)
    while True:
        pass
"""


def test_without_namespaces_the_session_and_tree_are_killed(make_submission, remote, leftovers, fast_limits):
    package, marker = make_submission({"softmax.py": SESSION_TRICKS})
    impl = remote(package, dataclasses.replace(fast_limits, isolation="rlimits-only"))
    assert impl.isolation == "rlimits-only"
    assert timed_call(impl) < BACKSTOP + SLACK
    assert leftovers(marker) == []
