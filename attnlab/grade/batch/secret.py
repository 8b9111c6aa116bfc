"""The course secret: one random value, made once, from which every assignment's hidden inputs are drawn, so the
same code gets the same score in every grading run and on every machine (a laptop, Gradescope's image, the
shards of a cluster), and a regrade can be defended.

It lives in $ATTNLAB_SECRET_FILE, else <project>/.attnlab/course-secret: 64 hex digits, mode 0600 in a 0700
directory. .gitignore keeps it out of git, the handout's allow-list out of every handout; the Gradescope release
carries it (the autograder zip is the staff's). A runner never sees it: grade.py hides it like reference/
(judge.hidden_paths_for), and it is in no environment or command line.

    python -m attnlab.instructor.secret init     # make one where there is none (grade.py does, on first use)
    python -m attnlab.instructor.secret rotate   # a new one: every hidden input changes from the next run on
    python -m attnlab.instructor.secret show     # its fingerprint (never the secret): compare two machines
"""

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from attnlab.core import paths

DEFAULT_FILE = paths.ROOT / ".attnlab" / "course-secret"
ENV = "ATTNLAB_SECRET_FILE"
SIZE = 32  # bytes


class SecretError(ValueError):
    """The secret file exists but cannot be used (a usage error naming the file)."""


def secret_file() -> Path:
    return Path(os.environ[ENV]).expanduser() if os.environ.get(ENV) else DEFAULT_FILE


def read(path: Path) -> bytes | None:
    """The secret in `path`, or None where there is none yet."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise SecretError(f"{path}: cannot read the course secret ({exc})") from None
    try:
        value = bytes.fromhex(text)
    except ValueError:
        value = b""
    if len(value) != SIZE:
        raise SecretError(f"{path}: expected the course secret, {2 * SIZE} hex digits, on one line; remake it with "
                          "`python -m attnlab.instructor.secret rotate` (every hidden input changes)")
    return value


def write(path: Path) -> bytes:
    """A new secret in `path` (readable by its owner alone), replacing any there was."""
    value = secrets.token_bytes(SIZE)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(value.hex() + "\n")
    tmp.replace(path)
    return value


def ensure(path: Path) -> tuple[bytes, bool]:
    """The secret in `path`, made there first if there is none; and whether it was just made."""
    found = read(path)
    return (found, False) if found is not None else (write(path), True)


def fingerprint(value: bytes) -> str:
    """A short public name of a secret: equal on two machines exactly when their secrets are equal."""
    return hashlib.sha256(b"attnlab course secret fingerprint\0" + value).hexdigest()[:12]


def assignment_seed(value: bytes, assignment: str) -> int:
    """The seed an assignment's hidden inputs are drawn from: a keyed hash, so one assignment's seed tells
    nothing about another's or about the secret."""
    digest = hmac.new(value, b"attnlab hidden inputs\0" + assignment.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 2  # 62 bits, as --seed takes
