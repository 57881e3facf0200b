"""The SQL that answers a games list's filter (games_filter.GameFilter), over the `games` view: a
page of the list in its columns (`list_sql`), the games of an export (`export_sql`) and their
count (`count_sql`), the facets' counts and the total in one statement (`facet_sql`), and the
same filter with its values written in for the SQL page (`as_sql`). Values are bound as
parameters, never pasted into SQL; a column's name reaches SQL only from COLUMNS (`ident`)."""

from __future__ import annotations

from .games_columns import COLUMNS, ident, literal, value_text
from .games_filter import OPS, GameFilter

FACET_SIZE = 30  # values a facet shows, those of most games first


def order_by(f: GameFilter) -> str:
    direction = "DESC" if f.order == "desc" else "ASC"
    if f.sort == "game_id":
        return f"game_id {direction}"
    return f"{ident(f.sort)} {direction} NULLS LAST, game_id"


def sql_conditions(f: GameFilter, literals: bool = False, params: dict | None = None) -> tuple[list[str], dict]:
    """The filter's SQL conditions and their parameters: values bound as $f0, $f1, ... (added
    to `params` when given) or, with `literals`, written in (for the SQL page)."""
    value = _values(literals, {} if params is None else params)
    out = [_column_condition(f, column, value) for column in dict.fromkeys(c.column for c in f.conditions)]
    out += _always(f, value)
    return out, value.params


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


def _always(f: GameFilter, value) -> list[str]:
    """The conditions of no column's facet (`policy`, `ended`), which every count keeps."""
    out = []
    if f.policies:
        out.append(f"list_sort(policies) = list_sort({value(list(f.policies))})")
    if f.ended:
        out.append("outcome IN ('win', 'draw')")
    return out


def _column_condition(f: GameFilter, column: str, value) -> str:
    """`column`'s condition: any of its values (a list column: holds any), and every bound."""
    col = COLUMNS[column]
    parts = []
    chosen = f.chosen(column)
    if chosen:
        if col.depth:
            parts.append("(" + " OR ".join(f"list_contains({ident(column)}, {value(c.value)})" for c in chosen) + ")")
        elif len(chosen) == 1:
            parts.append(f"{ident(column)} = {value(chosen[0].value)}")
        else:
            parts.append(f"{ident(column)} IN ({', '.join(value(c.value) for c in chosen)})")
    for c in f.conditions:
        if c.column == column and c.op != "eq":
            parts.append(f"{ident(column)} {OPS[c.op]} {value(c.value)}")
    return " AND ".join(parts)


def _where_sql(f: GameFilter) -> tuple[str, dict]:
    conditions, params = sql_conditions(f)
    return ("\nWHERE " + "\n  AND ".join(conditions)) if conditions else "", params


def select_list(f: GameFilter, every: bool = False) -> str:
    return "*" if every else ", ".join(ident(c.key) for c in f.shown)


def list_sql(f: GameFilter) -> tuple[str, dict]:
    """A page of the list, in its columns, and its parameters."""
    where, params = _where_sql(f)
    return (f"SELECT {select_list(f)} FROM games{where}\nORDER BY {order_by(f)}\nLIMIT $limit OFFSET $offset",
            {**params, "limit": f.size, "offset": f.offset})


def export_sql(f: GameFilter) -> tuple[str, dict]:
    """The games that pass the filter, in the list's order, in the columns chosen (every
    column when none is); a page of them when the request named one (`paged`), else all."""
    where, params = _where_sql(f)
    sql = f"SELECT {select_list(f, f.columns is None)} FROM games{where}\nORDER BY {order_by(f)}"
    if f.paged:
        return sql + "\nLIMIT $limit OFFSET $offset", {**params, "limit": f.size, "offset": f.offset}
    return sql, params


def count_sql(f: GameFilter) -> tuple[str, dict]:
    """How many games pass the filter (`n`)."""
    where, params = _where_sql(f)
    return f"SELECT count(*) AS n FROM games{where}", params


def facet_sql(f: GameFilter) -> tuple[str, dict]:
    """The games per value of each facet, each counted under every filter but its own (so
    the counts say what choosing another value would give), and the total (facet ''), in
    one statement: each facet's FACET_SIZE values of most games (`rank` 1, 2, ...: most games
    first, then lowest value) and its chosen ones, with how many values it has (`n_values`).
    A list column counts the games whose list holds each value."""
    facets = f.faceted
    value = _values(False, {})
    params = value.params
    always = _always(f, value)
    flags = {column: _column_condition(f, column, value)
             for column in dict.fromkeys(c.column for c in f.conditions)}
    flag_of = {column: f"flag_{i}" for i, column in enumerate(flags)}
    selected = ", ".join(ident(column) for column in facets)
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
        params[f"chosen{i}"] = [value_text(c.value) for c in f.chosen(column)]
        keep.append(f"(facet = '{column}' AND list_contains($chosen{i}, value))")
    params["facet_size"] = FACET_SIZE
    sql = (f"WITH g AS (\n  SELECT {selected}{flag_sql}\n  FROM games{where}\n)\n"
           "SELECT * FROM (\n  " + "\n  UNION ALL ".join(parts) + "\n)\n"
           f"WHERE rank <= $facet_size OR {' OR '.join(keep)}")
    return sql, params


def as_sql(f: GameFilter) -> str:
    """The games of this list as SQL with its values written in, for the SQL page."""
    conditions, _ = sql_conditions(f, literals=True)
    where = ("\nWHERE " + "\n  AND ".join(conditions)) if conditions else ""
    return f"SELECT *\nFROM games{where}\nORDER BY {order_by(f)}"
