"""The judge's reading of a runner's time (attnlab.grade.judge.clock): a live descendant's CPU time counts
(a fork bomb's work is in its children), found the same way with or without /proc's children files."""

import os
import signal
import subprocess
import sys
import time

from attnlab.grade.judge import clock

BURN = """
import os, time
if os.fork() == 0:  # a child, and a grandchild below it, each busy for ~0.6 s of CPU, then waiting
    if os.fork() == 0:
        end = time.process_time() + 0.6
        while time.process_time() < end: pass
        time.sleep(60)
    end = time.process_time() + 0.6
    while time.process_time() < end: pass
    time.sleep(60)
print("ready", flush=True)
time.sleep(60)
"""


def test_a_runners_live_descendants_count_and_both_ways_of_finding_them_agree(monkeypatch):
    proc = subprocess.Popen([sys.executable, "-c", BURN], stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 30
        while clock.tree_usage(proc.pid).cpu_s < 1.1 and time.monotonic() < deadline:
            time.sleep(0.1)
        alone = clock.usage(proc.pid, delay=False).cpu_s
        with_children_files = clock.tree_usage(proc.pid)
        monkeypatch.setattr(clock.os.path, "exists", lambda path: False)  # a kernel without children files
        from_snapshot = clock.tree_usage(proc.pid)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # its session: the child and grandchild too
        proc.wait()
    assert alone < 0.5  # the parent itself only forked and slept
    assert with_children_files.cpu_s >= 1.1 and from_snapshot.cpu_s >= 1.1
    assert abs(with_children_files.cpu_s - from_snapshot.cpu_s) < 0.1
    assert with_children_files.delay_s >= 0


def test_usage_without_delay_reads_the_same_cpu_time():
    here = clock.usage(clock.os.getpid())
    quick = clock.usage(clock.os.getpid(), delay=False)
    assert quick.delay_s == 0 and abs(quick.cpu_s - here.cpu_s) < 0.05
    assert clock.usage(2**22 + 12345) is None  # no such process
