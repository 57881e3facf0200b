"""A games list's filter (GameFilter), the whole state of a list: its conditions on any column
of the games view, the legacy `policy` and `ended`, the sort, the page, the columns shown and the
facets asked for. Every field is a query parameter, defaults left out, so a list's URL is its
permalink: the filter writes its own links (`query`, `choosing`, `without`, `sorted_by`).
games_request reads one from a request, games_sql writes the SQL that answers it."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from urllib.parse import urlencode

from .games_columns import COLUMNS, DEFAULT_COLUMNS, Column, parse_value

PER_PAGE = 50
FACETS = ("variant", "rule_set", "outcome", "winner")  # always shown
OPS = {"eq": "=", "gte": ">=", "lte": "<=", "gt": ">", "lt": "<"}


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
