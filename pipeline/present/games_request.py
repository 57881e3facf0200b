"""A games-list request read: its query string checked into a filter (games_filter.GameFilter,
`parse_filter`; HTTP 400 otherwise), and the form that adds a filter sent on to the list's own
address (`added_filter`). `/games.csv` and `/games.json` take the same filter: a page of the
games when `page` or `per_page` is given, else every one.

Filters and facets are those of datasette, over any column of the `games` view (COLUMNS, each
named as the view names it):

- `COLUMN=VALUE`: the games whose COLUMN is VALUE (for a list column, `policies`, `war_wins`,
  `final_cards`, `piles`: whose list holds VALUE); repeated, any of the values (OR); filters of
  different columns all hold (AND);
- `COLUMN__gte=`, `__lte=`, `__gt=`, `__lt=`: a range (numbers and text), each bound holding;
  `min_battles` and `max_battles` are older spellings of `battles__gte` and `battles__lte`;
- `facet=COLUMN` (repeatable): beside the list, each value of COLUMN with the number of games
  choosing it would give (counted under every filter but COLUMN's own), the FACET_SIZE
  (games_sql) values of most games when it has more (and it says so); variant, rule set,
  outcome and winner always;
- `policy` (every seat's policy, once a seat, in any seat order: a whole seating) and `ended`
  (the games that end), as the report's links ask.

A filter is the whole state of a list, so a list's URL is its permalink: every field is a query
parameter, defaults left out. Every value is checked against its column's type, and the values
of variant, rule set, outcome, winner and policies against what the dataset holds (HTTP 400 otherwise,
one line naming the parameter); values are bound as parameters, never pasted into SQL, and a
column's name reaches SQL only from COLUMNS.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

from .games_columns import COLUMNS, DEFAULT_COLUMNS, OUTCOMES, SORTS, Column, bad, parse_value, said
from .games_filter import FACETS, OPS, Condition, GameFilter
from .report import RuleSetInfo

MAX_PER_PAGE = 200
MAX_EXPORT_PAGE = 1_000_000  # rows a page of /games.csv or /games.json may ask for
MAX_POLICIES = 8
MAX_CONDITIONS = 64  # values and bounds of all filters together
OLD_RANGES = {"min_battles": ("battles", "gte"), "max_battles": ("battles", "lte")}
PARAMETERS = {"policy", "ended", "sort", "order", "page", "per_page", "col", "facet", *OLD_RANGES}


def _column(name: str, what: str) -> Column:
    if name not in COLUMNS:
        raise bad(f"{what} {said(name)} is no column of the games view; its columns: {', '.join(COLUMNS)}")
    return COLUMNS[name]


def _int(query, name: str, low: int, high: int) -> int | None:
    text = query.get(name, "").strip()
    if not text:
        return None
    if not re.fullmatch(r"[0-9]{1,12}", text) or not low <= int(text) <= high:
        raise bad(f"{name} must be a whole number from {low} to {high}")
    return int(text)


def _choice(query, name: str, allowed) -> str | None:
    text = query.get(name, "").strip()
    if not text:
        return None
    if text not in allowed:
        raise bad(f"{name} must be one of: {', '.join(sorted(map(str, allowed)))}")
    return text


def _policies(query, seatings: list[tuple[str, ...]]) -> tuple[str, ...] | None:
    """The seats' policies `policy` asks for: a whole seating, one a seat in any order, for that
    is what it filters on; part of one (`policy=always` in a 2-seat game) would match no game,
    so it is refused with the seatings there are and the filter that finds a seat's policy."""
    values = [v.strip() for v in query.getlist("policy") if v.strip()]
    if not values:
        return None
    if len(values) > MAX_POLICIES:
        raise bad(f"policy is given at most {MAX_POLICIES} times (one a seat)")
    for v in values:
        if not any(v in seating for seating in seatings):
            raise bad(f"policy {said(v)} is no seat's policy in this dataset")
    whole = {tuple(sorted(seating)) for seating in seatings}
    if tuple(sorted(values)) not in whole:
        shown = sorted(" & ".join(seating) for seating in whole)
        listed = ", ".join(shown[:4]) + (f" and {len(shown) - 4} more" if len(shown) > 4 else "")
        raise bad(f"policy {' & '.join(values)} is no seating in this dataset: give every seat's policy, once a "
                  f"seat ({listed}), or policies={values[0]} for the games where a seat plays it")
    return tuple(values)


