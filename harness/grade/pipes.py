"""The judge's ends of a runner's pipes: reads and writes that give up at a deadline, and the output tail.

The judge never blocks without a deadline on anything the runner controls: a runner that stops reading
requests, or never replies, costs at most the time left in the exercise's budget.
"""

import os
import select
import threading
import time


class Expired(Exception):
    """The deadline passed while waiting for the runner."""


def wait_until(fd: int, event: int, deadline: float) -> None:
    """Wait for `event` on `fd` (or hang-up/error, which the next read or write reports) until `deadline`.
    poll, not select: select cannot watch fds above 1023, and a long grading run may reach them."""
    poller = select.poll()
    poller.register(fd, event)
    remaining = deadline - time.monotonic()
    if remaining <= 0 or not poller.poll(max(1, round(remaining * 1000))):
        raise Expired()


class DeadlineReader:
    """A `read(n)` stream over a pipe fd for channel.read_frame; raises Expired at the deadline."""

    def __init__(self, fd: int, deadline: float):
        self.fd, self.deadline = fd, deadline

    def read(self, n: int) -> bytes:
        wait_until(self.fd, select.POLLIN, self.deadline)
        return os.read(self.fd, min(n, 1 << 20))


class DeadlineWriter:
    """A `write(data)` stream over a pipe fd for channel.write_frame; raises Expired at the deadline."""

    def __init__(self, fd: int, deadline: float):
        self.fd, self.deadline = fd, deadline
        os.set_blocking(fd, False)

    def write(self, data) -> int:
        view = memoryview(data)
        while view:
            wait_until(self.fd, select.POLLOUT, self.deadline)
            try:
                view = view[os.write(self.fd, view):]
            except BlockingIOError:
                continue
        return len(data)


class OutputTail:
    """Keeps the last `cap` bytes of everything the runner printed (for feedback only, never parsed)."""

    def __init__(self, cap: int):
        self.cap = cap
        self.total = 0
        self._buf = bytearray()
        self._lock = threading.Lock()

    def feed(self, data: bytes) -> None:
        with self._lock:
            self.total += len(data)
            self._buf += data
            del self._buf[:-self.cap]

    def clear(self) -> None:
        with self._lock:
            self._buf.clear()

    def text(self) -> str:
        with self._lock:
            return self._buf.decode("utf-8", errors="replace")


def drain(fd: int, tail: OutputTail) -> threading.Thread:
    """Read `fd` until EOF in a thread, so a runner printing without end never blocks on a full pipe."""

    def run() -> None:
        try:
            while data := os.read(fd, 65536):
                tail.feed(data)
        except OSError:
            pass
        finally:
            os.close(fd)

    thread = threading.Thread(target=run, name=f"runner-output-{fd}", daemon=True)
    thread.start()
    return thread
