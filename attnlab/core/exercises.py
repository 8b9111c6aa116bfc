"""An exercise's own Python: spec/<id>.py beside spec/<id>.yaml, found by the exercise's id.

It is optional and may define:
- laws that serve this exercise only (functions marked `@law`, named in the spec's `properties:`);
- MESSAGES: the sentences of those laws, {key: {"en": ..., "zh": ...}}, used as "<id>.<key>";
- PICTURE: what `attnlab viz <id>` draws (attnlab.student.viz.Picture);
- DERIVED: {name: function(args) -> tensor}, what a case's `{derived: name}` argument is computed from its
  other arguments (a backward pass's forward outputs);
- example(generator, lead, dtype) -> (kwargs, batched argument name): a call with leading dims `lead`,
  which the reference's own tests use for shape, dtype and batching checks.
Nothing outside the exercise's files names it: adding an exercise adds spec/<id>.yaml (and .py), its
reference and misconceptions, its mutations, and one line in spec/course.yaml.
"""

import functools
import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from attnlab.core import i18n, laws


@dataclass(frozen=True)
class ExerciseCode:
    laws: dict[str, Callable[..., None]] = field(default_factory=dict)
    picture: Any = None
    example: Callable | None = None
    module: ModuleType | None = None
    derived: dict[str, Callable[[dict], Any]] = field(default_factory=dict)

    def find_law(self, name: str) -> Callable[..., None] | None:
        """The law `name`: this exercise's own, else a generic one."""
        return self.laws.get(name) or laws.GENERIC.get(name)

    def law_names(self) -> list[str]:
        return sorted({*self.laws, *laws.GENERIC})


@functools.cache
def code_for(spec_dir: Path, exercise_id: str) -> ExerciseCode:
    """What spec_dir/<exercise_id>.py defines (an empty ExerciseCode when there is no such file)."""
    path = Path(spec_dir) / f"{exercise_id}.py"
    if not path.is_file():
        return ExerciseCode()
    module = _import(path, exercise_id)
    own = {name: fn for name, fn in vars(module).items() if callable(fn) and getattr(fn, "is_law", False)
           and getattr(fn, "__module__", None) == module.__name__}
    i18n.register(exercise_id, getattr(module, "MESSAGES", {}), source=str(path))
    return ExerciseCode(laws=own, picture=getattr(module, "PICTURE", None), example=getattr(module, "example", None),
                        module=module, derived=getattr(module, "DERIVED", {}))


def _import(path: Path, exercise_id: str) -> ModuleType:
    name = f"attnlab_exercise_{exercise_id}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling-free introspection look modules up by name
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise ImportError(f"{path}: {type(exc).__name__}: {exc}") from exc
    return module
