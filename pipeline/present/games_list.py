"""The server's games list: a filter read from a request's query string, the SQL that answers it
(one page of games in the columns chosen, the facets' counts and the total in one statement, the
matching games for `/games.csv` and `/games.json`: a page of them when `page` or `per_page` is
given, else every one), the numbered pages around the one shown, and the same filter as literal
SQL for the SQL page (`as_sql`).

Filters and facets are those of datasette, over any column of the `games` view (COLUMNS, each
named as the view names it):

- `COLUMN=VALUE`: the games whose COLUMN is VALUE (for a list column, `policies`, `war_wins`,
  `final_cards`, `piles`: whose list holds VALUE); repeated, any of the values (OR); filters of
  different columns all hold (AND);
- `COLUMN__gte=`, `__lte=`, `__gt=`, `__lt=`: a range (numbers and text), each bound holding;
  `min_battles` and `max_battles` are older spellings of `battles__gte` and `battles__lte`;
- `facet=COLUMN` (repeatable): beside the list, each value of COLUMN with the number of games
  choosing it would give (counted under every filter but COLUMN's own), the FACET_SIZE values of
  most games when it has more (and it says so); variant, rule set, outcome and winner always;
- `policy` (the seats' policies, in any seat order) and `ended` (the games that end), as the
  report's links ask.

A filter is the whole state of a list, so a list's URL is its permalink: every field is a query
parameter, defaults left out. Every value is checked against its column's type, and the values
of variant, rule set, outcome and winner against what the dataset holds (HTTP 400 otherwise,
one line naming the parameter); values are bound as parameters, never pasted into SQL, and a
column's name reaches SQL only from COLUMNS.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields, replace
from urllib.parse import urlencode

from starlette.exceptions import HTTPException

from .report import RuleSetInfo

MAX_PER_PAGE = 200
MAX_EXPORT_PAGE = 1_000_000  # rows a page of /games.csv or /games.json may ask for
PER_PAGE = 50
PAGES_AROUND = 2  # numbered pages linked on each side of the one shown
MAX_POLICIES = 8
MAX_CONDITIONS = 64  # values and bounds of all filters together
MAX_VALUE_CHARS = 1000
FACET_SIZE = 30  # values a facet shows, those of most games first
OUTCOMES = ("win", "draw", "capped", "cycle")
FACETS = ("variant", "rule_set", "outcome", "winner")  # always shown
OPS = {"eq": "=", "gte": ">=", "lte": "<=", "gt": ">", "lt": "<"}
OLD_RANGES = {"min_battles": ("battles", "gte"), "max_battles": ("battles", "lte")}
PARAMETERS = {"policy", "ended", "sort", "order", "page", "per_page", "col", "facet", *OLD_RANGES}


@dataclass(frozen=True)
class Column:
    """A column of the games view the list may show, filter and facet by: its name (in the URL,
    the JSON, the facets: the view's), its heading, its values' kind (`int`, `text`, `bool`) and
    how deep a list it is (0: a value, 1: a list of them, 2: a list of lists), and whether a
    click on its head sorts by it (a list column does not)."""

    key: str
    heading: str
    kind: str = "int"
    depth: int = 0

    @property
    def sql(self) -> str:
        """The view's column (its name)."""
        return self.key

    @property
    def sortable(self) -> bool:
        return self.depth == 0

    @property
    def ranged(self) -> bool:
        """Whether it takes a range (`__gte`, ...): a number or text, not a list or a yes/no."""
        return self.depth == 0 and self.kind != "bool"


# Every column of the games view, in the order the list shows and offers them; DEFAULT_COLUMNS by default.
COLUMNS = {c.key: c for c in (
    Column("game_id", "game_id"), Column("variant", "variant", "text"), Column("rule_set", "rule set", "text"),
    Column("policies", "policies", "text", 1), Column("players", "players"), Column("deal", "deal", "text"),
    Column("battles", "battles"), Column("outcome", "outcome", "text"), Column("winner", "winner"),
    Column("wars", "wars"), Column("war_battles", "war battles"), Column("max_war_depth", "max war depth"),
    Column("first_battle_war", "first battle a war", "bool"), Column("cards_laid", "cards laid"),
    Column("cycle_length", "cycle length"), Column("cycle_key", "cycle key"), Column("war_wins", "war wins", "int", 1),
    Column("final_cards", "final cards", "int", 1), Column("cards_set_aside", "cards set aside"),
    Column("events", "events"), Column("deal_index", "deal index"), Column("piles", "piles", "int", 2),
    Column("swapped_index", "swapped index"), Column("first_of_class", "first of class", "bool"),
    Column("source_game_id", "source game"), Column("game_index", "game index"), Column("game_seed", "seed"),
    Column("rules_id", "rules id", "text"),
)}
DEFAULT_COLUMNS = ("game_id", "variant", "rule_set", "policies", "battles", "outcome", "winner", "wars",
                   "max_war_depth", "cycle_length")
SORTS = tuple(c.key for c in COLUMNS.values() if c.sortable)
INT_RANGE = (-2**63, 2**64 - 1)  # BIGINT's least to UBIGINT's most (game_seed)


@dataclass(frozen=True)
class Condition:
    """One filter's value or bound: `column op value` (`eq` of a list column: the list holds
    it), `text` as the URL gave it."""

    column: str
    op: str
    value: object = field(compare=False)  # told apart by its text (a list is not hashable)
    text: str = ""

    @property
    def name(self) -> str:
        """Its URL parameter's name: COLUMN, or COLUMN__OP for a bound."""
        return self.column if self.op == "eq" else f"{self.column}__{self.op}"

    @property
    def said(self) -> str:
        """As a person reads it: `wars ≥ 3`, `policies holds steal:always`."""
        sign = {"eq": "holds" if COLUMNS[self.column].depth else "=", "gte": "≥", "lte": "≤", "gt": ">",
                "lt": "<"}[self.op]
        return f"{self.column} {sign} {self.text}"


def value_text(value) -> str:
    """A value as DuckDB casts it to text (a facet's value): `true`, `12`, `[3, 4]`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    return str(value)


def literal(value) -> str:
    """A value as an SQL literal: a number or yes/no as it is, text quoted, a list in brackets."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    return "'" + str(value).replace("'", "''") + "'"


def ident(column: str) -> str:
    """A column of COLUMNS as SQL: its name, the only text of a request that reaches SQL, and
    only once found among COLUMNS (plain lower-case words)."""
    if column not in COLUMNS or not re.fullmatch(r"[a-z_]+", column):
        raise ValueError(f"no column {column!r} of the games view")
    return column


@dataclass(frozen=True)
class GameFilter:
    """A games-list request, checked: the conditions (any column's values and bounds), the legacy
    `policy` and `ended`, the sort, the page, the columns shown and the facets asked for."""

    conditions: tuple[Condition, ...] = ()
    policies: tuple[str, ...] | None = None   # the seats' policies, in any seat order
    ended: bool | None = None  # only the games that end (a win or a draw), as a length histogram's bar
    sort: str = "battles"
    order: str = "desc"
    page: int | None = None      # None: the first page of the list; every game of an export
    per_page: int | None = None  # None: PER_PAGE games a page of the list; every game of an export
    columns: tuple[str, ...] | None = None  # keys of COLUMNS in the order asked; None: DEFAULT_COLUMNS (every column of an export)
    facets: tuple[str, ...] = field(default=())  # facets asked for besides FACETS

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
        """The columns the list shows, in the order asked (game_id first unless placed)."""
        keys = self.columns or DEFAULT_COLUMNS
        return [COLUMNS[k] for k in (keys if "game_id" in keys else ("game_id", *keys))]

    @property
    def faceted(self) -> tuple[str, ...]:
        """The facets shown: FACETS, then those asked for."""
        return tuple(dict.fromkeys((*FACETS, *self.facets)))

    def chosen(self, column: str) -> list[Condition]:
        """The values chosen for `column` (its `eq` conditions)."""
        return [c for c in self.conditions if c.column == column and c.op == "eq"]

    def bound(self, column: str, op: str) -> str:
        """The text of `column`'s bound `op` (`gte`, ...), "" for none (a form's field)."""
        return next((c.text for c in self.conditions if c.column == column and c.op == op), "")

    # ------------------------------------------------------------------ links

    def items(self, **change) -> list[tuple[str, object]]:
        """The URL parameters of this filter with `change` applied, defaults left out."""
        values = {f.name: getattr(self, f.name) for f in fields(self)} | change
        out: list[tuple[str, object]] = [(c.name, c.text) for c in values["conditions"]]
        for f in fields(self):
            value = values[f.name]
            if f.name == "conditions" or value is None or value == f.default or value == ():
                continue
            name = {"policies": "policy", "columns": "col", "facets": "facet"}.get(f.name, f.name)
            out += ([(name, v) for v in value] if f.name in ("policies", "columns", "facets")
                    else [(name, "true" if value is True else value)])
        return out

    def query(self, **change) -> str:
        """The URL query string of this filter, with `change` applied, defaults left out."""
        return urlencode(self.items(**change))

    def choosing(self, column: str, text: str | None, also: bool = False) -> "GameFilter":
        """This filter with `column`'s values replaced by `text` (None: none; `also`: `text`
        added to them, any of which a game may have), on its first page; the URL keeps its
        order (a value replaced where the first of them was)."""
        conditions = list(self.conditions)
        added = None if text is None else Condition(column, "eq", parse_value(COLUMNS[column], text, column), text)
        if also:
            conditions.append(added)
        else:
            mine = [i for i, c in enumerate(conditions) if c.column == column and c.op == "eq"]
            at = mine[0] if mine else len(conditions)
            conditions = [c for i, c in enumerate(conditions) if i not in mine]
            if added is not None:
                conditions.insert(at, added)
        return replace(self, conditions=tuple(dict.fromkeys(conditions)), page=None)

    def without(self, condition: Condition) -> "GameFilter":
        return replace(self, conditions=tuple(c for c in self.conditions if c != condition), page=None)

    def sorted_by(self, key: str) -> str:
        """The query string of this list sorted by `key`: its other direction when it is already
        the sort, else high first for numbers and low first for names."""
        if key == self.sort:
            order = "asc" if self.order == "desc" else "desc"
        else:
            order = "asc" if key in ("game_id", "winner") or COLUMNS[key].kind == "text" else "desc"
        return self.query(sort=key, order=order, page=None)

    # ------------------------------------------------------------------ SQL

    @property
    def order_by(self) -> str:
        direction = "DESC" if self.order == "desc" else "ASC"
        if self.sort == "game_id":
            return f"game_id {direction}"
        return f"{ident(self.sort)} {direction} NULLS LAST, game_id"

    def where(self, literals: bool = False, params: dict | None = None) -> tuple[list[str], dict]:
        """The filter's SQL conditions and their parameters: values bound as $f0, $f1, ... (added
        to `params` when given) or, with `literals`, written in (for the SQL page)."""
        value = self._values(literals, {} if params is None else params)
        out = [self._column_condition(column, value) for column in dict.fromkeys(c.column for c in self.conditions)]
        out += self._always(value)
        return out, value.params

    @staticmethod
    def _values(literals: bool, params: dict):
        """A function that writes a value into SQL: a parameter added to `params`, or a literal."""
        def value(v) -> str:
            if literals:
                return literal(v)
            name = f"f{len(params)}"
            params[name] = v
            return f"${name}"

        value.params = params
        return value

    def _always(self, value) -> list[str]:
        """The conditions of no column's facet (`policy`, `ended`), which every count keeps."""
        out = []
        if self.policies:
            out.append(f"list_sort(policies) = list_sort({value(list(self.policies))})")
        if self.ended:
            out.append("outcome IN ('win', 'draw')")
        return out

    def _column_condition(self, column: str, value) -> str:
        """`column`'s condition: any of its values (a list column: holds any), and every bound."""
        col = COLUMNS[column]
        parts = []
        chosen = self.chosen(column)
        if chosen:
            if col.depth:
                parts.append("(" + " OR ".join(f"list_contains({ident(column)}, {value(c.value)})" for c in chosen) + ")")
            elif len(chosen) == 1:
                parts.append(f"{ident(column)} = {value(chosen[0].value)}")
            else:
                parts.append(f"{ident(column)} IN ({', '.join(value(c.value) for c in chosen)})")
        for c in self.conditions:
            if c.column == column and c.op != "eq":
                parts.append(f"{ident(column)} {OPS[c.op]} {value(c.value)}")
        return " AND ".join(parts)

    def _where_sql(self) -> tuple[str, dict]:
        conditions, params = self.where()
        return ("\nWHERE " + "\n  AND ".join(conditions)) if conditions else "", params

    def select_list(self, every: bool = False) -> str:
        return "*" if every else ", ".join(ident(c.key) for c in self.shown)

    def list_sql(self) -> tuple[str, dict]:
        """A page of the list, in its columns, and its parameters."""
        where, params = self._where_sql()
        return (f"SELECT {self.select_list()} FROM games{where}\nORDER BY {self.order_by}\nLIMIT $limit OFFSET $offset",
                {**params, "limit": self.size, "offset": self.offset})

    def export_sql(self) -> tuple[str, dict]:
        """The games that pass the filter, in the list's order, in the columns chosen (every
        column when none is); a page of them when the request named one (`paged`), else all."""
        where, params = self._where_sql()
        sql = f"SELECT {self.select_list(self.columns is None)} FROM games{where}\nORDER BY {self.order_by}"
        if self.paged:
            return sql + "\nLIMIT $limit OFFSET $offset", {**params, "limit": self.size, "offset": self.offset}
        return sql, params

    def count_sql(self) -> tuple[str, dict]:
        """How many games pass the filter (`n`)."""
        where, params = self._where_sql()
        return f"SELECT count(*) AS n FROM games{where}", params

    def facet_sql(self) -> tuple[str, dict]:
        """The games per value of each facet, each counted under every filter but its own (so
        the counts say what choosing another value would give), and the total (facet ''), in
        one statement: each facet's FACET_SIZE values of most games (`rank` 1, 2, ...: most games
        first, then lowest value) and its chosen ones, with how many values it has (`n_values`).
        A list column counts the games whose list holds each value."""
        facets = self.faceted
        value = self._values(False, {})
        params = value.params
        always = self._always(value)
        flags = {column: self._column_condition(column, value)
                 for column in dict.fromkeys(c.column for c in self.conditions)}
        flag_of = {column: f"flag_{i}" for i, column in enumerate(flags)}
        selected = ", ".join(ident(f) for f in facets)
        flag_sql = "".join(f",\n         {sql} AS {flag_of[column]}" for column, sql in flags.items())
        where = f"\n  WHERE {' AND '.join(always)}" if always else ""

        def others(column: str | None) -> str:
            return " AND ".join(flag for c, flag in flag_of.items() if c != column) or "true"

        ranks = "row_number() OVER (ORDER BY count(*) DESC, {0}) AS rank, count(*) OVER () AS n_values"
        parts = [f"SELECT '' AS facet, NULL AS value, count(*) AS games, 1 AS rank, 1 AS n_values FROM g "
                 f"WHERE {others(None)}"]
        keep = []
        for i, column in enumerate(facets):
            name = ident(column)
            if COLUMNS[column].depth:  # the games whose list holds each value
                parts.append(f"SELECT '{column}', CAST(v AS VARCHAR), count(*), {ranks.format('v')} FROM "
                             f"(SELECT unnest(list_distinct({name})) AS v FROM g WHERE {others(column)}) "
                             f"WHERE v IS NOT NULL GROUP BY v")
            else:
                parts.append(f"SELECT '{column}', CAST({name} AS VARCHAR), count(*), {ranks.format(name)} "
                             f"FROM g WHERE {others(column)} AND {name} IS NOT NULL GROUP BY {name}")
            params[f"chosen{i}"] = [value_text(c.value) for c in self.chosen(column)]
            keep.append(f"(facet = '{column}' AND list_contains($chosen{i}, value))")
        params["facet_size"] = FACET_SIZE
        sql = (f"WITH g AS (\n  SELECT {selected}{flag_sql}\n  FROM games{where}\n)\n"
               "SELECT * FROM (\n  " + "\n  UNION ALL ".join(parts) + "\n)\n"
               f"WHERE rank <= $facet_size OR {' OR '.join(keep)}")
        return sql, params

    def as_sql(self) -> str:
        """The games of this list as SQL with its values written in, for the SQL page."""
        conditions, _ = self.where(literals=True)
        where = ("\nWHERE " + "\n  AND ".join(conditions)) if conditions else ""
        return f"SELECT *\nFROM games{where}\nORDER BY {self.order_by}"


# ---------------------------------------------------------------------------- parsing


def bad(message: str) -> HTTPException:
    return HTTPException(400, message)


def said(text: str) -> str:
    """A value as a message quotes it, cut."""
    return repr(text if len(text) <= 60 else text[:59] + "…")


def parse_value(col: Column, text: str, name: str, depth: int | None = None):
    """The value `text` gives `col` (its list's element for a list column), or 400 naming `name`."""
    depth = col.depth - (1 if col.depth else 0) if depth is None else depth
    if depth:  # an element of a list of lists: a JSON list of values
        try:
            items = json.loads(text)
        except ValueError:
            items = None
        if not isinstance(items, list):
            raise bad(f"{name} takes a list of {_kinds(col.kind)} in brackets ([3, 4]), not {said(text)}")
        return [parse_value(col, json.dumps(v) if not isinstance(v, str) else v, name, depth - 1) for v in items]
    if col.kind == "int":
        if not re.fullmatch(r"-?[0-9]{1,20}", text) or not INT_RANGE[0] <= int(text) <= INT_RANGE[1]:
            raise bad(f"{name} takes a whole number, not {said(text)}")
        return int(text)
    if col.kind == "bool":
        if text not in ("true", "false"):
            raise bad(f"{name} takes true or false, not {said(text)}")
        return text == "true"
    if len(text) > MAX_VALUE_CHARS:
        raise bad(f"{name} takes at most {MAX_VALUE_CHARS} characters")
    return text


def _kinds(kind: str) -> str:
    return {"int": "whole numbers", "bool": "true or false", "text": "text"}[kind]


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


def _policies(query, known: set[str]) -> tuple[str, ...] | None:
    values = [v.strip() for v in query.getlist("policy") if v.strip()]
    if not values:
        return None
    if len(values) > MAX_POLICIES:
        raise bad(f"policy is given at most {MAX_POLICIES} times (one a seat)")
    for v in values:
        if v not in known:
            raise bad(f"policy {said(v)} is no seat's policy in this dataset")
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
               "winner": {str(s) for s in range(players)}}
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
            raise bad(f"{column} must be one of: {', '.join(sorted(allowed[column]))}")
        out.append(Condition(column, op, parse_value(col, text, name, None if op == "eq" else 0), text))
    if len(out) > MAX_CONDITIONS:
        raise bad(f"a list takes at most {MAX_CONDITIONS} filter values")
    return tuple(dict.fromkeys(out))


