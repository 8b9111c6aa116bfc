"""What a release installs: the project's own requirements, a core dependency's pin winning over an extra's."""

import tomllib

from attnlab.core import frameworks, paths
from attnlab.instructor.packaging import HANDOUT_DEPS, framework_requirements, requirements


def test_a_core_dependency_keeps_its_own_pin_over_an_extras():
    """MindSpore's extra pins numpy<2 for its own venv; a torch, NumPy or JAX handout (and the notebooks' install
    cell) must get the core numpy, or installing it downgrades NumPy under JAX."""
    core = tomllib.loads((paths.ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    assert requirements(("numpy",)) == [next(r for r in core if r.startswith("numpy"))]
    for name in ("torch", "numpy", "jax"):
        wanted = requirements(HANDOUT_DEPS) + framework_requirements(frameworks.adapter(name))
        assert not any(r.startswith("numpy") and "<2" in r for r in wanted), (name, wanted)
    assert "numpy>=1.25,<2" in framework_requirements(frameworks.adapter("mindspore"))
    assert requirements(("triton",)) == ["triton==3.7.1"]  # an assignment's library, from its extra
