"""A condition a person gives on the command line (`--where`, `--keep`), made one SQL expression
before it is put in a query, so it cannot close its bracket or add a statement."""

from __future__ import annotations

from ..errors import QueryError


def one_condition(where: str, param: str = "where",
                  over: str = "the games view, such as battles > 500") -> str:
    """`where` as one SQL expression, written back from DuckDB's parse of it: a text that is not
    exactly one expression (one that closes the bracket it is put in, adds a UNION, holds two
    statements or an ORDER BY) is refused, so the query that chooses games is always a plain
    SELECT of the games view. `param` and `over` name the argument and what it is over."""
    if not where or not where.strip():
        raise QueryError(f"`{param}` must choose games: a condition over {over}", params=(param,))
    import duckdb  # lazy: DuckDB costs every `war generate` 0.1 s to import

    try:
        return str(duckdb.SQLExpression(where))
    except (duckdb.Error, ValueError) as err:
        reason = " ".join(str(err).split()).replace("Parser Error: ", "").replace("Invalid Input Error: ", "")
        raise QueryError(f"`{param}` must be one condition over {over}: {reason}", params=(param,)) from None
