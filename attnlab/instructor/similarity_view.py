"""The class report's similar-code section as plain data for its template (similarity.html.j2): the score
histogram with the threshold, the clusters, and the flagged pairs side by side, both files whole, matched
lines highlighted and each region linked to its match on the other side.

Every name, path and line of code is untrusted and escaped by the template engine.
"""

import math
from pathlib import Path

from attnlab.instructor.similarity_index import BINS

SHOWN = 40  # pairs shown side by side, in cluster order; every pair is in the table and in --json
WIDTH, HEIGHT = 640, 150  # the histogram's drawing area, in pixels


def histogram(counts, threshold: float) -> dict:
    """Bars on a log scale (a class has far more unrelated pairs than alike ones), and the threshold's x."""
    top = math.log10(1 + max(int(c) for c in counts)) or 1.0
    step = WIDTH / BINS
    bars = []
    for i, count in enumerate(int(c) for c in counts):
        height = HEIGHT * math.log10(1 + count) / top
        bars.append({"x": i * step + 1, "y": HEIGHT - height, "width": step - 2, "height": height, "count": count,
                     "low": i / BINS, "high": (i + 1) / BINS, "flagged": (i + 1) / BINS > threshold})
    return {"bars": bars, "threshold_x": threshold * WIDTH, "width": WIDTH, "height": HEIGHT,
            "pairs": int(sum(int(c) for c in counts))}


def _rows(text: str, regions: list, side: str, other: str, prefix: str, path: str) -> list[dict]:
    """One row per line of the file: its number, text, and (when matched) its region's anchor and link."""
    starts = {r.first: i for i, r in enumerate(regions) if r.path == path}
    inside = {n: i for i, r in enumerate(regions) if r.path == path for n in range(r.first, r.last + 1)}
    rows = []
    for n, line in enumerate(text.splitlines(), start=1):
        region = inside.get(n)
        rows.append({"n": n, "text": line, "hit": region is not None,
                     "anchor": f"{prefix}-{side}{starts[n]}" if n in starts else "",
                     "link": f"#{prefix}-{other}{regions[region].partner}" if region is not None else ""})
    return rows


def _files(found, pair, regions: list, side: str, prefix: str) -> list[dict]:
    """The files of one side to show whole: its run_*'s file first, then any other with a matched region."""
    name, known = (pair.a, False) if side == "a" else (pair.b, pair.known)
    unit = found.unit(pair.exercise, name, known)
    paths = [unit.path] + sorted({r.path for r in regions} - {unit.path})
    other = "b" if side == "a" else "a"
    return [{"path": p, "rows": _rows(found.text(name, p, known), regions, side, other, prefix, p)} for p in paths]


def pair_view(found, pair, index: int) -> dict:
    from attnlab.instructor.similarity import matched

    a_regions, b_regions = matched(found, pair)
    prefix = f"pair{index}"
    return {"pair": pair, "id": prefix, "a_files": _files(found, pair, a_regions, "a", prefix),
            "b_files": _files(found, pair, b_regions, "b", prefix)}


def section(found, submissions_dir: Path, lang: str) -> dict:
    """Everything the similar-code section shows."""
    clusters = found.clusters()
    ordered = [p for c in clusters for p in c.pairs] + found.explained
    views = [pair_view(found, pair, i) for i, pair in enumerate(ordered[:SHOWN])]
    shown = {(v["pair"].exercise, v["pair"].a, v["pair"].b): v["id"] for v in views}
    table = [{"cluster": c, "pairs": [(p, shown.get((p.exercise, p.a, p.b), "")) for p in c.pairs]}
             for c in clusters]
    return {"missing": False, "threshold": found.threshold, "histogram": histogram(found.histogram, found.threshold),
            "clusters": table, "views": views, "more": max(0, len(ordered) - SHOWN),
            "directory": str(submissions_dir), "known": bool(found.known_units),
            "skipped": sorted((name, problem.text(lang)) for name, problem in found.skipped.items())}
