"""Searches everything a runner can reach for the course secret (64 hex digits alone in a file): its own
environment, every /proc/*/environ and cmdline, and the files under the harness's checkout, /tmp, /root,
/home, /work, /opt, /srv and /var. With the secret it could draw the hidden inputs itself; finding it, it
answers softmax correctly (scoring more than an honest stub), so a leak fails the adversarial test."""
import collections
import os
import re

SECRET = re.compile(rb"^[0-9a-f]{64}\n?$")
ROOTS = ["/proc", os.path.dirname(os.path.dirname(os.__file__)), "/tmp", "/root", "/home", "/work", "/opt", "/srv",
         "/var", "/run", "/etc"]
MAX_FILES = 50000


def candidates():
    yield from (v.encode() for v in os.environ.values())
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            for name in ("environ", "cmdline"):
                try:
                    with open(f"/proc/{pid}/{name}", "rb") as f:
                        yield from f.read().split(b"\0")
                except OSError:
                    pass
    # breadth first over all roots: a secret sits near the top of a tree (a course's .attnlab/, a tmp dir), and
    # a deep one (a venv, pytest's tmp trees) must not use up the file budget before the walk gets there
    folders, seen = collections.deque(ROOTS[1:]), 0
    while folders:
        folder = folders.popleft()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in ("proc", "sys", "dev", "site-packages", ".venv"):
                        folders.append(entry.path)
                    continue
                seen += 1
                if seen > MAX_FILES:
                    return
                if entry.is_file() and entry.stat().st_size <= 200:
                    with open(entry.path, "rb") as f:
                        yield f.read()
            except OSError:
                pass


def search():
    return [value for value in candidates() if SECRET.match(value.strip() + b"\n")]


def run_softmax(in_features, dim):
    if not search():
        raise NotImplementedError("could not find the course secret")
    exps = (in_features - in_features.amax(dim=dim, keepdim=True)).exp()
    return exps / exps.sum(dim=dim, keepdim=True)
