"""Double-forks a daemon into its own session that outlives the grader and writes a file later."""
import os
import time


def run_softmax(in_features, dim):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(4)
            with open("/tmp/attnlab-daemon-was-here", "w") as fh:
                fh.write("still alive\n")
            time.sleep(3600)
        os._exit(0)
    raise NotImplementedError("a daemon is on its way")
