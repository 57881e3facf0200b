"""How the pages write numbers: a share as a percentage (`pct`), a table cell as a reader wants
it (`shown`), a column of cells in one format (`column_format`: `549.0` under `1,040.3`, never
`549`), and a value exactly, as compact JSON (`exact`), for a cell's `data-value`."""

from __future__ import annotations

import decimal
import json
import math
import re
from collections.abc import Callable

PERCENT = re.compile(r"(share|^ci_|^exact$)")  # the columns that hold shares
# whole numbers shown without separators
AS_IS = ("seat", "winner", "rank", "game_id", "first_game", "deal_index", "bucket", "piles", "cycle_key")


def pct(x: float | None, digits: int = 1) -> str:
    return "" if x is None else f"{100 * x:.{digits}f}%"


def shown(value, column: str) -> str:
    """A cell of `column` as a reader wants it: shares as percentages, counts with separators."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        if value and all(isinstance(v, list) for v in value):  # a list a seat (piles): each seat bracketed
            return " ".join("[" + " ".join(shown(c, column) for c in v) + "]" for v in value)
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


def share_cell(x: float, digits: int) -> str:
    """A share in a column of `digits` decimals; one too small to show is `<0.1%`, never `0.0%`,
    which would read as none."""
    if 0 < x < 0.5 * 10 ** -(digits + 2):
        return f"<{10 ** -digits:.{digits}f}%"
    return pct(x, digits)


def decimals(values: list[float]) -> int:
    """Decimals for a column of floats: as many as its values have (a median of whole battles
    has at most one, .5), at most enough for its smallest (1 from 10 up, 2 from 1, 3 from
    0.01, 4 below)."""
    finite = [v for v in values if not (math.isnan(v) or math.isinf(v))]
    smallest = min((abs(v) for v in finite if v), default=1.0)
    most = 1 if smallest >= 10 else 2 if smallest >= 1 else 3 if smallest >= 0.01 else 4
    return next((d for d in range(most) if all(abs(v * 10 ** d - round(v * 10 ** d)) < 1e-6 for v in finite)),
                most)


def column_format(values: list, column: str, share_digits: int = 2) -> Callable[[object], str]:
    """How every cell of `column` is written, given all its `values`: shares as percentages with
    `share_digits` decimals, whole numbers with separators (ids and seats without), other
    numbers with the one count of decimals that suits the column (`decimals`); the rest as
    `shown` writes them."""
    floats = [v for v in values if isinstance(v, float)]
    if not floats or PERCENT.search(column):
        return lambda v: share_cell(v, share_digits) if isinstance(v, float) and PERCENT.search(column) \
            and not math.isnan(v) else shown(v, column)
    digits = decimals(floats + [float(v) for v in values if isinstance(v, int) and not isinstance(v, bool)])

    def write(v) -> str:
        if isinstance(v, (int, float)) and not isinstance(v, bool) and not (isinstance(v, float) and math.isnan(v)):
            return f"{v:,.{digits}f}"
        return shown(v, column)
    return write


def column_formats(rows: list[dict], columns: list[str], share_digits: int = 2) -> dict[str, Callable[[object], str]]:
    """`column_format` of each of `columns` over `rows`."""
    return {c: column_format([r.get(c) for r in rows], c, share_digits) for c in columns}


def exact(value) -> str:
    """`value` as compact JSON (keys sorted), NaN and infinities as null."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        value = None
    return json.dumps(value, separators=(",", ":"), sort_keys=True, default=_plain)


def _plain(value):
    """A value JSON has no type for, as the number or text it stands for (DuckDB's HUGEINT and
    DECIMAL arrive as Decimal)."""
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return str(value)


def exact_flags(rows: list[dict], data=None) -> list[bool]:
    """For each row of a query, whether it is of a rule set that plays every deal (by its
    `rule_set`; a row over every seating of some rules, policy_matchup's, by its rules_id),
    as the report's `data` (report.ReportData) says: its shares are exact, with no interval."""
    if data is None:
        return [False] * len(rows)
    return [data.is_exact(row["rule_set"]) if "rule_set" in row else data.rules_exact(row.get("rules_id"))
            for row in rows]
