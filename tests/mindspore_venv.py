"""The MindSpore tests' own pytest, run in .venv-mindspore (tests/test_mindspore_venv.py asserts on it).

It takes two to three minutes of two cores, most of it a MindSpore handout installed into a fresh venv and the
flash alternatives' 1 x 1 tiles in PyNative. The e2e tier leaves most of a core idle (its largest tests wait out
time limits, a Slurm queue or a browser, or run on one core), so when that tier runs in one process the run
starts as the tier's first test does, at the idle scheduling class (SCHED_IDLE: it gets a CPU only when no
other test wants it, so the timing-sensitive tests keep theirs), and the test, moved to the end of the tier,
waits for it. Run alone, or in a pytest-xdist worker, it runs when its test does, at normal priority.
"""

import os
import signal
import subprocess
from pathlib import Path

import pytest

from attnlab.core import paths

PYTHON = paths.ROOT / ".venv-mindspore" / "bin" / "python"
SELECT = "mindspore and not test_mindspore_venv"
NODE = "tests/test_mindspore_venv.py::test_the_mindspore_tests_pass_in_venv_mindspore"
TIMEOUT_S = 3600


def skipped_why() -> str | None:
    if not PYTHON.exists() or os.environ.get("ATTNLAB_SKIP_SYSTEM") == "1":
        return (".venv-mindspore does not exist or ATTNLAB_SKIP_SYSTEM=1: scripts/venv-mindspore makes it "
                "(.ci/run does, unless ATTNLAB_SKIP_MINDSPORE=1)")
    return None


class InnerRun:
    """The inner pytest, started at once. Its output goes to files: a pipe nobody reads yet could fill and
    block it. On two workers, whole modules each (loadfile: a module's class is graded and its fresh venv
    built once), so the handout's install runs beside the in-process tests, not before them."""

    def __init__(self, folder: Path, *, idle: bool):
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "ATTNLAB_IMPL")}
        folder.mkdir(parents=True, exist_ok=True)
        self.stdout, self.stderr = folder / "stdout", folder / "stderr"
        with open(self.stdout, "w") as out, open(self.stderr, "w") as err:
            self.proc = subprocess.Popen(
                [str(PYTHON), "-m", "pytest", "-q", "-rs", "-n", "2", "--dist", "loadfile", "-k", SELECT, "tests"],
                cwd=paths.ROOT, env=env, stdout=out, stderr=err, start_new_session=True,
                preexec_fn=_idle_class if idle else None)

    def result(self) -> subprocess.CompletedProcess:
        try:
            self.proc.wait(timeout=TIMEOUT_S)
        except BaseException:  # its time ran out, or the session was interrupted while its test waited
            self.stop()
            raise
        return subprocess.CompletedProcess(self.proc.args, self.proc.returncode,
                                           self.stdout.read_text(errors="replace"),
                                           self.stderr.read_text(errors="replace"))

    def stop(self) -> None:
        """Stop it and everything it started (its own session), if it is still running."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()


def _idle_class() -> None:
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except OSError:  # a seccomp filter that refuses it: the run goes on at normal priority, only slower beside
        pass


def put_last(items: list[pytest.Item]) -> None:
    """The test waits for the early run: at the end of the tier it waits least."""
    found = [item for item in items if item.nodeid == NODE]
    if found:
        items.remove(found[0])
        items.append(found[0])


_early: InnerRun | None = None


def start_early(session: pytest.Session, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Start the run now, in the idle class, if its test is selected among others and this is no xdist
    worker (each worker collects every test; only the one given it may run it)."""
    global _early
    nodes = [item.nodeid for item in session.items]
    if NODE in nodes and len(nodes) > 1 and not os.environ.get("PYTEST_XDIST_WORKER") and not skipped_why():
        _early = InnerRun(tmp_path_factory.mktemp("mindspore-venv"), idle=True)


def stop_untaken() -> None:
    """At the session's end: stop an early run its test never took (deselected by a failure with -x, or an
    interrupted session)."""
    global _early
    if _early is not None:
        _early.stop()
        _early = None


def take(folder: Path) -> InnerRun:
    """The run started early, or one started now."""
    global _early
    run, _early = _early, None
    return run if run is not None else InnerRun(folder, idle=False)
