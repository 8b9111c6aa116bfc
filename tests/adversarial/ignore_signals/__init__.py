"""Ignores every catchable signal and spins."""
import signal


def run_softmax(in_features, dim):
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGALRM, signal.SIGUSR1):
        signal.signal(sig, signal.SIG_IGN)
    while True:
        pass
