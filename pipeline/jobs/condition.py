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


# How DuckDB binds the SQL value functions written without brackets (parsed as column names).
VALUE_FUNCTIONS = {"current_timestamp": "get_current_timestamp", "current_time": "get_current_time",
                   "localtime": "current_localtime", "localtimestamp": "current_localtimestamp",
                   "current_date": "current_date"}
STABILITY = {"VOLATILE": "volatile: another value at each call",
             "CONSISTENT_WITHIN_QUERY": "the same within one query only"}


def refuse_changing(condition: str, param: str, columns) -> None:
    """Refuse (QueryError) a condition (one_condition's text) that calls a function whose value
    DuckDB does not hold the same from one run to the next (its `duckdb_functions()` stability
    is not CONSISTENT: `random()`, `uuid()`, `now()`, `current_timestamp`; a macro, by what it
    calls), naming the function: a condition that chooses games must choose the same games in
    every run, or a run and its validation disagree. `columns` are the condition's own columns
    (a name that is none of them is looked up as a function: `current_date`)."""
    import duckdb

    from .query.reads import parse_tree

    con = duckdb.connect()
    try:
        con.execute("SET enable_external_access = false")
        own = {c.lower() for c in columns}
        tree = parse_tree(f"SELECT {condition}")
        if tree is None:  # the condition was parsed before: not expected
            raise QueryError(f"`{param}` {condition!r} does not parse", params=(param,))
        for name, args in _called(tree, own):
            why = _changing(con, name, args, set())
            if why is not None:
                raise QueryError(f"`{param}` {condition!r} calls {why}: a condition that chooses games must choose "
                                 f"the same ones in every run (and in its validation)", params=(param,))
    except duckdb.Error as err:  # the condition was parsed before: not expected
        raise QueryError(f"`{param}` {condition!r}: {' '.join(str(err).split())}", params=(param,)) from None
    finally:
        con.close()


def _called(node, own: set[str]):
    """The functions a parsed expression (json_serialize_sql's tree) calls, (name, arguments)
    each: function nodes, and names that are not columns (DuckDB binds them as functions)."""
    if isinstance(node, list):
        for item in node:
            yield from _called(item, own)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("class")
    if kind in ("FUNCTION", "WINDOW") and isinstance(node.get("function_name"), str):
        yield node["function_name"].lower(), len(node.get("arguments") or node.get("children") or [])
    elif kind == "COLUMN_REF":
        names = node.get("column_names") or []
        if len(names) == 1 and names[0].lower() not in own:
            yield names[0].lower(), 0
    for value in node.values():
        if isinstance(value, (dict, list)):
            yield from _called(value, own)


def _changing(con, name: str, args: int, seen: set[str]) -> str | None:
    """Why the function `name` called with `args` arguments may give another value in another
    run ("random() (volatile: ...)"), or None: DuckDB's stability of its overloads of that many
    parameters (of every overload when none has), a macro by the functions it calls."""
    from .query.reads import parse_tree

    if name in seen:
        return None
    seen.add(name)
    if VALUE_FUNCTIONS.get(name, name) != name:  # written without brackets: a function of another name
        why = _changing(con, VALUE_FUNCTIONS[name], args, seen)
        return None if why is None else why.replace(f"{VALUE_FUNCTIONS[name]}()", name, 1)
    rows = con.execute("SELECT parameters, varargs, stability, function_type, macro_definition "
                       "FROM duckdb_functions() WHERE lower(function_name) = ? "
                       "AND function_type IN ('scalar', 'macro', 'aggregate')", [name]).fetchall()
    fitting = [r for r in rows if len(r[0] or []) == args or (r[1] is not None and len(r[0] or []) <= args)] or rows
    for _, _, stability, kind, definition in fitting:
        if kind == "macro" and definition:
            for inner, inner_args in _called(parse_tree(f"SELECT {definition}") or {}, set()):
                why = _changing(con, inner, inner_args, seen)
                if why is not None:
                    return f"{name}(), which calls {why}"
    stabilities = {r[2] for r in fitting if r[3] != "macro"}
    if not stabilities:
        return None
    if "VOLATILE" in stabilities:
        return f"{name}() ({STABILITY['VOLATILE']})"
    if "CONSISTENT" not in stabilities:
        worst = next((s for s in stabilities if s in STABILITY), None)
        return f"{name}() ({STABILITY.get(worst, 'not the same in every run')})"
    return None
