"""A notebook submission in the class report: its feedback linked to its cells.

grade.py records, for a submission graded from a notebook, its code cells and the cell defining each run_*
(result "notebook", attnlab.grade.batch.notebooks). The report shows those cells, each with an anchor, links
every exercise to the cell defining its function, and turns each "cell 14" in the feedback (English or
Chinese, as graded) into a link to that cell. Everything here is plain data: the template escapes it.
"""

import re

CELL_MENTION = re.compile(r"\bcell (\d+)\b|第 (\d+) 个单元格")
CELL_CAP = 20_000  # characters of one cell shown
CELLS_SHOWN = 400


def cell_anchor(section: str, cell: int) -> str:
    return f"{section}-cell-{cell}"


def linked(text: str, section: str, cells: set[int]) -> list[tuple[str, str | None]]:
    """`text` as (piece, anchor or None) pieces: each mention of a cell the notebook has links to it."""
    pieces, at = [], 0
    for match in CELL_MENTION.finditer(text):
        cell = int(match.group(1) or match.group(2))
        if cell not in cells:
            continue
        pieces += [(text[at:match.start()], None), (match.group(0), cell_anchor(section, cell))]
        at = match.end()
    pieces.append((text[at:], None))
    return [(piece, anchor) for piece, anchor in pieces if piece]


def notebook_view(result: dict, section: str) -> dict | None:
    """What the section shows of the notebook (None for a package): its file, notes and code cells."""
    notebook = result.get("notebook")
    if not isinstance(notebook, dict):
        return None
    cells = [c for c in notebook.get("cells") or () if isinstance(c, dict) and isinstance(c.get("cell"), int)]
    return {"file": str(notebook.get("file", "")), "notes": [str(n) for n in notebook.get("notes") or ()],
            "cells": [{"cell": c["cell"], "anchor": cell_anchor(section, c["cell"]),
                       "source": str(c.get("source", ""))[:CELL_CAP]} for c in cells[:CELLS_SHOWN]],
            "functions": {str(k): v for k, v in (notebook.get("functions") or {}).items() if isinstance(v, int)}}


def exercise_links(view: dict | None, section: str, function: str | None, feedback: str) -> dict:
    """An exercise's link to its function's cell and its feedback in linked pieces (plain for a package)."""
    if view is None:
        return {"cell": None, "pieces": [(feedback, None)] if feedback else []}
    cells = {c["cell"] for c in view["cells"]}
    cell = view["functions"].get(function or "")
    return {"cell": (cell, cell_anchor(section, cell)) if cell in cells else None,
            "pieces": linked(feedback, section, cells)}
