"""The judge's JAX compilation cache (attnlab.grade.judge.compile_cache) is read-only to runners at every
isolation level this machine offers: grade.py is forced to each (--isolation) and grades a submission that
attacks the cache (jax_cache_attack.py) against a cache made as the judge's fill leaves one (root-owned,
0755 directories and 0644 files, in a directory any user may enter). Every attack must fail and the cache
stay as it was, byte for byte, mode for mode. (tests/grade/test_grade_jax.py fills a real one from the
reference and grades the reference again after the same attack.)"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attnlab.core import frameworks, paths
from attnlab.grade.judge import compile_cache
from attnlab.grade.sandbox.levels import Isolation, available

pytestmark = [pytest.mark.e2e,  # starts grade.py and runners
              pytest.mark.skipif(not frameworks.adapter("jax").available(), reason="jax is not installed here")]

SEED = 246813579
LEVELS = [level for level in Isolation if level is not Isolation.RLIMITS_ONLY]


def state(root: Path) -> dict[str, tuple[str, int, int]]:
    return {str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir",
                                       p.stat().st_mode, p.stat().st_uid) for p in sorted(root.rglob("*"))}


def sealed_cache(root: Path, monkeypatch) -> Path:
    """A complete cache for the attention assignment and SEED, as compile_cache.seal leaves one."""
    monkeypatch.setenv(compile_cache.ENV, str(root))
    where = compile_cache.location(frameworks.adapter("jax"), "attention", SEED)
    where.mkdir(parents=True)
    for i in range(4):
        (where / f"jit_exp-{hashlib.sha256(bytes([i])).hexdigest()}-cache").write_bytes(os.urandom(256))
    (where / compile_cache.COMPLETE).write_text("filled from the reference\n")
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return where


@pytest.mark.parametrize("level", LEVELS, ids=str)
def test_no_runner_can_change_or_read_the_compilation_cache(level, tmp_path, monkeypatch):
    if level.drops_uid and os.geteuid() != 0:
        pytest.skip("the root-dropped levels need root")
    if level not in available():
        pytest.skip(f"{level} is not available here (levels.py says what it needs)")
    # where the judge keeps caches as root (/var/cache/...), a directory any user may enter
    root = Path("/var/cache") / f"attnlab-test-{tmp_path.name[-16:]}"
    try:
        sealed_cache(root, monkeypatch)
        before = state(root)
        attacker = tmp_path / "attacker"
        shutil.copytree(paths.template_dir(frameworks.adapter("jax")), attacker,
                        ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(Path(__file__).with_name("jax_cache_attack.py"), attacker / "softmax.py")
        done = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), str(attacker), "--framework", "jax",
                               "--assignment", "attention", "--out", str(tmp_path / "out"), "--isolation", level.value,
                               "--seed", str(SEED), "--jobs", "1"], capture_output=True, text=True, timeout=600,
                              env={**os.environ, compile_cache.ENV: str(root)})
        after = state(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "compiling" not in done.stderr  # the complete cache was used, not filled again
    result = json.loads((tmp_path / "out" / "attacker.json").read_text())
    softmax = next(e for e in result["exercises"] if e["id"] == "softmax")
    assert softmax["status"] == "not_implemented", softmax["feedback"]
    assert "read-only and holds nothing of the reference" in softmax["feedback"], softmax["feedback"]
    assert after == before
