"""The course secret from which grading draws every hidden input (attnlab.grade.batch.secret says why and where).

    python -m attnlab.instructor.secret init     # make it where there is none yet (grade.py does on first use)
    python -m attnlab.instructor.secret show     # where it is and its fingerprint (never the secret itself)
    python -m attnlab.instructor.secret rotate   # a new secret: every hidden input changes from the next run

Rotate when the secret may have leaked (a student saw the autograder zip), then rebuild the Gradescope release
(`python -m attnlab.instructor.release autograder`), which carries it, and regrade into a new --out.
"""

import argparse
import sys

from attnlab.grade.batch import secret


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attnlab.instructor.secret", description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["init", "show", "rotate"])
    opts = parser.parse_args(argv)
    path = secret.secret_file()
    try:
        if opts.what == "rotate":
            value, said = secret.write(path), "a new course secret"
        else:
            value, made = secret.ensure(path) if opts.what == "init" else (secret.read(path), False)
            if value is None:
                print(f"no course secret at {path} yet: `python -m attnlab.instructor.secret init` makes one",
                      file=sys.stderr)
                return 1
            said = "made the course secret" if made else "the course secret"
    except (secret.SecretError, OSError) as exc:
        print(f"python -m attnlab.instructor.secret: {exc}", file=sys.stderr)
        return 2
    print(f"{said}: {path} (fingerprint {secret.fingerprint(value)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
