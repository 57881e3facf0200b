"""The server's games list: a filter read from a request's query string, the SQL that answers it
(one page of games in the columns chosen, the facet counts beside each filter, the matching games
for `/games.csv` and `/games.json`: a page of them when `page` or `per_page` is given, else every
one), the numbered pages around the one shown, and the same filter as literal SQL for the SQL
page (`as_sql`).

A filter is the whole state of a list, so a list's URL is its permalink: every field is a query
parameter, defaults left out. Every value is checked against what the dataset holds or a range
(HTTP 400 otherwise) and bound as a parameter, never pasted into SQL; the sort column is chosen
from a fixed list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from urllib.parse import urlencode

from starlette.exceptions import HTTPException

from .report import RuleSetInfo

MAX_PER_PAGE = 200
MAX_EXPORT_PAGE = 1_000_000  # rows a page of /games.csv or /games.json may ask for
PER_PAGE = 50
PAGES_AROUND = 2  # numbered pages linked on each side of the one shown
MAX_POLICIES = 8
OUTCOMES = ("win", "draw", "capped", "cycle")
FACETS = ("variant", "rule_set", "outcome", "winner")
PARAMETERS = {"variant", "rule_set", "outcome", "winner", "min_battles", "max_battles", "policy", "ended", "sort",
              "order", "page", "per_page", "col"}


@dataclass(frozen=True)
class Column:
    """A column the list may show: its key in the URL (`col=KEY`), its heading, the games view's
    column it shows, and whether a click on its head sorts by it (a list column does not)."""

    key: str
    heading: str
    sql: str
    sortable: bool = True


# Every column a person may choose, in the order the list shows them; DEFAULT_COLUMNS by default.
COLUMNS = {c.key: c for c in (
    Column("game_id", "game_id", "game_id"), Column("variant", "variant", "variant"),
    Column("rule_set", "rule set", "rule_set"), Column("policies", "policies", "policies", False),
    Column("players", "players", "players"), Column("deal", "deal", "deal"),
    Column("battles", "battles", "battles"), Column("outcome", "outcome", "outcome"),
    Column("winner", "winner", "winner"), Column("wars", "wars", "wars"),
    Column("war_battles", "war battles", "war_battles"), Column("deepest_war", "deepest war", "max_war_depth"),
    Column("first_battle_war", "first battle a war", "first_battle_war"),
    Column("cards_laid", "cards laid", "cards_laid"), Column("cycle_length", "cycle length", "cycle_length"),
    Column("cycle_key", "cycle key", "cycle_key"), Column("war_wins", "war wins", "war_wins", False),
    Column("final_cards", "final cards", "final_cards", False),
    Column("cards_set_aside", "cards set aside", "cards_set_aside"), Column("events", "events", "events"),
    Column("deal_index", "deal index", "deal_index"), Column("piles", "piles", "piles", False),
    Column("source_game_id", "source game", "source_game_id"), Column("game_seed", "seed", "game_seed"),
)}
DEFAULT_COLUMNS = ("game_id", "variant", "rule_set", "policies", "battles", "outcome", "winner", "wars",
                   "deepest_war", "cycle_length")
# a sortable column's name in the URL: its SQL column
SORTS = {c.key: c.sql for c in COLUMNS.values() if c.sortable}

# Each filter's SQL condition: true when its parameter is NULL (not given) or the game matches.
CONDITIONS = {
    "variant": "($variant IS NULL OR variant = $variant)",
    "rule_set": "($rule_set IS NULL OR rule_set = $rule_set)",
    "outcome": "($outcome IS NULL OR outcome = $outcome)",
    "winner": "($winner IS NULL OR winner = $winner)",
    "battles": "($min_battles IS NULL OR battles >= $min_battles) AND ($max_battles IS NULL OR battles <= $max_battles)",
    "policy": "($policies IS NULL OR list_sort(policies) = list_sort($policies))",
    "ended": "($ended IS NULL OR outcome IN ('win', 'draw'))",  # the games that end, as lengths count them
}
WHERE = "WHERE " + "\n  AND ".join(CONDITIONS.values())


def facet_sql() -> str:
    """The games per value of each facet, each counted under every filter but its own (so the
    counts say what choosing another value would give), in one statement."""
    flags = ",\n       ".join(f"{CONDITIONS[f]} AS f_{f}" for f in FACETS)
    rest = f"{CONDITIONS['battles']} AND {CONDITIONS['policy']} AND {CONDITIONS['ended']}"
    parts = []
    for facet in FACETS:
        column = facet
        others = " AND ".join(f"f_{o}" for o in FACETS if o != facet)
        parts.append(f"SELECT '{facet}' AS facet, CAST({column} AS VARCHAR) AS value, count(*) AS games "
                     f"FROM g WHERE {others} AND {column} IS NOT NULL GROUP BY {column}")
    return (f"WITH g AS (SELECT variant, rule_set, outcome, winner,\n       {flags}\n"
            f"FROM games WHERE {rest})\n" + "\nUNION ALL ".join(parts))


FACET_SQL = facet_sql()


@dataclass(frozen=True)
class GameFilter:
    """A games-list request, checked: every field is None (no filter) or a valid value."""

    variant: str | None = None
    rule_set: str | None = None   # a rule set's name (model.names), the games view's rule_set
    outcome: str | None = None
    winner: int | None = None
    min_battles: int | None = None
    max_battles: int | None = None
    policies: tuple[str, ...] | None = None   # the seats' policies, in any seat order
    ended: bool | None = None  # only the games that end (a win or a draw), as a length histogram's bar
    sort: str = "battles"
    order: str = "desc"
    page: int | None = None      # None: the first page of the list; every game of an export
    per_page: int | None = None  # None: PER_PAGE games a page of the list; every game of an export
    columns: tuple[str, ...] | None = None  # keys of COLUMNS; None: DEFAULT_COLUMNS (every column of an export)

    @property
    def number(self) -> int:
        """The page shown, from 1."""
        return self.page or 1

    @property
    def size(self) -> int:
        """Games a page."""
        return self.per_page or PER_PAGE

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.size

    @property
    def paged(self) -> bool:
        """Whether the request named a page (`page` or `per_page`): an export then gives that page."""
        return self.page is not None or self.per_page is not None

    @property
    def shown(self) -> list[Column]:
        """The columns the list shows, game_id first."""
        return [COLUMNS[k] for k in (self.columns or DEFAULT_COLUMNS)]

    def params(self) -> dict:
        """The SQL parameters of the filter (not of the sort or the page)."""
        return {"variant": self.variant, "rule_set": self.rule_set, "outcome": self.outcome,
                "winner": self.winner, "min_battles": self.min_battles, "max_battles": self.max_battles,
                "policies": list(self.policies) if self.policies else None, "ended": self.ended}

    def items(self, **change) -> list[tuple[str, object]]:
        """The URL parameters of this filter with `change` applied, defaults left out."""
        values = {f.name: getattr(self, f.name) for f in fields(self)} | change
        out = []
        for f in fields(self):
            value = values[f.name]
            if value is None or value == f.default or value == ():
                continue
            name = {"policies": "policy", "columns": "col"}.get(f.name, f.name)
            out += ([(name, v) for v in value] if f.name in ("policies", "columns")
                    else [(name, "true" if value is True else value)])
        return out

    def query(self, **change) -> str:
        """The URL query string of this filter, with `change` applied, defaults left out."""
        return urlencode(self.items(**change))

    def sorted_by(self, key: str) -> str:
        """The query string of this list sorted by `key`: its other direction when it is already
        the sort, else high first for numbers and low first for names."""
        if key == self.sort:
            order = "asc" if self.order == "desc" else "desc"
        else:
            order = "asc" if key in ("game_id", "variant", "rule_set", "outcome", "winner") else "desc"
        return self.query(sort=key, order=order, page=None)

    @property
    def order_by(self) -> str:
        direction = "DESC" if self.order == "desc" else "ASC"
        if self.sort == "game_id":
            return f"game_id {direction}"
        return f"{SORTS[self.sort]} {direction} NULLS LAST, game_id"

    def list_sql(self) -> str:
        """A page of the list, in its columns ($limit games from $offset)."""
        columns = ", ".join(dict.fromkeys(c.sql for c in self.shown))
        return f"SELECT {columns} FROM games\n{WHERE}\nORDER BY {self.order_by}\nLIMIT $limit OFFSET $offset"

    def export_sql(self) -> str:
        """The games that pass the filter, in the list's order, in the columns chosen (every
        column when none is); a page of them when the request named one (`paged`), else all."""
        columns = "*" if self.columns is None else ", ".join(dict.fromkeys(c.sql for c in self.shown))
        page = "\nLIMIT $limit OFFSET $offset" if self.paged else ""
        return f"SELECT {columns} FROM games\n{WHERE}\nORDER BY {self.order_by}{page}"

    def page_params(self) -> dict:
        """The filter's SQL parameters with its page's ($limit games from $offset)."""
        return {**self.params(), "limit": self.size, "offset": self.offset}

    def export_params(self) -> dict:
        return self.page_params() if self.paged else self.params()

    def as_sql(self) -> str:
        """The games of this list as SQL with its values written in, for the SQL page."""
        conditions = []
        for column, value in (("variant", self.variant), ("rule_set", self.rule_set), ("outcome", self.outcome),
                              ("winner", self.winner)):
            if value is not None:
                conditions.append(f"{column} = {literal(value)}")
        if self.min_battles is not None:
            conditions.append(f"battles >= {self.min_battles}")
        if self.max_battles is not None:
            conditions.append(f"battles <= {self.max_battles}")
        if self.policies:
            conditions.append(f"list_sort(policies) = list_sort([{', '.join(map(literal, self.policies))}])")
        if self.ended:
            conditions.append("outcome IN ('win', 'draw')")
        where = ("\nWHERE " + "\n  AND ".join(conditions)) if conditions else ""
        return f"SELECT *\nFROM games{where}\nORDER BY {self.order_by}"


def literal(value) -> str:
    """A value as an SQL literal: a number as it is, text quoted."""
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def _int(query, name: str, low: int, high: int) -> int | None:
    text = query.get(name, "").strip()
    if not text:
        return None
    if not re.fullmatch(r"[0-9]{1,12}", text) or not low <= int(text) <= high:
        raise HTTPException(400, f"{name} must be a whole number from {low} to {high}")
    return int(text)


def _choice(query, name: str, allowed) -> str | None:
    text = query.get(name, "").strip()
    if not text:
        return None
    if text not in allowed:
        raise HTTPException(400, f"{name} must be one of: {', '.join(sorted(map(str, allowed)))}")
    return text


def _policies(query, known: set[str]) -> tuple[str, ...] | None:
    values = [v.strip() for v in query.getlist("policy") if v.strip()]
    if not values:
        return None
    if len(values) > MAX_POLICIES:
        raise HTTPException(400, f"policy is given at most {MAX_POLICIES} times (one a seat)")
    for v in values:
        if v not in known:
            raise HTTPException(400, f"policy {v[:80]!r} is no seat's policy in this dataset")
    return tuple(values)


def _columns(query) -> tuple[str, ...] | None:
    """The columns asked for (`col`, once a column, any order), in the list's order with
    game_id first; None for none asked or the default ones."""
    asked = [v.strip() for v in query.getlist("col") if v.strip()]
    if not asked:
        return None
    for key in asked:
        if key not in COLUMNS:
            raise HTTPException(400, f"col must be one of: {', '.join(COLUMNS)}")
    chosen = tuple(k for k in COLUMNS if k in asked or k == "game_id")
    return None if chosen == DEFAULT_COLUMNS else chosen


def parse_filter(query, infos: list[RuleSetInfo], players: int, most: int = MAX_PER_PAGE) -> GameFilter:
    """The filter a request's query string asks for (`most` games a page at most: an export may
    ask for more than the list shows); HTTP 400 for a parameter it does not know or any value
    outside its range."""
    unknown = set(query.keys()) - PARAMETERS
    if unknown:
        raise HTTPException(400, f"unknown parameter {sorted(unknown)[0][:40]!r}")
    known_policies = {p for r in infos for s in r.seatings for p in s}
    winner = _int(query, "winner", 0, 63)
    if winner is not None and winner >= players:
        raise HTTPException(400, f"winner must be a seat from 0 to {players - 1}")
    return GameFilter(
        variant=_choice(query, "variant", {r.variant for r in infos}),
        rule_set=_choice(query, "rule_set", {r.name for r in infos}),
        outcome=_choice(query, "outcome", OUTCOMES),
        winner=winner,
        min_battles=_int(query, "min_battles", 0, 10**9),
        max_battles=_int(query, "max_battles", 0, 10**9),
        policies=_policies(query, known_policies),
        ended=True if _choice(query, "ended", ("true",)) else None,
        sort=_choice(query, "sort", SORTS) or "battles",
        order=_choice(query, "order", ("asc", "desc")) or "desc",
        page=_int(query, "page", 1, 10**7),
        per_page=_int(query, "per_page", 1, most),
        columns=_columns(query),
    )


@dataclass
class FacetValue:
    value: str
    text: str
    games: int
    selected: bool
    href: str


def facets(f: GameFilter, rows: list[dict], infos: list[RuleSetInfo], players: int) -> dict[str, list[FacetValue]]:
    """Each facet's values with their counts (facet_sql's rows), in the dataset's order: each a
    link to the list with that value chosen, or, for the value chosen, with it cleared."""
    counts = {(r["facet"], r["value"]): r["games"] for r in rows}
    chosen = {"variant": f.variant, "rule_set": f.rule_set, "outcome": f.outcome,
              "winner": None if f.winner is None else str(f.winner)}
    values = {
        "variant": [(v, v) for v in dict.fromkeys(r.variant for r in infos)],
        "rule_set": [(r.name, r.name) for r in infos],
        "outcome": [(o, o) for o in OUTCOMES],
        "winner": [(str(s), f"seat {s}") for s in range(players)],
    }
    out = {}
    for facet in FACETS:
        key = facet
        shown = []
        for value, text in values[facet]:
            n = counts.get((facet, value), 0)
            selected = chosen[facet] == value
            if n or selected:
                change = {key: None if selected else (int(value) if facet == "winner" else value), "page": None}
                shown.append(FacetValue(value, text, n, selected, "/games?" + f.query(**change)))
        out[facet] = shown
    return out


def total_of(f: GameFilter, rows: list[dict]) -> int:
    """How many games pass the whole filter, from the facet counts: every game has one outcome."""
    return sum(r["games"] for r in rows if r["facet"] == "outcome" and (f.outcome is None or r["value"] == f.outcome))


@dataclass
class PageLink:
    """A link of the pager: a page's number and address (None for a gap, `…`), and whether it is
    the page shown."""

    number: int | None
    href: str | None
    current: bool = False


def pager(f: GameFilter, total: int) -> list[PageLink]:
    """The numbered pages of a list of `total` games: the first, the last, and PAGES_AROUND on
    each side of the one shown, a gap (`…`) where pages are left out."""
    last = last_page(f, total)
    wanted = sorted({1, last, *range(max(1, f.number - PAGES_AROUND), min(last, f.number + PAGES_AROUND) + 1)})
    out: list[PageLink] = []
    for n in wanted:
        if out and out[-1].number is not None and n - out[-1].number > 1:
            out.append(PageLink(None, None))
        out.append(PageLink(n, "/games?" + f.query(page=None if n == 1 else n), n == f.number))
    return out


def last_page(f: GameFilter, total: int) -> int:
    return max(1, -(-total // f.size))
