"""Submissions that fail while being imported: every call fails with the same outcome, the first one after
one runner start and the later ones at once (no restart per exercise), and no process is left."""

import time

import pytest
import torch

from attnlab.core.outcomes import SubmissionError, TimeLimit

pytestmark = pytest.mark.e2e  # starts runners, grade.py, browsers or pytest processes


def call(impl):
    [got] = impl.call_many(exercise="softmax", module="softmax", function="run_softmax",
                           calls=[{"x": torch.ones(2)}], forbidden_calls=())
    if isinstance(got, Exception):
        raise got
    return got.output


def fails_twice(impl, outcome, message):
    with pytest.raises(outcome, match=message):
        call(impl)
    started = time.monotonic()
    with pytest.raises(outcome, match=message):
        call(impl)
    assert time.monotonic() - started < 0.5, "an import failure is remembered, not retried"


@pytest.mark.parametrize("init, message", [
    ("import torch\n\ndef helper(:\n    pass\n", r"SyntaxError.*__init__\.py:3"),
    ("import sys\nsys.exit(0)\n", r"SystemExit"),
    ("import os\nos._exit(0)\n", r"exited with status 0"),
    ("raise ImportError('no module named magic')\n",
     r"ImportError: no module named magic \(at __init__\.py:1\)"),
])
def test_failing_imports_are_submission_errors(make_submission, remote, leftovers, init, message):
    softmax = "def run_softmax(x):\n    return x\n"
    package, marker = make_submission({"__init__.py": init, "softmax.py": softmax})
    fails_twice(remote(package), SubmissionError, message)
    assert leftovers(marker) == []


def test_sleep_at_import_is_a_time_limit(make_submission, remote, leftovers):
    package, marker = make_submission({"__init__.py": "import time\ntime.sleep(1000)\n"})
    # sleeping is not computing: the import ends at the wall-clock backstop (1.5 x 3 + 1 s in FAST limits)
    fails_twice(remote(package), TimeLimit, "importing the submission did not finish after 5.5 s")
    assert leftovers(marker) == []


def test_a_package_without_init_is_named(make_submission, remote):
    package, _ = make_submission({})
    (package / "__init__.py").unlink()
    with pytest.raises(SubmissionError, match="has neither __init__.py nor any .py file"):
        call(remote(package))
