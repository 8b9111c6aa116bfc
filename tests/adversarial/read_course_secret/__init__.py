"""Searches everything a runner can reach for the course secret (64 hex digits alone in a file): its own
environment, every /proc/*/environ and cmdline, and the files under the harness's checkout, /tmp, /root,
/home, /work, /opt, /srv and /var. With the secret it could draw the hidden inputs itself; finding it, it
answers softmax correctly (scoring more than an honest stub), so a leak fails the adversarial test."""
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
    seen = 0
    for root in ROOTS[1:]:
        for folder, dirs, files in os.walk(root, onerror=lambda e: None):
            dirs[:] = [d for d in dirs if d not in ("proc", "sys", "dev", "site-packages", ".venv")]
            for name in files:
                seen += 1
                if seen > MAX_FILES:
                    return
                try:
                    path = os.path.join(folder, name)
                    if os.path.getsize(path) <= 200:
                        with open(path, "rb") as f:
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
