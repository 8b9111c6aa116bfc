"""The judge's ends of a runner's pipes: reads and writes that give up when a clock runs out, and the
output tail; and packets on the forkserver's unix sockets: one channel frame each, file descriptors beside it.

The judge never blocks without a limit on anything the runner controls: a runner that stops reading
requests, or never replies, costs at most what is left on the exercise's clock (attnlab.grade.judge.clock:
the runner's CPU time, with a wall-clock backstop), or a plain Deadline where only wall time matters.
"""

import io
import os
import select
import socket
import threading
import time
from typing import Protocol

MAX_PACKET = 1 << 20  # forkserver packets carry a jail config (paths and limits) at most
PIPE_BYTES = 1 << 20  # a runner's output pipe: room for a burst of prints before any is dropped


class Expired(Exception):
    """The clock ran out while waiting for the runner."""


class Clock(Protocol):
    def next_wait(self) -> float: ...  # seconds the next wait may take; raises Expired when none are left

    def waited_for(self, seconds: float) -> None: ...


class Deadline:
    """A Clock that is wall time only (the runner's start, which is the harness's own time)."""

    def __init__(self, seconds: float):
        self.end = time.monotonic() + seconds

    def next_wait(self) -> float:
        remaining = self.end - time.monotonic()
        if remaining <= 0:
            raise Expired()
        return remaining

    def waited_for(self, seconds: float) -> None:
        pass


def wait_until(fd: int, event: int, clock: Clock) -> None:
    """Wait for `event` on `fd` (or hang-up/error, which the next read or write reports) for as long as the
    clock allows. poll, not select: select cannot watch fds above 1023, and a long grading run may reach them."""
    poller = select.poll()
    poller.register(fd, event)
    while True:
        step = clock.next_wait()
        started = time.monotonic()
        ready = poller.poll(max(1, round(step * 1000)))
        clock.waited_for(time.monotonic() - started)
        if ready:
            return


class DeadlineReader:
    """A buffered `read(n)` stream over a pipe fd for channel.read_frame: one read(2) usually brings a
    whole frame (length, header and payload). Raises Expired when `clock` (settable: one reader serves
    every request of a runner, so no byte read ahead is lost between frames) runs out while waiting."""

    CHUNK = 1 << 16
    MAX_CHUNK = 1 << 20  # never ask read(2) for more: a hostile length must not make us allocate it

    def __init__(self, fd: int, clock: Clock | None = None):
        self.fd, self.clock = fd, clock
        self._buffer = b""

    def read(self, n: int) -> bytes:
        if not self._buffer:
            wait_until(self.fd, select.POLLIN, self.clock)
            self._buffer = os.read(self.fd, min(max(n, self.CHUNK), self.MAX_CHUNK))
        if n >= len(self._buffer):
            data, self._buffer = self._buffer, b""
        else:
            data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data


class DeadlineWriter:
    """A `write(data)` stream over a pipe fd for channel.write_frame; raises Expired when `clock` runs out."""

    def __init__(self, fd: int, clock: Clock | None = None):
        self.fd, self.clock = fd, clock
        os.set_blocking(fd, False)

    def write(self, data) -> int:
        view = memoryview(data)
        while view:
            try:  # the pipe has room, usually: waiting (a poll) only when it is full
                view = view[os.write(self.fd, view):]
            except BlockingIOError:
                wait_until(self.fd, select.POLLOUT, self.clock)
        return len(data)


def widen(fd: int) -> None:
    """Give a pipe PIPE_BYTES of buffer (best effort: the default 64 KiB where the kernel refuses)."""
    try:
        import fcntl

        fcntl.fcntl(fd, 1031, PIPE_BYTES)  # F_SETPIPE_SZ
    except OSError:
        pass


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


class Drain:
    """A runner's output pipe read into an OutputTail by a thread, so a runner printing without end never
    blocks on a full pipe. settle() reads what the pipe holds now: the tail then has everything the runner
    printed before its last reply, which the thread alone might not have read yet. Reads and feeds happen
    under one lock, so the tail keeps the order they were printed in."""

    MAX_SETTLE_CHUNKS = 64  # 4 MiB: a process that never stops printing cannot hold settle() forever

    def __init__(self, fd: int, tail: OutputTail):
        self.fd, self.tail = fd, tail
        self._lock = threading.Lock()
        self._closed = False
        os.set_blocking(fd, False)
        self._thread = threading.Thread(target=self._run, name=f"runner-output-{fd}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        try:
            while not self._closed:
                poller.poll()
                with self._lock:
                    self._take(1)
        except OSError:
            pass
        finally:
            with self._lock:
                self._close()

    def _take(self, chunks: int) -> None:
        """Read up to `chunks` chunks that are already in the pipe (the lock held); at EOF, close it."""
        for _ in range(chunks):
            if self._closed:
                return
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return
            if not data:
                self._close()
                return
            self.tail.feed(data)

    def _close(self) -> None:
        if not self._closed:
            self._closed = True
            os.close(self.fd)

    def settle(self) -> None:
        with self._lock:
            self._take(self.MAX_SETTLE_CHUNKS)

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)


# channel.py (which imports torch) is imported inside send and receive: grade.py starts the forkserver
# before the judge has paid for `import torch`, so the two imports overlap

def send(sock: socket.socket, header: dict, fds: list[int] = ()) -> None:
    """One frame as one SOCK_SEQPACKET packet, with `fds` passed along (SCM_RIGHTS)."""
    from attnlab.grade.protocol.channel import write_frame

    buffer = io.BytesIO()
    write_frame(buffer, header)
    socket.send_fds(sock, [buffer.getvalue()], list(fds), socket.MSG_NOSIGNAL)


def receive(sock: socket.socket, max_fds: int) -> tuple[dict | None, list[int]]:
    """One packet's frame and fds; (None, []) when the peer closed its end. A malformed packet raises
    ConnectionError (an OSError, like every other way the socket can fail)."""
    from attnlab.grade.protocol.channel import ChannelError, read_frame

    data, fds, _flags, _address = socket.recv_fds(sock, MAX_PACKET, max_fds)
    if not data:
        close_all(fds)
        return None, []
    try:
        header, _ = read_frame(io.BytesIO(data), max_payload=0)
    except ChannelError as exc:
        close_all(fds)
        raise ConnectionError(f"malformed packet on the forkserver socket: {exc}") from None
    return header, fds


def close_all(fds: list[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def readable(sock: socket.socket, timeout_s: float) -> bool:
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(max(0, round(timeout_s * 1000))))