def parse_filter(query, infos: list[RuleSetInfo], players: int, most: int = MAX_PER_PAGE) -> GameFilter:
    """The filter a request's query string asks for (`most` games a page at most: an export may
    ask for more than the list shows); HTTP 400 for a parameter it does not know or any value
    outside its range."""
    known_policies = {p for r in infos for s in r.seatings for p in s}
    return GameFilter(
        conditions=_conditions(query, infos, players),
        policies=_policies(query, known_policies),
        ended=True if _choice(query, "ended", ("true",)) else None,
        sort=_choice(query, "sort", SORTS) or "battles",
        order=_choice(query, "order", ("asc", "desc")) or "desc",
        page=_int(query, "page", 1, 10**7),
        per_page=_int(query, "per_page", 1, most),
        columns=_columns(query),
        facets=_facets(query),
    )


# ---------------------------------------------------------------------------- the page


@dataclass
class FacetValue:
    value: str
    text: str
    games: int
    selected: bool
    href: str                # the list with this value chosen (or, chosen, cleared)
    also: str | None = None  # the list with this value added to those chosen (any of them)


@dataclass
class Facet:
    """A facet as the page shows it: its column, its values, how many values it has, and the
    list without it (a facet asked for) or None (one always shown)."""

    column: str
    values: list[FacetValue]
    count: int
    remove: str | None

    @property
    def cut(self) -> bool:
        """Whether it shows only its values of most games."""
        return self.count > len([v for v in self.values if v.games])


