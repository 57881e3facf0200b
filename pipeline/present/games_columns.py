"""The columns of the `games` view as the games list knows them (COLUMNS, each named as the view
names it, the only text of a request that reaches SQL: `ident`), and their values: a URL's text
read as a column's value, checked against its type (HTTP 400 otherwise, one line naming the
parameter: `parse_value`), and a value written back as DuckDB casts it to text (`value_text`,
a facet's value) or as an SQL literal (`literal`, the SQL page's)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from starlette.exceptions import HTTPException

MAX_VALUE_CHARS = 1000
OUTCOMES = ("win", "draw", "capped", "cycle")


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
