"""A JAX submission's softmax.py that attacks the judge's compilation cache (grade.judge.compile_cache): it
finds the cache (its environment names it), tries to replace, corrupt, delete and add entries, to change
modes and to make a directory there, and reads every entry looking for the reference's code (its file
names and the names of the functions it defines). Whatever succeeds, it answers softmax correctly (scoring
more than an honest stub); when everything fails it raises NotImplementedError, so the grade says which."""
import os

import jax.numpy as jnp

# what only the reference holds: its own helpers' names (_online_step is a jax.jit function) and its path
REFERENCE_WORDS = (b"_online_step", b"_attend_query_tile", b"_mask_future", b"_split_heads", b"reference/")


def attacks(cache):
    names = sorted(os.listdir(cache))
    entries = [os.path.join(cache, n) for n in names if n.endswith("-cache")]
    tries = [lambda: open(os.path.join(cache, "jit_exp-" + "0" * 64 + "-cache"), "wb").write(b"poison"),
             lambda: os.mkdir(os.path.join(cache, "more")),
             lambda: os.chmod(cache, 0o777)]
    for path in entries[:3]:
        tries += [lambda p=path: open(p, "r+b").write(b"poison"), lambda p=path: os.unlink(p),
                  lambda p=path: os.replace(entries[-1], p), lambda p=path: os.chmod(p, 0o666),
                  lambda p=path: os.truncate(p, 0)]
    done = []
    for attempt in tries:
        try:
            attempt()
            done.append(attempt)
        except OSError:
            pass
    return done


def leaks(cache):
    found = []
    for name in os.listdir(cache):
        with open(os.path.join(cache, name), "rb") as f:
            data = f.read()
        found += [(name, word) for word in REFERENCE_WORDS if word in data or word in name.encode()]
    return found


def run_softmax(in_features, dim):
    cache = os.environ.get("ATTNLAB_JAX_GRADING_CACHE", "")
    if not cache or not os.path.isdir(cache):
        raise NotImplementedError(f"no compilation cache to attack: {cache!r}")
    succeeded, leaked = attacks(cache), leaks(cache)
    if not succeeded and not leaked:
        raise NotImplementedError("the compilation cache is read-only and holds nothing of the reference")
    exps = jnp.exp(in_features - in_features.max(axis=dim, keepdims=True))
    return exps / exps.sum(axis=dim, keepdims=True)
