"""Which assignment, framework and device a student tool works on: `--assignment`, `--framework` and
`--device` for attnlab and pytest (ini `attnlab_assignment`, `attnlab_framework`), keyword arguments of the
notebook's check(). The defaults come from course.yaml: its first assignment, in that assignment's framework,
on the CPU; a handout's course.yaml holds just the one assignment it was built for."""

from dataclasses import dataclass

from attnlab.core import frameworks, paths
from attnlab.core.spec import Course
from attnlab.core.spec_load import load_course


@dataclass(frozen=True)
class Choice:
    assignment: str | None = None
    framework: str | None = None
    device: str = "cpu"

    def course(self) -> Course:
        """The course as chosen; ValueError (a usage error) when its framework is not installed here or cannot
        run on the device, SpecError when the assignment does not exist or refuses the framework."""
        course = load_course(paths.SPEC_DIR, self.assignment, self.framework)
        frameworks.check_usable(course.framework, self.device)
        return course
