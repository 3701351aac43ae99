"""Numbered, captioned figures: :func:`lib.core.plots.show` marks a figure's output with its caption and label;
after a chapter executes, :func:`caption_cells` moves them into the cell's MyST-NB metadata (``mystnb.figure``,
and the caption as the image's alt text), so that the site numbers and captions the figure.
"""
from __future__ import annotations

from typing import Any

from lib.core.plots import FIGURE_KEY


def caption_cells(nb: Any) -> int:
    """Caption every cell whose one display output carries a figure mark; returns how many. A cell with more than
    one display output is an error (MyST-NB would wrap each in the same figure)."""
    n = 0
    for i, cell in enumerate(nb.cells):
        marks = [o["metadata"][FIGURE_KEY] for o in cell.get("outputs", [])
                 if FIGURE_KEY in o.get("metadata", {})]
        if not marks:
            continue
        displays = [o for o in cell.outputs if o.get("output_type") in ("display_data", "execute_result")]
        if len(marks) > 1 or len(displays) > 1:
            raise ValueError(f"cell {i}: a captioned figure must be the cell's only display output "
                             f"({len(displays)} displays, {len(marks)} figures)")
        mystnb = cell.metadata.setdefault("mystnb", {})
        mystnb["figure"] = {"caption": marks[0]["caption"], "name": marks[0]["name"]}
        mystnb["image"] = {"alt": marks[0]["caption"]}
        n += 1
    return n
