"""How the pages write numbers: a share as a percentage."""

from __future__ import annotations


def pct(x: float | None, digits: int = 1) -> str:
    return "" if x is None else f"{100 * x:.{digits}f}%"
