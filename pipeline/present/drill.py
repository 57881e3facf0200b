"""Drill-down: a mark of a report chart that opens the games behind it in `war serve`.

The hook, for chart code: a chart that can say which games a mark stands for gives each of that
mark's data rows a `games_link` field (FIELD), the games list's URL of those games, made here
(`length_bucket`, `seat_wins`, `matchup`). Nothing else changes in the chart: `war report`
draws it as before (a field no encoding reads draws nothing), and only the server asks for links
(`with_links`), which makes every mark whose rows carry the field a link (Vega-Lite's `href`
channel; vl-convert writes an `<a>` around the mark in the SVG).

vl-convert resolves a relative link against its own base URL, so a link is written on a
placeholder origin (ORIGIN) and made relative in the finished SVG (`localize`).
"""

from __future__ import annotations

import math
from urllib.parse import urlencode

FIELD = "games_link"  # a name no named query gives a column (`games` is a count)
ORIGIN = "http://war.invalid"


def games_link(**filters) -> str:
    """The games list with these filters (its parameter names; a list is repeated)."""
    items = []
    for name, value in filters.items():
        if value is None:
            continue
        items += [(name, v) for v in value] if isinstance(value, (list, tuple)) else [(name, value)]
    return f"{ORIGIN}/games?{urlencode(items)}"


def bucket_of(battles: int, per_decade: int) -> int:
    """The bucket of `length_distribution` that holds a game of `battles` (its SQL, in Python)."""
    return math.floor(math.log10(max(battles, 1)) * per_decade + 1e-9)


def bucket_battles(bucket: int, per_decade: int) -> tuple[int, int]:
    """The battles of the games in a bucket of `length_distribution`, first and last (first >
    last when no whole number falls in it)."""
    low = 0 if bucket <= 0 else max(1, math.ceil(10 ** (bucket / per_decade)) - 1)
    while bucket_of(low, per_decade) < bucket:
        low += 1
    while low > 0 and bucket_of(low - 1, per_decade) >= bucket:
        low -= 1
    high = max(low, math.ceil(10 ** ((bucket + 1) / per_decade)))
    while bucket_of(high, per_decade) > bucket:
        high -= 1
    return low, high


def length_bucket(row: dict, per_decade: int) -> str:
    """The games of a `length_distribution` row: its rule set's games that end, in its bucket."""
    low, high = bucket_battles(row["bucket"], per_decade)
    return games_link(rule_set=row["rule_set"], battles__gte=low, battles__lte=high, ended="true")


def seat_wins(row: dict) -> str:
    """The games of a `seat_win_interval` row's share: those its seat won."""
    return games_link(rule_set=row["rule_set"], outcome="win", winner=row["seat"])


def matchup(variant: str, policy: str, against: str) -> str:
    """The games of a `policy_matchup` cell: the decided games between the two policies, in
    either seating (two rule sets: `a vs b` and `b vs a`)."""
    return games_link(variant=variant, policy=[policy, against], outcome="win")


def with_links(spec: dict) -> dict:
    """The specification with an `href` encoding on every mark whose data rows carry FIELD
    (the specification is changed in place, and returned)."""
    datasets = spec.get("datasets", {})

    def linked(data) -> bool | None:
        if not isinstance(data, dict):
            return None
        rows = data.get("values") if "values" in data else datasets.get(data.get("name"))
        return bool(rows) and isinstance(rows, list) and isinstance(rows[0], dict) and FIELD in rows[0]

    def walk(node, inherited: bool) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item, inherited)
            return
        if not isinstance(node, dict):
            return
        own = linked(node.get("data"))
        here = inherited if own is None else own
        if "mark" in node and here:
            node.setdefault("encoding", {})["href"] = {"field": FIELD, "type": "nominal"}
        for key in ("layer", "vconcat", "hconcat", "concat", "spec"):
            if key in node:
                walk(node[key], here)

    walk(spec, False)
    return spec


def localize(svg: str) -> str:
    """The SVG with its links relative to the server (the placeholder origin removed)."""
    return svg.replace(ORIGIN + "/", "/")
