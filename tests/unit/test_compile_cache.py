"""The grading compilation cache's files (attnlab.grade.judge.compile_cache): where it lives, what a fill
keeps, and how a runner sees it. The sandbox's side (read-only at every level) is tests/grade/
test_grade_jax_cache.py; a real fill and an attack on it, tests/grade/test_grade_jax.py."""

import os
from pathlib import Path

from attnlab.core import frameworks
from attnlab.grade.judge import compile_cache
from attnlab.grade.sandbox.launch import cache_as_seen

KEY = "0" * 64


def entry(name: str) -> str:
    return f"{name}-{KEY}-cache"


def test_the_cache_is_per_framework_version_assignment_and_seed_and_hides_the_seed(monkeypatch, tmp_path):
    monkeypatch.setenv(compile_cache.ENV, str(tmp_path))
    jax = frameworks.adapter("jax")
    where = compile_cache.location(jax, "attention", 123456789)
    assert where.parent == tmp_path / jax.compile_cache_key() and where.name.startswith("attention-")
    assert "123456789" not in str(where)
    assert where != compile_cache.location(jax, "attention", 123456788)
    assert where != compile_cache.location(jax, "modern", 123456789)
    assert compile_cache.location(frameworks.adapter("torch"), "attention", 1) is None  # compiles nothing
    assert compile_cache.location(jax, "attention", None) is None
    monkeypatch.setenv(compile_cache.ENV, "off")
    assert compile_cache.location(jax, "attention", 1) is None


def test_a_fill_keeps_only_what_the_library_compiled(tmp_path):
    reference = tmp_path / "reference"
    reference.mkdir()
    (reference / "flash.py").write_text("import jax\n\n@jax.jit\ndef _online_step(x):\n    return x\n")
    filled = tmp_path / ".filling"
    filled.mkdir(mode=0o700)
    kept = [entry("jit_exp"), entry("jit_matmul"), entry("jit__where")]
    dropped = [entry("jit__online_step"), entry("jit_scan"), entry("jit_while"), entry("jit__lambda_"), "notes.txt"]
    for name in kept + dropped:
        (filled / name).write_bytes(b"x")
    final = tmp_path / "attention-abc"
    assert compile_cache.seal(filled, final, reference) == final
    assert sorted(p.name for p in final.iterdir()) == sorted([*kept, compile_cache.COMPLETE])
    assert compile_cache.complete(final) and final.stat().st_mode & 0o777 == 0o755
    # a second fill that finished later (another shard) is discarded; the first stays
    late = tmp_path / ".late"
    late.mkdir()
    (late / entry("jit_add")).write_bytes(b"y")
    compile_cache.seal(late, final, reference)
    assert not late.exists() and not (final / entry("jit_add")).exists()


def test_a_harvest_copies_entries_as_the_judges_files_and_follows_no_link(tmp_path):
    written, into = tmp_path / "written", tmp_path / "into"
    written.mkdir()
    into.mkdir()
    (written / entry("jit_exp")).write_bytes(b"compiled")
    (written / entry("jit_exp")).chmod(0o600)
    secret = tmp_path / "secret"
    secret.write_text("the judge's")
    os.symlink(secret, written / entry("jit_add"))
    (written / "stray").write_text("not an entry")
    compile_cache.harvest(written, into)
    assert sorted(p.name for p in into.iterdir()) == [entry("jit_exp")]
    assert (into / entry("jit_exp")).stat().st_mode & 0o777 == 0o644
    compile_cache.harvest(tmp_path / "missing", into)  # a runner that died before making it: nothing


def test_a_runner_writes_only_a_cache_in_its_scratch_dir_and_reads_any_other(tmp_path):
    scratch = tmp_path / "runner-1"
    assert cache_as_seen(scratch / "compile-cache", scratch, "/tmp/scratch") == ("/tmp/scratch/compile-cache", [])
    shared = Path("/var/cache/attnlab/grading/jax-1/attention-abc")
    assert cache_as_seen(shared, scratch, "/tmp/scratch") == (str(shared), [str(shared)])
    assert cache_as_seen(None, scratch, "/tmp/scratch") == (None, [])


def test_the_cache_is_per_xla_flags(monkeypatch):
    """JAX's own keys hold the XLA flags: a cache sealed under the flags of another attnlab would only miss, so
    it is not the one found."""
    from attnlab.core.frameworks import for_jax

    jax = frameworks.adapter("jax")
    now = jax.compile_cache_key()
    monkeypatch.setattr(for_jax, "quick_compile_flags", lambda: for_jax.QUICK_COMPILE_FLAGS)
    assert jax.compile_cache_key() != now and jax.compile_cache_key().startswith(now.rsplit("-xla-", 1)[0])
