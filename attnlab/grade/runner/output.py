"""The submission's stdout and stderr: never slower than the judge can read, whatever it prints.

Both go to the judge's capped output pipe (fd 1 and 2). Made non-blocking here, a write the pipe cannot
take is dropped instead of stopping the runner until the judge catches up, so a print flood costs the
submission CPU time and nothing else, on a busy machine as on an idle one. sys.stdout and sys.stderr are
replaced by writers that drop on a full pipe (instead of raising BlockingIOError into the student's
print); C-level writes to fd 1/2 are dropped by the kernel's EAGAIN the same way.
"""

import io
import os
import sys


class DroppingWriter(io.TextIOBase):
    """A text stream over `fd` whose writes never block: what the pipe cannot take now is discarded."""

    def __init__(self, fd: int):
        super().__init__()
        self._fd = fd
        self.dropped = 0  # bytes discarded so far
        self.buffer = _RawDropping(self)

    def write(self, text: str) -> int:
        self.write_bytes(str(text).encode("utf-8", "replace"))
        return len(text)

    def write_bytes(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._fd, view)
            except BlockingIOError:
                written = 0
            except OSError:  # the judge closed its end: nobody reads any more
                written = 0
            if not written:
                self.dropped += len(view)
                return
            view = view[written:]

    def fileno(self) -> int:
        return self._fd

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:
        return "utf-8"


class _RawDropping:
    """`sys.stdout.buffer` for code that writes bytes."""

    def __init__(self, owner: DroppingWriter):
        self._owner = owner

    def write(self, data: bytes) -> int:
        self._owner.write_bytes(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass


def never_block() -> None:
    """Make the runner's stdout and stderr non-blocking, and sys.stdout / sys.stderr drop what does not fit."""
    for fd in (1, 2):
        try:
            os.set_blocking(fd, False)
        except OSError:
            pass
    sys.stdout, sys.stderr = DroppingWriter(1), DroppingWriter(2)