def _columns(query) -> tuple[str, ...] | None:
    """The columns asked for (`col`, once a column), in the order asked, game_id first unless
    placed; None for none asked or the default ones."""
    asked = [v.strip() for v in query.getlist("col") if v.strip()]
    if not asked:
        return None
    for key in asked:
        if key not in COLUMNS:
            raise bad(f"col must be one of: {', '.join(COLUMNS)}")
    chosen = tuple(dict.fromkeys(asked))
    return None if chosen in (DEFAULT_COLUMNS, DEFAULT_COLUMNS[1:]) else chosen


def _facets(query) -> tuple[str, ...]:
    asked = [v.strip() for v in query.getlist("facet") if v.strip()]
    for name in asked:
        _column(name, "facet")
    return tuple(name for name in dict.fromkeys(asked) if name not in FACETS)


def _conditions(query, infos: list[RuleSetInfo], players: int) -> tuple[Condition, ...]:
    """Every filter of a column (`COLUMN=VALUE`, `COLUMN__OP=VALUE`, the older `min_battles`,
    `max_battles`), in the order given; 400 for an unknown parameter or column, or a value its
    column cannot hold."""
    allowed = {"variant": {r.variant for r in infos}, "rule_set": {r.name for r in infos}, "outcome": set(OUTCOMES),
               "winner": {str(s) for s in range(players)},
               "policies": {p for r in infos for seating in r.seatings for p in seating}}
    out = []
    for name, raw in query.multi_items():
        if name in PARAMETERS and name not in OLD_RANGES:
            continue
        text = raw.strip()
        if name in OLD_RANGES:
            column, op = OLD_RANGES[name]
            if text and not re.fullmatch(r"[0-9]{1,12}", text):
                raise bad(f"{name} must be a whole number from 0 to {10**12 - 1}")
        else:
            column, _, op = name.partition("__")
            if column not in COLUMNS:
                raise bad(f"unknown parameter {said(name)}: neither a column of the games view nor one of "
                          f"{', '.join(sorted(PARAMETERS))}" if not op else
                          f"{said(name)} filters {said(column)}, which is no column of the games view")
            op = op or "eq"
            if op not in OPS:
                raise bad(f"{said(name)}: a filter is COLUMN=VALUE or COLUMN__OP=VALUE with OP one of "
                          f"{', '.join(o for o in OPS if o != 'eq')}")
        if not text:  # a form's empty field
            continue
        col = COLUMNS[column]
        if op != "eq" and not col.ranged:
            raise bad(f"{said(name)}: {column} takes no range (a {'list' if col.depth else 'yes or no'})")
        if op == "eq" and column in allowed and text not in allowed[column]:
            if column == "winner":
                raise bad(f"winner must be a seat from 0 to {players - 1}")
            if column == "policies":  # a list holds it or not: a policy no seat plays would match no game
                known = sorted(allowed[column])
                raise bad(f"policies {said(text)} is no seat's policy in this dataset: "
                          + (f"one of {', '.join(known)}" if known else "no game here has one"))
            raise bad(f"{column} must be one of: {', '.join(sorted(allowed[column]))}")
        out.append(Condition(column, op, parse_value(col, text, name, None if op == "eq" else 0), text))
    if len(out) > MAX_CONDITIONS:
        raise bad(f"a list takes at most {MAX_CONDITIONS} filter values")
    return tuple(dict.fromkeys(out))


def parse_filter(query, infos: list[RuleSetInfo], players: int, most: int = MAX_PER_PAGE) -> GameFilter:
    """The filter a request's query string asks for (`most` games a page at most: an export may
    ask for more than the list shows); HTTP 400 for a parameter it does not know or any value
    outside its range."""
    return GameFilter(
        conditions=_conditions(query, infos, players),
        policies=_policies(query, [tuple(s) for r in infos for s in r.seatings]),
        ended=True if _choice(query, "ended", ("true",)) else None,
        sort=_choice(query, "sort", SORTS) or "battles",
        order=_choice(query, "order", ("asc", "desc")) or "desc",
        page=_int(query, "page", 1, 10**7),
        per_page=_int(query, "per_page", 1, most),
        columns=_columns(query),
        facets=_facets(query),
    )


def added_filter(query) -> str | None:
    """The list's address with the filter its form adds (`_filter_column`, `_filter_op`,
    `_filter_value`, as datasette's) as a parameter of its own (`COLUMN__OP=VALUE`); None when
    the query has no such form's fields."""
    names = ("_filter_column", "_filter_op", "_filter_value")
    if not any(n in query for n in names):
        return None
    column, op, value = (query.get(n, "").strip() for n in names)
    if column:
        _column(column, "_filter_column")
    if op and op not in OPS:
        raise bad(f"_filter_op must be one of: {', '.join(OPS)}")
    items = [(k, v) for k, v in query.multi_items() if k not in names]
    if column and value:
        items.append((column if op in ("", "eq") else f"{column}__{op}", value))
    return "/games?" + urlencode(items)