def facets(f: GameFilter, rows: list[dict], infos: list[RuleSetInfo], players: int) -> list[Facet]:
    """Each facet's values with their counts (facet_sql's rows): variant, rule set, outcome and
    winner in the dataset's order, every other facet's of most games first; each a link to the
    list with that value chosen, or, for a value chosen, with it cleared."""
    known = {
        "variant": [(v, v) for v in dict.fromkeys(r.variant for r in infos)],
        "rule_set": [(r.name, r.name) for r in infos],
        "outcome": [(o, o) for o in OUTCOMES],
        "winner": [(str(s), f"seat {s}") for s in range(players)],
    }
    out = []
    for column in f.faceted:
        mine = [r for r in rows if r["facet"] == column]
        counts = {r["value"]: r["games"] for r in mine}
        chosen = {value_text(c.value): c for c in f.chosen(column)}
        if column in known:
            listed = known[column] + [(v, v) for v in counts if v not in dict(known[column])]
        else:
            listed = [(r["value"], r["value"]) for r in sorted(mine, key=lambda r: r["rank"])]
            listed += [(v, v) for v in chosen if v not in counts]
        shown = []
        for value, text in listed:
            n = counts.get(value, 0)
            selected = value in chosen
            if not (n or selected):
                continue
            if selected:
                href = "/games?" + f.without(chosen[value]).query()
                also = None
            else:
                href = "/games?" + f.choosing(column, value).query()
                also = "/games?" + f.choosing(column, value, also=True).query() if chosen else None
            shown.append(FacetValue(value, text, n, selected, href, also))
        count = mine[0]["n_values"] if mine else 0
        remove = None if column in FACETS else "/games?" + f.query(facets=tuple(x for x in f.facets if x != column))
        out.append(Facet(column, shown, count, remove))
    return out


def total_of(rows: list[dict]) -> int:
    """How many games pass the whole filter (facet_sql's total row)."""
    return next((r["games"] for r in rows if r["facet"] == ""), 0)


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


def next_page(f: GameFilter, total: int, path: str = "/games.json") -> str | None:
    """The address of the page after this one of an export, None on the last (or unpaged)."""
    if not f.paged or f.number * f.size >= total:
        return None
    return f"{path}?" + f.query(page=f.number + 1, per_page=f.size)


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
