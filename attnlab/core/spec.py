"""Exercise specs: YAML in spec/, loaded into frozen dataclasses and validated.

A bad spec fails with SpecError naming the file, the key path and what was expected, e.g.
`spec/softmax.yaml: cases[2].args.in_features.dtype: expected one of [...], got 'float'`.
"""

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from attnlab.core.frameworks.names import DEFAULT as DEFAULT_FRAMEWORK
from attnlab.core.frameworks.names import KERNELS_ONLY, TRITON_LIBRARY
from attnlab.core.frameworks.names import NAMES as FRAMEWORKS

# "derived": a tensor computed from the case's other arguments by a function its spec/<id>.py names in DERIVED
# (a backward pass's O and L, which must be the forward pass of its Q, K and V)
ARG_KINDS = ("tensor", "literal", "positions", "mask", "generator", "randint", "device", "derived")
TENSOR_DTYPES = ("float32", "float64", "bfloat16", "float16")
CASE_CHECKS = ("value",)


class SpecError(ValueError):
    pass


@dataclass(frozen=True)
class Text:
    en: str
    zh: str

    def get(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en


@dataclass(frozen=True)
class Tolerance:
    atol: float
    rtol: float


@dataclass(frozen=True)
class ArgRecipe:
    kind: str  # "value" (a plain YAML scalar) or one of ARG_KINDS
    value: Any = None  # the scalar, the literal nested list, the (low, high) range of a randint, or for "derived"
    # the function of the other arguments (its name while the spec loads)
    shape: tuple[int, ...] = ()
    dtype: str = "float32"
    seed: int = 0
    dist: str = "normal"
    scale: Any = 1.0  # a number or a nested list broadcast against the shape
    offset: float = 0.0
    layout: str = "contiguous"
    order: str = "arange"  # positions: arange | shuffled | random
    max_position: int = 4096
    pattern: str = "causal"  # mask: causal | random (..., queries, keys); padding (..., keys)

    @property
    def is_float_data(self) -> bool:
        """A floating-point tensor of data (not a mask): outputs keep the dtype and device of such inputs."""
        return self.kind in ("tensor", "derived") or (self.kind == "literal" and self.dtype in TENSOR_DTYPES)


@dataclass(frozen=True)
class CaseBudget:
    """A case's memory budget: no tensor over `tensor_mb` (attnlab.core.memory), no tile of a Triton kernel
    longer than `tile_side` along any axis (attnlab.core.frameworks.kernels.tile_budget)."""

    tensor_mb: float | None = None
    tile_side: int | None = None

    @staticmethod
    def of(value: "CaseBudget | float | None") -> "CaseBudget":
        """A budget as call_many is given it: a CaseBudget, a tensor budget in MB alone, or None."""
        return value if isinstance(value, CaseBudget) else CaseBudget(tensor_mb=value)


@dataclass(frozen=True)
class CaseSpec:
    name: str
    visible: bool
    args: Mapping[str, ArgRecipe]
    checks: tuple[str, ...]
    note: str = ""
    max_tensor_mb: float | None = None  # no tensor the submission makes may be larger (attnlab.core.memory)
    max_tile_side: int | None = None  # no tile a Triton kernel loads or computes may be longer along any axis

    @property
    def budget(self) -> "CaseBudget | None":
        """What its calls are held to, or None (no budget)."""
        if self.max_tensor_mb is None and self.max_tile_side is None:
            return None
        return CaseBudget(self.max_tensor_mb, self.max_tile_side)

    @property
    def diagnosed(self) -> bool:
        """Whether a wrong output here is matched against the misconceptions. Not in a case with a tensor
        budget: it is long by design, its misconception outputs would weigh megabytes in the fixture (so a
        student's local run could not name them) and cost seconds to compute when grading, and the shorter
        cases name the same mistakes."""
        return self.max_tensor_mb is None


@dataclass(frozen=True)
class PropertySpec:
    name: str
    check: str  # the law's name: the exercise's own (spec/<id>.py) or a generic one (attnlab.core.laws)
    visible: bool
    params: Mapping[str, Any]
    law: Callable[..., None] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Output:
    """One returned tensor: its name (in feedback and fixtures) and the argument whose dtype and device it
    keeps (None: no floating-point input, e.g. a mask built from an integer)."""

    name: str
    like: str | None
    # the output may be the argument it is `like` itself (not a new tensor) when a call's arguments hold all
    # the values of one of these mappings: where the framework's own operation returns its input (dropout in
    # eval mode or with p = 0: torch.nn.Dropout, mindspore.nn.Dropout)
    identity_when: tuple[Mapping[str, Any], ...] = ()

    def may_be_input(self, args: Mapping[str, Any]) -> bool:
        return any(all(_same_value(args.get(name, _ABSENT), value) for name, value in when.items())
                   for when in self.identity_when)


_ABSENT = object()


def _same_value(got: Any, wanted: Any) -> bool:
    """A call's plain argument equals a spec's value (False is not 0; a tensor or generator never matches)."""
    plain = (bool, int, float, str, type(None))
    return (isinstance(got, plain) and isinstance(got, bool) == isinstance(wanted, bool) and got == wanted)


@dataclass(frozen=True)
class Misconception:
    id: str
    message: Text


@dataclass(frozen=True)
class FrameworkWords:
    """What one framework's students read instead of the spec's general text, which names torch's API: the
    spec gives it beside `en` and `zh` (`hints: {en: [...], zh: [...], numpy: {en: [...], zh: [...]}}`, the same
    in `description:` and a misconception's `message:`). None, or a misconception left out: the general text."""

    description: Text | None = None
    hints: Mapping[str, tuple[str, ...]] | None = None  # lang -> hints
    messages: Mapping[str, Text] = field(default_factory=dict)  # misconception id -> message

    def replacing(self, spec: "ExerciseSpec") -> dict[str, Any]:
        """The fields of `spec` these words replace (for dataclasses.replace)."""
        changed: dict[str, Any] = {}
        if self.description is not None:
            changed["description"] = self.description
        if self.hints is not None:
            changed["hints"] = self.hints
        if self.messages:
            changed["misconceptions"] = tuple(dataclasses.replace(m, message=self.messages.get(m.id, m.message))
                                              for m in spec.misconceptions)
        return changed


@dataclass(frozen=True)
class ExerciseSpec:
    id: str
    function: str
    module: str
    title: Text
    description: Text
    points: float
    hints: Mapping[str, tuple[str, ...]]
    forbidden: tuple[str, ...]
    tolerance: Mapping[str, Tolerance]
    tolerance_why: str
    cases: tuple[CaseSpec, ...]
    properties: tuple[PropertySpec, ...]
    misconceptions: tuple[Misconception, ...]
    returns: tuple[Output, ...] = (Output("output", None),)
    path: Path = field(compare=False, default=Path())
    kind: str = "function"
    frameworks: tuple[str, ...] = FRAMEWORKS  # what it can be written in
    # a framework's own tolerances for some dtypes (spec `tolerance: <framework>: {float64: ...}`)
    framework_tolerance: Mapping[str, Mapping[str, Tolerance]] = field(default_factory=dict, compare=False)
    # a framework's own description, hints and misconception messages (FrameworkWords)
    framework_words: Mapping[str, FrameworkWords] = field(default_factory=dict, compare=False)
    # the exercise as the spec writes it, when this is its in_framework() copy; None when this is it
    general: "ExerciseSpec | None" = field(default=None, compare=False, repr=False)

    def in_framework(self, framework: str) -> "ExerciseSpec":
        """The exercise as graded in `framework`, always made from the spec's general one (so a copy already in
        one framework can be put in another): where the spec gives that framework its own tolerance for a
        dtype, it replaces the general one (MindSpore rounds Python floats met by float64 tensors to float32),
        and its own description, hints and misconception messages replace the general ones, which name
        torch's API."""
        general = self.general or self
        tolerance, words = general.framework_tolerance.get(framework), general.framework_words.get(framework)
        if not tolerance and words is None:
            return general
        changed = words.replacing(general) if words is not None else {}
        if tolerance:
            changed["tolerance"] = {**general.tolerance, **tolerance}
        return dataclasses.replace(general, general=general, **changed)

    def hint(self, lang: str) -> str:
        return " ".join(self.hints.get(lang) or self.hints["en"])

    @property
    def needs_triton(self) -> bool:
        """Its result must come from Triton kernels (`forbidden: [triton.kernels_only]`): they take torch
        tensors, so in another framework the exercise is not applicable rather than unwritable."""
        return KERNELS_ONLY in self.forbidden


@dataclass(frozen=True)
class QuizQuestion:
    id: str
    kind: str  # "numeric" | "choice"
    prompt: Text
    points: float
    choices: Mapping[str, Text]
    tolerance: float


@dataclass(frozen=True)
class QuizSpec:
    id: str
    title: Text
    description: Text
    points: float
    answers_file: str
    questions: tuple[QuizQuestion, ...]
    path: Path = field(compare=False, default=Path())
    function: None = None
    kind: str = "quiz"



@dataclass(frozen=True)
class Assignment:
    """One graded unit of the course: its exercises (in order) add up to `total_points`."""

    id: str
    title: Text
    total_points: float
    exercise_ids: tuple[str, ...]
    framework: str  # what students write it in (one of FRAMEWORKS; course.yaml's default: DEFAULT_FRAMEWORK)
    libraries: tuple[str, ...] = ()  # what its code may import besides the course's (installed only for it)


@dataclass(frozen=True)
class Course:
    """The course as one assignment sees it: `exercises`, `total_points` and `title` are that assignment's;
    `everything` holds every exercise of every assignment (generation, the mutation corpus, notebooks)."""

    title: Text
    total_points: float
    exercises: tuple[ExerciseSpec | QuizSpec, ...]
    libraries: tuple[str, ...] = ()  # what student code may import besides the standard library and torch
    assignment: Assignment | None = None
    assignments: tuple[Assignment, ...] = ()
    everything: tuple[ExerciseSpec | QuizSpec, ...] = ()
    # the assignment's exercises that do not apply in its framework (Triton kernels outside torch): not
    # graded, not handed out, not in total_points; results and summaries list them as not applicable
    not_applicable: tuple[ExerciseSpec, ...] = ()

    @property
    def answers_files(self) -> frozenset[str]:
        """The quizzes' answers files (a notebook's `%%writefile` of one is data, never run)."""
        return frozenset(e.answers_file for e in self.exercises if isinstance(e, QuizSpec))

    @property
    def package_markers(self) -> frozenset[str]:
        """The files that make a directory the student's package, with or without __init__.py beside them:
        the exercises' modules and the quizzes' answers files."""
        return self.answers_files | {f"{e.module}.py" for e in self.exercises if not isinstance(e, QuizSpec)}

    def get(self, exercise_id: str) -> ExerciseSpec | QuizSpec:
        for ex in self.exercises:
            if ex.id == exercise_id:
                return ex
        raise KeyError(f"no exercise {exercise_id!r}; known: {', '.join(e.id for e in self.exercises)}")

    def find(self, exercise_id: str) -> ExerciseSpec | QuizSpec:
        """The exercise `exercise_id` of any assignment."""
        for ex in self.everything or self.exercises:
            if ex.id == exercise_id:
                return ex
        raise KeyError(f"no exercise {exercise_id!r}; known: {', '.join(e.id for e in self.everything)}")

    @property
    def every_library(self) -> tuple[str, ...]:
        """What code may import in a run over every assignment's exercises (the repository's own pytest):
        the course's libraries and each assignment's own (triton for `systems`)."""
        return tuple(dict.fromkeys((*self.libraries, *(name for a in self.assignments for name in a.libraries))))

    @property
    def coded(self) -> tuple[ExerciseSpec, ...]:
        return tuple(e for e in self.exercises if isinstance(e, ExerciseSpec))

    @property
    def all_coded(self) -> tuple[ExerciseSpec, ...]:
        """Every coded exercise of every assignment."""
        return tuple(e for e in self.everything or self.exercises if isinstance(e, ExerciseSpec))

    @property
    def framework(self) -> str:
        return self.assignment.framework if self.assignment else DEFAULT_FRAMEWORK

    @property
    def assignment_id(self) -> str:
        """The graded assignment's id, as results record it ("attention" for a course loaded without one)."""
        return self.assignment.id if self.assignment else "attention"


def in_assignment(assignment: Assignment, exercises: Mapping[str, "ExerciseSpec | QuizSpec"],
                  course_libraries: tuple[str, ...]) -> dict[str, Any]:
    """The Course fields that depend on where `assignment` is graded (assignment.framework): its exercises
    in that framework and those not applicable there, its total and its libraries. An exercise that needs
    Triton is not applicable outside torch (its points leave the total, and triton leaves the libraries
    when nothing left needs it); any other exercise the framework cannot be written in is refused."""
    framework, applicable, left_out = assignment.framework, [], []
    for i in assignment.exercise_ids:
        ex = exercises[i]
        if not isinstance(ex, ExerciseSpec):
            applicable.append(ex)
        elif framework in ex.frameworks:
            applicable.append(ex.in_framework(framework))
        elif ex.needs_triton:
            left_out.append(ex)
        else:
            raise SpecError(f"assignment {assignment.id!r} is graded in {framework}, but exercise {i!r} can only "
                            f"be written in {', '.join(ex.frameworks)} (spec/{i}.yaml frameworks:)")
    libraries = tuple(dict.fromkeys((*course_libraries, *assignment.libraries)))
    if left_out and not any(isinstance(e, ExerciseSpec) and e.needs_triton for e in applicable):
        libraries = tuple(name for name in libraries if name != TRITON_LIBRARY)
    return {"exercises": tuple(applicable), "not_applicable": tuple(left_out), "libraries": libraries,
            "total_points": assignment.total_points - sum(e.points for e in left_out)}
