"""Scores of every pair of units for one exercise, counted through a sparse matrix product.

A fingerprint weighs the tokens of its statement (attnlab.instructor.fingerprints); it weighs nothing when
the template has it or when more than max(COMMON_MIN, COMMON_SHARE of the class) submissions do (what
everyone writes). A pair's score is the weight of the fingerprints both have over the weight of the
smaller unit, that weight counted as at least MIN_SIZE: a copy padded with dead code still covers all of
its original, and a few lines alike in two tiny solutions never reach the threshold. A known source is
scored the same way (its weight counts only fingerprints some submission could share with it). Units
with the same fingerprints form one group first (identical copies cost nothing); scipy's sparse
product counts what every two groups share in C, so a class of thousands takes seconds.
"""

from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from attnlab.instructor.units import Unit

THRESHOLD = 0.6  # the default: calibrated in docs/class-report.md ("How the threshold was chosen")
MIN_SIZE = 60  # tokens of statements: a smaller unit's score is scaled down as if it had this many
COMMON_SHARE, COMMON_MIN = 0.1, 10
BINS = 20  # the histogram's bars, each 0.05 of score wide


@dataclass(frozen=True)
class Scored:
    """What one exercise's comparison found: pairs at or above the threshold, and every pair's score
    counted into BINS bins."""

    pairs: list[tuple[str, str, float, int]]  # (a, b, score, shared weight), a < b
    known: list[tuple[str, str, float, int]]  # (submission, known file, score, shared weight)
    histogram: np.ndarray  # pairs of submissions per bin of score
    excluded: frozenset[int]  # fingerprints that weigh nothing


def _matrix(features: list[dict[int, int]], columns: dict[int, int], excluded: frozenset[int],
            grow: bool) -> sparse.csr_matrix:
    rows, cols, weights = [], [], []
    for i, found in enumerate(features):
        for h, w in found.items():
            if h in excluded or (not grow and h not in columns):
                continue
            rows.append(i)
            cols.append(columns.setdefault(h, len(columns)))
            weights.append(w)
    return sparse.csr_matrix((np.asarray(weights, dtype=np.float64), (rows, cols)),
                             shape=(len(features), max(len(columns), 1)))


def _groups(units: dict[str, Unit], excluded: frozenset[int]) -> tuple[list[list[str]], list[dict[int, int]]]:
    by_features: dict[tuple, list[str]] = defaultdict(list)
    kept: dict[tuple, dict[int, int]] = {}
    for name in sorted(units):
        found = {h: w for h, w in units[name].features().items() if h not in excluded}
        key = tuple(sorted(found))
        by_features[key].append(name)
        kept[key] = found
    return list(by_features.values()), [kept[k] for k in by_features]


def _histogram(scores: np.ndarray, counts: np.ndarray, total_pairs: int) -> np.ndarray:
    bins = np.minimum((scores * BINS).astype(int), BINS - 1)
    histogram = np.bincount(bins, weights=counts, minlength=BINS).astype(np.int64)
    histogram[0] += total_pairs - int(counts.sum())  # pairs sharing nothing
    return histogram


def score_exercise(units: dict[str, Unit], template: frozenset[int], known: dict[str, Unit], class_size: int,
                   threshold: float = THRESHOLD) -> Scored:
    seen = Counter(h for unit in units.values() for h in unit.features())
    limit = max(COMMON_MIN, COMMON_SHARE * class_size)
    excluded = frozenset(template | {h for h, n in seen.items() if n > limit})
    groups, features = _groups(units, excluded)
    columns: dict[int, int] = {}
    weighted = _matrix(features, columns, excluded, grow=True)
    present = weighted.copy()
    present.data[:] = 1.0
    size = np.asarray(weighted.sum(axis=1)).ravel()
    shared = sparse.triu(weighted @ present.T, k=1).tocoo()
    floor = np.maximum(np.minimum(size[shared.row], size[shared.col]), MIN_SIZE)
    scores = shared.data / floor
    members = np.array([len(g) for g in groups])
    same = np.minimum(size / np.maximum(size, MIN_SIZE), 1.0)  # two members of a group: identical code
    pairs = [(a, b, float(same[gi]), int(size[gi])) for gi, g in enumerate(groups) if same[gi] >= threshold
             for k, a in enumerate(g) for b in g[k + 1:]]
    flagged = np.flatnonzero(scores >= threshold)  # only these reach Python: a class has millions of others
    for gi, gj, score, n in zip(shared.row[flagged].tolist(), shared.col[flagged].tolist(), scores[flagged].tolist(),
                                shared.data[flagged].tolist()):
        pairs += [(a, b, score, int(n)) if a < b else (b, a, score, int(n)) for a in groups[gi] for b in groups[gj]]
    total = len(units) * (len(units) - 1) // 2
    histogram = _histogram(np.concatenate([scores, same]),
                           np.concatenate([members[shared.row] * members[shared.col], members * (members - 1) // 2]),
                           total)
    return Scored(sorted(pairs), _known(groups, weighted, size, columns, known, excluded, threshold), histogram,
                  excluded)


def _known(groups: list[list[str]], weighted: sparse.csr_matrix, size: np.ndarray, columns: dict[int, int],
           known: dict[str, Unit], excluded: frozenset[int], threshold: float) -> list[tuple[str, str, float, int]]:
    if not known or not groups:
        return []
    paths = sorted(known)
    sources = _matrix([known[p].features() for p in paths], columns, excluded, grow=False)
    source_size = np.asarray(sources.sum(axis=1)).ravel()  # of what a student could share with it
    sources.data[:] = 1.0
    shared = (weighted @ sources.T).tocoo()
    scores = shared.data / np.maximum(np.minimum(size[shared.row], source_size[shared.col]), MIN_SIZE)
    found = []
    for i in np.flatnonzero(scores >= threshold):
        gi, kj = shared.row[i], shared.col[i]
        found += [(name, paths[kj], float(scores[i]), int(shared.data[i])) for name in groups[gi]]
    return sorted(found)
