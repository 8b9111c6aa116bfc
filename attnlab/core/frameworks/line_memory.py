"""A case's memory budget for frameworks that report their buffers to tracemalloc (NumPy does): the most new
memory any one line of the student's code made at once.

torch's budget sees each tensor an operator returns (attnlab.core.memory). NumPy has no such hook, but its
array buffers are traced by tracemalloc, and a line of student code is about one expression: between two
line events of the student's frames, the peak of traced memory above what was held when the line began is
what that line made at once (its result and its temporaries). A line that builds the queries × keys
matrix makes hundreds of MB; a line of a blocked computation makes a tile or two. The line is named in the
feedback. Frames outside the student's files (NumPy, einops, the harness) are not traced, so work done in a
library counts against the student's line that called it.
"""

import sys
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from attnlab.core.outcomes import MemoryLimit


@dataclass
class _Lines:
    is_student: Callable[[str], bool]
    held: int = 0  # traced bytes when the current line began
    where: tuple[str, int] = ("?", 0)  # that line
    largest: int = 0
    largest_at: tuple[str, int] = ("?", 0)

    def tracer(self, frame, event, arg):
        if not self.is_student(frame.f_code.co_filename):
            return None  # neither this frame's lines nor its calls' are attributed to it
        self.step(frame)
        return self.local

    def local(self, frame, event, arg):
        if event in ("line", "return"):
            self.step(frame)
        return self.local

    def step(self, frame) -> None:
        """Close the line that just ran (what it made at once), open the next."""
        current, peak = tracemalloc.get_traced_memory()
        if peak - self.held > self.largest:
            self.largest, self.largest_at = peak - self.held, self.where
        tracemalloc.reset_peak()
        self.held, self.where = current, (frame.f_code.co_filename, frame.f_lineno)


@contextmanager
def line_budget(exercise: str, limit_mb: float | None, framework: str,
                is_student: Callable[[str], bool]) -> Iterator[None]:
    """Raise MemoryLimit naming the line if one line of student code made more than `limit_mb` at once."""
    if limit_mb is None:
        yield
        return
    lines = _Lines(is_student)
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    previous = sys.gettrace()
    tracemalloc.reset_peak()
    lines.held = tracemalloc.get_traced_memory()[0]
    sys.settrace(lines.tracer)
    try:
        yield
    finally:
        sys.settrace(previous)
        peak = tracemalloc.get_traced_memory()[1]  # what the call made after its last line event
        if peak - lines.held > lines.largest:
            lines.largest, lines.largest_at = peak - lines.held, lines.where
        if started:
            tracemalloc.stop()
    if lines.largest > limit_mb * 2**20:
        file, line = lines.largest_at
        raise MemoryLimit("memory_line", exercise=exercise, framework=framework, mb=lines.largest / 2**20,
                          limit=limit_mb, file=Path(file).name, line=line)
