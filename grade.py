#!/usr/bin/env python3
"""Grade submissions: python grade.py [SUBMISSION ...] --out DIR [--jobs N] [--shard I/N];
combine shard outputs: python grade.py merge DIR [DIR ...] --out DIR. See README.md, "Grading"."""

import sys

from attnlab.grade.batch.cli import main

if __name__ == "__main__":
    sys.exit(main())
