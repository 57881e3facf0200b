"""How the pages write numbers: a share as a percentage (`pct`), a table cell as a reader wants
it (`shown`), and a value exactly, as compact JSON (`exact`), for a cell's `data-value`."""

from __future__ import annotations

import json
import math
import re

PERCENT = re.compile(r"(share|^ci_|^exact$)")  # the columns that hold shares
AS_IS = ("seat", "winner", "rank", "game_id", "bucket")  # whole numbers shown without separators


def pct(x: float | None, digits: int = 1) -> str:
    return "" if x is None else f"{100 * x:.{digits}f}%"


def shown(value, column: str) -> str:
    """A cell of `column` as a reader wants it: shares as percentages, counts with separators."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(shown(v, column) for v in value) or "–"
    if isinstance(value, float):
        if math.isnan(value):
            return "–"
        if PERCENT.search(column):
            return pct(value, 2)
        if value.is_integer() and abs(value) < 1e15:
            return f"{value:,.0f}"
        return f"{value:,.1f}" if abs(value) >= 100 else f"{value:.4g}"
    if isinstance(value, int):
        return f"{value:,}" if column not in AS_IS else str(value)
    return str(value)


def exact(value) -> str:
    """`value` as compact JSON (keys sorted), NaN and infinities as null."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        value = None
    return json.dumps(value, separators=(",", ":"), sort_keys=True)
